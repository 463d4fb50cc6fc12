package gp

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/infer"
	"github.com/kml-lang/kml/lang/model"
	"github.com/kml-lang/kml/lang/model/dists"
	rgp "github.com/kml-lang/kml/runtime/gp"
	"github.com/kml-lang/kml/runtime/kernels"
	"github.com/kml-lang/kml/runtime/rng"
)

func registerGpPredict(reg *eval.Registry) {
	reg.Register(`predict(fit, xnew, values?, approx?, draws?, level = 0.9, samples = 100, seed?)`,
		`The predictive distribution of a model with a latent GP at the rows of xnew: fit is what optimize returned for the model (it carries the model and its objective), or the model itself with its parameters in values. Returns a record {f_mean, f_var, y_mean, y_var}: the mean and variance of the latent function and of a new observation (for bernoulli_logit, y_mean is P(y = 1), also given as prob; for poisson_log and neg_binomial_2_log, the count's mean E[e^f] and variance under the latent predictive). For non-Gaussian observations the latent posterior is that of the approximation the fit used (its approx field, or approx: "vb" | "laplace" | "ep"): VB's Gaussian sites, Laplace's Gaussian at the posterior mode or EP's sites. fit may also be what sample returned: the predictive is then the equal-weight mixture over up to draws posterior draws (default 200) (evenly spaced over the chains): f_mean and y_mean the mean of the per-draw means, f_var and y_var by the law of total variance, and f_lower, f_upper (y_lower, y_upper) the mixture's (1 − level)/2 and (1 + level)/2 quantiles — exact for f and Gaussian noise, from samples seeded draws per posterior draw for Laplace and Student-t noise; also level and draws. For one-column inputs the record also holds x, xnew's column, for plot. For a multi-class GP (gp(X, K, classes: C), labels through categorical_logit) the record is {prob, class, f_mean, f_var, draws, approx, and seed if given}: prob the n × C matrix of class probabilities, softmax averaged over Laplace's Gaussian predictive of the C latent values (after optimize's method "svgp", over q's, independent across classes; approx "svgp") by draws Monte Carlo draws (default 1000) (antithetic pairs, seeded by seed), class the most probable class, f_mean and f_var the latent means and variances (n × C).`,
		predictBuiltin)
}

func predictBuiltin(a *eval.Args) (eval.Value, error) {
	var xnew *mat.Dense
	if err := a.Unpack("xnew", &xnew); err != nil {
		return nil, err
	}
	var m *eval.Model
	var given *eval.Record
	var obj model.Objective // unset: VB for one GP, Laplace for classes
	switch f := a.Value("fit").(type) {
	case *infer.Posterior:
		return predictPosterior(a, f, xnew)
	case *eval.Record:
		if fit, ok := model.LatentFitOf(f); ok {
			switch s := fit.Fitted.(type) {
			case *rgp.SVGP:
				return svgpPredict(a, s, xnew)
			case *rgp.SVGPMulti:
				return svgpPredictClasses(a, s, xnew)
			}
			m, obj = fit.Model, fit.Objective
		} else {
			mv, _ := f.Attr("model")
			var ok bool
			if m, ok = mv.(*eval.Model); !ok {
				return nil, a.Errorf("fit", "fit must be what optimize returned for a model with a latent GP (a record with a model field), or a model with values")
			}
			obj = recordObjective(f)
			if v, _ := f.Attr("method"); v == eval.Str("svgp") {
				return nil, a.Errorf("fit", `predict after method "svgp" needs the record optimize returned (it keeps the fitted q(u)), not one built by hand`)
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
		return nil, a.Errorf("fit", "fit must be what optimize or sample returned, or a model, got %s", eval.Describe(f))
	}
	if a.Value("approx") != nil {
		var err error
		if obj.Approx, err = model.LatentApprox(a); err != nil {
			return nil, err
		}
	}
	dp, err := predictAt(a, m, given, obj, xnew)
	if err != nil {
		return nil, err
	}
	return withX(dp.record(), xnew), nil
}

// recordObjective reads the objective of a record built by hand in
// optimize's shape: its objective, approx, loss, C and epsilon fields, the
// names optimize prints (anything else is left unset, as it always was).
func recordObjective(f *eval.Record) model.Objective {
	var obj model.Objective
	str := func(name string) (string, bool) {
		v, ok := f.Attr(name)
		s, isStr := v.(eval.Str)
		return string(s), ok && isStr
	}
	if s, ok := str("objective"); ok {
		if k, known := model.ParseObjective(s); known {
			obj.Name = k
		} else {
			obj.Name = model.ObjectiveKind(s)
		}
	}
	if s, ok := str("approx"); ok {
		obj.Approx, _ = rgp.ParseApprox(s)
	}
	if s, ok := str("loss"); ok {
		obj.Loss = model.Loss(s)
		cv, _ := f.Attr("C")
		ev, _ := f.Attr("epsilon")
		obj.C, _ = eval.ToFloat(cv)
		obj.Epsilon, _ = eval.ToFloat(ev)
	}
	return obj
}

// withX adds the new inputs to predict's record as the field x, which plot
// draws the bands over, when they are one column.
func withX(rec *eval.Record, xnew *mat.Dense) *eval.Record {
	if _, d := xnew.Dims(); d == 1 {
		rec.Set("x", &eval.Vec{Data: mat.Col(nil, 0, xnew)})
	}
	return rec
}

// predictAt is the predictive of model m at xnew with its parameters'
// values in given, under the latent objective obj.
func predictAt(a *eval.Args, m *eval.Model, given *eval.Record, latentObj model.Objective, xnew *mat.Dense) (*drawPred, error) {
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
	if o.Lik == nil {
		draws := 1000
		if a.Given("draws") {
			if draws, err = a.PositiveInt("draws"); err != nil {
				return nil, err
			}
		}
		seed, err := a.Seed()
		if err != nil {
			return nil, err
		}
		rec, err := g.predictClasses(latentObj, o.Data, xnew, draws, seed, a.Given("seed"), rng.New(seed, rng.Builtin))
		if err != nil {
			return nil, a.Fail("%v", err)
		}
		return &drawPred{classes: rec}, nil
	}
	y, err := g.observations(o.Data)
	if err != nil {
		return nil, a.Fail("%v", err)
	}
	dp, err := g.predict(latentObj, o.Lik, o.Loc, y, xnew)
	if err != nil {
		return nil, a.Fail("%v", err)
	}
	return dp, nil
}

// drawPred is the predictive at one setting of the hyperparameters: f is
// N(fmean, fvar) at each new point, and a new observation is f plus the
// noise of lik (Gaussian with variance sigma² when gaussian is set).
type drawPred struct {
	fmean, fvar, ymean, yvar []float64
	gaussian                 bool
	sigma                    float64
	lik                      rgp.Lik
	// svm says fmean is an SVM's decision function, with no variance.
	svm bool
	// classes is a multi-class GP's whole record (class probabilities),
	// when the model has one; the other fields are then unset.
	classes *eval.Record
}

// record is predict's record for one setting of the hyperparameters.
func (dp *drawPred) record() *eval.Record {
	if dp.classes != nil {
		return dp.classes
	}
	if dp.svm {
		return eval.NewRecord().Set("f_mean", &eval.Vec{Data: dp.fmean})
	}
	rec := predictRecord(dp.fmean, dp.fvar, dp.ymean, dp.yvar)
	if !dp.gaussian && dp.lik.Kind == rgp.Logit {
		rec.Set("prob", &eval.Vec{Data: dp.ymean})
	}
	return rec
}

// predict is the predictive at xnew given the observations y through lik:
// exact for Gaussian noise; otherwise that of the Gaussian sites the
// objective's inner loop settles on (VB's approximate posterior, or the
// sites at z = 0 around the joint MAP latent function for map and mkl).
func (g *gpLatent) predict(obj model.Objective, lik *dists.DistVal, loc int, y []float64, xnew *mat.Dense) (*drawPred, error) {
	if obj.Loss != model.LossLikelihood {
		return g.svmPredict(obj, y, xnew)
	}
	switch lik.Family.Name() {
	case "normal":
		if noise, ok, err := knownNoise(lik, len(y)); err != nil || ok {
			if err != nil {
				return nil, err
			}
			if g.lowRank() {
				return nil, fmt.Errorf(`a vector of known noise standard deviations needs the exact GP (inducing: "exact")`)
			}
			// New points' noise is not known: y_var is f_var.
			mean, fvar, err := g.gaussianPredict(y, noise, xnew)
			if err != nil {
				return nil, err
			}
			return &drawPred{fmean: mean, fvar: fvar, ymean: mean, yvar: fvar, gaussian: true}, nil
		}
		sigma, err := scalarParam(lik, 1)
		if err != nil {
			return nil, err
		}
		var mean, fvar []float64
		if g.lowRank() {
			z, err := g.inducingPoints(nil, g.kernel.K)
			if err != nil {
				return nil, err
			}
			predict := rgp.SGPRPredict // DTC's predictive too
			if g.sparse == "fitc" {
				predict = rgp.FITCPredict
			}
			mean, fvar, err = predict(g.kernel.K, g.x, z, y, sigma*sigma, xnew)
			if err != nil {
				return nil, fmt.Errorf("gp: %v", bare(err))
			}
		} else if mean, fvar, err = g.gaussianPredict(y, []float64{sigma * sigma}, xnew); err != nil {
			return nil, err
		}
		yvar := make([]float64, len(fvar))
		for i, v := range fvar {
			yvar[i] = v + sigma*sigma
		}
		return &drawPred{fmean: mean, fvar: fvar, ymean: mean, yvar: yvar, gaussian: true, sigma: sigma}, nil
	}
	l, _, err := nonGaussianLik(lik, loc, y)
	if err != nil {
		return nil, err
	}
	obj.Approx = obj.Approx.For(l.Kind)
	s, err := g.gpSettings(obj, false)
	if err != nil || s.Kind == rgp.RR {
		// The rr objective is for Gaussian noise: a record built by hand
		// that names it, or an objective gpSettings does not know, with
		// other observations has always predicted with VB's sites.
		s = rgp.Settings{Kind: rgp.MLM, Approx: rgp.VB{}}
	}
	if info, _ := obj.Approx.Info(); obj.Name.Marginal() && info.Refuse != nil {
		if err := info.Refuse(l.Kind); err != nil {
			return nil, err
		}
	}
	inf, err := s.Inference()
	if err != nil {
		return nil, err
	}
	K, err := kernels.Gram(g.kernel.K, g.x)
	if err != nil {
		return nil, err
	}
	post, err := inf.Fit(K, y, l, rgp.Needs{Predictive: true})
	if err != nil {
		if strings.HasPrefix(err.Error(), "gp: ") {
			return nil, err
		}
		return nil, fmt.Errorf("gp: %v", bare(err))
	}
	mean, fvar, err := post.Predict(g.kernel.K, g.x, xnew)
	if err != nil {
		return nil, err
	}
	return likPredict(l, mean, fvar), nil
}

// likPredict turns the latent predictive N(mean, fvar) into the
// predictive of a new observation through likelihood l.
func likPredict(l rgp.Lik, mean, fvar []float64) *drawPred {
	ymean := append([]float64(nil), mean...)
	yvar := make([]float64, len(fvar))
	switch l.Kind {
	case rgp.Laplace:
		for i, v := range fvar {
			yvar[i] = v + 2*l.Params[0]*l.Params[0]
		}
	case rgp.StudentT:
		nu, s := l.Params[0], l.Params[1]
		for i, v := range fvar {
			yvar[i] = math.Inf(1)
			if nu > 2 {
				yvar[i] = v + s*s*nu/(nu-2)
			}
		}
	case rgp.Logit:
		// ∫σ(f)N(f | μ, v)df ≈ σ(μ/√(1 + πv/8)) (MacKay 1992).
		for i, m := range mean {
			p := 1 / (1 + math.Exp(-m/math.Sqrt(1+math.Pi*fvar[i]/8)))
			ymean[i], yvar[i] = p, p*(1-p)
		}
	case rgp.Poisson, rgp.NegBinomial:
		// The lognormal moments of e^f: E = e^(μ + v/2), E[e^2f] = e^(2μ + 2v);
		// var y = E[var(y | f)] + var(e^f), var(y | f) = e^f (+ e^2f/φ).
		for i, m := range mean {
			v := fvar[i]
			e1, e2 := math.Exp(m+v/2), math.Exp(2*m+2*v)
			ymean[i], yvar[i] = e1, e1+e2-e1*e1
			if l.Kind == rgp.NegBinomial {
				yvar[i] += e2 / l.Params[0]
			}
		}
	}
	return &drawPred{fmean: mean, fvar: fvar, ymean: ymean, yvar: yvar, lik: l}
}

// gaussianPredict is the GP posterior of f at xnew given Gaussian
// observations y with variances noise (one, or one per observation):
// rgp.SitesPredict.
func (g *gpLatent) gaussianPredict(y, noise []float64, xnew *mat.Dense) (mean, fvar []float64, err error) {
	return rgp.SitesPredict(g.kernel.K, g.x, y, noise, xnew)
}

func predictRecord(fmean, fvar, ymean, yvar []float64) *eval.Record {
	return eval.NewRecord().Set("f_mean", &eval.Vec{Data: fmean}).Set("f_var", &eval.Vec{Data: fvar}).
		Set("y_mean", &eval.Vec{Data: ymean}).Set("y_var", &eval.Vec{Data: yvar})
}
