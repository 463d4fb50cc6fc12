package kbr

import (
	"fmt"
	"math"

	"github.com/kml-lang/kml/stdlib/kernel"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	rkbr "github.com/kml-lang/kml/runtime/kbr"
	"github.com/kml-lang/kml/runtime/kernels"
)

// The kernel Bayes' rule builtins (runtime/kbr): kbr, cme, weighted,
// condition, expect, preimage; `mean` of a weighted sample is in reduce.go.
func registerKbr(reg *eval.Registry) {
	reg.Register("weighted(x, w)",
		"A weighted sample: the rows of x with weights w (one per row; negative weights allowed), usable as a kbr prior and with mean, expect and preimage.",
		func(a *eval.Args) (eval.Value, error) {
			var x *mat.Dense
			var w []float64
			if err := a.Unpack("x", &x, "w", &w); err != nil {
				return nil, err
			}
			if err := kernels.CheckData(x, "x"); err != nil {
				return nil, a.Errorf("x", "%v", err)
			}
			n, _ := x.Dims()
			if len(w) != n {
				return nil, a.Errorf("w", "%d weights for %d points (rows of x)", len(w), n)
			}
			for i, v := range w {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return nil, a.Errorf("w", "weight %d is %v", i+1, v)
				}
			}
			return &WeightedVal{X: x, W: mat.NewDense(n, 1, append([]float64(nil), w...))}, nil
		})
	reg.Register("kbr(joint, prior?, kx?, ky?, eps?, delta?, rank = 0)",
		"The kernel Bayes' rule on a joint sample [x, y] (or {x: X, y: Y}) and a prior sample or weighted(U, w) (default: the joint sample's x): condition(post, y) gives the posterior as weights over x. Gaussian kernels at the median heuristic by default; eps = 0.1/sqrt(n), delta = eps²; rank > 0 uses incomplete Cholesky of that rank.",
		func(a *eval.Args) (eval.Value, error) {
			x, y, err := splitJoint(a.Value("joint"))
			if err != nil {
				return nil, a.Errorf("joint", "%v", err)
			}
			j, err := kernelSettings(a, x, y, "joint")
			if err != nil {
				return nil, err
			}
			if err := unpackDelta(a, &j.settings); err != nil {
				return nil, err
			}
			prior := rkbr.Prior{U: j.x}
			if v := a.Value("prior"); v != nil {
				if prior, err = unpackPrior(a, v); err != nil {
					return nil, err
				}
				_, du := prior.U.Dims()
				if _, dx := j.x.Dims(); du != dx {
					return nil, a.Errorf("prior", "the prior sample has %d columns but x has %d", du, dx)
				}
			}
			p, err := rkbr.New(j.x, j.y, j.kx, j.ky, prior, j.settings)
			if err != nil {
				return nil, a.Fail("%v", err)
			}
			return &KBRVal{Kind: "kbr", X: j.x, Y: j.y, KX: j.kx, KY: j.ky, Eps: j.settings.Eps,
				Delta: j.settings.Delta, Rank: j.settings.Rank, c: p}, nil
		})
	reg.Register("cme(x, y, kx?, ky?, eps?, rank = 0)",
		"The conditional mean embedding (KBR paper eq. 10) of x given y from paired samples: condition(c, y0) gives weights (G_Y + n eps I)⁻¹ k_Y(y0) over x. Gaussian kernels at the median heuristic by default; eps = 0.1/sqrt(n).",
		func(a *eval.Args) (eval.Value, error) {
			var x, y *mat.Dense
			if err := a.Unpack("x", &x, "y", &y); err != nil {
				return nil, err
			}
			j, err := kernelSettings(a, x, y, "x")
			if err != nil {
				return nil, err
			}
			c, err := rkbr.NewCME(j.x, j.y, j.ky, j.settings)
			if err != nil {
				return nil, a.Fail("%v", err)
			}
			return &KBRVal{Kind: "cme", X: j.x, Y: j.y, KX: j.kx, KY: j.ky, Eps: j.settings.Eps, Rank: j.settings.Rank, c: c}, nil
		})
	reg.Register("condition(post, y)",
		"The posterior given observation y, as a weighted sample over the x of kbr or cme: y one observation (a number, or a vector as wide as the y sample), or a matrix with one observation per row (for one-dimensional y, also a vector), giving one column of weights per observation from one factorisation.",
		func(a *eval.Args) (eval.Value, error) {
			var post *KBRVal
			switch v := a.Value("post").(type) {
			case *KBRVal:
				post = v
			default:
				return nil, a.Errorf("post", "post must be the result of kbr or cme, got %s", eval.Describe(v))
			}
			_, dy := post.Y.Dims()
			ys, batch, err := observations(a, "y", dy)
			if err != nil {
				return nil, err
			}
			w, err := post.c.Condition(ys)
			if err != nil {
				return nil, a.Errorf("y", "%v", err)
			}
			return &WeightedVal{X: post.X, W: w, Batch: batch, K: post.KX}, nil
		})
	reg.Register("expect(c, f, normalise = true)",
		"E[f(X)] under a weighted sample: Σ_i w_i f(x_i) / Σ_i w_i (negative weights keep their sign; normalise: false gives Σ_i w_i f(x_i)). f is called on each point (a number, or a vector for multi-column x) and may return a number or a vector; one result per observation for several.",
		func(a *eval.Args) (eval.Value, error) {
			var c weightedArg
			var f eval.Value
			var norm bool
			if err := a.Unpack("c", &c, "f", &f, "normalise", &norm); err != nil {
				return nil, err
			}
			if _, ok := f.(eval.Callable); !ok {
				return nil, a.Errorf("f", "f must be a function, got %s", eval.Describe(f))
			}
			fx, err := callRows(a, "f", f, c.X)
			if err != nil {
				return nil, err
			}
			_, m := c.W.Dims()
			_, k := fx.Dims()
			out := mat.NewDense(m, k, nil)
			for j := 0; j < m; j++ {
				w := c.column(j)
				if norm {
					if w, err = rkbr.Normalise(w); err != nil {
						return nil, a.Errorf("c", "%v", err)
					}
				}
				for i, wi := range w {
					for l := 0; l < k; l++ {
						out.Set(j, l, out.At(j, l)+wi*fx.At(i, l))
					}
				}
			}
			return c.shape(out), nil
		})
	reg.Register("preimage(c, kernel?, tol = 1e-8, max_iter = 200)",
		"A point estimate from a weighted sample for a Gaussian kernel (by default the kbr's kx): the fixed point of x ← Σ w_i k(x_i, x) x_i / Σ w_i k(x_i, x) from the weighted mean, stopping when a step moves less than tol·(1 + |x|); when it does not converge (or negative weights make the denominator non-positive) it warns and returns the weighted mean.",
		func(a *eval.Args) (eval.Value, error) {
			var c weightedArg
			var tol float64
			var maxIter eval.PositiveInt
			if err := a.Unpack("c", &c, "tol", &tol, "max_iter", &maxIter); err != nil {
				return nil, err
			}
			k := c.K
			if a.Given("kernel") {
				var kv kernel.Arg
				if err := a.Unpack("kernel", &kv); err != nil {
					return nil, err
				}
				k = kv.K
			}
			if k == nil {
				return nil, a.Errorf("kernel", "this weighted sample has no kernel: pass kernel: rbf(...)")
			}
			_, m := c.W.Dims()
			_, d := c.X.Dims()
			out := mat.NewDense(m, d, nil)
			failed := 0
			for j := 0; j < m; j++ {
				pt, ok, err := rkbr.Preimage(k, c.X, c.column(j), rkbr.PreimageSettings{Tol: tol, MaxIter: int(maxIter)})
				if err != nil {
					return nil, a.Errorf("c", "%v", err)
				}
				if !ok {
					failed++
				}
				out.SetRow(j, pt)
			}
			if failed > 0 {
				a.Th.Interp().Warn(a.Pos, fmt.Sprintf("preimage: the fixed-point iteration did not converge for %d of %d observations; the weighted mean was used", failed, m))
			}
			return c.shape(out), nil
		})
}
