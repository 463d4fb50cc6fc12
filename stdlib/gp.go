package stdlib

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model"
	"github.com/kml-lang/kml/runtime/gp"
	"github.com/kml-lang/kml/runtime/kernels"
	"github.com/kml-lang/kml/runtime/linalg"
)

func init() {
	b := eval.Register(`gp(x, kernel, inducing = "auto", seed = 1)`,
		`A latent Gaussian process at the rows of x with covariance kernel, for use in a model: f ~ gp(X, rbf(ell) + c * linear()), then y ~ normal(f, sigma) (or laplace(f, b), student_t(nu, f, s), bernoulli_logit(f)). f is integrated out (exactly for Gaussian noise) or optimised, as optimize's objective says; see predict. inducing: "auto" (exact up to 3000 rows; above, the Nyström approximation through 512 k-means centres of x), "exact", a number m of k-means centres (seeded by seed), or a matrix of inducing points; the Nyström path is for normal observations and the marginal likelihood.`,
		gpBuiltin)
	b.AD = true
	eval.Register(`predict(fit, xnew, values?)`,
		`The predictive distribution of a model with a latent GP at the rows of xnew: fit is what optimize returned for the model (it carries the model and its objective), or the model itself with its parameters in values. Returns a record {f_mean, f_var, y_mean, y_var}: the mean and variance of the latent function and of a new observation (for bernoulli_logit, y_mean is P(y = 1), also given as prob).`,
		predictBuiltin)
}

// gpLatent is the value of gp(x, kernel) inside a model.
type gpLatent struct {
	kernel *KernelVal
	xv     eval.Value
	x      *mat.Dense
	pos    ast.Pos
	// inducing is the number of k-means inducing points (0: exact), or z
	// the inducing points given.
	inducing int
	z        *mat.Dense
	seed     uint64
	// auto says the Nyström path was chosen by size, not by the user.
	auto bool
}

// Beyond lowRankAbove rows, gp(...) takes the Nyström path with
// lowRankPoints k-means inducing points unless told otherwise: the exact
// path's O(n³) per evaluation is then seconds.
const (
	lowRankAbove  = 3000
	lowRankPoints = 512
)

var (
	_ model.Latent  = (*gpLatent)(nil)
	_ eval.ADHolder = (*gpLatent)(nil)
)

func (g *gpLatent) Type() string { return "latent GP" }
func (g *gpLatent) String() string {
	r, c := g.x.Dims()
	return fmt.Sprintf("gp(%d×%d matrix, %s)", r, c, g.kernel)
}
func (g *gpLatent) HasAD() bool { return g.kernel.HasAD() }

func gpBuiltin(a *eval.Args) (eval.Value, error) {
	var k kernel
	var x *mat.Dense
	if err := a.Unpack("x", &x, "kernel", &k); err != nil {
		return nil, err
	}
	if err := kernels.CheckData(x, "x"); err != nil {
		return nil, a.Errorf("x", "%v", err)
	}
	if d := k.K.Dim(); d != 0 {
		if _, c := x.Dims(); c != d {
			return nil, a.Errorf("kernel", "the kernel %s takes %d input columns but x has %d", k.K, d, c)
		}
	}
	g := &gpLatent{kernel: k.KernelVal, xv: a.Value("x"), x: x, pos: a.Pos}
	n, d := x.Dims()
	seed, err := a.Int("seed")
	if err != nil {
		return nil, err
	}
	g.seed = uint64(seed)
	switch v := a.Value("inducing").(type) {
	case eval.Str:
		switch v {
		case "auto":
			if n > lowRankAbove {
				g.inducing, g.auto = lowRankPoints, true
			}
		case "exact":
		default:
			return nil, a.Errorf("inducing", `inducing must be "auto", "exact", a number of points or a matrix of points, got %q`, string(v))
		}
	case eval.Num:
		m := int(v)
		if float64(m) != float64(v) || m < 1 || m > n {
			return nil, a.Errorf("inducing", "inducing must be a whole number of points between 1 and the %d rows of x, got %s", n, eval.FormatNumber(float64(v)))
		}
		g.inducing = m
	default:
		z, err := a.Matrix("inducing")
		if err != nil {
			return nil, a.Errorf("inducing", `inducing must be "auto", "exact", a number of points or a matrix of points, got %s`, eval.Describe(v))
		}
		if _, c := z.Dims(); c != d {
			return nil, a.Errorf("inducing", "the inducing points have %d columns but x has %d", c, d)
		}
		if err := kernels.CheckData(z, "inducing"); err != nil {
			return nil, a.Errorf("inducing", "%v", err)
		}
		g.z = z
	}
	return g, nil
}

// lowRank reports whether the Nyström path applies.
func (g *gpLatent) lowRank() bool { return g.z != nil || g.inducing > 0 }

type inducingKey struct {
	x    eval.Value
	m    int
	seed uint64
}

// inducingPoints returns the inducing points: the given ones, or seeded
// k-means centres of x, computed once per model (cache nil: every call).
func (g *gpLatent) inducingPoints(ev *model.Eval) (*mat.Dense, error) {
	if g.z != nil {
		return g.z, nil
	}
	build := func() (any, error) {
		return kernels.Landmarks(g.x, g.inducing, g.seed, kernels.LandmarkMethod("kmeans"))
	}
	if ev == nil {
		z, err := build()
		if err != nil {
			return nil, err
		}
		return z.(*mat.Dense), nil
	}
	z, err := ev.Cache(inducingKey{g.xv, g.inducing, g.seed}, build)
	if err != nil {
		return nil, err
	}
	return z.(*mat.Dense), nil
}

// observations reads the data observed through the latent function: n
// finite numbers.
func (g *gpLatent) observations(data eval.Value) ([]float64, error) {
	ys, ok := eval.ToFloats(data)
	y := append([]float64(nil), ys...) // labels may be rewritten; data is shared
	n, _ := g.x.Dims()
	if !ok {
		return nil, fmt.Errorf("the observations of a latent GP must be a vector, got %s", eval.Describe(data))
	}
	if len(y) != n {
		return nil, fmt.Errorf("%d observations for a latent GP at %d input rows", len(y), n)
	}
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("observation %d is %v; a latent GP needs finite observations", i+1, v)
		}
	}
	return y, nil
}

// scalarParam is a likelihood parameter that must be one number (or one
// model parameter) rather than a vector.
func scalarParam(lik *model.DistVal, i int) (float64, error) {
	switch v := lik.Params[i].(type) {
	case eval.Num, *eval.ADNum:
		x, _ := eval.ToFloat(v)
		return x, nil
	}
	return 0, fmt.Errorf("with a latent GP, %s's %s must be a number or a scalar parameter, got %s",
		lik.Family.Name(), lik.Family.ParamNames()[i], eval.Describe(lik.Params[i]))
}

// gpSettings turns the model objective into runtime/gp's settings.
func (g *gpLatent) gpSettings(obj model.Objective) (gp.Settings, error) {
	s := gp.Settings{P: obj.P, Lambda: obj.Lambda}
	switch obj.Name {
	case "", "mlm", "vb":
		s.Kind = gp.MLM
	case "map":
		s.Kind = gp.MAP
	case "mkl", "rr":
		s.Kind = gp.MKL
		if obj.Name == "rr" {
			s.Kind = gp.RR
		}
		s.Weights = gp.Weights(g.kernel.K)
		if len(s.Weights) == 0 {
			return s, fmt.Errorf("objective %q learns the weights θ of a kernel θ₁k₁ + ... + θ_M k_M, but %s has no weights; write them as parameters, e.g. t1 * rbf(ell) + t2 * linear()", obj.Name, g.kernel.K)
		}
	default:
		return s, fmt.Errorf("unknown objective %q for a latent GP", obj.Name)
	}
	return s, nil
}

// LogLik is the objective's log likelihood term for data observed through
// lik, with its gradient on the tape.
func (g *gpLatent) LogLik(ev *model.Eval, lik *model.DistVal, loc int, data eval.Value) (eval.Value, error) {
	y, err := g.observations(data)
	if err != nil {
		return nil, err
	}
	if lik.Family.Name() == "normal" {
		return g.normalLogLik(ev, lik, loc, y)
	}
	if g.lowRank() && !g.auto {
		return nil, fmt.Errorf("inducing points (the Nyström path) are for normal observations in this version; %s observations need inducing: \"exact\"", lik.Family.Name())
	}
	l, idx, err := nonGaussianLik(lik, loc, y)
	if err != nil {
		return nil, err
	}
	obj := ev.Objective()
	s, err := g.gpSettings(obj)
	if err != nil {
		return nil, err
	}
	switch s.Kind {
	case gp.MLM:
		s.Kind = gp.VB
		if ev.Checking && obj.Name != "vb" {
			ev.WarnOnce("gp: approximate", g.pos, fmt.Sprintf("gp: with %s observations the marginal likelihood of the hyperparameters is the variational (VB) lower bound, so this is an approximation", lik.Family.Name()))
		}
	case gp.RR:
		return nil, fmt.Errorf(`objective "rr" (eq. 9) is for Gaussian noise; with %s observations use "mkl"`, lik.Family.Name())
	}
	k := g.kernel.K
	params := append([]eval.Value(nil), g.kernel.Hyper...)
	for _, i := range idx {
		params = append(params, lik.Params[i])
	}
	ad := false
	for _, p := range params {
		ad = ad || eval.IsAD(p)
	}
	var grad []float64
	if ad {
		grad = make([]float64, len(params))
	}
	lp, err := gp.NonGaussian(s, k, g.x, y, l, grad)
	if err != nil {
		return nil, &ast.Error{Pos: g.pos, Msg: fmt.Sprintf("gp: %v (kernel %s)", err, k)}
	}
	if !ad {
		return eval.Num(lp), nil
	}
	return eval.Node(lp, params, grad), nil
}

// nonGaussianLik reads a non-Gaussian likelihood's parameters (idx: their
// positions in lik.Params) and turns {0, 1} labels into {−1, 1} in y.
func nonGaussianLik(lik *model.DistVal, loc int, y []float64) (l gp.Lik, idx []int, err error) {
	name := lik.Family.Name()
	want := map[string]int{"laplace": 0, "student_t": 1, "bernoulli_logit": 0}
	w, ok := want[name]
	if !ok {
		return l, nil, fmt.Errorf("a latent GP can be observed through normal, laplace, student_t or bernoulli_logit, not %s", name)
	}
	if loc != w {
		return l, nil, fmt.Errorf("the latent GP must be %s's location %s", name, lik.Family.ParamNames()[w])
	}
	for i := range lik.Params {
		if i == loc {
			continue
		}
		v, err := scalarParam(lik, i)
		if err != nil {
			return l, nil, err
		}
		l.Params = append(l.Params, v)
		idx = append(idx, i)
	}
	switch name {
	case "laplace":
		l.Kind = gp.Laplace
	case "student_t":
		l.Kind = gp.StudentT
	default:
		l.Kind = gp.Logit
		if err := signLabels(y); err != nil {
			return l, nil, err
		}
	}
	return l, idx, nil
}

// signLabels maps labels in {0, 1} to {−1, 1} in place; labels already in
// {−1, 1} stay. Anything else is an error naming the first bad label.
func signLabels(y []float64) error {
	zeroOne := true
	for _, v := range y {
		if v == -1 {
			zeroOne = false
		}
	}
	for i, v := range y {
		switch {
		case v == 1:
		case v == 0 && zeroOne:
			y[i] = -1
		case v == -1 && !zeroOne:
		default:
			return fmt.Errorf("label %d is %v; bernoulli_logit labels must be all in {0, 1} or all in {−1, 1}", i+1, eval.FormatNumber(v))
		}
	}
	return nil
}

func (g *gpLatent) normalLogLik(ev *model.Eval, lik *model.DistVal, loc int, y []float64) (eval.Value, error) {
	if loc != 0 {
		return nil, fmt.Errorf("the latent GP must be normal's mean, the first argument")
	}
	sigma, err := scalarParam(lik, 1)
	if err != nil {
		return nil, err
	}
	s, err := g.gpSettings(ev.Objective())
	if err != nil {
		return nil, err
	}
	k := g.kernel.K
	var grad []float64
	ad := g.HasAD() || eval.IsAD(lik.Params[1])
	if ad {
		grad = make([]float64, k.NumHyper()+1)
	}
	var lp float64
	if g.lowRank() {
		if s.Kind != gp.MLM {
			return nil, fmt.Errorf("the Nyström path (inducing points) gives the marginal likelihood only; objective %q needs inducing: \"exact\"", ev.Objective().Name)
		}
		var z *mat.Dense
		if z, err = g.inducingPoints(ev); err == nil {
			lp, err = gp.LowRankLogMarginal(k, g.x, z, y, sigma*sigma, grad)
		}
	} else {
		lp, err = gp.Gaussian(s, k, g.x, y, sigma*sigma, grad)
	}
	if err != nil {
		return nil, &ast.Error{Pos: g.pos, Msg: fmt.Sprintf("gp: %v (kernel %s, sigma %g)", err, k, sigma)}
	}
	if !ad {
		return eval.Num(lp), nil
	}
	params := append(append([]eval.Value(nil), g.kernel.Hyper...), lik.Params[1])
	grad[len(grad)-1] *= 2 * sigma // σ² → σ
	return eval.Node(lp, params, grad), nil
}

// latentTerms are the density terms of objective obj for a model with a
// latent GP.
func latentTerms(a *eval.Args, obj string) (model.Terms, error) {
	var approx string
	lat := model.Objective{Name: obj}
	if err := a.Unpack("p", &lat.P, "lambda", &lat.Lambda, "approx", &approx); err != nil {
		return model.Terms{}, err
	}
	switch approx {
	case "vb":
		lat.Approx = approx
	case "laplace":
		return model.Terms{}, a.Errorf("approx", `approx: "laplace" is not available in this version of KML; use "vb", the variational bound`)
	default:
		return model.Terms{}, a.Errorf("approx", `approx must be "vb", got %q`, approx)
	}
	switch obj {
	case "map":
		return model.Terms{Prior: true, Likelihood: true, Latent: lat}, nil
	case "ml", "mlm":
		lat.Name = "mlm"
		return model.Terms{Likelihood: true, Latent: lat}, nil
	case "vb":
		return model.Terms{Likelihood: true, Latent: lat}, nil
	case "mkl", "rr":
		if !(lat.P > 0) || math.IsInf(lat.P, 0) {
			return model.Terms{}, a.Errorf("p", "p must be positive, got %v", lat.P)
		}
		if !(lat.Lambda >= 0) || math.IsInf(lat.Lambda, 0) {
			return model.Terms{}, a.Errorf("lambda", "lambda must be non-negative, got %v", lat.Lambda)
		}
		return model.Terms{Likelihood: true, Latent: lat}, nil
	}
	return model.Terms{}, a.Errorf("objective", `objective for a model with a latent GP must be "map", "ml", "mlm", "vb", "mkl" or "rr", got %q`, obj)
}

// gpGradTol ends a GP hyperparameter optimisation when the largest
// derivative of the objective with respect to the unconstrained
// hyperparameters is below it: the objective is a sum over n observations,
// so 1e-4 leaves it within about 1e-8 of its maximum near a regular optimum,
// and irrelevant ARD lengthscales, whose derivatives vanish only
// asymptotically as they grow, stop being chased.
const gpGradTol = 1e-4

func predictBuiltin(a *eval.Args) (eval.Value, error) {
	var xnew *mat.Dense
	if err := a.Unpack("xnew", &xnew); err != nil {
		return nil, err
	}
	var m *eval.Model
	var given *eval.Record
	obj := ""
	switch f := a.Value("fit").(type) {
	case *eval.Record:
		mv, _ := f.Attr("model")
		var ok bool
		if m, ok = mv.(*eval.Model); !ok {
			return nil, a.Errorf("fit", "fit must be what optimize returned for a model with a latent GP (a record with a model field), or a model with values")
		}
		if o, ok := f.Attr("objective"); ok {
			if s, ok := o.(eval.Str); ok {
				obj = string(s)
			}
		}
		given = f
	case *eval.Model:
		m = f
		r, err := a.Record("values")
		if err != nil {
			return nil, a.Errorf("fit", "predict(%s, xnew) needs the parameters' values: predict(%s, xnew, values: {...})", m.Name, m.Name)
		}
		given = r
	default:
		return nil, a.Errorf("fit", "fit must be what optimize returned, or a model, got %s", eval.Describe(f))
	}
	if !model.HasLatent(m) {
		return nil, a.Errorf("fit", "model %s has no latent GP (f ~ gp(X, KERNEL)) to predict with", m.Name)
	}
	values := map[string]eval.Value{}
	var missing []string
	for _, p := range m.Params {
		v, ok := given.Attr(p.Name)
		if !ok {
			missing = append(missing, p.Name)
			continue
		}
		values[p.Name] = v
	}
	if len(missing) > 0 {
		return nil, a.Fail("give a value for every parameter of %s; missing %s", m.Name, strings.Join(missing, ", "))
	}
	if obj == "ml" {
		obj = "mlm"
	}
	latentObj := model.Objective{Name: obj, Approx: "vb"}
	c, err := model.Compile(a.Th, a.Pos, m, values, model.Terms{Likelihood: true, Latent: latentObj})
	if err != nil {
		return nil, err
	}
	obs, err := c.NewDensity(a.Th.Fork()).LatentObservations(nil)
	if err != nil {
		return nil, err
	}
	if len(obs) == 0 {
		return nil, a.Fail("model %s observes nothing through its latent GP", m.Name)
	}
	o := obs[0]
	g, ok := o.Latent.(*gpLatent)
	if !ok {
		return nil, a.Fail("internal error: latent function of type %T", o.Latent)
	}
	_, d := g.x.Dims()
	if _, dn := xnew.Dims(); dn != d {
		return nil, a.Errorf("xnew", "xnew has %d columns but the GP's inputs have %d", dn, d)
	}
	if err := kernels.CheckData(xnew, "xnew"); err != nil {
		return nil, a.Errorf("xnew", "%v", err)
	}
	y, err := g.observations(o.Data)
	if err != nil {
		return nil, a.Fail("%v", err)
	}
	rec, err := g.predict(latentObj, o.Lik, o.Loc, y, xnew)
	if err != nil {
		return nil, a.Fail("%v", err)
	}
	return rec, nil
}

// predict is the predictive at xnew given the observations y through lik:
// exact for Gaussian noise; otherwise that of the Gaussian sites the
// objective's inner loop settles on (VB's approximate posterior, or the
// sites at z = 0 around the joint MAP latent function for map and mkl).
func (g *gpLatent) predict(obj model.Objective, lik *model.DistVal, loc int, y []float64, xnew *mat.Dense) (*eval.Record, error) {
	switch lik.Family.Name() {
	case "normal":
		sigma, err := scalarParam(lik, 1)
		if err != nil {
			return nil, err
		}
		var mean, fvar []float64
		if g.lowRank() {
			z, err := g.inducingPoints(nil)
			if err != nil {
				return nil, err
			}
			mean, fvar, err = gp.LowRankPredict(g.kernel.K, g.x, z, y, sigma*sigma, xnew)
			if err != nil {
				return nil, fmt.Errorf("gp: %v", err)
			}
		} else if mean, fvar, err = g.gaussianPredict(y, []float64{sigma * sigma}, xnew); err != nil {
			return nil, err
		}
		yvar := make([]float64, len(fvar))
		for i, v := range fvar {
			yvar[i] = v + sigma*sigma
		}
		return predictRecord(mean, fvar, mean, yvar), nil
	}
	l, _, err := nonGaussianLik(lik, loc, y)
	if err != nil {
		return nil, err
	}
	K, err := kernels.Gram(g.kernel.K, g.x)
	if err != nil {
		return nil, err
	}
	z0 := obj.Name == "map" || obj.Name == "mkl"
	if z0 {
		for i := 0; i < K.SymmetricDim(); i++ {
			K.SetSym(i, i, K.At(i, i)+gp.MapJitter)
		}
	}
	sites, err := gp.FitSites(K, y, l, z0)
	if err != nil {
		return nil, fmt.Errorf("gp: %v", err)
	}
	mean, fvar, err := g.gaussianPredict(sites.M, sites.Gamma, xnew)
	if err != nil {
		return nil, err
	}
	ymean := append([]float64(nil), mean...)
	yvar := make([]float64, len(fvar))
	switch l.Kind {
	case gp.Laplace:
		for i, v := range fvar {
			yvar[i] = v + 2*l.Params[0]*l.Params[0]
		}
	case gp.StudentT:
		nu, s := l.Params[0], l.Params[1]
		for i, v := range fvar {
			yvar[i] = math.Inf(1)
			if nu > 2 {
				yvar[i] = v + s*s*nu/(nu-2)
			}
		}
	case gp.Logit:
		// ∫σ(f)N(f | μ, v)df ≈ σ(μ/√(1 + πv/8)) (MacKay 1992).
		for i, m := range mean {
			p := 1 / (1 + math.Exp(-m/math.Sqrt(1+math.Pi*fvar[i]/8)))
			ymean[i], yvar[i] = p, p*(1-p)
		}
		return predictRecord(mean, fvar, ymean, yvar).Set("prob", &eval.Vec{Data: ymean}), nil
	}
	return predictRecord(mean, fvar, ymean, yvar), nil
}

// gaussianPredict is the GP posterior of f at xnew given Gaussian
// observations y with variances noise (one, or one per observation): the
// shared predictive linalg.GPPredict on the factor of K + diag(noise).
func (g *gpLatent) gaussianPredict(y, noise []float64, xnew *mat.Dense) (mean, fvar []float64, err error) {
	ch, _, _, err := gp.Factor(g.kernel.K, g.x, noise)
	if err != nil {
		return nil, nil, fmt.Errorf("gp: %v (kernel %s)", err, g.kernel.K)
	}
	_, d := g.x.Dims()
	mean, cov, err := linalg.GPPredict(g.kernel.K, ch, linalg.RowMajor(g.x), d, mat.NewVecDense(len(y), y), xnew)
	if err != nil {
		return nil, nil, err
	}
	fvar = make([]float64, len(mean))
	for i := range fvar {
		fvar[i] = math.Max(cov.At(i, i), 0)
	}
	return mean, fvar, nil
}

func predictRecord(fmean, fvar, ymean, yvar []float64) *eval.Record {
	return eval.NewRecord().Set("f_mean", &eval.Vec{Data: fmean}).Set("f_var", &eval.Vec{Data: fvar}).
		Set("y_mean", &eval.Vec{Data: ymean}).Set("y_var", &eval.Vec{Data: yvar})
}
