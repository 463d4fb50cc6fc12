package causal

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/ktest"
)

// nonlinearDAG simulates x_v = Σ_{p ∈ pa(v)} f(x_p) + e with f(u) = tanh(2u)
// + u/2 (monotone, nonlinear) and e uniform on (−0.6, 0.6) for a non-root
// (non-Gaussian), N(0, 1) for a root.
func nonlinearDAG(r *rand.Rand, g dag, n int) *mat.Dense {
	order := topo(g)
	x := mat.NewDense(n, len(g), nil)
	for i := 0; i < n; i++ {
		for _, v := range order {
			val := r.NormFloat64()
			if len(g[v]) > 0 {
				val = 1.2 * (r.Float64() - 0.5)
			}
			for _, p := range g[v] {
				u := x.At(i, p)
				val += math.Tanh(2*u) + u/2
			}
			x.Set(i, v, val)
		}
	}
	return x
}

// PC with the GP-residual HSIC test on nonlinear non-Gaussian data from a
// chain, a fork and a collider (n = 100, α = 0.05, median heuristic, gamma
// null, 8 seeded replications each): the CPDAG (skeleton, and the
// collider's orientation) in most replications — at least 6 of 8; found
// 7, 8 and 8 of 8. On 1 and 2 workers the graph is the same.
func TestPCKernelNonlinear(t *testing.T) {
	test := KernelTest{KX: KernelSpec{Choice: ktest.ChoiceMedian}, KY: KernelSpec{Choice: ktest.ChoiceMedian},
		Method: ktest.Gamma, Settings: ktest.Settings{Workers: 1}}
	for _, c := range []struct {
		name string
		g    dag
	}{{"chain", dag{{}, {0}, {1}}}, {"fork", dag{{1}, {}, {1}}}, {"collider", dag{{}, {0, 2}, {}}}} {
		want := marks(c.g.cpdag())
		ok := 0
		for rep := 0; rep < 8; rep++ {
			r := rand.New(rand.NewPCG(uint64(rep), 0x706b))
			data := nonlinearDAG(r, c.g, 100)
			var first string
			for _, w := range []int{1, 2} {
				res, err := PC(context.Background(), 3, test.ForPC(data, uint64(rep), nil), Settings{Alpha: 0.05, MaxCond: -1, Workers: w})
				if err != nil {
					t.Fatal(err)
				}
				got := fmt.Sprint(res.Arrow, res.Removed)
				if w == 1 {
					first = got
					if marks(res.Arrow) == want {
						ok++
					}
				} else if got != first {
					t.Errorf("%s rep %d: 1 worker %s, 2 workers %s", c.name, rep, first, got)
				}
			}
		}
		t.Logf("%s: %d/8 recovered", c.name, ok)
		if ok < 6 {
			t.Errorf("%s: the CPDAG in %d of 8 replications", c.name, ok)
		}
	}
}
