#!/usr/bin/python3
"""studies/fig2c/summarize.py OUT [--markdown]: the Figure 2C table from run.sh's chunks.

Reads every OUT/*.jsonl (one JSON line per replication, finished or not),
and prints per ε the number of replications done, each rule's rejection
rate at α with its binomial standard error sqrt(r(1 - r)/n), the range of
the chosen lengthscales, the count of fragile BKL choices, and the CPU time
of the finished chunks (user + system, from /usr/bin/time). --markdown
prints the rates as the table of docs/language.md instead.
"""
import glob
import json
import math
import os
import sys

RULES = ["median", "bkl", "bayes", "aggregate", "opt"]


def main(out, markdown=False, csv_path=None):
    rows = {}
    for path in sorted(glob.glob(os.path.join(out, "*.jsonl"))):
        with open(path) as f:
            for line in f:
                line = line.strip()
                if line.startswith("{"):
                    r = json.loads(line)
                    rows[(r["eps"], r["rep"])] = r
    cpu, wall, chunks, reps_timed = 0.0, 0.0, 0, 0
    for path in glob.glob(os.path.join(out, "*.time")):
        with open(path) as f:
            fields = f.read().split()
        base = path[: -len(".time")]
        if len(fields) >= 3 and os.path.exists(base + ".done"):
            try:
                cpu += float(fields[-3]) + float(fields[-2])
                wall += float(fields[-1])
            except ValueError:
                continue
            chunks += 1
            with open(base + ".jsonl") as f:
                reps_timed += sum(1 for l in f if l.startswith("{"))
    eps = sorted({e for e, _ in rows})
    if not eps:
        print("no replications yet")
        return
    alpha = next(iter(rows.values()))["alpha"]
    perms = next(iter(rows.values()))["permutations"]
    if csv_path:
        # eps, then each rule's rate and its SE, for plot.kml.
        with open(csv_path, "w") as f:
            f.write("eps,reps," + ",".join(f"{r},{r}_se" for r in RULES) + "\n")
            for e in eps:
                rs = [rows[k] for k in sorted(rows) if k[0] == e]
                n = len(rs)
                cells = []
                for rule in RULES:
                    rate = sum(1 for r in rs if r["p_" + rule] <= alpha) / n
                    cells += [f"{rate:.6g}", f"{math.sqrt(rate * (1 - rate) / n):.6g}"]
                f.write(f"{e:g},{n}," + ",".join(cells) + "\n")
        return
    if markdown:
        print("| ε | reps | " + " | ".join(RULES) + " |")
        print("|---|---|" + "---|" * len(RULES))
        for e in eps:
            rs = [rows[k] for k in sorted(rows) if k[0] == e]
            n = len(rs)
            cells = []
            for rule in RULES:
                rate = sum(1 for r in rs if r["p_" + rule] <= alpha) / n
                se = math.sqrt(rate * (1 - rate) / n)
                cells.append(f"{rate:.2f} ± {se:.2f}" if se > 0 else f"{rate:g}")
            print(f"| {e:g} | {n} | " + " | ".join(cells) + " |")
        return
    print(f"Figure 2C: MMD rejection rate at alpha = {alpha}, {perms} permutations, 900 + 900 points")
    print("rate ± SE, SE = sqrt(r(1 - r)/n); ell: range over replications (bayes: of the draws' mean)")
    head = f"{'eps':>5} {'n':>4}" + "".join(f" {r:>12}" for r in RULES)
    head += f" {'median ell':>11} {'bkl ell':>11} {'bayes ell':>11} {'opt ell':>11} {'fragile':>7}"
    print(head)
    for e in eps:
        rs = [rows[k] for k in sorted(rows) if k[0] == e]
        n = len(rs)
        line = f"{e:>5g} {n:>4}"
        for rule in RULES:
            rate = sum(1 for r in rs if r["p_" + rule] <= alpha) / n
            se = math.sqrt(rate * (1 - rate) / n)
            line += f" {rate:>5.2f} ± {se:.2f}" if se > 0 else f" {rate:>12.2f}"
        def rng(key):
            v = [r[key] for r in rs]
            return f"{min(v):.2f}–{max(v):.2f}"
        line += f" {rng('ell_median'):>11} {rng('ell_bkl'):>11} {rng('ell_bayes_mean'):>11} {rng('ell_opt'):>11}"
        line += f" {sum(1 for r in rs if r['bkl_fragile']):>7}"
        print(line)
    r0 = next(iter(rows.values()))
    print(f"bkl settings: m = {r0['bkl_landmarks']:g}, tau2 = {r0['bkl_tau2']:g}, {r0['bkl_draws']:g} landmark draws")
    if chunks:
        bay = sum(r["bayes_seconds"] for r in rows.values())
        print(f"CPU: {cpu:.0f} s in {chunks} finished chunks ({reps_timed} replications, "
              f"{cpu / max(reps_timed, 1):.2f} s per replication of the five tests; "
              f"wall {wall:.0f} s summed over chunks); NUTS in bayes: {bay:.0f} s wall over "
              f"{len(rows)} replications")
    for name in ("uptime.start", "uptime.end"):
        p = os.path.join(out, name)
        if os.path.exists(p):
            print(name + ":", open(p).read().strip())


if __name__ == "__main__":
    argv = sys.argv[1:]
    csv_path = None
    if "--csv" in argv:
        i = argv.index("--csv")
        csv_path = argv[i + 1]
        del argv[i : i + 2]
    args = [a for a in argv if a != "--markdown"]
    main(args[0] if args else ".", "--markdown" in argv, csv_path)
