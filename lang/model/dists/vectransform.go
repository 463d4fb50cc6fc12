package dists

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/ad"
	"github.com/kml-lang/kml/runtime/dist"
)

// The simplex and the Cholesky factor of a correlation matrix are supports
// that are not products of intervals, as Stan's constrained types: the
// parameter then has fewer free reals than values. Their transforms read no
// prior and admit every held value their Held accepts.

// simplexTransform is Stan's stick-breaking map from K − 1 reals onto the
// K-simplex: with aₖ = uₖ − log(K − k) and zₖ = logistic(aₖ),
// xₖ = (1 − Σⱼ<ₖ xⱼ)·zₖ for k < K and x_K = 1 − Σⱼ<K xⱼ. (The shift makes
// u = 0 the simplex's centre.) The stick left before k is
// 1 − Σⱼ<ₖ xⱼ = exp(−Σⱼ<ₖ softplus(aⱼ)), which the code uses so that
// no element is computed by cancellation. The Jacobian of u ↦ (x₁ … x_{K−1})
// is triangular, so
//
//	log J = Σₖ<K [log zₖ + log(1 − zₖ) + log(1 − Σⱼ<ₖ xⱼ)].
type simplexTransform struct{ k int }

func (s simplexTransform) Free() int { return s.k - 1 }
func (s simplexTransform) Size() int { return s.k }

func (s simplexTransform) Describe() string {
	return fmt.Sprintf("simplex (stick-breaking) of %d elements", s.k)
}

func (s simplexTransform) Names(name string) []string {
	out := make([]string, s.k)
	for i := range out {
		out[i] = fmt.Sprintf("%s.%d", name, i+1)
	}
	return out
}

// shift is log(K − k) for the 0-based element j (k = j + 1).
func (s simplexTransform) shift(j int) float64 { return math.Log(float64(s.k - 1 - j)) }

func (s simplexTransform) Constrain(dst, u []float64) []float64 {
	ls := 0.0 // log of the stick left
	for j := 0; j < s.k-1; j++ {
		a := u[j] - s.shift(j)
		dst = append(dst, math.Exp(ls-dist.Softplus(-a)))
		ls -= dist.Softplus(a)
	}
	return append(dst, math.Exp(ls))
}

// unconstrain: uₖ = logit(zₖ) + log(K − k) with
// logit(zₖ) = log xₖ − log Σⱼ>ₖ xⱼ.
func (s simplexTransform) unconstrainValues(x []float64) []float64 {
	u := make([]float64, s.k-1)
	rest := 0.0
	for j := s.k - 1; j >= 1; j-- {
		rest += x[j]
		u[j-1] = math.Log(x[j-1]) - math.Log(rest) + s.shift(j-1)
	}
	return u
}

func (s simplexTransform) check(name string, v eval.Value) (eval.Value, []float64, error) {
	xs, ok := eval.ToFloats(v)
	if _, isNum := v.(eval.Num); isNum || !ok || len(xs) != s.k {
		return nil, nil, fmt.Errorf("%s is a simplex of %d elements, got %s", name, s.k, eval.Describe(v))
	}
	if !dist.IsSimplex(xs) {
		return nil, nil, fmt.Errorf("%s is a simplex: its elements must be positive and sum to 1, got %s", name, formatFloats(xs))
	}
	return &eval.Vec{Data: xs}, xs, nil
}

func (s simplexTransform) Value(xs []float64) eval.Value {
	return &eval.Vec{Data: append([]float64(nil), xs...)}
}

func (s simplexTransform) record(t *ad.Tape, u []ad.Var) (eval.Value, ad.Var) {
	xs := make([]ad.Var, s.k)
	var ls ad.Var // the log of the stick left; absent (0) for k = 1
	for j := 0; j < s.k-1; j++ {
		shift := s.shift(j)
		if j == 0 {
			// x₁ = exp(−softplus(−a₁)) = z₁; log stick = −softplus(a₁).
			xs[0] = t.Func([]ad.Var{u[0]}, func(x, d []float64) float64 {
				a := x[0] - shift
				v := math.Exp(-dist.Softplus(-a))
				d[0] = v * dist.Logistic(-a)
				return v
			})
			ls = t.Func([]ad.Var{u[0]}, func(x, d []float64) float64 {
				a := x[0] - shift
				d[0] = -dist.Logistic(a)
				return -dist.Softplus(a)
			})
			continue
		}
		parents := []ad.Var{ls, u[j]}
		xs[j] = t.Func(parents, func(x, d []float64) float64 {
			a := x[1] - shift
			v := math.Exp(x[0] - dist.Softplus(-a))
			d[0], d[1] = v, v*dist.Logistic(-a)
			return v
		})
		ls = t.Func(parents, func(x, d []float64) float64 {
			a := x[1] - shift
			d[0], d[1] = 1, -dist.Logistic(a)
			return x[0] - dist.Softplus(a)
		})
	}
	xs[s.k-1] = t.Func([]ad.Var{ls}, func(x, d []float64) float64 {
		v := math.Exp(x[0])
		d[0] = v
		return v
	})
	k := s.k
	logJ := t.Func(u, func(x, d []float64) float64 {
		lj, ls := 0.0, 0.0
		for j := range x {
			a := x[j] - math.Log(float64(k-1-j))
			lj += ls - dist.Softplus(-a) - dist.Softplus(a)
			ls -= dist.Softplus(a)
			sa := dist.Logistic(a)
			// The stick's log appears in every later term.
			d[j] = 1 - 2*sa - float64(k-2-j)*sa
		}
		return lj
	})
	return &eval.ADVec{T: t, Vs: xs}, logJ
}

// choleskyCorrTransform is Stan's map from K(K − 1)/2 reals onto the
// Cholesky factors L of K×K correlation matrices (lower triangular,
// positive diagonal, rows of unit norm): the canonical partial correlations
// zᵢⱼ = tanh(uᵢⱼ), taken row by row (u₂₁, u₃₁, u₃₂, u₄₁, ...), give
// Lᵢⱼ = zᵢⱼ·rᵢⱼ for j < i and Lᵢᵢ = rᵢᵢ, where rᵢⱼ = √(1 − Σₗ<ⱼ Lᵢₗ²) =
// Πₗ<ⱼ sech(uᵢₗ). The map u ↦ (strictly lower entries of L, row by row)
// has a triangular Jacobian with diagonal (1 − zᵢⱼ²)·rᵢⱼ, so
//
//	log J = Σᵢ>ⱼ [log(1 − zᵢⱼ²) + log rᵢⱼ]
//	      = −Σᵢ>ₗ (i − l + 1)·log cosh(uᵢₗ),
//
// the Jacobian of Stan's reference manual (section "Cholesky factors of
// correlation matrices").
type choleskyCorrTransform struct{ k int }

func (c choleskyCorrTransform) Free() int { return c.k * (c.k - 1) / 2 }
func (c choleskyCorrTransform) Size() int { return c.k * c.k }

func (c choleskyCorrTransform) Describe() string {
	return fmt.Sprintf("Cholesky factor of a %d×%d correlation matrix (tanh of canonical partial correlations)", c.k, c.k)
}

// A matrix parameter's values are its K² entries column by column (the
// zeros above the diagonal too), as Stan's CSV writes a
// cholesky_factor_corr, so that its readers (cmdstanpy, ArviZ, cmdstanr)
// reshape them rightly: names are NAME.i.j for row i and column j, in the
// order L.1.1, L.2.1, ..., L.K.1, L.1.2, ...

func (c choleskyCorrTransform) Names(name string) []string {
	out := make([]string, 0, c.k*c.k)
	for j := 1; j <= c.k; j++ {
		for i := 1; i <= c.k; i++ {
			out = append(out, fmt.Sprintf("%s.%d.%d", name, i, j))
		}
	}
	return out
}

// columnMajor reorders a K×K matrix's entries from row by row to column
// by column; it is its own inverse.
func columnMajor(k int, xs []float64) []float64 {
	out := make([]float64, k*k)
	for i := 0; i < k; i++ {
		for j := 0; j < k; j++ {
			out[j*k+i] = xs[i*k+j]
		}
	}
	return out
}

// logCosh is log cosh(u) without overflow.
func logCosh(u float64) float64 {
	a := math.Abs(u)
	return a + math.Log1p(math.Exp(-2*a)) - math.Ln2
}

func (c choleskyCorrTransform) Constrain(dst, u []float64) []float64 {
	z := make([]float64, len(u))
	for i, v := range u {
		z[i] = math.Tanh(v)
	}
	l := dist.CholeskyFromCPC(c.k, z)
	// The diagonal from the log of the norm left, exact where 1 − z² would
	// round to 0.
	n := 0
	for i := 1; i < c.k; i++ {
		lr := 0.0
		for j := 0; j < i; j++ {
			l[i*c.k+j] = z[n] * math.Exp(lr)
			lr -= logCosh(u[n])
			n++
		}
		l[i*c.k+i] = math.Exp(lr)
	}
	return append(dst, columnMajor(c.k, l)...)
}

// unconstrain: zᵢⱼ = Lᵢⱼ/√(1 − Σₗ<ⱼ Lᵢₗ²), uᵢⱼ = atanh(zᵢⱼ).
func (c choleskyCorrTransform) unconstrainValues(xs []float64) []float64 {
	x := columnMajor(c.k, xs)
	u := make([]float64, 0, c.Free())
	for i := 1; i < c.k; i++ {
		rem := 1.0
		for j := 0; j < i; j++ {
			v := x[i*c.k+j]
			u = append(u, math.Atanh(v/math.Sqrt(rem)))
			rem -= v * v
		}
	}
	return u
}

// cholCorrTol is how far a given factor's rows may be from unit norm, and
// its upper triangle from zero.
const cholCorrTol = 1e-8

func (c choleskyCorrTransform) check(name string, v eval.Value) (eval.Value, []float64, error) {
	m, ok := v.(*eval.Mat)
	if ok {
		if r, cc := m.Dims(); r != c.k || cc != c.k {
			ok = false
		}
	}
	if !ok {
		return nil, nil, fmt.Errorf("%s is the Cholesky factor of a %d×%d correlation matrix, got %s", name, c.k, c.k, eval.Describe(v))
	}
	xs := make([]float64, 0, c.k*c.k)
	for i := 0; i < c.k; i++ {
		norm := 0.0
		for j := 0; j < c.k; j++ {
			x := m.M.At(i, j)
			if j > i && !(math.Abs(x) <= cholCorrTol) {
				return nil, nil, fmt.Errorf("%s must be lower triangular, but %s[%d, %d] = %s", name, name, i+1, j+1, eval.FormatNumber(x))
			}
			if j > i {
				x = 0
			}
			norm += x * x
			xs = append(xs, x)
		}
		if d := m.M.At(i, i); !(d > 0) {
			return nil, nil, fmt.Errorf("%s must have a positive diagonal, but %s[%d, %d] = %s", name, name, i+1, i+1, eval.FormatNumber(d))
		}
		if !(math.Abs(norm-1) <= cholCorrTol) {
			return nil, nil, fmt.Errorf("the rows of %s, the Cholesky factor of a correlation matrix, must have unit length; row %d has squared length %s", name, i+1, eval.FormatNumber(norm))
		}
	}
	return eval.NewMat(mat.NewDense(c.k, c.k, xs)), columnMajor(c.k, xs), nil
}

func (c choleskyCorrTransform) Value(xs []float64) eval.Value {
	return eval.NewMat(mat.NewDense(c.k, c.k, columnMajor(c.k, xs)))
}

func (c choleskyCorrTransform) record(t *ad.Tape, u []ad.Var) (eval.Value, ad.Var) {
	k := c.k
	vs := make([]ad.Var, k*k)
	zero := t.Input(0)
	for i := range vs {
		vs[i] = zero
	}
	vs[0] = t.Input(1)
	n := 0
	for i := 1; i < k; i++ {
		var lr ad.Var // log rᵢⱼ; absent (0) for j = 0
		for j := 0; j < i; j++ {
			un := u[n]
			n++
			if j == 0 {
				vs[i*k] = t.Func([]ad.Var{un}, func(x, d []float64) float64 {
					th := math.Tanh(x[0])
					d[0] = 1 - th*th
					return th
				})
				lr = t.Func([]ad.Var{un}, func(x, d []float64) float64 {
					d[0] = -math.Tanh(x[0])
					return -logCosh(x[0])
				})
				continue
			}
			parents := []ad.Var{lr, un}
			vs[i*k+j] = t.Func(parents, func(x, d []float64) float64 {
				th, r := math.Tanh(x[1]), math.Exp(x[0])
				d[0], d[1] = th*r, (1-th*th)*r
				return th * r
			})
			lr = t.Func(parents, func(x, d []float64) float64 {
				d[0], d[1] = 1, -math.Tanh(x[1])
				return x[0] - logCosh(x[1])
			})
		}
		vs[i*k+i] = t.Func([]ad.Var{lr}, func(x, d []float64) float64 {
			r := math.Exp(x[0])
			d[0] = r
			return r
		})
	}
	logJ := t.Func(u, func(x, d []float64) float64 {
		lj := 0.0
		n := 0
		for i := 1; i < k; i++ {
			for l := 0; l < i; l++ {
				w := -float64(i - l + 1)
				lj += w * logCosh(x[n])
				d[n] = w * math.Tanh(x[n])
				n++
			}
		}
		return lj
	})
	return &eval.ADMat{T: t, Rows: k, Cols: k, Vs: vs}, logJ
}

// FlatValues are a parameter's values (column by column for a square
// matrix), on the tape or not.
func FlatValues(v eval.Value) []float64 {
	if m, ok := v.(*eval.ADMat); ok {
		xs := make([]float64, len(m.Vs))
		for i, n := range m.Vs {
			xs[i] = m.T.Value(n)
		}
		return columnMajor(m.Rows, xs)
	}
	xs, _, _ := Numbers(v)
	return xs
}

// formatFloats prints a short list of numbers for a message.
func formatFloats(xs []float64) string {
	return (&eval.Vec{Data: xs}).String()
}

func (s simplexTransform) NeedsPrior() bool       { return false }
func (s simplexTransform) Admits(eval.Value) bool { return true }

func (s simplexTransform) Held(name string, v eval.Value) (eval.Value, error) {
	fv, _, err := s.check(name, v)
	return fv, err
}

func (s simplexTransform) Unconstrain(name string, v eval.Value) ([]float64, error) {
	_, xs, err := s.check(name, v)
	if err != nil {
		return nil, err
	}
	return s.unconstrainValues(xs), nil
}

func (s simplexTransform) Record(t *ad.Tape, u []ad.Var, _ Distribution) (eval.Value, []ad.Var, bool) {
	x, j := s.record(t, u)
	return x, []ad.Var{j}, true
}

func (c choleskyCorrTransform) NeedsPrior() bool       { return false }
func (c choleskyCorrTransform) Admits(eval.Value) bool { return true }

func (c choleskyCorrTransform) Held(name string, v eval.Value) (eval.Value, error) {
	fv, _, err := c.check(name, v)
	return fv, err
}

func (c choleskyCorrTransform) Unconstrain(name string, v eval.Value) ([]float64, error) {
	_, xs, err := c.check(name, v)
	if err != nil {
		return nil, err
	}
	return c.unconstrainValues(xs), nil
}

func (c choleskyCorrTransform) Record(t *ad.Tape, u []ad.Var, _ Distribution) (eval.Value, []ad.Var, bool) {
	x, j := c.record(t, u)
	return x, []ad.Var{j}, true
}
