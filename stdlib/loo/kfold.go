package loo

import (
	"fmt"
	"math/rand/v2"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/infer"
	"github.com/kml-lang/kml/lang/model"
)

// K-fold cross-validation (Vehtari, Gelman and Gabry 2017, §4): the
// observed points (those loo counts) are split at random into K folds; the
// model is refitted K times, each time on the data without one fold, and
// each held-out point scored by its log predictive density at the training
// posterior's draws, log(1/S Σ_s p(y_i | θ_s)). It needs a model that
// takes data, `model m(x, y)`, called with its data: the folds are rows of
// the data arguments, and each fit is the family called on the training
// rows, each score the family called on the held-out rows.

const kfoldSig = `kfold(m, K = 10, seed?, split?, chains = 4, warmup = 1000, draws = 1000, adapt_delta = 0.8, max_depth = 10, metric = "diag", approx = "vb")`

const kfoldHelp = `K-fold cross-validation (Vehtari, Gelman and Gabry 2017, §4) of a model that takes data, m = reg(x: x, y: y): the observed points (as loo counts them) are split at random into K folds (seed); the model is refitted with NUTS on the data without each fold (chains, warmup, draws, adapt_delta, max_depth, metric as sample; fold k's seed is drawn from seed), and each held-out point scored by log(1/S Σ_s p(y_i | θ_s)) at the training draws; for a GP model (f ~ gp(...)), whose points are not independent given θ, by log(1/S Σ_s p(y_i | y_train, θ_s)), the GP's predictive given the training rows (exact for normal observations; for others the Gaussian predictive of approx, "vb", "laplace" or "ep", the approximation the fits sample under, integrated against the likelihood). The data arguments split are those whose length (a vector) or rows (a matrix) equal the number of points; split: ["x", "y"] names them when that is ambiguous. The full data are fitted too (with seed) for p_kfold = lpd − elpd_kfold. Returns elpd_kfold, p_kfold, kfoldic with standard errors, the pointwise elpd_kfold_i, p_kfold_i, kfoldic_i, folds (each point's fold), seeds, split and the settings; loo_compare takes it beside loo results.`

func kfoldBuiltin(a *eval.Args) (eval.Value, error) {
	m, ok := a.Value("m").(*eval.Model)
	switch {
	case !ok:
		var marg infer.ModelArg
		if err := a.Unpack("m", &marg); err != nil {
			return nil, err
		}
	default:
		if err := takesData(a, "m", m); err != nil {
			return nil, err
		}
	}
	s, err := infer.SamplerArgs(a)
	if err != nil {
		return nil, err
	}
	seed, err := a.Seed()
	if err != nil {
		return nil, err
	}
	terms := model.Terms{Prior: true, Likelihood: true, Jacobian: true}
	if terms.Latent.Approx, err = model.LatentApprox(a); err != nil {
		return nil, err
	}
	th := a.Th
	full, err := model.Compile(th, a.Pos, m, nil, terms)
	if err != nil {
		return nil, err
	}
	if full.Dim() == 0 {
		return nil, a.Errorf("m", "model %s has no free parameters to sample", m.Name)
	}
	n, conditional, err := infer.PointCount(th, full)
	if err != nil {
		return nil, refusal(a, "m", err)
	}
	if n == 0 {
		return nil, a.Errorf("m", "model %s has no observations (DATA ~ DIST) to leave out", m.Name)
	}
	K, err := a.IntIn("K", 2, eval.MaxLength)
	if err != nil {
		return nil, err
	}
	if K > n {
		return nil, a.Errorf("K", "K = %d folds for %d observed points: K can be at most the number of points", K, n)
	}
	r, err := newRefitter(a, "kfold", "m", m, n, s, terms)
	if err != nil {
		return nil, err
	}
	if conditional {
		// A GP's held-out points are scored by its predictive given the
		// training rows, from the model on all the data.
		r.gp = full
	}

	// Folds as R's loo::kfold_split_random: a random permutation of
	// 1..K repeated to length N, so fold sizes differ by at most one; then
	// each fit's seed, from the same stream.
	rng := rand.New(rand.NewPCG(seed, 0x6b666f6c64))
	folds := make([]int, n)
	for i := range folds {
		folds[i] = i % K
	}
	rng.Shuffle(n, func(i, j int) { folds[i], folds[j] = folds[j], folds[i] })
	seeds := make([]uint64, K)
	for k := range seeds {
		seeds[k] = rng.Uint64() >> 33 // exact as a KML number
	}

	// The first fold's training instance is made before any fit, so data
	// that do not split (a parameter per point) are refused at once.
	trainOf := func(k int) (train, test []int) {
		for i, f := range folds {
			if f == k {
				test = append(test, i)
			} else {
				train = append(train, i)
			}
		}
		return train, test
	}
	train0, _ := trainOf(0)
	ctrain0, err := r.instance(train0, fmt.Sprintf("fold 1 of %d (training rows)", K))
	if err != nil {
		return nil, err
	}

	ctx := a.Context()
	task := a.Progress("folds", K+1)
	defer task.Done()
	// The full data, for lpd and p_kfold.
	post, err := r.fit(full, seed, "the fit to all the data")
	if err != nil {
		return nil, err
	}
	var ll [][]float64
	if conditional {
		// A GP's lpd is the in-sample predictive log p(y_i | y, θ), not
		// the LOO densities its pointwise log likelihood gives.
		all := make([]int, n)
		for i := range all {
			all[i] = i
		}
		ll, err = infer.HeldOutPredictive(ctx, th, post, full, all, true)
	} else {
		ll, err = infer.PointwiseLogLik(ctx, th, post)
	}
	if err != nil {
		return nil, refusal(a, "m", err)
	}
	lpd := make([]float64, n)
	for i, row := range ll {
		lpd[i] = logMeanExp(row)
	}
	if err := a.Step(task); err != nil {
		return nil, err
	}

	elpd := make([]float64, n)
	for k := range K {
		train, test := trainOf(k)
		fold := fmt.Sprintf("fold %d of %d", k+1, K)
		ctrain := ctrain0
		if k > 0 {
			if ctrain, err = r.instance(train, fold+" (training rows)"); err != nil {
				return nil, err
			}
		}
		e, err := r.heldOut(ctrain, test, seeds[k], fold)
		if err != nil {
			return nil, err
		}
		for j, i := range test {
			elpd[i] = e[j]
		}
		if err := a.Step(task); err != nil {
			return nil, err
		}
	}
	fseeds := make([]float64, K)
	for k, v := range seeds {
		fseeds[k] = float64(v)
	}
	kv := newKFold(m.Name, elpd, lpd, folds, K, seed, fseeds, r.split, r.s, infer.MetricName(s.Metric))
	kv.Approx = terms.Latent.Approx.String()
	return kv, nil
}
