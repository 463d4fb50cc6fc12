package gp

import (
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/infer"
	"github.com/kml-lang/kml/lang/model"
	"github.com/kml-lang/kml/runtime/dist"
	rgp "github.com/kml-lang/kml/runtime/gp"
	"github.com/kml-lang/kml/runtime/progress"
)

// predictPosterior is predict after sample: the predictive averaged over
// the hyperparameters' posterior draws, a mixture of the per-draw
// predictives with equal weights. Its mean is the mean of the per-draw
// means and its variance follows the law of total variance (the mean of
// the variances plus the variance of the means). Its quantiles are those of
// the mixture: for f, and for y under Gaussian noise, every component is
// Gaussian, so the mixture's CDF is a sum of normal CDFs and its quantiles
// are found by bisection, exactly; for y under Laplace or Student-t noise,
// from `samples` seeded draws of f and the noise per component. Each draw
// costs one O(n³) predictive, so at most `draws` of them, evenly spaced
// over all chains, are used.
func predictPosterior(a *eval.Args, post *infer.Posterior, xnew *mat.Dense) (eval.Value, error) {
	approx := post.Comp.Terms.Latent.Approx
	if a.Value("approx") != nil {
		var err error
		if approx, err = model.LatentApprox(a); err != nil {
			return nil, err
		}
	}
	if a.Value("values") != nil {
		return nil, a.Errorf("values", "predict after sample takes the hyperparameters from the posterior's draws; leave values out")
	}
	maxDraws := 200
	if a.Given("draws") {
		var err error
		if maxDraws, err = a.IntIn("draws", 1, eval.MaxLength); err != nil {
			return nil, err
		}
	}
	samples, err := a.IntIn("samples", 1, eval.MaxLength)
	if err != nil {
		return nil, err
	}
	var level float64
	if err := a.Unpack("level", &level); err != nil {
		return nil, err
	}
	if !(level > 0 && level < 1) {
		return nil, a.Errorf("level", "level must be between 0 and 1, got %v", level)
	}
	seed, err := a.Seed()
	if err != nil {
		return nil, err
	}
	total := post.DrawCount()
	k := min(maxDraws, total)
	task := progress.Start(a.Context(), "posterior draws", k)
	defer task.Done()
	preds := make([]*drawPred, k)
	for j := range k {
		if err := a.Context().Err(); err != nil {
			return nil, a.Interrupted(err)
		}
		rec := post.DrawValues(j * total / k)
		if preds[j], err = predictAt(a, post.Model, rec, model.Objective{Name: model.ObjMLM, Approx: approx}, xnew); err != nil {
			return nil, err
		}
		if preds[j].classes != nil {
			return nil, a.Errorf("fit", "predict after sample does not average a multi-class GP over its draws yet; predict from optimize's fit, or from the model with values")
		}
		task.Add(1)
	}
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	out := mixturePredict(preds, level, samples, rng)
	return withX(out.Set("level", eval.Num(level)).Set("draws", eval.Num(float64(k))), xnew), nil
}

// mixturePredict is the record of the equal-weight mixture of preds.
func mixturePredict(preds []*drawPred, level float64, samples int, rng *rand.Rand) *eval.Record {
	k, m := len(preds), len(preds[0].fmean)
	lo, hi := (1-level)/2, (1+level)/2
	fm, fv, ym, yv := make([]float64, m), make([]float64, m), make([]float64, m), make([]float64, m)
	flo, fhi, ylo, yhi := make([]float64, m), make([]float64, m), make([]float64, m), make([]float64, m)
	first := preds[0]
	logit := !first.gaussian && first.lik.Kind == rgp.Logit
	mu, sd := make([]float64, k), make([]float64, k)
	for i := range m {
		for j, p := range preds {
			fm[i] += p.fmean[i] / float64(k)
			fv[i] += (p.fvar[i] + p.fmean[i]*p.fmean[i]) / float64(k)
			ym[i] += p.ymean[i] / float64(k)
			yv[i] += (p.yvar[i] + p.ymean[i]*p.ymean[i]) / float64(k)
			mu[j], sd[j] = p.fmean[i], math.Sqrt(p.fvar[i])
		}
		fv[i] = math.Max(fv[i]-fm[i]*fm[i], 0)
		yv[i] = math.Max(yv[i]-ym[i]*ym[i], 0)
		if logit {
			yv[i] = ym[i] * (1 - ym[i])
		}
		for _, p := range preds {
			if math.IsInf(p.yvar[i], 1) {
				yv[i] = math.Inf(1)
			}
		}
		flo[i], fhi[i] = mixtureQuantile(mu, sd, lo), mixtureQuantile(mu, sd, hi)
		switch {
		case first.gaussian:
			for j, p := range preds {
				sd[j] = math.Sqrt(p.fvar[i] + p.sigma*p.sigma)
			}
			ylo[i], yhi[i] = mixtureQuantile(mu, sd, lo), mixtureQuantile(mu, sd, hi)
		case !logit:
			ylo[i], yhi[i] = noiseQuantiles(preds, i, samples, lo, hi, rng)
		}
	}
	rec := predictRecord(fm, fv, ym, yv).Set("f_lower", &eval.Vec{Data: flo}).Set("f_upper", &eval.Vec{Data: fhi})
	if logit {
		return rec.Set("prob", &eval.Vec{Data: ym})
	}
	return rec.Set("y_lower", &eval.Vec{Data: ylo}).Set("y_upper", &eval.Vec{Data: yhi})
}

// mixtureQuantile is the q-quantile of the equal-weight mixture of
// N(mu_j, sd_j²), by bisection on its CDF between the components' extreme
// ±10 sd points (a point mass where sd_j = 0).
func mixtureQuantile(mu, sd []float64, q float64) float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for j := range mu {
		lo = math.Min(lo, mu[j]-10*sd[j])
		hi = math.Max(hi, mu[j]+10*sd[j])
	}
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return math.NaN()
	}
	cdf := func(x float64) float64 {
		c := 0.0
		for j := range mu {
			switch {
			case sd[j] > 0:
				c += 0.5 * math.Erfc(-(x-mu[j])/(sd[j]*math.Sqrt2))
			case x >= mu[j]:
				c++
			}
		}
		return c / float64(len(mu))
	}
	for range 200 {
		mid := lo + (hi-lo)/2
		if mid == lo || mid == hi {
			break
		}
		if cdf(mid) < q {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

var (
	laplaceNoise, _   = dist.Lookup("laplace")
	studentNoise, _   = dist.Lookup("student_t")
	poissonLog, _     = dist.Lookup("poisson_log")
	negBinomialLog, _ = dist.Lookup("neg_binomial_2_log")
)

// noiseQuantiles are the lo- and hi-quantiles of a new observation at
// point i under Laplace or Student-t noise or counts: samples draws per
// component of f ~ N(fmean, fvar) plus the noise (for counts, a draw with
// log mean f), pooled.
func noiseQuantiles(preds []*drawPred, i, samples int, lo, hi float64, rng *rand.Rand) (float64, float64) {
	ys := make([]float64, 0, len(preds)*samples)
	for _, p := range preds {
		sd := math.Sqrt(p.fvar[i])
		for range samples {
			f := p.fmean[i] + sd*rng.NormFloat64()
			switch p.lik.Kind {
			case rgp.Laplace:
				f = laplaceNoise.Rand(rng, []float64{f, p.lik.Params[0]})
			case rgp.StudentT:
				f = studentNoise.Rand(rng, []float64{p.lik.Params[0], f, p.lik.Params[1]})
			case rgp.Poisson:
				f = poissonLog.Rand(rng, []float64{f})
			case rgp.NegBinomial:
				f = negBinomialLog.Rand(rng, []float64{f, p.lik.Params[0]})
			}
			ys = append(ys, f)
		}
	}
	slices.Sort(ys)
	at := func(q float64) float64 {
		return ys[min(int(q*float64(len(ys))), len(ys)-1)]
	}
	return at(lo), at(hi)
}
