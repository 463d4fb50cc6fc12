package dpm

import (
	"fmt"
	"math"
	"runtime"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/internal/par"
	"github.com/kml-lang/kml/runtime/kernels"
)

// Dim is the input dimension.
func (m *Model) Dim() int { return m.d }

// Samples is the number of kept sweeps the density averages over.
func (m *Model) Samples() int { return len(m.samples) }

// blockRows is the number of query points per parallel block; blocks are
// fixed, so the values do not depend on the number of cores.
const blockRows = 32

// LogPDF writes the log posterior predictive density of each row of x:
// log (1/S) Σ_s Σ_c w_sc t_sc(x), summed in log space.
func (m *Model) LogPDF(dst []float64, x *mat.Dense) error {
	if x == nil || x.IsEmpty() {
		return fmt.Errorf("no points given")
	}
	r, c := x.Dims()
	if c != m.d {
		return fmt.Errorf("the points have %d columns but the density was fitted to %d", c, m.d)
	}
	if len(dst) != r {
		panic(fmt.Sprintf("dpm: %d outputs for %d points", len(dst), r))
	}
	if err := kernels.CheckData(x, "the points"); err != nil {
		return err
	}
	ls := math.Log(float64(len(m.samples)))
	par.Blocks(r, blockRows, runtime.GOMAXPROCS(0), func(_, i0, i1 int) {
		work := make([]float64, m.d)
		var terms []float64
		for i := i0; i < i1; i++ {
			xi := x.RawRowView(i)
			terms = terms[:0]
			top := math.Inf(-1)
			for _, s := range m.samples {
				for _, cp := range s {
					v := cp.logw + cp.c.logPred(xi, work)
					terms = append(terms, v)
					top = max(top, v)
				}
			}
			sum := 0.0
			for _, v := range terms {
				sum += math.Exp(v - top)
			}
			dst[i] = top + math.Log(sum) - ls
		}
	})
	return nil
}
