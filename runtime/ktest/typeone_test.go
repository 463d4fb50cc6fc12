package ktest

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/internal/fulltest"
	"github.com/kml-lang/kml/runtime/kernels"
)

// The type-I table of issue 40: every test added for it (KSD, dHSIC, the
// k-sample test, KCI, RCIT) run on data drawn under its null, light- and
// heavy-tailed, over typeOneReps seeded replications each, and the rate
// of rejection at α = 0.05 printed as the table docs/language.md shows.

const typeOneReps = 400

// typeOneCase is one cell of the table: a test on one kind of data under
// its null; reject runs replication rep and reports p ≤ 0.05.
type typeOneCase struct {
	test, data string
	reject     func(t *testing.T, r *rand.Rand, rep int) bool
	// allow, when not zero, replaces the 3 SE band's upper end for a
	// cell whose excess is explained (why) by evidence in another cell.
	allow float64
	why   string
	// stream names the cell's data stream (default test and data): cells
	// that compare two nulls on the same data share it.
	stream string
}

// tMat is an n×d matrix of Student-t(3) draws.
func tMat(r *rand.Rand, n, d int) *mat.Dense {
	m := mat.NewDense(n, d, nil)
	st := drawStudent(3)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			m.Set(i, j, st(r))
		}
	}
	return m
}

// ciDataT is ciData with z and both noises Student-t(3) (noise scale 0.5).
func ciDataT(r *rand.Rand, n int) (x, y, z *mat.Dense) {
	st := drawStudent(3)
	z = tMat(r, n, 2)
	x, y = mat.NewDense(n, 1, nil), mat.NewDense(n, 1, nil)
	for i := 0; i < n; i++ {
		x.Set(i, 0, math.Sin(z.At(i, 0))+0.5*st(r))
		y.Set(i, 0, z.At(i, 0)*z.At(i, 1)/2+0.5*st(r))
	}
	for _, m := range []*mat.Dense{x, y, z} {
		standardiseCols(m) // the sd 1 standardisation of causal.Standardise up to n/(n − 1)
	}
	return x, y, z
}

func medianKernel(t *testing.T, x *mat.Dense) kernels.Kernel {
	m, err := kernels.MedianHeuristic(x, 1)
	if err != nil {
		t.Fatal(err)
	}
	return rbfKernel(t, m)
}

func typeOneCases() []typeOneCase {
	var cases []typeOneCase
	type dataKind struct {
		name  string
		draw  func(r *rand.Rand) float64
		score func(float64) float64
		mat   func(r *rand.Rand, n, d int) *mat.Dense
		ci    func(r *rand.Rand, n int) (x, y, z *mat.Dense)
	}
	kinds := []dataKind{
		{"N(0, 1)", drawNormal, normalScore, randMat, func(r *rand.Rand, n int) (x, y, z *mat.Dense) { return ciData(r, n, 0) }},
		{"Student-t(3)", drawStudent(3), studentScore(3), tMat, ciDataT},
	}
	for _, k := range kinds {
		ksd := func(name string, agg bool) typeOneCase {
			return typeOneCase{test: name, data: k.name, reject: func(t *testing.T, r *rand.Rand, rep int) bool {
				const n = 200
				x, sc := mat.NewDense(n, 1, nil), mat.NewDense(n, 1, nil)
				for i := 0; i < n; i++ {
					v := k.draw(r)
					x.Set(i, 0, v)
					sc.Set(i, 0, k.score(v))
				}
				s := KSDSettings{Bootstraps: 500, Seed: uint64(rep), Workers: 1}
				var err error
				if agg {
					s.Ells, err = Collection(x, 10, uint64(rep))
				} else {
					s.Ell, err = kernels.MedianHeuristic(x, uint64(rep))
				}
				if err != nil {
					t.Fatal(err)
				}
				res, err := KSDTest(context.Background(), x, sc, s)
				if err != nil {
					t.Fatal(err)
				}
				return res.PValue <= 0.05
			}}
		}
		cases = append(cases, ksd("ksd_test, IMQ, median ℓ, n = 200, 500 bootstraps", false),
			ksd("ksd_test, IMQ, aggregate over 10 ℓ, n = 200", true))
		for _, v := range []struct {
			m     Method
			n     int
			allow float64
			why   string
		}{{Permutation, 50, 0, ""},
			{Gamma, 50, 0.11, "the gamma approximation is asymptotic: anti-conservative at n = 50 with heavy tails, within the band at n = 200"},
			{Gamma, 200, 0, ""}} {
			m, n := v.m, v.n
			cases = append(cases, typeOneCase{test: fmt.Sprintf("dhsic_test %s, d = 3 (1-, 2-, 1-D), n = %d", m, n), data: k.name, allow: v.allow, why: v.why, reject: func(t *testing.T, r *rand.Rand, rep int) bool {
				xs := []*mat.Dense{k.mat(r, n, 1), k.mat(r, n, 2), k.mat(r, n, 1)}
				ks := make([]kernels.Kernel, 3)
				for j, x := range xs {
					ks[j] = medianKernel(t, x)
				}
				res, err := DHSICTest(context.Background(), ks, xs, m, Settings{Permutations: 199, Seed: uint64(rep), Workers: 1})
				if err != nil {
					t.Fatal(err)
				}
				return res.PValue <= 0.05
			}})
		}
		cases = append(cases, typeOneCase{test: "ksample_test, 3 samples of 30 in 2-D", data: k.name, reject: func(t *testing.T, r *rand.Rand, rep int) bool {
			xs := []*mat.Dense{k.mat(r, 30, 2), k.mat(r, 30, 2), k.mat(r, 30, 2)}
			var pooled mat.Dense
			pooled.Stack(xs[0], xs[1])
			var all mat.Dense
			all.Stack(&pooled, xs[2])
			res, err := KSampleTest(context.Background(), medianKernel(t, &all), xs, Settings{Permutations: 199, Seed: uint64(rep), Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			return res.PValue <= 0.05
		}})
		cases = append(cases, typeOneCase{test: "ci_test kci, n = 150", data: k.name, reject: func(t *testing.T, r *rand.Rand, rep int) bool {
			x, y, z := k.ci(r, 150)
			res, err := KCITest(context.Background(), x, y, z, nil, nil, nil, 0, uint64(rep))
			if err != nil {
				t.Fatal(err)
			}
			return res.PValue <= 0.05
		}})
		for _, a := range []ChiSqApprox{LPB4, GammaChiSq} {
			for _, n := range []int{400, 2000} {
				cases = append(cases, typeOneCase{test: fmt.Sprintf("ci_test rcit (%s null), n = %d", a, n), data: k.name,
					stream: fmt.Sprintf("rcit %d %s", n, k.name), reject: func(t *testing.T, r *rand.Rand, rep int) bool {
						x, y, z := k.ci(r, n)
						res, err := RCITTest(context.Background(), x, y, z, 0, 0, a, uint64(rep))
						if err != nil {
							t.Fatal(err)
						}
						return res.PValue <= 0.05
					}})
			}
		}
	}
	return cases
}

// TestTypeITable runs every cell of the type-I table and fails on a rate
// more than 3 binomial SE from α (SE 0.0109 at 400 replications, so the
// band is 0.017–0.083), but for cells whose excess another cell explains
// (allow, why). It takes about 10 minutes on the shared 2-core machine,
// hence fulltest: `KML_FULL=1 go test ./runtime/ktest -run TypeITable -v`
// prints the table.
func TestTypeITable(t *testing.T) {
	fulltest.Require(t, "the type-I table: 400 replications of 22 test variants, 10 minutes on 2 cores at load 80")
	const alpha = 0.05
	se := math.Sqrt(alpha * (1 - alpha) / typeOneReps)
	cases := typeOneCases()
	rates := make([]float64, len(cases))
	// The parallel subtests of "cells" have all finished when it returns.
	t.Run("cells", func(t *testing.T) {
		for i, c := range cases {
			// Each cell's stream is named by the cell, so adding one
			// leaves the others' data as they were.
			h := fnv.New64a()
			if c.stream != "" {
				fmt.Fprint(h, c.stream)
			} else {
				fmt.Fprint(h, c.test, c.data)
			}
			seed := h.Sum64()
			t.Run(c.test+" | "+c.data, func(t *testing.T) {
				t.Parallel()
				rej := 0
				for rep := 0; rep < typeOneReps; rep++ {
					r := rand.New(rand.NewPCG(seed, uint64(rep)))
					if c.reject(t, r, rep) {
						rej++
					}
				}
				rates[i] = float64(rej) / typeOneReps
				switch {
				case c.allow > 0 && (rates[i] < alpha-3*se || rates[i] > c.allow):
					t.Errorf("rejection rate %.3f is outside %.3f–%.3f (%s)", rates[i], alpha-3*se, c.allow, c.why)
				case c.allow == 0 && math.Abs(rates[i]-alpha) > 3*se:
					t.Errorf("rejection rate %.3f is more than 3 SE (%.4f) from %.2f", rates[i], se, alpha)
				}
			})
		}
	})
	var b strings.Builder
	fmt.Fprintf(&b, "rejection rate at α = 0.05 over %d seeded replications (SE %.4f, 3 SE band %.3f–%.3f)\n\n", typeOneReps, se, alpha-3*se, alpha+3*se)
	b.WriteString("| test | N(0, 1) | Student-t(3) |\n|---|---|---|\n")
	for i := 0; i < len(cases); i++ {
		if cases[i].data != "N(0, 1)" {
			continue
		}
		for j := range cases {
			if cases[j].test == cases[i].test && cases[j].data == "Student-t(3)" {
				fmt.Fprintf(&b, "| %s | %.3f | %.3f |\n", cases[i].test, rates[i], rates[j])
			}
		}
	}
	for _, c := range cases {
		if c.why != "" && c.data == "N(0, 1)" {
			fmt.Fprintf(&b, "\n%s: allowed up to %.2f: %s\n", c.test, c.allow, c.why)
		}
	}
	t.Logf("type-I table\n%s", b.String())
}
