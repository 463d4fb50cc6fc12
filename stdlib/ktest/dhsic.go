package ktest

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/kernels"
	rktest "github.com/kml-lang/kml/runtime/ktest"
	"github.com/kml-lang/kml/stdlib/kernel"
)

func registerDHSIC(reg *eval.Registry) {
	reg.Register(`dhsic_test(xs..., **)`,
		`The test of joint independence of d ≥ 2 variables observed on the same n rows by dHSIC, the squared distance between the embedding of the joint distribution and the tensor product of the marginals' (Pfister, Bühlmann, Schölkopf and Peters 2018): dhsic_test(x1, x2, ..., kernel: "median", method: "permutation", permutations: 1000, seed:). x1, x2, ...: the variables, vectors or matrices of n rows each; one matrix alone stands for its columns. kernel: a kernel for every variable, a list of one kernel per variable, or "median" (rbf at each variable's own median heuristic). method: "permutation" (the rows of variables 2..d permuted independently, seeded, exact) or "gamma" (Pfister et al.'s gamma approximation of n·dHSIC's null; n ≥ 4d). With d = 2 the statistic is hsic's biased estimator and the permutation p-value hsic_test's. Returns {statistic, pvalue, method, permutations, kernels, ell, choice, d, n}.`,
		dhsicTest)
	reg.Register(`ksample_test(samples..., **)`,
		`The kernel test that c ≥ 2 samples come from one distribution: ksample_test(x1, x2, ..., k: "median", permutations: 1000, seed:), the samples vectors or matrices (rows are observations, the same columns). The statistic is the between-group discrepancy Σ_c (n_c/n)‖μ_c − μ‖² of the kernel mean embeddings (the kernel analogue of one-way ANOVA; with two samples (n₁n₂/n²)·MMD²_b), and its null the relabelling of the pooled rows, seeded, exact. k: a kernel or "median" (rbf at the median heuristic of the pooled rows). With two samples the p-value is mmd_test's with estimator: "biased". Returns {statistic, pvalue, method, permutations, kernel, ell, choice, samples, sizes}.`,
		ksampleTest)
}

// options are the named arguments of a builtin whose positional
// arguments are variadic (dhsic_test, ksample_test): each known name with
// its default, read with the positions of the arguments given.
type options struct {
	a       *eval.Args
	builtin string
	vals    map[string]eval.NamedValue
}

func readOptions(a *eval.Args, builtin string, defaults map[string]eval.Value) (*options, error) {
	o := &options{a: a, builtin: builtin, vals: map[string]eval.NamedValue{}}
	for name, v := range defaults {
		o.vals[name] = eval.NamedValue{Name: name, Value: v, Pos: a.Pos}
	}
	for _, nv := range a.Extra {
		if _, ok := defaults[nv.Name]; !ok {
			return nil, o.errorf(nv, "no argument %q (it takes %s)", nv.Name, names(defaults))
		}
		o.vals[nv.Name] = nv
	}
	return o, nil
}

func names(m map[string]eval.Value) string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

func (o *options) errorf(nv eval.NamedValue, format string, args ...any) error {
	return &ast.Error{Pos: nv.Pos, Msg: o.builtin + ": " + fmt.Sprintf(format, args...)}
}

// value is option name's value (nil for a seed not given).
func (o *options) value(name string) eval.NamedValue { return o.vals[name] }

// str reads a string option.
func (o *options) str(name string) (string, error) {
	nv := o.vals[name]
	v, ok := nv.Value.(eval.Str)
	if !ok {
		return "", o.errorf(nv, "%s must be a string, got %s", name, eval.Describe(nv.Value))
	}
	return string(v), nil
}

// count reads a whole number of at least 1.
func (o *options) count(name string) (int, error) {
	nv := o.vals[name]
	f, ok := eval.ToFloat(nv.Value)
	if !ok || f != math.Trunc(f) || f < 1 || f > eval.MaxLength {
		return 0, o.errorf(nv, "%s must be a whole number from 1 to %d, got %s", name, eval.MaxLength, eval.Describe(nv.Value))
	}
	return int(f), nil
}

// seed is the seed option when given, else the run's next seed.
func (o *options) seed() (uint64, error) {
	nv := o.vals["seed"]
	if nv.Value == nil {
		return o.a.Seed()
	}
	f, ok := eval.ToFloat(nv.Value)
	if !ok || f != math.Trunc(f) || f < 0 || f > 1<<53 {
		return 0, o.errorf(nv, "seed must be a whole number ≥ 0, got %s", eval.Describe(nv.Value))
	}
	return uint64(f), nil
}

// variables reads the variadic samples: vectors or matrices, or (alone,
// when columns is set) a matrix standing for its columns.
func variables(a *eval.Args, what string, columns bool) ([]*mat.Dense, error) {
	if len(a.Rest) == 1 && columns {
		if m, ok := a.Rest[0].(*eval.Mat); ok {
			r, c := m.Dims()
			out := make([]*mat.Dense, c)
			for j := range out {
				out[j] = mat.NewDense(r, 1, mat.Col(nil, j, m.M))
			}
			return out, nil
		}
	}
	out := make([]*mat.Dense, len(a.Rest))
	for i, e := range a.Rest {
		m, ok := eval.ToMatrix(e)
		if !ok || m.IsEmpty() {
			return nil, a.RestErrorf(i, "%s %d must be a non-empty vector or matrix, got %s", what, i+1, eval.Describe(e))
		}
		out[i] = m
	}
	return out, nil
}

func dhsicTest(a *eval.Args) (eval.Value, error) {
	o, err := readOptions(a, "dhsic_test", map[string]eval.Value{"kernel": eval.Str("median"), "method": eval.Str("permutation"), "permutations": eval.Num(1000), "seed": nil})
	if err != nil {
		return nil, err
	}
	xs, err := variables(a, "variable", true)
	if err != nil {
		return nil, err
	}
	d := len(xs)
	if d < 2 {
		return nil, a.Fail("the test needs at least 2 variables (or one matrix of at least 2 columns), got %d", d)
	}
	n := xs[0].RawMatrix().Rows
	for j, x := range xs {
		if r := x.RawMatrix().Rows; r != n {
			return nil, a.RestErrorf(j, "variable %d has %d rows, variable 1 has %d", j+1, r, n)
		}
	}
	method, err := o.str("method")
	if err != nil {
		return nil, err
	}
	if method != string(rktest.Permutation) && method != string(rktest.Gamma) {
		return nil, o.errorf(o.value("method"), `method must be "permutation" or "gamma", got %q`, method)
	}
	var s rktest.Settings
	if s.Permutations, err = o.count("permutations"); err != nil {
		return nil, err
	}
	if s.Seed, err = o.seed(); err != nil {
		return nil, err
	}
	if err := a.CheckDense(n, n*d, "dHSIC's Gram matrices", "use a smaller sample"); err != nil {
		return nil, err
	}
	ks := make([]kernels.Kernel, d)
	ells := make([]float64, d)
	choice := "given"
	kn := o.value("kernel")
	switch v := kn.Value.(type) {
	case *kernel.KernelVal:
		for j := range ks {
			ks[j] = v.K
		}
	case *eval.List:
		if len(v.Elems) != d {
			return nil, o.errorf(kn, "kernel has %d kernels for %d variables", len(v.Elems), d)
		}
		for j, e := range v.Elems {
			kv, ok := e.(*kernel.KernelVal)
			if !ok {
				return nil, o.errorf(kn, "kernel %d must be a kernel, got %s", j+1, eval.Describe(e))
			}
			ks[j] = kv.K
		}
	case eval.Str:
		if v != "median" {
			return nil, o.errorf(kn, `kernel must be a kernel, a list of kernels or "median", got %q`, string(v))
		}
		choice = "median"
		for j, x := range xs {
			c, err := rktest.Choose(a.Context(), rktest.ChoiceMedian, x, s.Seed)
			if err != nil {
				return nil, o.errorf(kn, "variable %d: %v; give a kernel", j+1, err)
			}
			ks[j] = c.Kernel
		}
	default:
		return nil, o.errorf(kn, `kernel must be a kernel, a list of kernels or "median", got %s`, eval.Describe(v))
	}
	for j, k := range ks {
		ells[j] = math.NaN()
		if c := rktest.Given(k); len(c.Ell) == 1 {
			ells[j] = c.Ell[0]
		}
	}
	r, err := rktest.DHSICTest(a.Context(), ks, xs, rktest.Method(method), s)
	if err != nil {
		if e := a.Th.Context().Err(); e != nil {
			return nil, a.Interrupted(e)
		}
		return nil, a.Fail("%v", err)
	}
	kernelNames := make([]eval.Value, d)
	for j, k := range ks {
		kernelNames[j] = eval.Str(k.String())
	}
	rec := eval.NewRecord()
	rec.Set("statistic", eval.Num(r.Statistic)).Set("pvalue", eval.Num(r.PValue)).Set("method", eval.Str(r.Method))
	if r.Permutations > 0 {
		rec.Set("permutations", eval.Num(r.Permutations))
	}
	rec.Set("kernels", &eval.List{Elems: kernelNames}).Set("ell", &eval.Vec{Data: ells}).Set("choice", eval.Str(choice)).
		Set("d", eval.Num(d)).Set("n", eval.Num(n))
	return rec, nil
}

func ksampleTest(a *eval.Args) (eval.Value, error) {
	o, err := readOptions(a, "ksample_test", map[string]eval.Value{"k": eval.Str("median"), "permutations": eval.Num(1000), "seed": nil})
	if err != nil {
		return nil, err
	}
	xs, err := variables(a, "sample", false)
	if err != nil {
		return nil, err
	}
	if len(xs) < 2 {
		return nil, a.Fail("the test needs at least 2 samples, got %d", len(xs))
	}
	var s rktest.Settings
	if s.Permutations, err = o.count("permutations"); err != nil {
		return nil, err
	}
	if s.Seed, err = o.seed(); err != nil {
		return nil, err
	}
	sizes := make([]float64, len(xs))
	n := 0
	for c, x := range xs {
		sizes[c] = float64(x.RawMatrix().Rows)
		n += x.RawMatrix().Rows
		if x.RawMatrix().Cols != xs[0].RawMatrix().Cols {
			return nil, a.RestErrorf(c, "sample %d has %d columns, sample 1 has %d", c+1, x.RawMatrix().Cols, xs[0].RawMatrix().Cols)
		}
	}
	if err := a.CheckDense(n, n, "the pooled Gram matrix", "use a smaller sample"); err != nil {
		return nil, err
	}
	var c rktest.Chosen
	kn := o.value("k")
	switch v := kn.Value.(type) {
	case *kernel.KernelVal:
		c = rktest.Given(v.K)
	case eval.Str:
		if v != "median" {
			return nil, o.errorf(kn, `k must be a kernel or "median", got %q`, string(v))
		}
		pooled := xs[0]
		for _, x := range xs[1:] {
			var st mat.Dense
			st.Stack(pooled, x)
			pooled = &st
		}
		if c, err = rktest.Choose(a.Context(), rktest.ChoiceMedian, pooled, s.Seed); err != nil {
			return nil, o.errorf(kn, "%v; give a kernel", err)
		}
	default:
		return nil, o.errorf(kn, `k must be a kernel or "median", got %s`, eval.Describe(v))
	}
	r, err := rktest.KSampleTest(a.Context(), c.Kernel, xs, s)
	if err != nil {
		if e := a.Th.Context().Err(); e != nil {
			return nil, a.Interrupted(e)
		}
		return nil, a.Fail("%v", err)
	}
	rec := eval.NewRecord()
	rec.Set("statistic", eval.Num(r.Statistic)).Set("pvalue", eval.Num(r.PValue)).Set("method", eval.Str(r.Method)).
		Set("permutations", eval.Num(r.Permutations)).Set("kernel", eval.Str(r.Kernel)).
		Set("ell", EllValue(c.Ell)).Set("choice", eval.Str(c.Choice)).
		Set("samples", eval.Num(len(xs))).Set("sizes", &eval.Vec{Data: sizes})
	return rec, nil
}
