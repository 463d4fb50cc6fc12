package loo

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/infer"
	"github.com/kml-lang/kml/lang/model"
	"github.com/kml-lang/kml/runtime/hmc"
	"gonum.org/v1/gonum/mat"
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
	case m.Family == nil:
		return nil, a.Errorf("m", "model %s takes no data arguments, so it cannot be refitted on part of its data: declare it with them, model %s(x, y) { ... }, and call it with its data, %s(x: x, y: y)", m.Name, m.Name, m.Name)
	}
	s, err := infer.SamplerArgs(a)
	if err != nil {
		return nil, err
	}
	seed, err := a.Seed()
	if err != nil {
		return nil, err
	}
	s.Init = hmc.InitPathfinder
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
		return nil, refusal(a, err)
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
	fam := m.Family
	data := make([]eval.Value, len(fam.Decl().Params))
	for i, p := range fam.Decl().Params {
		data[i], _ = m.Env().Lookup(p.Name)
	}
	split, err := splitArgs(a, fam, data, n)
	if err != nil {
		return nil, err
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
	ctrain0, err := instance(a, fam, data, split, train0, terms, fmt.Sprintf("fold 1 of %d (training rows)", K))
	if err != nil {
		return nil, err
	}

	ctx := a.Context()
	task := a.Progress("folds", K+1)
	defer task.Done()
	warn := func(prefix string, post *infer.Posterior) {
		for _, w := range post.Summary.Warnings {
			th.Interp().Warn(a.Pos, prefix+w)
		}
	}
	// The full data, for lpd and p_kfold.
	s.Seed = seed
	post, err := infer.Sample(ctx, th, full, s)
	if err != nil {
		return nil, fitFailed(a, err, "the fit to all the data")
	}
	warn("the fit to all the data: ", post)
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	var ll [][]float64
	if conditional {
		// A GP's lpd is the in-sample predictive log p(y_i | y, θ), not
		// the LOO densities its pointwise log likelihood gives.
		ll, err = infer.HeldOutPredictive(ctx, th, post, full, all, true)
	} else {
		ll, err = infer.PointwiseLogLik(ctx, th, post)
	}
	if err != nil {
		return nil, refusal(a, err)
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
			if ctrain, err = instance(a, fam, data, split, train, terms, fold+" (training rows)"); err != nil {
				return nil, err
			}
		}
		s.Seed = seeds[k]
		post, err := infer.Sample(ctx, th, ctrain, s)
		if err != nil {
			return nil, fitFailed(a, err, fold)
		}
		warn(fold+": ", post)
		var ll [][]float64
		if conditional {
			// A GP's held-out points are scored by its predictive given
			// the training rows, from the model on all the data.
			ll, err = infer.HeldOutPredictive(ctx, th, post, full, test, false)
		} else {
			var ctest *model.Compiled
			if ctest, err = instance(a, fam, data, split, test, terms, fold+" (held-out rows)"); err != nil {
				return nil, err
			}
			ll, err = infer.HeldOutLogLik(ctx, th, post, ctest)
		}
		if err != nil {
			return nil, refusal(a, err)
		}
		if len(ll) != len(test) {
			return nil, a.Errorf("m", "%s: the held-out rows make %d observed points, not the %d held out: split %s does not split the observations point by point; name the arguments to split with split:", fold, len(ll), len(test), strings.Join(split, ", "))
		}
		for j, i := range test {
			elpd[i] = logMeanExp(ll[j])
		}
		if err := a.Step(task); err != nil {
			return nil, err
		}
	}
	fseeds := make([]float64, K)
	for k, v := range seeds {
		fseeds[k] = float64(v)
	}
	metric := "diag"
	if s.Metric == hmc.Dense {
		metric = "dense"
	}
	kv := newKFold(m.Name, elpd, lpd, folds, K, seed, fseeds, split, s, metric)
	kv.Approx = terms.Latent.Approx.String()
	return kv, nil
}

// splitArgs are the names of the data arguments split into folds: those
// named by split:, or else every vector of length n and matrix of n rows.
// A square n×n matrix (a kernel or distance matrix, whose rows and columns
// are both points) and a number equal to n (a count of the points) make
// the choice ambiguous, and are refused naming the argument.
func splitArgs(a *eval.Args, fam *eval.ModelFamily, data []eval.Value, n int) ([]string, error) {
	params := fam.Decl().Params
	rowsOf := func(v eval.Value) (int, bool) {
		switch v := v.(type) {
		case *eval.Vec:
			return len(v.Data), true
		case *eval.Mat:
			r, _ := v.Dims()
			return r, true
		}
		return 0, false
	}
	if sv := a.Value("split"); sv != nil {
		l, ok := sv.(*eval.List)
		var names []string
		if ok {
			for _, e := range l.Elems {
				s, isStr := e.(eval.Str)
				if !isStr {
					ok = false
					break
				}
				names = append(names, string(s))
			}
		}
		if !ok || len(names) == 0 {
			return nil, a.Errorf("split", "split must be a list of data argument names, as [\"x\", \"y\"], got %s", eval.Describe(sv))
		}
		for _, name := range names {
			i := -1
			for j, p := range params {
				if p.Name == name {
					i = j
				}
			}
			if i < 0 {
				return nil, a.Errorf("split", "model %s has no data argument %q; it has %s", fam.Name, name, fam.Signature())
			}
			if r, ok := rowsOf(data[i]); !ok || r != n {
				return nil, a.Errorf("split", "%s is %s, and the model has %d observed points: an argument split into folds must be a vector of length %d or a matrix of %d rows", name, eval.Describe(data[i]), n, n, n)
			}
		}
		return names, nil
	}
	var names []string
	for i, p := range params {
		switch v := data[i].(type) {
		case eval.Num:
			if float64(v) == float64(n) {
				return nil, a.Errorf("m", "data argument %s is %d, the number of observed points: if it counts them it would be wrong for each fold; compute it in the model from the data, or say which arguments to split, split: [...]", p.Name, n)
			}
		case *eval.Mat:
			if r, c := v.Dims(); r == n && c == n {
				return nil, a.Errorf("m", "data argument %s is a %d×%d matrix, as many rows as columns as observed points (a kernel or distance matrix?): its rows alone cannot be split; say which arguments to split, split: [...]", p.Name, n, n)
			}
		}
		if r, ok := rowsOf(data[i]); ok && r == n {
			names = append(names, p.Name)
		}
	}
	if len(names) == 0 {
		return nil, a.Errorf("m", "model %s has %d observed points, but no data argument is a vector of length %d or a matrix of %d rows to split into folds", fam.Name, n, n, n)
	}
	return names, nil
}

// instance compiles the family on the rows idx of the split arguments.
func instance(a *eval.Args, fam *eval.ModelFamily, data []eval.Value, split []string, idx []int, terms model.Terms, what string) (*model.Compiled, error) {
	args := make([]eval.Value, len(data))
	for i, p := range fam.Decl().Params {
		args[i] = data[i]
		for _, name := range split {
			if name == p.Name {
				args[i] = rows(data[i], idx)
			}
		}
	}
	mv, err := a.Th.CallValue(a.Pos, fam, args...)
	if err == nil {
		m, ok := mv.(*eval.Model)
		if !ok {
			return nil, a.Fail("%s: calling %s did not make a model", what, fam.Name)
		}
		for i, p := range m.Params {
			if full := a.Value("m").(*eval.Model).Params[i]; p.Size != full.Size {
				return nil, a.Errorf("m", "%s: parameter %s has %d elements with all the data and %d with these rows: its size follows the data split into folds, so its elements belong to points, and the training fit has none for the held-out points (kfold cannot score a model with a parameter per point)", what, p.Name, full.Size, p.Size)
			}
		}
		var c *model.Compiled
		if c, err = model.Compile(a.Th, a.Pos, m, nil, terms); err == nil {
			return c, nil
		}
	}
	var ae *ast.Error
	if errors.As(err, &ae) {
		e := *ae
		e.Pos, e.Msg = a.PosOf("m"), fmt.Sprintf("kfold: %s: %s", what, ae.Msg)
		e.Notes = append([]string{fmt.Sprintf("at %s", ae.Pos)}, ae.Notes...)
		return nil, &e
	}
	return nil, a.Errorf("m", "%s: %v", what, err)
}

// rows is the rows idx of a vector or a matrix.
func rows(v eval.Value, idx []int) eval.Value {
	switch v := v.(type) {
	case *eval.Vec:
		out := make([]float64, len(idx))
		for j, i := range idx {
			out[j] = v.Data[i]
		}
		return &eval.Vec{Data: out}
	case *eval.Mat:
		_, c := v.Dims()
		out := mat.NewDense(len(idx), c, nil)
		for j, i := range idx {
			out.SetRow(j, v.M.RawRowView(i))
		}
		return eval.NewMat(out)
	}
	return v
}

// refusal is an error of the pointwise log likelihood: as it is when it
// names its statement, else at m.
func refusal(a *eval.Args, err error) error {
	if e := a.Context().Err(); e != nil {
		return a.Interrupted(e)
	}
	var ae *ast.Error
	if errors.As(err, &ae) {
		return err
	}
	return a.Errorf("m", "%v", err)
}

// fitFailed is a fold's sampling error, "interrupted" when cancelled.
func fitFailed(a *eval.Args, err error, what string) error {
	if e := a.Context().Err(); e != nil {
		return a.Interrupted(e)
	}
	var ae *ast.Error
	if errors.As(err, &ae) {
		return err
	}
	return a.Fail("%s: %v", what, err)
}

// logMeanExp is log(1/S Σ exp(x_s)), computed stably.
func logMeanExp(x []float64) float64 {
	mx := math.Inf(-1)
	for _, v := range x {
		mx = max(mx, v)
	}
	if math.IsInf(mx, -1) {
		return mx
	}
	sum := 0.0
	for _, v := range x {
		sum += math.Exp(v - mx)
	}
	return mx + math.Log(sum/float64(len(x)))
}
