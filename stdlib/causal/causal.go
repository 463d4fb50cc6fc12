package causal

import (
	"fmt"
	"strings"

	"github.com/kml-lang/kml/stdlib/kernel"
	"github.com/kml-lang/kml/stdlib/ktest"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	rcausal "github.com/kml-lang/kml/runtime/causal"
	"github.com/kml-lang/kml/runtime/kernels"
	rktest "github.com/kml-lang/kml/runtime/ktest"
)

func registerCausal(reg *eval.Registry) {
	reg.Register(`ci_test(x, y, z, kx, ky, method = "permutation", permutations = 1000, seed?, alpha = 0.05, bandwidths = 5, landmarks = "auto", noise = "auto", variant = "derived", draws?, features = 100, regression = "ml2", regression_draws = 64)`,
		`The conditional-independence test of x ⟂ y | z (paired rows) of the BKE paper's section 5: GP regression of each column of x and of y on z (kernel s·rbf with one lengthscale per column of z, plus noise, fitted by ML-II on standardised data; see runtime/causal.Regress), then hsic_test on the residuals with kernels kx and ky chosen as hsic_test chooses them (a kernel, "median", "bkl", "bayes", or both "aggregate") on the residuals; landmarks, noise, variant and draws set "bkl" and "bayes" as in mmd_test. z empty ([]) is hsic_test on x and y. method "kci" (Zhang et al. 2011; kx, ky a kernel or "median") and "rcit" (Strobl et al. 2019 as their R package's RCoT, features random Fourier features of z, 5 of x and y; kx = ky = "median") replace the GP regression and HSIC by those tests, on standardised data, KCI with the gamma approximation of its null and RCIT with Lindsay–Pilla–Basak's (lpb4, the R package's default; hbe when it fails), and return {statistic, pvalue, method, null: {approx, mean, variance}, n} with kernel_x, kernel_y, kernel_z, epsilon (kci) or features: {z, xy}, ell: {x, y, z}, seed (rcit). Otherwise returns hsic_test's record (with bkl or bayes) with the residuals' kernels, and regression: {x, y}, per column the fitted kernel, noise variance and log marginal likelihood (none when z is empty). regression: "ml2" (the default) or "bayes": the residuals are y − E[f(z) | y] averaged over the posterior of the GP's hyperparameters (normal priors, sd 2, on log s, log ℓ and log σ²), by regression_draws importance draws from Laplace approximations at the posterior's modes (climbed from four lengthscales; seeded); each regression then also reports modes, ess, max_weight, scale_mean, ell_mean and noise_mean, and its kernel and noise are those at the highest mode.`,
		ciTestBuiltin)
	reg.Register(`pc(data, test = "kernel", alpha = 0.05, kernel = "bkl", names?, max_cond = -1, knowledge?, method = "gamma", permutations = 1000, standardise = true, seed?, landmarks = "auto", noise = "auto", variant = "derived", draws?, resamples = 0, fraction = 0.5)`,
		`The PC algorithm on the columns of data (rows are observations): the order-independent skeleton (PC-stable: conditioning sets of size 0, 1, ... drawn from the neighbours at the start of each size; the tests of one size in parallel, the same graph on any number of cores), v-structures and Meek's rules 1–3 (an edge whose v-structures disagree, or whose orientation would close a directed cycle, stays undirected and is listed in conflicts). test: "kernel" (ci_test's GP-residual HSIC test with kx = ky = kernel, a kernel or "median", "bkl", "bayes" (draws lengthscales from each residual's BKE posterior by NUTS; slower), "aggregate", and the given method, "gamma" by default for speed, or "permutation"; method "kci" or "rcit" runs ci_test's KCI or RCIT instead, rbf at the median heuristic, RCIT with 100 features) or "fisher_z" (partial correlation, linear-Gaussian data). An edge is removed when a p-value exceeds alpha. max_cond bounds the conditioning sets (-1: none). knowledge: background knowledge as Tetrad's Knowledge, a record {tiers: [[names], ...] (earlier tiers first: no edge from a later tier into an earlier one), required: [[from, to], ...], forbidden: [[from, to], ...]}: a pair forbidden both ways is never adjacent (and never tested back in), a required edge is never removed, the knowledge orients its edges before the data and Meek's rule 4 joins 1–3; where knowledge and data disagree the knowledge wins and the place is listed in knowledge_conflicts (kind, x, y, sepset, pvalue) with one warning. resamples > 0: the graph's stability as Tetrad's bootstrapping measures it, the algorithm run again on resamples subsamples of fraction·n rows drawn without replacement (in parallel, with progress; subsample k's rows and test seed from seed and k), added as stability: {resamples, fraction, seed, edges: [{x, y, adjacent, types: [{type, frequency}]}]}, and each edge of the graph gets frequency (of its type) and adjacent, which plot writes beside it. standardise: centre and scale each column to unit sd first. landmarks, noise, variant and draws set "bkl" and "bayes" as in mmd_test (one warning when any choice is fragile). Returns {edges: [{from, to, type: "directed" | "undirected"}], removed: [{x, y, sepset, pvalue}], conflicts, names, alpha, test, kernel, tests, text, dot} and, with "bkl", bkl: {landmarks, noise, draws} as given ("auto" for a rule) and fragile: the residuals ("variable | set", or the variable alone) whose choice was fragile: text is one edge per line, dot the graph for Graphviz.`,
		pcBuiltin)
	reg.Register(`fci(data, test = "kernel", alpha = 0.05, kernel = "bkl", names?, max_cond = -1, knowledge?, method = "gamma", permutations = 1000, standardise = true, seed?, landmarks = "auto", noise = "auto", variant = "derived", draws?, resamples = 0, fraction = 0.5)`,
		`The FCI algorithm (Spirtes, Glymour and Scheines 2000; Zhang 2008) on the columns of data: causal discovery that allows latent confounders. pc's skeleton (with the same tests and arguments, knowledge included), the unshielded colliders, the possible-d-sep stage (each edge tested against the subsets of the Possible-D-Sep sets of its ends, order-independent), then Zhang's complete orientation rules R1–R10. Returns a PAG: {edges: [{from, to, type}], removed: [{x, y, sepset, pvalue}], names, alpha, test, kernel, tests, possible_dsep (edges that stage removed), text, dot} with type the edge's marks: "-->" (from causes to, in every MAG of the class), "o->" (to is not an ancestor of from), "<->" (a latent common cause, neither an ancestor of the other), "o-o" (undetermined); knowledge as in pc, except that a forbidden direction i → j puts an arrowhead at i and a pair forbidden both ways is still tested (it may share a latent cause), with knowledge_conflicts. dot draws the marks (odot for a circle); plot(g) draws them too. resamples and fraction measure stability as in pc.`,
		fciBuiltin)
	reg.Register(`prewhiten(x, order = "aic", max_order = 10)`,
		`Removes temporal autocorrelation from each column of x (rows in time order): the residuals of a least-squares autoregression x_t = c + a_1 x_{t-1} + ... + a_p x_{t-p} + e_t, fitted on the rows max_order+1.. for every p and column so the residuals stay paired. order: "aic" (p in 0..max_order chosen per column by AIC) or a whole number (p fixed, max_order = order). Returns {x: the residuals (the first max_order rows dropped), order: the order of each column, coef: per column [c, a_1, ..., a_p], dropped: the rows dropped}.`,
		prewhitenBuiltin)
}

// kernelSpec reads a kernel argument of a conditional-independence test.
func kernelSpec(a *eval.Args, name string) (rcausal.KernelSpec, error) {
	switch v := a.Value(name).(type) {
	case *kernel.KernelVal:
		return rcausal.KernelSpec{Choice: rktest.ChoiceGiven, Kernel: v.K}, nil
	case eval.Str:
		switch c := rktest.Choice(v); c {
		case rktest.ChoiceBKL:
			o, err := ktest.BKLOptions(a)
			if err != nil {
				return rcausal.KernelSpec{}, err
			}
			return rcausal.KernelSpec{Choice: c, BKL: o}, nil
		case rktest.ChoiceMedian, rktest.ChoiceAggregate:
			return rcausal.KernelSpec{Choice: c}, nil
		case rktest.ChoiceBayes:
			bs, err := ktest.BayesSettings(a)
			return rcausal.KernelSpec{Choice: c, Bayes: bs}, err
		}
	}
	return rcausal.KernelSpec{}, a.Errorf(name, `%s must be a kernel, "median", "bkl", "bayes" or "aggregate", got %s`, name, eval.Describe(a.Value(name)))
}

// ciSettings reads the HSIC settings shared by ci_test and pc.
func ciSettings(a *eval.Args) (rktest.Method, rktest.Settings, error) {
	var s rktest.Settings
	var method string
	if err := a.Unpack("method", &method); err != nil {
		return "", s, err
	}
	if method != string(rktest.Permutation) && method != string(rktest.Gamma) && !ktest.CIMethods[method] {
		return "", s, a.Errorf("method", `method must be "permutation" or "gamma" (the GP-residual HSIC test), "kci" or "rcit", got %q`, method)
	}
	var err error
	if s.Permutations, err = a.IntIn("permutations", 1, eval.MaxLength); err != nil {
		return "", s, err
	}
	if s.Seed, err = a.Seed(); err != nil {
		return "", s, err
	}
	s.Estimator, s.Approx = rktest.Biased, rktest.Exact
	return rktest.Method(method), s, nil
}

func checkFinite(a *eval.Args, name string, m *mat.Dense) error {
	if m.IsEmpty() {
		return nil
	}
	if err := kernels.CheckData(m, name); err != nil {
		return a.Errorf(name, "%v", err)
	}
	return nil
}

func ciTestBuiltin(a *eval.Args) (eval.Value, error) {
	var x, y, z *mat.Dense
	if err := a.Unpack("x", &x, "y", &y, "z", &z); err != nil {
		return nil, err
	}
	if x.IsEmpty() || y.IsEmpty() {
		return nil, a.Fail("x and y must not be empty")
	}
	n, _ := x.Dims()
	if r, _ := y.Dims(); r != n {
		return nil, a.Errorf("y", "x has %d rows but y has %d", n, r)
	}
	if !z.IsEmpty() {
		if r, _ := z.Dims(); r != n {
			return nil, a.Errorf("z", "x has %d rows but z has %d", n, r)
		}
	}
	for _, v := range []struct {
		name string
		m    *mat.Dense
	}{{"x", x}, {"y", y}, {"z", z}} {
		if err := checkFinite(a, v.name, v.m); err != nil {
			return nil, err
		}
	}
	if n < 10 {
		return nil, a.Fail("ci_test needs at least 10 rows, got %d", n)
	}
	if m, ok := a.Value("method").(eval.Str); ok && ktest.CIMethods[string(m)] {
		if r, ok := a.Value("regression").(eval.Str); !ok || r != "ml2" {
			return nil, a.Errorf("regression", `regression applies to the GP-residual test (method "permutation" or "gamma"); %s has no GP regression step (its conditioning is a kernel ridge with fixed ε for kci, random features for rcit): leave regression "ml2" or use method "gamma" with regression: "bayes"`, string(m))
		}
		return ktest.CITest(a, string(m), x, y, z)
	}
	if err := a.CheckDense(n, 3*n, "the test's n×n matrices", "use a smaller sample"); err != nil {
		return nil, err
	}
	kx, err := kernelSpec(a, "kx")
	if err != nil {
		return nil, err
	}
	ky, err := kernelSpec(a, "ky")
	if err != nil {
		return nil, err
	}
	if (kx.Choice == rktest.ChoiceAggregate) != (ky.Choice == rktest.ChoiceAggregate) {
		return nil, a.Errorf("kx", `the aggregate test needs kx and ky both "aggregate"`)
	}
	method, s, err := ciSettings(a)
	if err != nil {
		return nil, err
	}
	if s.Alpha, err = a.Num("alpha"); err != nil {
		return nil, err
	}
	if !(s.Alpha > 0 && s.Alpha < 1) {
		return nil, a.Errorf("alpha", "alpha must be between 0 and 1, got %g", s.Alpha)
	}
	if s.Bandwidths, err = a.IntIn("bandwidths", 1, 100); err != nil {
		return nil, err
	}
	if z.IsEmpty() {
		z = nil
	}
	t := rcausal.KernelTest{KX: kx, KY: ky, Method: method, Settings: s}
	if t.Bayes, err = regressionSetting(a); err != nil {
		return nil, err
	}
	r, err := t.Test(a.Context(), x, y, z, s.Seed)
	if err != nil {
		if e := a.Context().Err(); e != nil {
			return nil, a.Interrupted(e)
		}
		return nil, a.Fail("%v", err)
	}
	rec := ciRecord(r, kx.Choice == rktest.ChoiceAggregate)
	if kx.Choice != rktest.ChoiceAggregate {
		ktest.BKLFields(a, rec, r.X, r.Y)
	}
	return rec, nil
}

// regressionSetting reads ci_test's regression: nil for "ml2", the
// settings of RegressBayes for "bayes".
func regressionSetting(a *eval.Args) (*rcausal.RegressionBayes, error) {
	var r string
	if err := a.Unpack("regression", &r); err != nil {
		return nil, err
	}
	switch r {
	case "ml2":
		if a.Given("regression_draws") {
			return nil, a.Errorf("regression_draws", `regression_draws sets regression: "bayes"; the default regression "ml2" takes no draws`)
		}
		return nil, nil
	case "bayes":
		d, err := a.IntIn("regression_draws", 1, 100000)
		if err != nil {
			return nil, err
		}
		return &rcausal.RegressionBayes{Draws: d}, nil
	}
	return nil, a.Errorf("regression", `regression must be "ml2" or "bayes", got %q`, r)
}

// ciRecord is ci_test's record: hsic_test's fields and the regressions.
func ciRecord(r rcausal.CIResult, aggregate bool) *eval.Record {
	rec := ktest.ResultRecord(r.HSIC)
	if aggregate {
		ktest.AggregateFields(rec, r.HSIC)
	} else {
		rec.Set("ell", eval.NewRecord().Set("x", ktest.EllValue(r.X.Ell)).Set("y", ktest.EllValue(r.Y.Ell)))
		rec.Set("choice", eval.NewRecord().Set("x", eval.Str(r.X.Choice)).Set("y", eval.Str(r.Y.Choice)))
		ktest.BayesFields(rec, r.X, r.Y)
	}
	var post *rcausal.RegressionPosterior
	regs := func(rs []rcausal.Regression) eval.Value {
		if rs == nil {
			return eval.NoneValue
		}
		l := &eval.List{}
		for _, g := range rs {
			e := eval.NewRecord().Set("kernel", eval.Str(g.Kernel.String())).
				Set("noise", eval.Num(g.Noise)).Set("logml", eval.Num(g.LogML)).Set("converged", eval.Bool(g.Converged))
			if p := g.Posterior; p != nil {
				post = p
				e.Set("modes", eval.Num(p.Modes)).Set("ess", eval.Num(p.ESS)).Set("max_weight", eval.Num(p.MaxWeight)).Set("scale_mean", eval.Num(p.ScaleMean)).
					Set("ell_mean", &eval.Vec{Data: p.EllMean}).Set("noise_mean", eval.Num(p.NoiseMean))
			}
			l.Elems = append(l.Elems, e)
		}
		return l
	}
	rx, ry := regs(r.RegX), regs(r.RegY)
	reg := eval.NewRecord()
	if post != nil {
		reg.Set("method", eval.Str("gp bayes: s * rbf(ell per column) + noise, standardised; residuals from the posterior mean averaged over the hyperparameters (importance sampling from t4 Laplace approximations at the posterior modes)")).
			Set("draws", eval.Num(post.Draws)).Set("prior", eval.Str(fmt.Sprintf("normal(centre, %g) on log s, log ell, log(noise - 1e-4); centre 0, 0, log 0.1", post.PriorSD)))
	} else {
		reg.Set("method", eval.Str("gp ML-II: s * rbf(ell per column) + noise, standardised"))
	}
	rec.Set("regression", reg.Set("x", rx).Set("y", ry))
	return rec
}

func prewhitenBuiltin(a *eval.Args) (eval.Value, error) {
	var x *mat.Dense
	if err := a.Unpack("x", &x); err != nil {
		return nil, err
	}
	if x.IsEmpty() {
		return nil, a.Errorf("x", "x is empty")
	}
	order := -1
	switch v := a.Value("order").(type) {
	case eval.Str:
		if v != "aic" {
			return nil, a.Errorf("order", `order must be "aic" or a whole number, got %q`, string(v))
		}
	default:
		o, err := a.IntIn("order", 0, 1000)
		if err != nil {
			return nil, err
		}
		order = o
	}
	maxOrder, err := a.IntIn("max_order", 0, 1000)
	if err != nil {
		return nil, err
	}
	w, err := rcausal.Prewhiten(x, order, maxOrder)
	if err != nil {
		return nil, a.Fail("%v", err)
	}
	orders := make([]float64, len(w.Orders))
	coef := &eval.List{}
	for j, p := range w.Orders {
		orders[j] = float64(p)
		coef.Elems = append(coef.Elems, &eval.Vec{Data: w.Coef[j]})
	}
	return eval.NewRecord().Set("x", eval.NewMat(w.Resid)).Set("order", &eval.Vec{Data: orders}).
		Set("coef", coef).Set("dropped", eval.Num(w.MaxOrder)), nil
}

// varNames reads pc's names, or makes x1, x2, ...
func varNames(a *eval.Args, p int) ([]string, error) {
	var names eval.Names
	if err := a.Unpack("names?", &names); err != nil {
		return nil, err
	}
	if names == nil {
		for j := 1; j <= p; j++ {
			names = append(names, fmt.Sprintf("x%d", j))
		}
	}
	if len(names) != p {
		return nil, a.Errorf("names", "%d names for %d columns", len(names), p)
	}
	return names, nil
}

// pcRecord turns PC's result into a record with names.
func pcRecord(res *rcausal.Result, names []string) *eval.Record {
	nameList := func(ix []int) *eval.List {
		l := &eval.List{}
		for _, i := range ix {
			l.Elems = append(l.Elems, eval.Str(names[i]))
		}
		return l
	}
	edges := &eval.List{}
	var text, dot strings.Builder
	dot.WriteString("digraph pc {\n")
	for _, name := range names {
		fmt.Fprintf(&dot, "  %q;\n", name)
	}
	for _, e := range res.Edges() {
		typ, arrow, attr := "undirected", "—", ` [dir=none]`
		if e.Directed {
			typ, arrow, attr = "directed", "→", ""
		}
		edges.Elems = append(edges.Elems, eval.NewRecord().Set("from", eval.Str(names[e.From])).
			Set("to", eval.Str(names[e.To])).Set("type", eval.Str(typ)))
		fmt.Fprintf(&text, "%s %s %s\n", names[e.From], arrow, names[e.To])
		fmt.Fprintf(&dot, "  %q -> %q%s;\n", names[e.From], names[e.To], attr)
	}
	dot.WriteString("}\n")
	if len(res.Edges()) == 0 {
		text.WriteString("(no edges)\n")
	}
	removed := &eval.List{}
	for _, m := range res.Removed {
		removed.Elems = append(removed.Elems, eval.NewRecord().Set("x", eval.Str(names[m.I])).
			Set("y", eval.Str(names[m.J])).Set("sepset", nameList(m.Sep)).Set("pvalue", eval.Num(m.PValue)))
	}
	conflicts := &eval.List{}
	for _, c := range res.Conflicts {
		conflicts.Elems = append(conflicts.Elems, nameList(c[:]))
	}
	return eval.NewRecord().Set("edges", edges).Set("removed", removed).Set("conflicts", conflicts).
		Set("names", nameList(seq(len(names)))).Set("tests", eval.Num(res.Tests)).
		Set("text", eval.Str(strings.TrimSuffix(text.String(), "\n"))).Set("dot", eval.Str(dot.String()))
}

// pick returns the names at the indices ix.
func pick(names []string, ix []int) []string {
	out := make([]string, len(ix))
	for k, i := range ix {
		out[k] = names[i]
	}
	return out
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}
