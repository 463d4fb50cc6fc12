package dists

import (
	"math"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model"
	"github.com/kml-lang/kml/lang/model/dists"
)

func registerCategorical(reg *eval.Registry) {
	reg.Register("categorical_logit(beta)",
		"Categories 1..K with P(y = k) = softmax(beta)_k, as Stan's categorical_logit: beta is a vector of K log-odds (it may depend on model parameters). For observations (y ~ categorical_logit(beta), y a vector of categories), draw and logpdf. beta may be a latent GP with one function per class, f ~ gp(X, K, classes: C): then y ~ categorical_logit(f) is multi-class GP classification (see gp and predict).",
		func(a *eval.Args) (eval.Value, error) {
			latent := false
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
			case model.Latent:
				// c ~ categorical_logit(f) for f ~ gp(X, K, classes: C):
				// the model hands the observation to f.
				latent = true
			case *eval.ADVec:
				if len(v.Vs) < 2 {
					return nil, a.Errorf("beta", "beta needs at least 2 categories, got %d", len(v.Vs))
				}
			default:
				return nil, a.Errorf("beta", "beta must be a vector of log-odds, one per category, got %s", eval.Describe(v))
			}
			return &dists.CategoricalLogit{Beta: a.Value("beta"), OfLatent: latent}, nil
		}).AD = true
}
