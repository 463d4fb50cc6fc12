package bke

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"

	"github.com/kml-lang/kml/stdlib/kernel"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/infer"
	"github.com/kml-lang/kml/lang/model"
	rbke "github.com/kml-lang/kml/runtime/bke"
	"github.com/kml-lang/kml/runtime/kernels"
	"github.com/kml-lang/kml/runtime/stats"
)

func registerBke(reg *eval.Registry) {
	b := reg.Register(`bke(kernel, noise, landmarks, prior = "normalised", eta?, variant = "derived")`,
		`The Bayesian kernel embedding observation family (Flaxman et al. 2016): x ~ bke(rbf(ell), noise: tau2, landmarks: z) adds the marginal pseudolikelihood of the data x, Jacobian included, computed in O(m³ + nmD) without any n×n matrix. kernel: rbf(ell) or c * rbf(ell), isotropic or ARD, or a sum of them c1 * rbf(l1) + c2 * rbf(l2) + ... (the prior covariance r = ∫k k dν has a closed form for SE kernels and their sums: the sum of the pairwise cross terms; a sum is computed row by row, about 50× slower than one rbf, takes the derived variant only, and embedding/witness take one component). noise: τ², a number or a parameter. prior: "normalised" (r = σ⁴exp(-|x-y|²/(4ℓ²)), as the authors' Stan program), "lebesgue" or "gaussian" (with eta, the scale of ν). variant: "derived" (the derivation) or "published" (what the authors' Stan program computes, written for D columns in D > 1; for reproducing the paper).`,
		bkeBuiltin)
	b.AD = true
	reg.Register(`split(x, m, seed?)`,
		`Holds out m random rows of x as landmarks: a record {data, landmarks} (the paper's suggestion for choosing BKE landmarks).`,
		func(a *eval.Args) (eval.Value, error) {
			x, err := a.Matrix("x")
			if err != nil {
				return nil, err
			}
			m, err := a.PositiveInt("m")
			if err != nil {
				return nil, err
			}
			if n, _ := x.Dims(); m >= n {
				return nil, a.Errorf("m", "cannot hold out %d of %d rows", m, n)
			}
			seed, err := a.Seed()
			if err != nil {
				return nil, err
			}
			rest, z := rbke.Split(x, m, seed)
			return eval.NewRecord().Set("data", eval.NewMat(rest)).Set("landmarks", eval.NewMat(z)), nil
		})
	reg.Register(`embedding(post, x, at, level = 0.8, draws = 200, seed?, values?, inducing = "landmarks")`,
		`The posterior of the mean embedding of the data x at the points at (eqs. 7–8 of Flaxman et al.): GP regression of the empirical embedding μ̂(u) = mean_i k(x_i, u), observed with noise τ²/n at the inducing points u — "landmarks" (the model's, default), "data" (every row of x, as the paper; O(n³)) or a matrix of points (such as the grid at). For each of draws posterior draws of the hyperparameters (from sample on a model with a bke observation), one GP draw; returns {at, mean, lower, upper, level}, lower and upper the pointwise central credible band. post may instead be the model itself with fixed hyperparameters in values: {ell: ...}; the band then comes from the predictive variance.`,
		embeddingBuiltin)
	reg.Register(`witness(postP, xP, postQ, xQ, at, level = 0.8, draws = 200, seed?, inducing = "landmarks")`,
		`The posterior of the witness function μ_P − μ_Q at the points at: for each hyperparameter draw (paired by index when postP and postQ are the same posterior), a GP draw of each embedding (as embedding, with the same inducing points) and their difference; returns {at, mean, lower, upper, level}. Where the band excludes 0, the distributions differ.`,
		witnessBuiltin)
}

// bkeFamily is the value of bke(...).
type bkeFamily struct {
	kernel *kernel.KernelVal
	ell    []int // positions of the lengthscales in kernel.Hyper
	amp    int   // position of the amplitude, −1 for a plain rbf
	// terms, for a sum of two or more SE components, locates each
	// component's hyperparameters; nil for one rbf (ell and amp then).
	terms []seTerm
	noise eval.Value
	zv    eval.Value
	z     *mat.Dense
	opt   rbke.Options
	pos   ast.Pos
}

// bkeResolved is what a bke observation resolved its parameters to.
type bkeResolved struct {
	h   rbke.Hyper
	z   *mat.Dense
	opt rbke.Options
}

var (
	_ model.Family  = (*bkeFamily)(nil)
	_ eval.ADHolder = (*bkeFamily)(nil)
)

func (f *bkeFamily) Type() string { return "observation family" }
func (f *bkeFamily) String() string {
	r, c := f.z.Dims()
	return fmt.Sprintf("bke(%s, noise: %s, landmarks: %d×%d matrix)", f.kernel, f.noise, r, c)
}
func (f *bkeFamily) HasAD() bool { return f.kernel.HasAD() || eval.IsAD(f.noise) }

// seTerm is where one component c·rbf(ℓ) of a sum kernel sits in the
// kernel's hyperparameters: amp the position of c (−1 when unscaled) and
// ell those of ℓ.
type seTerm struct {
	amp int
	ell []int
}

// seTerms flattens k, a sum of rbf(ℓ) and c * rbf(ℓ) components whose
// hyperparameters start at off, onto out; ok is false for anything else.
func seTerms(k kernels.Kernel, off int, out []seTerm) ([]seTerm, bool) {
	if s, isSum := k.(*kernels.Sum); isSum {
		out, ok := seTerms(s.A, off, out)
		if !ok {
			return nil, false
		}
		return seTerms(s.B, off+s.A.NumHyper(), out)
	}
	t := seTerm{amp: -1}
	inner := k
	if s, ok := k.(*kernels.Scaled); ok {
		t.amp, inner = off, s.K
		off++
	}
	st, ok := inner.(*kernels.Stationary)
	if !ok || !st.IsRBF() {
		return nil, false
	}
	for i := range st.Ell {
		t.ell = append(t.ell, off+i)
	}
	return append(out, t), true
}

func bkeBuiltin(a *eval.Args) (eval.Value, error) {
	k, err := kernel.Unpack(a, "kernel")
	if err != nil {
		return nil, err
	}
	f := &bkeFamily{kernel: k, amp: -1, pos: a.Pos}
	terms, ok := seTerms(k.K, 0, nil)
	if !ok {
		return nil, a.Errorf("kernel", "bke needs rbf(ell), c * rbf(ell) or a sum of them (c1 * rbf(l1) + c2 * rbf(l2) + ...), got %s: the prior covariance r = ∫k(x,u)k(u,y)ν(du) has a closed form for squared-exponential kernels and their sums, not for products or other kernels", k)
	}
	for _, t := range terms {
		if t.amp < 0 {
			continue
		}
		if c, isNum := k.Hyper[t.amp].(eval.Num); isNum && !(c > 0) {
			return nil, a.Errorf("kernel", "bke needs a positive amplitude c in c * rbf(ell), got %s in %s: leave the term out instead", eval.FormatNumber(float64(c)), k)
		}
	}
	if len(terms) == 1 {
		f.amp, f.ell = terms[0].amp, terms[0].ell
	} else {
		f.terms = terms
	}
	switch v := a.Value("noise").(type) {
	case eval.Num, *eval.ADNum:
		f.noise = v
	default:
		return nil, a.Errorf("noise", "noise (τ²) must be a number or a parameter, got %s", eval.Describe(v))
	}
	if x, _ := eval.PeekFloat(f.noise); !(x > 0) {
		return nil, a.Errorf("noise", "noise (τ²) must be positive, got %v", x)
	}
	f.zv = a.Value("landmarks")
	if f.z, err = a.Matrix("landmarks"); err != nil {
		return nil, err
	}
	switch p, _ := a.Str("prior"); p {
	case "normalised", "normalized":
		f.opt.Prior = rbke.Normalised
	case "lebesgue":
		f.opt.Prior = rbke.Lebesgue
	case "gaussian":
		f.opt.Prior = rbke.Gaussian
		if a.Value("eta") == nil {
			return nil, a.Errorf("prior", `prior "gaussian" needs eta, the scale of the Gaussian measure`)
		}
		if f.opt.Eta, err = a.Num("eta"); err != nil {
			return nil, err
		}
	default:
		return nil, a.Errorf("prior", `prior must be "normalised", "lebesgue" or "gaussian", got %s`, eval.Describe(a.Value("prior")))
	}
	switch v, _ := a.Str("variant"); v {
	case "derived":
	case "published":
		f.opt.Variant = rbke.Published
	default:
		return nil, a.Errorf("variant", `variant must be "derived" or "published", got %s`, eval.Describe(a.Value("variant")))
	}
	if f.terms != nil && f.opt.Variant == rbke.Published {
		return nil, a.Errorf("variant", `variant "published" is the authors' program, which has one rbf kernel; a sum of kernels takes variant: "derived"`)
	}
	return f, nil
}

// sumHyperAt is the sum kernel's hyperparameters at x, the kernel's
// hyperparameters followed by τ²; ok is false outside their support.
func (f *bkeFamily) sumHyperAt(x []float64) (rbke.SumHyper, bool) {
	h := rbke.SumHyper{Tau2: x[len(x)-1]}
	ok := h.Tau2 > 0 && !math.IsInf(h.Tau2, 1)
	for _, t := range f.terms {
		term := rbke.SumTerm{Amp: 1}
		if t.amp >= 0 {
			term.Amp = x[t.amp]
		}
		ok = ok && term.Amp > 0 && !math.IsInf(term.Amp, 1)
		for _, i := range t.ell {
			term.Ell = append(term.Ell, x[i])
			ok = ok && x[i] > 0 && !math.IsInf(x[i], 1)
		}
		h.Terms = append(h.Terms, term)
	}
	return h, ok
}

// sumLogLik is LogLik for a sum of SE kernels.
func (f *bkeFamily) sumLogLik(md *rbke.Model) (eval.Value, error) {
	params := append(append([]eval.Value(nil), f.kernel.Hyper...), f.noise)
	x := make([]float64, len(params))
	for i, p := range params {
		x[i], _ = eval.PeekFloat(p)
	}
	if !f.HasAD() {
		h, ok := f.sumHyperAt(x)
		if !ok {
			return nil, &ast.Error{Pos: f.pos, Msg: fmt.Sprintf("bke: the kernel %s and noise %s: every amplitude, lengthscale and τ² of a sum must be positive and finite", f.kernel, f.noise)}
		}
		lp, err := md.SumLogDensity(h, nil)
		if err != nil {
			return nil, &ast.Error{Pos: f.pos, Msg: err.Error()}
		}
		return eval.Num(lp), nil
	}
	var recErr error
	out := eval.FuncNode(params, func(x, d []float64) float64 {
		h, ok := f.sumHyperAt(x)
		if !ok {
			return math.NaN()
		}
		var g rbke.SumGrad
		lp, err := md.SumLogDensity(h, &g)
		if recErr = err; err != nil {
			return math.NaN()
		}
		clear(d)
		for k, t := range f.terms {
			if t.amp >= 0 {
				d[t.amp] = g.Terms[k].Amp
			}
			for j, i := range t.ell {
				d[i] = g.Terms[k].Ell[j]
			}
		}
		d[len(d)-1] = g.Tau2
		return lp
	})
	if recErr != nil {
		return nil, recErr
	}
	return out, nil
}

func (f *bkeFamily) hyper() rbke.Hyper {
	var hv []float64
	hv = f.kernel.K.Hyper(hv)
	h := rbke.Hyper{Amp: 1}
	for _, i := range f.ell {
		h.Ell = append(h.Ell, hv[i])
	}
	if f.amp >= 0 {
		h.Amp = hv[f.amp]
	}
	h.Tau2, _ = eval.PeekFloat(f.noise)
	return h
}

type bkeKey struct {
	data, z eval.Value
	opt     rbke.Options
}

// resolved is what f's parameters are at the point being evaluated.
func (f *bkeFamily) resolved() bkeResolved { return bkeResolved{h: f.hyper(), z: f.z, opt: f.opt} }

// LogLik is the marginal pseudolikelihood of data, with its gradient
// recorded on the tape when the kernel or τ² depend on model parameters.
func (f *bkeFamily) LogLik(ev *model.Eval, data eval.Value) (eval.Value, error) {
	x, ok := eval.ToMatrix(data)
	if !ok {
		return nil, fmt.Errorf("bke: the data must be a matrix or a vector, got %s", eval.Describe(data))
	}
	mv, err := ev.Cache(bkeKey{data, f.zv, f.opt}, func() (any, error) { return rbke.New(x, f.z, f.opt) })
	if err != nil {
		return nil, &ast.Error{Pos: f.pos, Msg: err.Error()}
	}
	md := mv.(*rbke.Model)
	if f.terms != nil {
		return f.sumLogLik(md)
	}
	h := f.hyper()
	if ev.Checking {
		if d := md.Degenerate(h); d.Kind != rbke.NotDegenerate {
			ev.WarnOnce("bke: degenerate", f.pos, "bke: "+degenerateMessage(d))
		}
	}
	if !f.HasAD() {
		lp, err := md.LogDensity(h, nil)
		return eval.Num(lp), err
	}
	// One replayable node: at every replay the closure reads the
	// hyperparameters and τ² from its parents, checks them as the builtins
	// would (NaN sends the evaluation back to a walk, which reports), and
	// computes the pseudolikelihood and its gradient again.
	params := append(append([]eval.Value(nil), f.kernel.Hyper...), f.noise)
	var recErr error
	out := eval.FuncNode(params, func(x, d []float64) float64 {
		h, ok := f.hyperAt(x)
		if !ok {
			return math.NaN()
		}
		var g rbke.Grad
		lp, err := md.LogDensity(h, &g)
		if recErr = err; err != nil {
			return math.NaN()
		}
		clear(d)
		for j, i := range f.ell {
			d[i] = g.Ell[j]
		}
		if f.amp >= 0 {
			d[f.amp] = g.Amp
		}
		d[len(d)-1] = g.Tau2
		return lp
	})
	if recErr != nil {
		return nil, recErr
	}
	return out, nil
}

// hyperAt is the BKE hyperparameters at x, the values of the kernel's
// hyperparameters followed by τ²; ok is false outside their support.
func (f *bkeFamily) hyperAt(x []float64) (rbke.Hyper, bool) {
	h := rbke.Hyper{Amp: 1, Tau2: x[len(x)-1]}
	for _, i := range f.ell {
		h.Ell = append(h.Ell, x[i])
	}
	if f.amp >= 0 {
		h.Amp = x[f.amp]
	}
	ok := h.Tau2 > 0 && h.Amp > 0 && !math.IsInf(h.Tau2, 1) && !math.IsInf(h.Amp, 1)
	for _, l := range h.Ell {
		ok = ok && l > 0 && !math.IsInf(l, 1)
	}
	return h, ok
}

// bkeAt returns the first bke observation's parameters at the unconstrained
// point q, ok false when the model has none.
func bkeAt(d *model.Density, q []float64) (r bkeResolved, ok bool, err error) {
	fams, err := d.Families(q)
	if err != nil {
		return r, false, err
	}
	for _, f := range fams {
		if b, isBKE := f.(*bkeFamily); isBKE {
			if b.terms != nil {
				return r, false, &ast.Error{Pos: b.pos, Msg: fmt.Sprintf("bke: the embedding's posterior is computed for rbf(ell) or c * rbf(ell), and this model's kernel is the sum %s; fit the sum with sample or optimize, and use one component for embedding and witness", b.kernel)}
			}
			return b.resolved(), true, nil
		}
	}
	return r, false, nil
}

// hyperDraws evaluates the model at up to n posterior draws, evenly spaced
// over all chains, and returns the BKE hyperparameters at each.
func hyperDraws(a *eval.Args, name string, post *infer.Posterior, n int) ([]bkeResolved, error) {
	var all [][]float64
	for _, ch := range post.Result.Chains {
		all = append(all, ch.Draws...)
	}
	if n > len(all) {
		n = len(all)
	}
	d := post.Comp.NewDensity(a.Th.Fork())
	out := make([]bkeResolved, 0, n)
	for k := 0; k < n; k++ {
		r, ok, err := bkeAt(d, all[k*len(all)/n])
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, a.Errorf(name, "model %s has no bke observation, so its posterior has no embedding", post.Model.Name)
		}
		out = append(out, r)
	}
	return out, nil
}

// gridArg reads the evaluation points: a vector (one dimension) or matrix.
func gridArg(a *eval.Args) (*mat.Dense, error) {
	at, err := a.Matrix("at")
	if err != nil {
		return nil, err
	}
	if at.IsEmpty() {
		return nil, a.Errorf("at", "at has no points")
	}
	return at, nil
}

func levelArg(a *eval.Args) (float64, error) {
	l, err := a.Num("level")
	if err == nil && !(l > 0 && l < 1) {
		err = a.Errorf("level", "level must be between 0 and 1, got %v", l)
	}
	return l, err
}

// band summarises draws (draw × point) into a record with the pointwise
// mean of the means and the central credible band.
func band(at *mat.Dense, draws, means [][]float64, level float64) eval.Value {
	p, _ := at.Dims()
	mean, lower, upper := make([]float64, p), make([]float64, p), make([]float64, p)
	col := make([]float64, len(draws))
	for j := 0; j < p; j++ {
		for i := range draws {
			col[i] = draws[i][j]
			mean[j] += means[i][j] / float64(len(means))
		}
		sort.Float64s(col)
		lower[j] = stats.SortedQuantile(col, (1-level)/2)
		upper[j] = stats.SortedQuantile(col, (1+level)/2)
	}
	return bandRecord(at, mean, lower, upper).Set("level", eval.Num(level))
}

// bandRecord is {at, mean, lower, upper}, at a vector for one-dimensional
// points.
func bandRecord(at *mat.Dense, mean, lower, upper []float64) *eval.Record {
	rec := eval.NewRecord()
	if _, c := at.Dims(); c == 1 {
		rec.Set("at", &eval.Vec{Data: mat.Col(nil, 0, at)})
	} else {
		rec.Set("at", eval.NewMat(at))
	}
	return rec.Set("mean", &eval.Vec{Data: mean}).Set("lower", &eval.Vec{Data: lower}).Set("upper", &eval.Vec{Data: upper})
}

// embedder draws μ for one data set at the grid.
type embedder struct {
	x      *mat.Dense
	points *mat.Dense // the inducing points; nil: the model's landmarks
	models map[*mat.Dense]*rbke.Model
}

// newEmbedder reads the inducing: argument for data x.
func newEmbedder(a *eval.Args, x *mat.Dense) (*embedder, error) {
	e := &embedder{x: x, models: map[*mat.Dense]*rbke.Model{}}
	switch v := a.Value("inducing").(type) {
	case eval.Str:
		switch v {
		case "landmarks":
		case "data":
			e.points = x
		default:
			return nil, a.Errorf("inducing", `inducing must be "landmarks", "data" or a matrix of points, got %q`, string(v))
		}
	default:
		m, ok := eval.ToMatrix(v)
		if !ok {
			return nil, a.Errorf("inducing", `inducing must be "landmarks", "data" or a matrix of points, got %s`, eval.Describe(v))
		}
		e.points = m
	}
	return e, nil
}

func (e *embedder) draw(r bkeResolved, at *mat.Dense, rng *rand.Rand) ([]float64, []float64, error) {
	z := r.z
	if e.points != nil {
		z = e.points
	}
	md, ok := e.models[z]
	if !ok {
		var err error
		if md, err = rbke.New(e.x, z, r.opt); err != nil {
			return nil, nil, err
		}
		e.models[z] = md
	}
	p, _ := at.Dims()
	dst, mean := make([]float64, p), make([]float64, p)
	err := md.DrawPosterior(dst, mean, r.h, at, rng)
	return dst, mean, err
}

func embeddingBuiltin(a *eval.Args) (eval.Value, error) {
	x, err := a.Matrix("x")
	if err != nil {
		return nil, err
	}
	at, err := gridArg(a)
	if err != nil {
		return nil, err
	}
	level, err := levelArg(a)
	if err != nil {
		return nil, err
	}
	if m, ok := a.Value("post").(*eval.Model); ok {
		return fixedEmbedding(a, m, x, at, level)
	}
	post, ok := a.Value("post").(*infer.Posterior)
	if !ok {
		return nil, a.Errorf("post", "post must be a posterior from sample (or a model with values:), got %s", eval.Describe(a.Value("post")))
	}
	n, err := a.PositiveInt("draws")
	if err != nil {
		return nil, err
	}
	rng, err := a.Rand()
	if err != nil {
		return nil, err
	}
	hs, err := hyperDraws(a, "post", post, n)
	if err != nil {
		return nil, err
	}
	e, err := newEmbedder(a, x)
	if err != nil {
		return nil, err
	}
	draws, means := make([][]float64, len(hs)), make([][]float64, len(hs))
	task := a.Progress("draws", len(hs))
	defer task.Done()
	for i, h := range hs {
		if err := a.Step(task); err != nil {
			return nil, err
		}
		if draws[i], means[i], err = e.draw(h, at, rng); err != nil {
			return nil, a.Fail("%v", err)
		}
	}
	return band(at, draws, means, level), nil
}

// fixedEmbedding is the GP posterior at fixed hyperparameters: the mean and
// a Gaussian band from the predictive variance.
func fixedEmbedding(a *eval.Args, m *eval.Model, x, at *mat.Dense, level float64) (eval.Value, error) {
	if a.Value("values") == nil {
		return nil, a.Errorf("post", "with a model, give its parameter values: values: {ell: ...}")
	}
	vals, err := infer.RecordValues(a, "values")
	if err != nil {
		return nil, err
	}
	c, err := model.Compile(a.Th, a.Pos, m, vals, model.Terms{Likelihood: true})
	if err != nil {
		return nil, err
	}
	if c.Dim() != 0 {
		return nil, a.Errorf("values", "give a value for every parameter of %s", m.Name)
	}
	r, ok, err := bkeAt(c.NewDensity(a.Th.Fork()), nil)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, a.Errorf("post", "model %s has no bke observation", m.Name)
	}
	got := &r
	e, err := newEmbedder(a, x)
	if err != nil {
		return nil, err
	}
	z := got.z
	if e.points != nil {
		z = e.points
	}
	md, err := rbke.New(x, z, got.opt)
	if err != nil {
		return nil, a.Fail("%v", err)
	}
	mean, cov, err := md.Posterior(got.h, at)
	if err != nil {
		return nil, a.Fail("%v", err)
	}
	zq := stats.NormalQuantile((1 + level) / 2)
	p := len(mean)
	lower, upper, sd := make([]float64, p), make([]float64, p), make([]float64, p)
	for j := range mean {
		sd[j] = math.Sqrt(math.Max(cov.At(j, j), 0))
		lower[j], upper[j] = mean[j]-zq*sd[j], mean[j]+zq*sd[j]
	}
	return bandRecord(at, mean, lower, upper).Set("sd", &eval.Vec{Data: sd}).Set("level", eval.Num(level)), nil
}

func witnessBuiltin(a *eval.Args) (eval.Value, error) {
	var pp, pq infer.PosteriorArg
	var xp, xq *mat.Dense
	if err := a.Unpack("postP", &pp, "postQ", &pq, "xP", &xp, "xQ", &xq); err != nil {
		return nil, err
	}
	at, err := gridArg(a)
	if err != nil {
		return nil, err
	}
	level, err := levelArg(a)
	if err != nil {
		return nil, err
	}
	n, err := a.PositiveInt("draws")
	if err != nil {
		return nil, err
	}
	rng, err := a.Rand()
	if err != nil {
		return nil, err
	}
	hp, err := hyperDraws(a, "postP", pp.Posterior, n)
	if err != nil {
		return nil, err
	}
	hq := hp
	if pq.Posterior != pp.Posterior {
		if hq, err = hyperDraws(a, "postQ", pq.Posterior, n); err != nil {
			return nil, err
		}
	}
	k := min(len(hp), len(hq))
	ep, err := newEmbedder(a, xp)
	if err != nil {
		return nil, err
	}
	eq, err := newEmbedder(a, xq)
	if err != nil {
		return nil, err
	}
	draws, means := make([][]float64, k), make([][]float64, k)
	task := a.Progress("draws", k)
	defer task.Done()
	for i := 0; i < k; i++ {
		if err := a.Step(task); err != nil {
			return nil, err
		}
		dp, mp, err := ep.draw(hp[i], at, rng)
		if err != nil {
			return nil, a.Fail("%v", err)
		}
		dq, mq, err := eq.draw(hq[i], at, rng)
		if err != nil {
			return nil, a.Fail("%v", err)
		}
		for j := range dp {
			dp[j] -= dq[j]
			mp[j] -= mq[j]
		}
		draws[i], means[i] = dp, mp
	}
	return band(at, draws, means, level), nil
}

// degenerateMessage words what rbke.Degenerate found: which pathology, with
// the values and what to do.
func degenerateMessage(d rbke.Finding) string {
	ells := "lengthscale " + shortFloats(d.Ell) + " is"
	if len(d.Ell) > 1 {
		ells = "lengthscales " + shortFloats(d.Ell) + " are"
	}
	switch d.Kind {
	case rbke.Underflow:
		return fmt.Sprintf("%s so small that every k(x_i, z_j) underflows to 0: the embedding is identically zero and the pseudolikelihood says nothing about the data; put a prior on ell that excludes this region", ells)
	case rbke.ConstantEmbedding:
		return fmt.Sprintf("%s so large that every k(x_i, z_j) ≈ %s: the embedding is constant and the pseudolikelihood degenerate; fix tau2 (e.g. noise: 1) or put a prior on ell that excludes this region", ells, shortFloat(d.Amp))
	case rbke.NoiseBelowRounding:
		return fmt.Sprintf("tau2 = %s is below the rounding error of the kernel values (mean k(x_i, z_j)² = %s): the pseudolikelihood is degenerate there; fix tau2 (e.g. noise: 1) or put a prior on tau2 that excludes this region", shortFloat(d.Tau2), shortFloat(d.MeanK2))
	}
	return ""
}

// shortFloat formats v with two significant digits, exponents as in 3.2e3.
func shortFloat(v float64) string {
	s := strconv.FormatFloat(v, 'g', 2, 64)
	s = strings.Replace(s, "e+0", "e", 1)
	s = strings.Replace(s, "e+", "e", 1)
	return strings.Replace(s, "e-0", "e-", 1)
}

func shortFloats(v []float64) string {
	if len(v) == 1 {
		return shortFloat(v[0])
	}
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = shortFloat(x)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
