#!/usr/bin/python3
"""studies/sgprstop/compare.py: two runs of the same SGPR fits (traces of
BenchmarkSGPRMLII with KML_SGPR_TRACE=1) side by side: per data set the
evaluations, iterations and final bound of each, and the changes of the
hyperparameters (log σ, log ℓ1; log a and log ℓ2, which trade along a
ridge, and log a − log ℓ2, the slope of x2's linear part that the ridge
keeps fixed) from the first run's optimum to the second's.

    /usr/bin/python3 studies/sgprstop/compare.py BEFORE AFTER
"""
import sys


def load(path):
    runs = {}
    evals = {}
    for line in open(path):
        f = line.split()
        if f and f[0] == "trace":
            n, seed, it, ev = int(f[1]), int(f[2]), int(f[3]), int(f[4])
            runs[(n, seed)] = (it, float(f[5]), [float(v) for v in f[7:]], float(f[6]))
        if f and f[0].startswith("BenchmarkSGPRMLII/") and "evals" in f:
            n = int(f[0].split("/")[1][2:])
            seed = int(f[0].split("/")[2].split("-")[0][5:])
            evals[(n, seed)] = int(float(f[f.index("evals") - 1]))
    return runs, evals


a, ea = load(sys.argv[1])
b, eb = load(sys.argv[2])
print("| n | data | evaluations before → after | iterations | bound before | bound after − before | max abs gradient before, after | Δ log σ | Δ log ℓ1 | Δ log a | Δ log ℓ2 | Δ(log a − log ℓ2) |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
tot = [0, 0]
for key in sorted(a):
    if key not in b:
        continue
    (ia, fa, ta, ga), (ib, fb, tb, gb) = a[key], b[key]
    d = [tb[i] - ta[i] for i in range(len(ta))]
    tot[0] += ea.get(key, 0)
    tot[1] += eb.get(key, 0)
    print(f"| {key[0]} | {key[1]} | {ea.get(key)} → {eb.get(key)} | {ia} → {ib} | {fa:.10g} | {fb - fa:.2g} | {ga:.2g}, {gb:.2g} | "
          f"{d[9]:.2g} | {d[0]:.2g} | {d[8]:.2g} | {d[1]:.2g} | {d[8] - d[1]:.2g} |")
print(f"\nevaluations in all: {tot[0]} → {tot[1]}")
