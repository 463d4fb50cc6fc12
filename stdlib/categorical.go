package stdlib

import (
	"math"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model"
)

func init() {
	eval.Register("categorical_logit(beta)",
		"Categories 1..K with P(y = k) = softmax(beta)_k, as Stan's categorical_logit: beta is a vector of K log-odds (it may depend on model parameters). For observations (y ~ categorical_logit(beta), y a vector of categories), draw and logpdf.",
		func(a *eval.Args) (eval.Value, error) {
			switch v := a.Value("beta").(type) {
			case *eval.Vec:
				if len(v.Data) < 2 {
					return nil, a.Errorf("beta", "beta needs at least 2 categories, got %d", len(v.Data))
				}
				for i, x := range v.Data {
					if math.IsNaN(x) || math.IsInf(x, 0) {
						return nil, a.Errorf("beta", "beta must be finite, got %v at element %d", x, i+1)
					}
				}
			case *eval.ADVec:
				if len(v.Vs) < 2 {
					return nil, a.Errorf("beta", "beta needs at least 2 categories, got %d", len(v.Vs))
				}
			default:
				return nil, a.Errorf("beta", "beta must be a vector of log-odds, one per category, got %s", eval.Describe(v))
			}
			return &model.CategoricalLogit{Beta: a.Value("beta")}, nil
		}).AD = true
}

// categoricalProbs is softmax(beta) for data log-odds.
func categoricalProbs(c *model.CategoricalLogit) []float64 {
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

func drawCategorical(a *eval.Args, c *model.CategoricalLogit) (eval.Value, error) {
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
	out := make([]float64, n)
	for i := range out {
		out[i] = one()
	}
	return &eval.Vec{Data: out}, nil
}

func logpdfCategorical(a *eval.Args, c *model.CategoricalLogit) (eval.Value, error) {
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
