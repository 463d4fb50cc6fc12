package dists

import (
	"fmt"
	"strings"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model"
	"github.com/kml-lang/kml/lang/model/dists"
	"github.com/kml-lang/kml/runtime/dist"
)

// familyDocs describes each family's parameterisation for `:help`.
var familyDocs = map[string]string{
	"normal":             "Normal distribution with mean mu and standard deviation sigma > 0.",
	"lognormal":          "Log-normal: log(x) ~ normal(mu, sigma); support x > 0.",
	"gamma":              "Gamma with shape alpha > 0 and rate beta > 0 (as in Stan); mean alpha/beta.",
	"inv_gamma":          "Inverse gamma with shape alpha > 0 and scale beta > 0; 1/x ~ gamma(alpha, beta).",
	"exponential":        "Exponential with rate beta > 0; mean 1/beta.",
	"beta":               "Beta with shapes a > 0, b > 0 on (0, 1).",
	"uniform":            "Uniform on (lo, hi).",
	"half_normal":        "Half-normal: |y| for y ~ normal(0, sigma); support x ≥ 0.",
	"half_cauchy":        "Half-Cauchy: |y| for y ~ cauchy(0, sigma); support x ≥ 0.",
	"cauchy":             "Cauchy with location mu and scale sigma > 0.",
	"student_t":          "Student's t with nu > 0 degrees of freedom, location mu and scale sigma > 0.",
	"laplace":            "Laplace (double exponential) with location mu and scale b > 0.",
	"bernoulli_logit":    "Bernoulli on {0, 1} with P(x = 1) = logistic(alpha).",
	"poisson":            "Poisson counts with rate lambda ≥ 0.",
	"poisson_log":        "Poisson counts with log rate eta: poisson(exp(eta)), computed on the log scale.",
	"binomial":           "Binomial: successes in n trials (a whole number ≥ 0) with success probability p in [0, 1].",
	"binomial_logit":     "Binomial with success probability logistic(alpha), computed on the log-odds scale.",
	"neg_binomial_2":     "Negative binomial counts with mean mu > 0 and dispersion phi > 0: variance mu + mu²/phi (Stan's neg_binomial_2).",
	"neg_binomial_2_log": "Negative binomial with log mean eta and dispersion phi > 0: neg_binomial_2(exp(eta), phi).",
	"flat":               "The improper flat prior on the real line (log density 0): a parameter's prior only, for which the likelihood must make the posterior proper; it has no draws, log density or moments. flat(lower: L, upper: U), either bound or both, is the improper flat prior on the bounds, unnormalised (as Stan's real<lower=L, upper=U> without a prior).",
}

func registerDistributions(reg *eval.Registry) {
	for _, name := range dist.Names() {
		fam, _ := dist.Lookup(name)
		if name == "mixture" {
			continue
		}
		// `**` takes the truncation bounds lower: and upper: by name only.
		spec := name + "(" + strings.Join(append(fam.ParamNames(), "**"), ", ") + ")"
		doc := familyDocs[name]
		if doc == "" {
			doc = fmt.Sprintf("The %s distribution.", name)
		}
		doc += " A distribution value: use it after `~`, or with draw, logpdf, mean and sd. Parameters may be vectors (one value per observation)."
		if _, ok := fam.(dist.CDF); ok {
			doc += " lower: and upper: truncate it to [lower, upper] (Stan's T[L, U]), renormalised; they may depend on model parameters."
		}
		b := reg.Register(spec, doc, func(a *eval.Args) (eval.Value, error) {
			return makeDist(a, fam)
		})
		b.AD = true
	}

	reg.Register("ordered(d)",
		"The prior of an ordered vector parameter: mu[K] ~ ordered(normal(0, 5)) makes mu₁ < mu₂ < ... < mu_K, with d's density on the elements (as Stan's ordered type). d must have the whole real line as support.",
		func(a *eval.Args) (eval.Value, error) {
			dv, ok := a.Value("d").(*dists.DistVal)
			if !ok {
				return nil, a.Errorf("d", "d must be a distribution, got %s", eval.Describe(a.Value("d")))
			}
			c := *dv
			c.Ordered = true
			return &c, nil
		}).AD = true

	mix := reg.Register("mixture(weights, components)",
		"A finite mixture: weights (non-negative, summing to 1) and a list of component distributions, e.g. mixture([0.3, 0.7], [normal(-2, 1), normal(2, 1)]).",
		makeMixture)
	mix.AD = true

	reg.Register("draw(d, n?, seed?)",
		"Draws n values from distribution d (a vector; one number when n is left out), from the given seed or the run's stream.",
		func(a *eval.Args) (eval.Value, error) {
			d, ok := a.Value("d").(dists.Drawer)
			if !ok {
				return nil, a.Errorf("d", "d must be a distribution, got %s", eval.Describe(a.Value("d")))
			}
			return d.DrawCall(a)
		})

	reg.Register("logpdf(d, x)",
		"The log density (log mass for a discrete family) of distribution d at x, elementwise over a vector or matrix. Inside a model its parameters and x may depend on model parameters (target += logpdf(d, y) differentiates). For a density from kst, kde or dpm, the log density of each row of x (a vector is one point, or many points of a one-dimensional density).",
		func(a *eval.Args) (eval.Value, error) {
			d, ok := a.Value("d").(dists.LogPDFer)
			if !ok {
				return nil, a.Errorf("d", "d must be a distribution, got %s", eval.Describe(a.Value("d")))
			}
			return d.LogPDFCall(a)
		}).AD = true
}

// makeDist builds a distribution value. Parameters that are plain numbers are
// checked now, so normal(0, -1) fails where it is written.
func makeDist(a *eval.Args, fam dist.Family) (eval.Value, error) {
	names := fam.ParamNames()
	params := make([]eval.Value, len(names))
	scalar := make([]float64, len(names))
	allNum := true
	for i, n := range names {
		v := a.Value(n)
		switch v.(type) {
		case eval.Num, *eval.ADNum, *eval.Vec, *eval.ADVec:
		case model.Latent:
			// A latent GP as the location: the model integrates it out.
		case *eval.Mat:
			xs, ok := eval.ToFloats(v)
			if !ok {
				return nil, a.Errorf(n, "%s must be a number or a vector, got %s", n, eval.Describe(v))
			}
			v = &eval.Vec{Data: xs}
		default:
			return nil, a.Errorf(n, "%s must be a number or a vector, got %s", n, eval.Describe(v))
		}
		params[i] = v
		if x, ok := v.(eval.Num); ok {
			scalar[i] = float64(x)
		} else {
			allNum = false
		}
	}
	if len(a.Extra) > 0 {
		return truncateDist(a, fam, params)
	}
	if allNum {
		if err := fam.Check(scalar); err != nil {
			return nil, a.Fail("%v", err)
		}
	}
	return &dists.DistVal{Family: fam, Params: params}, nil
}

func makeMixture(a *eval.Args) (eval.Value, error) {
	w := a.Value("weights")
	var k int
	switch w := w.(type) {
	case *eval.Vec:
		k = len(w.Data)
	case *eval.ADVec:
		k = len(w.Vs)
	default:
		return nil, a.Errorf("weights", "weights must be a vector, got %s", eval.Describe(w))
	}
	list, ok := a.Value("components").(*eval.List)
	if !ok {
		return nil, a.Errorf("components", "components must be a list of distributions like [normal(0, 1), normal(3, 1)], got %s", eval.Describe(a.Value("components")))
	}
	if len(list.Elems) != k {
		return nil, a.Errorf("components", "%d weights but %d components", k, len(list.Elems))
	}
	fams := make([]dist.Family, k)
	params := make([]eval.Value, 0, k)
	for i := 0; i < k; i++ {
		params = append(params, eval.Elem(w, i))
	}
	labels := make([]string, k)
	for i, e := range list.Elems {
		d, ok := e.(*dists.DistVal)
		if !ok {
			return nil, a.Errorf("components", "component %d must be a distribution, got %s", i+1, eval.Describe(e))
		}
		if dist.IsImproper(d.Family) {
			return nil, a.Errorf("components", "component %d is improper (%s); a mixture needs proper components", i+1, d)
		}
		for _, p := range d.Params {
			if _, ok := peekFloat(p); !ok {
				return nil, a.Errorf("components", "component %d has vector parameters; mixture components take numbers", i+1)
			}
		}
		fams[i] = d.Family
		params = append(params, d.Params...)
		labels[i] = peekLabel(d)
	}
	fam := dist.NewMixture(fams)
	d := &dists.DistVal{Family: fam, Params: params,
		Label: fmt.Sprintf("mixture(%s, [%s])", peekString(w), strings.Join(labels, ", "))}
	// The weights' check is made again where the mixture's log density is
	// recorded (a replay re-makes it), so reading them here leaves the
	// recording replayable.
	p := make([]float64, len(params))
	for i, v := range params {
		x, ok := peekFloat(v)
		if !ok {
			return d, nil
		}
		p[i] = x
	}
	if err := fam.Check(p); err != nil {
		return nil, a.Fail("%v", err)
	}
	return d, nil
}

// peekFloat is a distribution parameter as a number (DistVal.Scalar's
// reading) for a label or a check that the log density makes again: a
// value on the tape is read without tying the recording to it.
func peekFloat(v eval.Value) (float64, bool) {
	switch v := v.(type) {
	case *eval.ADNum:
		return v.T.Peek(v.V), true
	case *eval.Vec, *eval.ADVec:
		return 0, false
	}
	return eval.ToFloat(v)
}

// peekString is v as it prints, read as peekFloat reads.
func peekString(v eval.Value) string {
	switch v := v.(type) {
	case *eval.ADNum:
		return eval.FormatNumber(v.T.Peek(v.V))
	case *eval.ADVec:
		xs := make([]float64, len(v.Vs))
		for i, x := range v.Vs {
			xs[i] = v.T.Peek(x)
		}
		return (&eval.Vec{Data: xs}).String()
	}
	return v.String()
}

// peekLabel is d as it prints (DistVal.String), read as peekFloat reads.
func peekLabel(d *dists.DistVal) string {
	if d.Label != "" || d.Ordered {
		return d.String()
	}
	parts := make([]string, len(d.Params))
	for i, p := range d.Params {
		parts[i] = peekString(p)
	}
	return d.Family.Name() + "(" + strings.Join(parts, ", ") + ")"
}
