package ktest

import (
	"math"
	"runtime"

	"github.com/kml-lang/kml/stdlib/kernel"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	rktest "github.com/kml-lang/kml/runtime/ktest"
)

func registerKtests(reg *eval.Registry) {
	reg.Register(`mmd(x, y, k, estimator = "unbiased")`,
		`The squared maximum mean discrepancy between the samples x and y (rows are observations) with kernel k: "unbiased" (the U-statistic; sizes may differ), "biased" (mean(Kxx) + mean(Kyy) - 2 mean(Kxy)) or "linear" (consecutive pairs, the first min(m, n) rows of each).`,
		func(a *eval.Args) (eval.Value, error) {
			x, y, err := twoSamples(a)
			if err != nil {
				return nil, err
			}
			var k kernel.Arg
			var est string
			if err := a.Unpack("k", &k, "estimator", &est); err != nil {
				return nil, err
			}
			var v float64
			if n := x.RawMatrix().Rows + y.RawMatrix().Rows; denseTooBig(a, n, 1) {
				v, err = rktest.MMD2Blocked(k.K, x, y, rktest.Estimator(est), blockRows(a, n, 1))
			} else {
				v, err = rktest.MMD2(k.K, x, y, rktest.Estimator(est))
			}
			if err != nil {
				return nil, a.Fail("%v", err)
			}
			return eval.Num(v), nil
		})
	reg.Register(`hsic(x, y, kx, ky, estimator = "biased")`,
		`The Hilbert–Schmidt independence criterion between paired rows of x and y with kernels kx and ky: "biased" (tr(KHLH)/n²) or "unbiased" (Song et al. 2012).`,
		func(a *eval.Args) (eval.Value, error) {
			x, y, err := twoSamples(a)
			if err != nil {
				return nil, err
			}
			var kx, ky kernel.Arg
			var est string
			if err := a.Unpack("kx", &kx, "ky", &ky, "estimator", &est); err != nil {
				return nil, err
			}
			var v float64
			if n := x.RawMatrix().Rows; denseTooBig(a, n, 2) {
				v, err = rktest.HSICBlocked(kx.K, ky.K, x, y, rktest.Estimator(est), blockRows(a, n, 2))
			} else {
				v, err = rktest.HSIC(kx.K, ky.K, x, y, rktest.Estimator(est))
			}
			if err != nil {
				return nil, a.Fail("%v", err)
			}
			return eval.Num(v), nil
		})
	reg.Register(`mmd_test(x, y, k, permutations = 1000, seed?, estimator?, method = "permutation", approx = "auto", rank = 200, alpha = 0.05, bandwidths = 10, landmarks = "auto", noise = "auto", variant = "derived", draws?, train = 0.5)`,
		`The kernel two-sample test of P = Q. k is a kernel, or "median" (rbf at the median heuristic of the pooled sample), "bkl" (rbf at the BKL lengthscale of the pooled sample: the log pseudolikelihood averaged over draws seeded landmark draws of landmarks rows, τ² = noise, the density variant: "derived" or "published" as bke's; "auto": m = max(50, ⌈√n⌉) ≤ n/5 and τ² = m/10, draws 5 by default; see docs/language.md), "bayes" (the mean of the rbf kernels at draws lengthscales (default 20) drawn by NUTS from the BKE posterior of the pooled sample, Gamma(1, 1) prior, landmarks and noise as given, else min(50, n/5) and τ² = 1: the statistic is the mean of MMD² over the draws, and the permutations keep the draws), "aggregate" (rbf kernels at bandwidths lengthscales log-spaced from the 5% quantile of the pooled pairwise distances to the largest, each tested on the same permutations and combined by the minimum p-value, MMDAgg's multiplicity correction at level alpha) or "opt" (a seeded fraction train of each sample chooses the rbf lengthscale maximising the estimated power MMD²_u/√(σ̂²_H1 + 10⁻⁸) of Liu et al. 2020, the rest is tested with it; exact level, power of the smaller test sample). method: "permutation" (seeded, in parallel, blocks of permutations as matrix products) or "gamma" (the gamma approximation of m·MMD²_b, equal sample sizes). approx: "auto" (exact up to 10000 pooled rows, then Nyström), "exact", "nystrom" or "rff" of the given rank. estimator: "unbiased" (default), "biased" (default for gamma) or "linear". Returns {statistic, pvalue, estimator, method, permutations, approx, kernel, ell, choice} and bkl: {landmarks, tau2, draws, draw_ell, maxima: [{ell, logp}], fragile} (bkl; a warning when the choice is fragile), landmarks, tau2 and bayes: {draws, mean, q5, q95, prior, modes, nuts: {chains, warmup, iterations, divergences, rhat, ess, chain_means, inits, seconds}, warnings} (bayes), bandwidths, pvalues, rejected, threshold and alpha (aggregate), opt: {train, train_rows, test_rows, lambda, criterion, statistic, sd} (opt: the rows of x and y in each part, and on the training part the criterion, MMD²_u and σ̂ at the chosen ℓ).`,
		mmdTest)
	reg.Register(`hsic_test(x, y, kx, ky, method = "permutation", permutations = 1000, seed?, estimator = "biased", approx = "auto", rank = 200, alpha = 0.05, bandwidths = 5, landmarks = "auto", noise = "auto", variant = "derived", draws?, train = 0.5)`,
		`The kernel independence test between paired rows of x and y: method "permutation" (y's rows permuted) or "gamma" (Gretton et al. 2008's gamma approximation, biased estimator). kx and ky are kernels or "median", "bkl" or "bayes" (each of its own variable, with landmarks, noise, variant and draws as mmd_test; with "bayes" on both the statistic is the mean of HSIC over all pairs of x's and y's draws), or both "aggregate" (the product of bandwidths lengthscales per variable, combined as in mmd_test; with gamma, by Bonferroni), or "opt" on one or both sides (the other then a kernel): a seeded fraction train of the pairs chooses the lengthscales maximising HSIC_u/√(σ̂²_H1 + 10⁻⁸), σ̂² by Song et al. 2012's Theorem 5, the other pairs are tested. approx as mmd_test (low-rank: biased estimator). Returns {statistic, pvalue, estimator, method, permutations, approx, kernel_x, kernel_y, ell: {x, y}, choice: {x, y}} and bkl: {x, y} of mmd_test's bkl records (bkl), landmarks, tau2 and bayes: {x, y} (bayes) or bandwidths (a matrix of (ell_x, ell_y) pairs), pvalues, rejected, threshold and alpha (aggregate), or opt: {x, y} as mmd_test's (opt; train_rows and test_rows are pair counts).`,
		hsicTest)
}

func twoSamples(a *eval.Args) (*mat.Dense, *mat.Dense, error) {
	var x, y *mat.Dense
	if err := a.Unpack("x", &x, "y", &y); err != nil {
		return nil, nil, err
	}
	if x.IsEmpty() {
		return nil, nil, a.Errorf("x", "the sample x is empty")
	}
	if y.IsEmpty() {
		return nil, nil, a.Errorf("y", "the sample y is empty")
	}
	return x, y, nil
}

// chooseKernel resolves a kernel argument that may name a rule.
func chooseKernel(a *eval.Args, name string, data *mat.Dense, seed uint64) (rktest.Chosen, error) {
	switch v := a.Value(name).(type) {
	case *kernel.KernelVal:
		return rktest.Given(v.K), nil
	case eval.Str:
		if v == "bayes" {
			bs, err := BayesSettings(a)
			if err != nil {
				return rktest.Chosen{}, err
			}
			c, err := rktest.ChooseBayes(a.Th.Context(), data, bs, seed)
			if err != nil {
				if e := a.Th.Context().Err(); e != nil {
					return c, a.Interrupted(e)
				}
				return c, a.Errorf(name, "%v", err)
			}
			return c, nil
		}
		if v == "bkl" {
			o, err := BKLOptions(a)
			if err != nil {
				return rktest.Chosen{}, err
			}
			c, err := rktest.ChooseBKL(a.Context(), data, seed, o)
			if err != nil {
				if e := a.Th.Context().Err(); e != nil {
					return c, a.Interrupted(e)
				}
				return c, a.Errorf(name, "%v", err)
			}
			return c, nil
		}
		if v == "median" {
			c, err := rktest.Choose(a.Context(), rktest.Choice(v), data, seed)
			if err != nil {
				return c, a.Errorf(name, "%v", err)
			}
			return c, nil
		}
	}
	return rktest.Chosen{}, a.Errorf(name, `%s must be a kernel, "median", "bkl", "bayes", "aggregate" or "opt", got %s`, name, eval.Describe(a.Value(name)))
}

func isAggregate(a *eval.Args, name string) bool {
	v, ok := a.Value(name).(eval.Str)
	return ok && v == "aggregate"
}

// EllValue is a kernel's lengthscales as a number, a vector or none.
func EllValue(ell []float64) eval.Value {
	switch len(ell) {
	case 0:
		return eval.NoneValue
	case 1:
		return eval.Num(ell[0])
	}
	return &eval.Vec{Data: ell}
}

func ResultRecord(r rktest.Result) *eval.Record {
	rec := eval.NewRecord()
	rec.Set("statistic", eval.Num(r.Statistic)).Set("pvalue", eval.Num(r.PValue)).
		Set("estimator", eval.Str(r.Estimator)).Set("method", eval.Str(r.Method))
	if r.Permutations > 0 {
		rec.Set("permutations", eval.Num(r.Permutations))
	}
	if r.Approx != "" {
		rec.Set("approx", eval.Str(r.Approx))
	}
	if r.Rank > 0 {
		rec.Set("rank", eval.Num(r.Rank))
	}
	if r.KernelY != "" {
		rec.Set("kernel_x", eval.Str(r.Kernel)).Set("kernel_y", eval.Str(r.KernelY))
	} else {
		rec.Set("kernel", eval.Str(r.Kernel))
	}
	return rec
}

// AggregateFields adds the aggregate test's record fields.
func AggregateFields(rec *eval.Record, r rktest.Result) {
	if r.BandwidthsY == nil {
		rec.Set("ell", &eval.Vec{Data: r.Bandwidths}).Set("choice", eval.Str(rktest.ChoiceAggregate))
		rec.Set("bandwidths", &eval.Vec{Data: r.Bandwidths})
	} else {
		ux, uy := unique(r.Bandwidths), unique(r.BandwidthsY)
		rec.Set("ell", eval.NewRecord().Set("x", &eval.Vec{Data: ux}).Set("y", &eval.Vec{Data: uy}))
		c := eval.Str(rktest.ChoiceAggregate)
		rec.Set("choice", eval.NewRecord().Set("x", c).Set("y", c))
		pairs := mat.NewDense(len(r.Bandwidths), 2, nil)
		for i := range r.Bandwidths {
			pairs.Set(i, 0, r.Bandwidths[i])
			pairs.Set(i, 1, r.BandwidthsY[i])
		}
		rec.Set("bandwidths", eval.NewMat(pairs))
	}
	rej := make([]float64, len(r.Rejected))
	for i, b := range r.Rejected {
		if b {
			rej[i] = 1
		}
	}
	rec.Set("pvalues", &eval.Vec{Data: r.PValues}).Set("rejected", &eval.Vec{Data: rej}).
		Set("threshold", eval.Num(r.Threshold)).Set("alpha", eval.Num(r.Alpha))
}

// unique drops repeats, keeping the first order.
func unique(xs []float64) []float64 {
	var out []float64
	seen := map[float64]bool{}
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

func testSettings(a *eval.Args) (rktest.Settings, error) {
	var s rktest.Settings
	var err error
	if s.Permutations, err = a.IntIn("permutations", 1, eval.MaxLength); err != nil {
		return s, err
	}
	if s.Seed, err = a.Seed(); err != nil {
		return s, err
	}
	if s.Rank, err = a.IntIn("rank", 1, eval.MaxLength); err != nil {
		return s, err
	}
	if s.Bandwidths, err = a.IntIn("bandwidths", 1, 100); err != nil {
		return s, err
	}
	if s.Alpha, err = a.Num("alpha"); err != nil {
		return s, err
	}
	if !(s.Alpha > 0 && s.Alpha < 1) {
		return s, a.Errorf("alpha", "alpha must be between 0 and 1, got %g", s.Alpha)
	}
	var est, approx string
	if err := a.Unpack("estimator?", &est, "approx", &approx); err != nil {
		return s, err
	}
	switch rktest.Approx(approx) {
	case rktest.Auto, rktest.Exact, rktest.Nystrom, rktest.RFF:
	default:
		return s, a.Errorf("approx", `approx must be "auto", "exact", "nystrom" or "rff", got %q`, approx)
	}
	s.Estimator, s.Approx = rktest.Estimator(est), rktest.Approx(approx)
	return s, nil
}

func mmdTest(a *eval.Args) (eval.Value, error) {
	x, y, err := twoSamples(a)
	if err != nil {
		return nil, err
	}
	s, err := testSettings(a)
	if err != nil {
		return nil, err
	}
	var method string
	if err := a.Unpack("method", &method); err != nil {
		return nil, err
	}
	if method != string(rktest.Permutation) && method != string(rktest.Gamma) {
		return nil, a.Errorf("method", `method must be "permutation" or "gamma", got %q`, method)
	}
	if err := fitInBudget(a, &s, x.RawMatrix().Rows+y.RawMatrix().Rows, 1, 1, isAggregate(a, "k")); err != nil {
		return nil, err
	}
	if err := checkTrain(a, isOpt(a, "k")); err != nil {
		return nil, err
	}
	if isOpt(a, "k") {
		return mmdOptTest(a, x, y, rktest.Method(method), s)
	}
	if isAggregate(a, "k") {
		if method == string(rktest.Gamma) {
			return nil, a.Errorf("method", `the aggregate test needs the permutation method`)
		}
		r, err := rktest.MMDAggregateTest(a.Context(), x, y, s)
		if err != nil {
			return nil, a.Fail("%v", err)
		}
		rec := ResultRecord(r)
		AggregateFields(rec, r)
		return rec, nil
	}
	rx, dx := x.Dims()
	ry, dy := y.Dims()
	if dx != dy {
		return nil, a.Fail("the samples have different numbers of columns: %d×%d and %d×%d", rx, dx, ry, dy)
	}
	var pooled mat.Dense
	pooled.Stack(x, y)
	c, err := chooseKernel(a, "k", &pooled, s.Seed)
	if err != nil {
		return nil, err
	}
	var r rktest.Result
	if method == string(rktest.Gamma) {
		r, err = rktest.MMDGammaTest(c.Kernel, x, y, s)
	} else {
		r, err = rktest.MMDTest(a.Context(), c.Kernel, x, y, s)
	}
	if err != nil {
		return nil, a.Fail("%v", err)
	}
	rec := ResultRecord(r)
	rec.Set("ell", EllValue(c.Ell)).Set("choice", eval.Str(c.Choice))
	if c.Choice == rktest.ChoiceBKL {
		rec.Set("bkl", BKLRecord(c))
		WarnFragile(a, "the pooled sample", c)
	}
	if c.Choice == rktest.ChoiceBayes {
		rec.Set("landmarks", eval.Num(c.Landmarks)).Set("tau2", eval.Num(c.Tau2))
	}
	if c.Bayes != nil {
		rec.Set("bayes", BayesRecord(c.Bayes))
		WarnBayes(a, "the pooled sample", c.Bayes)
	}
	return rec, nil
}

func hsicTest(a *eval.Args) (eval.Value, error) {
	x, y, err := twoSamples(a)
	if err != nil {
		return nil, err
	}
	s, err := testSettings(a)
	if err != nil {
		return nil, err
	}
	if s.Estimator == "" {
		s.Estimator = rktest.Biased
	}
	var method string
	if err := a.Unpack("method", &method); err != nil {
		return nil, err
	}
	ax, ay := isAggregate(a, "kx"), isAggregate(a, "ky")
	if ax != ay {
		name := "ky"
		if ay {
			name = "kx"
		}
		return nil, a.Errorf(name, `the aggregate test's product family needs kx and ky both "aggregate"`)
	}
	ox, oy := isOpt(a, "kx"), isOpt(a, "ky")
	if err := checkTrain(a, ox || oy); err != nil {
		return nil, err
	}
	if ox || oy {
		return hsicOptTest(a, x, y, rktest.Method(method), s)
	}
	mats := 2
	if ax {
		mats = 1 + s.Bandwidths // K for each x bandwidth and L
	}
	if err := fitInBudget(a, &s, x.RawMatrix().Rows, mats, 2, ax); err != nil {
		return nil, err
	}
	if ax {
		r, err := rktest.HSICAggregateTest(a.Context(), x, y, rktest.Method(method), s)
		if err != nil {
			return nil, a.Fail("%v", err)
		}
		if math.IsNaN(r.PValue) {
			return nil, a.Fail("the p-value is not defined for these data (constant kernel matrices?)")
		}
		rec := ResultRecord(r)
		AggregateFields(rec, r)
		return rec, nil
	}
	cx, err := chooseKernel(a, "kx", x, s.Seed)
	if err != nil {
		return nil, err
	}
	cy, err := chooseKernel(a, "ky", y, s.Seed)
	if err != nil {
		return nil, err
	}
	r, err := rktest.HSICTest(a.Context(), cx.Kernel, cy.Kernel, x, y, rktest.Method(method), s)
	if err != nil {
		return nil, a.Fail("%v", err)
	}
	if math.IsNaN(r.PValue) {
		return nil, a.Fail("the p-value is not defined for these data (constant kernel matrices?)")
	}
	rec := ResultRecord(r)
	rec.Set("ell", eval.NewRecord().Set("x", EllValue(cx.Ell)).Set("y", EllValue(cy.Ell)))
	rec.Set("choice", eval.NewRecord().Set("x", eval.Str(cx.Choice)).Set("y", eval.Str(cy.Choice)))
	BKLFields(a, rec, cx, cy)
	BayesFields(rec, cx, cy)
	return rec, nil
}

// BKLFields sets an HSIC record's bkl field, {x, y} of BKLRecord for the
// sides chosen by BKL (warning at the call for a fragile choice, and for
// the diagnostics of a "bayes" side's draws), and the
// landmarks and tau2 of the sides chosen by "bayes" (BayesFields adds the
// draws' record).
func BKLFields(a *eval.Args, rec *eval.Record, cx, cy rktest.Chosen) {
	b := eval.NewRecord()
	for _, v := range []struct {
		name string
		c    rktest.Chosen
	}{{"x", cx}, {"y", cy}} {
		if v.c.Choice == rktest.ChoiceBKL {
			b.Set(v.name, BKLRecord(v.c))
			WarnFragile(a, v.name, v.c)
		}
		if v.c.Bayes != nil {
			WarnBayes(a, v.name, v.c.Bayes)
		}
	}
	if cx.Choice == rktest.ChoiceBKL || cy.Choice == rktest.ChoiceBKL {
		rec.Set("bkl", b)
	}
	// "bayes": its landmarks and τ² per side, and the draws' record.
	lm, t2 := eval.NewRecord(), eval.NewRecord()
	for _, v := range []struct {
		name string
		c    rktest.Chosen
	}{{"x", cx}, {"y", cy}} {
		if v.c.Choice == rktest.ChoiceBayes {
			lm.Set(v.name, eval.Num(v.c.Landmarks))
			t2.Set(v.name, eval.Num(v.c.Tau2))
		}
	}
	if cx.Choice == rktest.ChoiceBayes || cy.Choice == rktest.ChoiceBayes {
		rec.Set("landmarks", lm).Set("tau2", t2)
	}
}

// denseTooBig reports that mats n×n Gram matrices would take more than half
// of what the memory budget leaves beside the live values: the statistics
// are then computed blockwise.
func denseTooBig(a *eval.Args, n, mats int) bool {
	return 8*float64(n)*float64(n)*float64(mats) > float64(a.Th.Interp().MemoryFree())/2
}

// blockRows is how many rows of mats Gram matrices fit in an eighth of
// what the budget leaves free at once.
func blockRows(a *eval.Args, n, mats int) int {
	rows := int(float64(a.Th.Interp().MemoryFree()) / 8 / (8 * float64(n) * float64(mats)))
	return max(1, min(rows, 4096))
}

// fitInBudget keeps a test within the memory budget. On the exact path,
// "auto" switches to the low-rank path where the n×n matrices would not
// fit, and an exact path asked for (or an aggregate HSIC, exact only) is
// refused with what to do instead. On the low-rank path (features on
// feats kernels: 1 for MMD, 2 for HSIC) the permutations run on fewer
// workers where each worker's buffers would not fit (the null does not
// depend on the number of workers), and a path that does not fit on one
// is refused before anything is allocated.
func fitInBudget(a *eval.Args, s *rktest.Settings, n, mats, feats int, exactOnly bool) error {
	lowRank := s.Approx == rktest.Nystrom || s.Approx == rktest.RFF || (s.Approx == rktest.Auto && n > rktest.ExactMax && !exactOnly)
	if !lowRank && denseTooBig(a, n, mats) {
		if s.Approx == rktest.Auto && !exactOnly {
			s.Approx = rktest.Nystrom
			lowRank = true
		} else {
			return a.CheckDense(n, n*mats, "the test's exact Gram matrices", `use approx: "nystrom" (rank r costs n·r), a given kernel instead of "aggregate", or a smaller sample`)
		}
	}
	if !lowRank || exactOnly {
		return nil
	}
	rank := s.Rank
	if rank <= 0 {
		rank = rktest.DefaultRank
	}
	rank = min(rank, n)
	workers := s.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	free := float64(a.Th.Interp().MemoryFree())
	for workers > 1 && lowRankBytes(n, rank, workers, feats) > free {
		workers--
	}
	s.Workers = workers
	if need := lowRankBytes(n, rank, 1, feats); need > free {
		in := a.Th.Interp()
		return a.Fail("the low-rank path would hold about %s (%d×%d features, %d of them, and the permutations' buffers), with %s held by live values: more than the memory budget of %s (kml run --max-memory sets it); use a smaller rank: (memory grows as n·rank) or a smaller sample",
			eval.FormatBytes(need), n, rank, feats, eval.FormatBytes(float64(in.MemoryLive())), eval.FormatBytes(float64(in.MemoryBudget())))
	}
	return nil
}

// lowRankBytes is the most a low-rank test on n rows may hold at once
// (runtime/ktest's features and nulls), from measurements of the peak RSS
// with Go's soft memory limit at the budget: a Nyström map holds up to
// four n×rank matrices while it is made (the cross-kernel, its solve, the
// copy) and the collector frees them late, so 2·feats + 3 of them, and per
// worker MMD's block of 32 permutation indicators (33 numbers a row with
// the permutation) or HSIC's permuted copy of the second features (rank +
// 1). Measured: 1.48 GB peak RSS for MMD on 10⁶ + 10⁶ rows at rank 20
// (this gives 2.66 GB with 2 workers, 2.12 GB with one), 1.10 GB for HSIC
// on 10⁶ pairs at rank 20 (1.46 GB, 1.29 GB).
func lowRankBytes(n, rank, workers, feats int) float64 {
	perWorker := 33.0
	if feats == 2 {
		perWorker = float64(rank + 1)
	}
	return 8 * float64(n) * (float64(2*feats+3)*float64(rank) + float64(workers)*perWorker)
}
