package gp

import (
	"fmt"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
	"github.com/kml-lang/kml/runtime/linalg"
)

// BenchmarkGPMarginalGrad times one log marginal likelihood with its
// gradient (n = 2000, D = 10, ARD rbf + white, 12 derivatives) beside one
// n×n Cholesky factorisation in the same run, the floor of the O(n³) path:
// compare the two lines' ns/op.
func BenchmarkGPMarginalGrad(b *testing.B) {
	const n, d = 2000, 10
	x, y := testData(n, d, 4)
	ell := make([]float64, d)
	for i := range ell {
		ell[i] = 2 + 0.1*float64(i)
	}
	rbf, _ := kernels.NewRBF(ell)
	w, _ := kernels.NewScaled(0.1, kernels.White{})
	k, _ := kernels.NewSum(rbf, w)
	b.Run("marginal+grad", func(b *testing.B) {
		grad := make([]float64, k.NumHyper()+1)
		for range b.N {
			if _, err := LogMarginal(k, x, y, 0.05, grad); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cholesky", func(b *testing.B) {
		g, _ := kernels.Gram(k, x)
		var ch mat.Cholesky
		for range b.N {
			if !ch.Factorize(g) {
				b.Fatal("not positive definite")
			}
		}
	})
}

// BenchmarkMultiLaplace times multi-class Laplace at n = 300, C = 10 (the
// size of examples/gp_digits_multiclass.kml): the mode and log q alone,
// and with the gradient, beside the C Cholesky factorisations of n × n
// matrices that one Newton step needs at least.
func BenchmarkMultiLaplace(b *testing.B) {
	const n, C = 300, 10
	k, x, y := multiProblem(b, n, C, 5)
	b.Run("mode", func(b *testing.B) {
		for range b.N {
			if _, _, err := MultiLaplace(k, x, y, C, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("mode+grad", func(b *testing.B) {
		grad := make([]float64, k.NumHyper())
		for range b.N {
			if _, _, err := MultiLaplace(k, x, y, C, grad); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("C-choleskys", func(b *testing.B) {
		g, _ := kernels.Gram(k, x)
		var ch mat.Cholesky
		for range b.N {
			for range C {
				if !ch.Factorize(g) {
					b.Fatal("not positive definite")
				}
			}
		}
	})
}

// BenchmarkStructuredPasses times the marginal's fill and contraction at
// the diabetes shape (n = 442, D = 10, t1·rbf(ARD) + t2·linear + t3·white,
// the RBF and linear values cached as LogMarginal caches them): the row
// passes of structured.go beside the pair-at-a-time reference kept in
// structured_ref_test.go. Run with -cpu 1 on a busy machine.
func BenchmarkStructuredPasses(b *testing.B) {
	const n, d = 442, 10
	x, y := testData(n, d, 8)
	xs := linalg.RowMajor(x)
	ell := make([]float64, d)
	for i := range ell {
		ell[i] = 0.5 + 0.2*float64(i)
	}
	rbf, _ := kernels.NewRBF(ell)
	lin, _ := kernels.NewLinear(0)
	a, _ := kernels.NewScaled(0.3, rbf)
	l, _ := kernels.NewScaled(0.03, lin)
	w, _ := kernels.NewScaled(0.2, kernels.White{})
	al, _ := kernels.NewSum(a, l)
	k, _ := kernels.NewSum(al, w)
	terms, _ := structured(k, d)
	terms[0].cache = make([]float64, n*n)
	terms[1].cache = make([]float64, n*n)
	dst := make([]float64, n*n)
	wm := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			wm[i*n+j] = y[i]*y[j] - 0.3*y[(i+j)%n]
		}
	}
	grad := make([]float64, k.NumHyper())
	noise := []float64{1e-4}
	b.Run("rows", func(b *testing.B) {
		for range b.N {
			fillSym(dst, terms, xs, n, d, noise)
			contractSym(grad, terms, xs, n, d, wm)
		}
	})
	b.Run("pairs", func(b *testing.B) {
		for range b.N {
			fillSymPairs(dst, terms, xs, n, d, noise)
			contractSymPairs(grad, terms, xs, n, d, wm)
		}
	})
}

// BenchmarkSGPR times Titsias' bound with its gradient at n = 10⁴, 3·10⁴
// and 10⁵, D = 8, m = 512 inducing points chosen by GreedyVariance on the
// first 10⁴ rows (ARD rbf, 9 derivatives plus the noise): the scaling
// table of issue 39 (time and allocated bytes per n; the slope of log
// time in log n should be near 1), and the greedy selection itself at
// n = 10⁴. Run one size with -bench SGPR/n=10000.
func BenchmarkSGPR(b *testing.B) {
	const d, m = 8, 512
	ell := []float64{0.8, 6, 6, 7, 7, 8, 8, 9}
	rbf, _ := kernels.NewRBF(ell)
	k, _ := kernels.NewScaled(1.2, rbf)
	xa, ya := testData(100000, d, 12)
	z, err := GreedyVariance(k, mat.DenseCopyOf(xa.Slice(0, 10000, 0, d)), m, 0)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("greedy/n=10000", func(b *testing.B) {
		x := mat.DenseCopyOf(xa.Slice(0, 10000, 0, d))
		for range b.N {
			if _, err := GreedyVariance(k, x, m, 0); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, n := range []int{10000, 30000, 100000} {
		x := xa.Slice(0, n, 0, d).(*mat.Dense)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			grad := make([]float64, k.NumHyper()+1)
			for range b.N {
				if _, err := SGPRLogMarginal(k, x, z, ya[:n], 0.09, grad); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSparseForms times FITC's marginal with its gradient and SGPR's
// and FITC's predictive (2000 new rows) on the matrix form and on the
// general path (k.Eval per pair), side by side, at n = 10⁴, D = 8,
// m = 512 random rows as inducing points (ARD rbf):
//
//	go test ./runtime/gp -run '^$' -bench SparseForms
func BenchmarkSparseForms(b *testing.B) {
	const n, d, m = 10000, 8, 512
	ell := []float64{0.8, 6, 6, 7, 7, 8, 8, 9}
	rbf, _ := kernels.NewRBF(ell)
	k, _ := kernels.NewScaled(1.2, rbf)
	x, y := testData(n, d, 12)
	z := mat.DenseCopyOf(x.Slice(0, m, 0, d))
	xs, _ := testData(2000, d, 13)
	grad := make([]float64, k.NumHyper()+1)
	for _, form := range []string{"matrix", "general"} {
		run := func(name string, f func() error) {
			b.Run(name+"/"+form, func(b *testing.B) {
				defer func(v bool) { sgprFastPath = v }(sgprFastPath)
				sgprFastPath = form == "matrix"
				for range b.N {
					if err := f(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		run("fitc", func() error { _, err := FITCLogMarginal(k, x, z, y, 0.09, grad); return err })
		run("sgpr-predict", func() error { _, _, err := SGPRPredict(k, x, z, y, 0.09, xs); return err })
		run("fitc-predict", func() error { _, _, err := FITCPredict(k, x, z, y, 0.09, xs); return err })
	}
}
