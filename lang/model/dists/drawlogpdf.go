package dists

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/dist"
)

// The builtins draw(d, n?, seed?) and logpdf(d, x) make one interface call
// on their first argument: each distribution value says how it is drawn
// from and how its density is evaluated for a program (outside a model, or
// for logpdf of a univariate family, inside one too). The methods take the
// builtin's arguments so that their errors are placed at n, seed, d or x.

// Drawer is a distribution that draw can draw from: DrawCall reads n and
// the seed from a (draw's arguments).
type Drawer interface {
	eval.Value
	DrawCall(a *eval.Args) (eval.Value, error)
}

// LogPDFer is a distribution or density that logpdf evaluates: LogPDFCall
// reads d and x from a (logpdf's arguments).
type LogPDFer interface {
	eval.Value
	LogPDFCall(a *eval.Args) (eval.Value, error)
}

// DrawCall implements Drawer.
func (dv *DistVal) DrawCall(a *eval.Args) (eval.Value, error) {
	var d distArg
	var n eval.Length
	if err := a.Unpack("d", &d, "n?", &n); err != nil {
		return nil, err
	}
	rng, err := a.Rand()
	if err != nil {
		return nil, err
	}
	p, ok := d.Scalar()
	if !ok {
		return drawVectorised(a, d.DistVal, int(n), rng)
	}
	if !a.Given("n") {
		return eval.Num(d.Family.Rand(rng, p)), nil
	}
	return drawN(a, int(n), func() float64 { return d.Family.Rand(rng, p) })
}

// drawEvery is how many draws a loop makes between looks at the run's
// context: a few milliseconds of work.
const drawEvery = 1 << 16

// drawN makes n draws of one, into a vector allocated once after the
// memory budget allowed it, stopping when the run is interrupted.
func drawN(a *eval.Args, n int, one func() float64) (eval.Value, error) {
	if err := a.CheckVector(n, "the draws"); err != nil {
		return nil, err
	}
	out := make([]float64, n)
	for i := range out {
		if i%drawEvery == drawEvery-1 {
			if err := a.Th.Context().Err(); err != nil {
				return nil, a.Interrupted(err)
			}
		}
		out[i] = one()
	}
	return &eval.Vec{Data: out}, nil
}

// drawVectorised draws from a distribution with vector parameters as
// Stan's normal_rng(vector, sigma) does: one draw per element, the number
// parameters broadcast. With n, n must be a multiple of the length and the
// parameters are recycled (R's rnorm(n, mean = v)).
func drawVectorised(a *eval.Args, d *DistVal, n int, rng *rand.Rand) (eval.Value, error) {
	cols := make([][]float64, len(d.Params))
	size := -1
	for i, p := range d.Params {
		xs, vec, ok := Numbers(p)
		if !ok {
			return nil, a.Errorf("d", "cannot draw from %s: its parameter %d is %s, not a number or a vector", d, i+1, eval.Describe(p))
		}
		cols[i] = xs
		if !vec {
			continue
		}
		if size >= 0 && len(xs) != size {
			return nil, a.Errorf("d", "cannot draw from %s: its vector parameters have lengths %d and %d", d, size, len(xs))
		}
		size = len(xs)
	}
	if size < 0 { // numbers off the tape only: as one draw, or n
		p := make([]float64, len(cols))
		for i, xs := range cols {
			p[i] = xs[0]
		}
		if err := d.Family.Check(p); err != nil {
			return nil, a.Errorf("d", "cannot draw from %s: %v", d, err)
		}
		if !a.Given("n") {
			return eval.Num(d.Family.Rand(rng, p)), nil
		}
		return drawN(a, n, func() float64 { return d.Family.Rand(rng, p) })
	}
	count := size
	if a.Given("n") {
		if size == 0 || n%size != 0 {
			return nil, a.Errorf("n", "n = %d is not a multiple of %d, the length of %s's vector parameters; leave n out for one draw per element", n, size, d)
		}
		count = n
	}
	if err := a.CheckVector(count, "the draws"); err != nil {
		return nil, err
	}
	out := make([]float64, count)
	p := make([]float64, len(cols))
	for k := range out {
		if k%drawEvery == drawEvery-1 {
			if err := a.Th.Context().Err(); err != nil {
				return nil, a.Interrupted(err)
			}
		}
		for i, xs := range cols {
			if len(xs) == 1 && size != 1 {
				p[i] = xs[0]
			} else {
				p[i] = xs[k%size]
			}
		}
		if err := d.Family.Check(p); err != nil {
			return nil, a.Errorf("d", "cannot draw from %s at element %d: %v", d, k%size+1, err)
		}
		out[k] = d.Family.Rand(rng, p)
	}
	return &eval.Vec{Data: out}, nil
}

// LogPDFCall implements LogPDFer.
func (dv *DistVal) LogPDFCall(a *eval.Args) (eval.Value, error) {
	var d distArg
	var x eval.Value
	if err := a.Unpack("d", &d, "x", &x); err != nil {
		return nil, err
	}
	return d.LogPDF(a.PosOf("x"), x)
}

// distArg is an argument that must be a distribution value.
type distArg struct{ *DistVal }

func (d *distArg) UnpackArg(name string, v eval.Value) error {
	dv, ok := v.(*DistVal)
	if !ok {
		return fmt.Errorf("%s must be a distribution, got %s", name, eval.Describe(v))
	}
	if dist.IsImproper(dv.Family) {
		return fmt.Errorf("%s is improper: it is a prior for a model's parameter, with no draws or normalised density", dv)
	}
	d.DistVal = dv
	return nil
}

// drawCount is n when given (≥ 0), or −1 for one draw.
func drawCount(a *eval.Args) (int, error) {
	if !a.Given("n") {
		return -1, nil
	}
	n, err := a.Int("n")
	if err != nil {
		return 0, err
	}
	if n < 0 {
		return 0, a.Errorf("n", "n must not be negative, got %d", n)
	}
	return n, nil
}

// DrawCall implements Drawer.
func (d *Dirichlet) DrawCall(a *eval.Args) (eval.Value, error) {
	if d.HasAD() {
		return nil, a.Errorf("d", "cannot draw from %s: its concentrations depend on model parameters", d)
	}
	n, err := drawCount(a)
	if err != nil {
		return nil, err
	}
	rng, err := a.Rand()
	if err != nil {
		return nil, err
	}
	alpha := d.Alphas()
	if n < 0 {
		return &eval.Vec{Data: dist.DirichletRand(rng, alpha)}, nil
	}
	if n == 0 {
		return eval.NewMat(&mat.Dense{}), nil
	}
	if err := a.CheckDense(n, len(alpha), "the draws", "draw fewer"); err != nil {
		return nil, err
	}
	m := mat.NewDense(n, len(alpha), nil)
	for i := 0; i < n; i++ {
		m.SetRow(i, dist.DirichletRand(rng, alpha))
	}
	return eval.NewMat(m), nil
}

// DrawCall implements Drawer.
func (d *LKJCholesky) DrawCall(a *eval.Args) (eval.Value, error) {
	if d.HasAD() {
		return nil, a.Errorf("d", "cannot draw from %s: its eta depends on model parameters", d)
	}
	if d.K == 0 {
		return nil, a.Errorf("d", "give the size to draw from lkj_corr_cholesky, e.g. lkj_corr_cholesky(%s, K: 3)", d.Eta)
	}
	n, err := drawCount(a)
	if err != nil {
		return nil, err
	}
	rng, err := a.Rand()
	if err != nil {
		return nil, err
	}
	eta, _ := eval.ToFloat(d.Eta)
	one := func() eval.Value { return eval.NewMat(mat.NewDense(d.K, d.K, dist.LKJCholeskyRand(rng, d.K, eta))) }
	if n < 0 {
		return one(), nil
	}
	if err := a.CheckDense(n, d.K*d.K, "the draws", "draw fewer"); err != nil {
		return nil, err
	}
	l := &eval.List{}
	for range n {
		l.Elems = append(l.Elems, one())
	}
	return l, nil
}

// constrainedLogPDF is logpdf for the distributions of constrained
// parameters: data only, never inside a model.
func constrainedLogPDF(a *eval.Args, d eval.Value, logPDF func(x eval.Value) (eval.Value, error)) (eval.Value, error) {
	if eval.IsAD(d) || eval.IsAD(a.Value("x")) {
		return nil, a.Errorf("d", "logpdf of %s inside a model: write the prior or observation with ~ instead", d)
	}
	v, err := logPDF(a.Value("x"))
	if err != nil {
		return nil, a.Errorf("x", "%v", err)
	}
	return v, nil
}

// LogPDFCall implements LogPDFer.
func (d *Dirichlet) LogPDFCall(a *eval.Args) (eval.Value, error) {
	return constrainedLogPDF(a, d, d.LogPDF)
}

// LogPDFCall implements LogPDFer.
func (d *LKJCholesky) LogPDFCall(a *eval.Args) (eval.Value, error) {
	return constrainedLogPDF(a, d, d.LogPDF)
}

// DrawCall implements Drawer.
func (mv *MultiNormal) DrawCall(a *eval.Args) (eval.Value, error) {
	if mv.HasAD() {
		return nil, a.Errorf("d", "cannot draw from %s: it depends on model parameters", mv)
	}
	n := 1
	if a.Given("n") {
		var err error
		if n, err = a.Int("n"); err != nil {
			return nil, err
		}
	}
	k := mv.Dim()
	if err := a.CheckDense(n, k, "the draws", "draw fewer"); err != nil {
		return nil, err
	}
	rng, err := a.Rand()
	if err != nil {
		return nil, err
	}
	mu, _ := eval.ToFloats(mv.Mu)
	out := mat.NewDense(n, k, nil)
	z := mat.NewVecDense(k, nil)
	var x mat.VecDense
	for r := 0; r < n; r++ {
		for i := 0; i < k; i++ {
			z.SetVec(i, rng.NormFloat64())
		}
		x.MulVec(mv.L, z)
		for i := 0; i < k; i++ {
			out.Set(r, i, x.AtVec(i)+mu[min(i, len(mu)-1)])
		}
	}
	if !a.Given("n") {
		return &eval.Vec{Data: out.RawRowView(0)}, nil
	}
	return eval.NewMat(out), nil
}

// LogPDFCall implements LogPDFer.
func (mv *MultiNormal) LogPDFCall(a *eval.Args) (eval.Value, error) {
	if mv.HasAD() {
		return nil, a.Errorf("d", "logpdf of a multivariate normal inside a model: write the observation with ~ instead")
	}
	v, err := mv.LogPDF(a.Value("x"))
	if err != nil {
		return nil, a.Errorf("x", "%v", err)
	}
	return v, nil
}

// categoricalProbs is softmax(beta) for data log-odds.
func categoricalProbs(c *CategoricalLogit) []float64 {
	beta, _ := eval.ToFloats(c.Beta)
	m := math.Inf(-1)
	for _, b := range beta {
		m = math.Max(m, b)
	}
	p := make([]float64, len(beta))
	z := 0.0
	for i, b := range beta {
		p[i] = math.Exp(b - m)
		z += p[i]
	}
	for i := range p {
		p[i] /= z
	}
	return p
}

// DrawCall implements Drawer.
func (c *CategoricalLogit) DrawCall(a *eval.Args) (eval.Value, error) {
	if c.OfLatent {
		return nil, a.Errorf("d", "categorical_logit of a latent GP is for observations (c ~ categorical_logit(f)); predict gives its class probabilities")
	}
	if c.HasAD() {
		return nil, a.Errorf("d", "cannot draw from %s: its log-odds depend on model parameters", c)
	}
	p := categoricalProbs(c)
	rng, err := a.Rand()
	if err != nil {
		return nil, err
	}
	one := func() float64 {
		u := rng.Float64()
		for k, pk := range p {
			if u < pk {
				return float64(k + 1)
			}
			u -= pk
		}
		return float64(len(p))
	}
	if !a.Given("n") {
		return eval.Num(one()), nil
	}
	n, err := a.Int("n")
	if err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, a.Errorf("n", "n must not be negative, got %d", n)
	}
	return drawN(a, n, one)
}

// LogPDFCall implements LogPDFer.
func (c *CategoricalLogit) LogPDFCall(a *eval.Args) (eval.Value, error) {
	if c.OfLatent {
		return nil, a.Errorf("d", "categorical_logit of a latent GP is for observations (c ~ categorical_logit(f)); predict gives its class probabilities")
	}
	if c.HasAD() {
		return nil, a.Errorf("d", "logpdf of categorical_logit inside a model: write the observation with ~ instead")
	}
	p := categoricalProbs(c)
	ys, ok := eval.ToFloats(a.Value("x"))
	if !ok {
		return nil, a.Errorf("x", "x must be categories, got %s", eval.Describe(a.Value("x")))
	}
	out := make([]float64, len(ys))
	for i, y := range ys {
		if y != math.Trunc(y) || y < 1 || y > float64(len(p)) {
			out[i] = math.Inf(-1)
			continue
		}
		out[i] = math.Log(p[int(y)-1])
	}
	if _, isNum := a.Value("x").(eval.Num); isNum {
		return eval.Num(out[0]), nil
	}
	return &eval.Vec{Data: out}, nil
}
