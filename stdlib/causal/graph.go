package causal

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	rcausal "github.com/kml-lang/kml/runtime/causal"
	rktest "github.com/kml-lang/kml/runtime/ktest"
	"github.com/kml-lang/kml/stdlib/ktest"
)

// graphInputs are the arguments pc and fci read alike: the data, names,
// level, conditioning bound, knowledge and the conditional-independence
// test.
type graphInputs struct {
	data       *mat.Dense
	names      []string
	alpha      float64
	maxCond    int
	know       *rcausal.Knowledge
	test       string
	kernelDesc eval.Value
	seed       uint64
	// newTest builds the test on data (the whole data or a subsample)
	// with seed.
	newTest func(data *mat.Dense, seed uint64) (rcausal.CITest, error)
	// finish adds the kernel test's settings and fragile choices.
	finish func(rec *eval.Record)
}

// readGraphInputs reads the arguments of fn ("pc" or "fci").
func readGraphInputs(a *eval.Args, fn string) (*graphInputs, error) {
	var data *mat.Dense
	var test string
	if err := a.Unpack("data", &data, "test", &test); err != nil {
		return nil, err
	}
	if data.IsEmpty() {
		return nil, a.Errorf("data", "data is empty")
	}
	if err := checkFinite(a, "data", data); err != nil {
		return nil, err
	}
	n, p := data.Dims()
	if p < 2 {
		return nil, a.Errorf("data", "%s needs at least 2 columns (variables), got %d", fn, p)
	}
	if n < 10 {
		return nil, a.Errorf("data", "%s needs at least 10 rows, got %d", fn, n)
	}
	var stdz bool
	if err := a.Unpack("standardise", &stdz); err != nil {
		return nil, err
	}
	if stdz {
		var err error
		if data, err = rcausal.Standardise(data); err != nil {
			return nil, a.Errorf("data", "%v", err)
		}
	}
	g := &graphInputs{data: data, test: test, kernelDesc: eval.NoneValue, finish: func(*eval.Record) {}}
	var err error
	if g.names, err = varNames(a, p); err != nil {
		return nil, err
	}
	if g.alpha, err = a.Num("alpha"); err != nil {
		return nil, err
	}
	if !(g.alpha > 0 && g.alpha < 1) {
		return nil, a.Errorf("alpha", "alpha must be between 0 and 1, got %g", g.alpha)
	}
	if g.maxCond, err = a.IntIn("max_cond", -1, p); err != nil {
		return nil, err
	}
	if g.know, err = readKnowledge(a, g.names); err != nil {
		return nil, err
	}
	if err := g.know.Check(p); err != nil {
		return nil, knowledgeError(a, err, g.names)
	}
	method, s, err := ciSettings(a)
	if err != nil {
		return nil, err
	}
	g.seed = s.Seed
	s.Workers = 1 // PC runs the tests in parallel
	switch test {
	case "kernel":
		if ktest.CIMethods[string(method)] { // KCI or RCIT, rbf at the median heuristic
			if err := a.CheckDense(n, 8*n, "KCI's n×n matrices", `use method: "rcit"`); method == "kci" && err != nil {
				return nil, err
			}
			g.kernelDesc = eval.Str("median")
			g.newTest = func(data *mat.Dense, seed uint64) (rcausal.CITest, error) {
				return ktest.CIForPC(string(method), data, rktest.RCITFeatures, seed), nil
			}
			break
		}
		k, err := kernelSpec(a, "kernel")
		if err != nil {
			return nil, err
		}
		if err := a.CheckDense(n, 3*n*min(p, 4), "the tests' n×n matrices", "use a smaller sample"); err != nil {
			return nil, err
		}
		g.kernelDesc = eval.Str(k.Choice)
		if k.Kernel != nil {
			g.kernelDesc = eval.Str(k.Kernel.String())
		}
		var record func(i, j int, set []int, r rcausal.CIResult)
		var mu sync.Mutex
		fragile := map[string]float64{}
		if k.Choice == rktest.ChoiceBKL {
			record = func(i, j int, set []int, r rcausal.CIResult) {
				mu.Lock()
				defer mu.Unlock()
				for _, side := range []struct {
					v int
					c rktest.Chosen
				}{{i, r.X}, {j, r.Y}} {
					if side.c.Fragile != "" {
						key := g.names[side.v]
						if len(set) > 0 {
							key += " | " + strings.Join(pick(g.names, set), ", ")
						}
						fragile[key] = side.c.Ell[0]
					}
				}
			}
			g.finish = func(rec *eval.Record) { bklFields(a, rec, fragile) }
		}
		t := rcausal.KernelTest{KX: k, KY: k, Method: method, Settings: s}
		g.newTest = func(data *mat.Dense, seed uint64) (rcausal.CITest, error) {
			return t.ForPC(data, seed, record), nil
		}
	case "fisher_z":
		if _, err := rcausal.FisherZ(data); err != nil {
			return nil, a.Errorf("data", "%v", err)
		}
		g.newTest = func(data *mat.Dense, _ uint64) (rcausal.CITest, error) { return rcausal.FisherZ(data) }
	default:
		return nil, a.Errorf("test", `test must be "kernel" or "fisher_z", got %q`, test)
	}
	return g, nil
}

// bklFields records the BKL settings and the fragile choices, and warns
// once if there are any.
func bklFields(a *eval.Args, rec *eval.Record, fragile map[string]float64) {
	setting := func(name string) eval.Value {
		if v := a.Value(name); v != nil {
			return v
		}
		return eval.Num(rktest.DefaultDraws) // draws left out
	}
	rec.Set("bkl", eval.NewRecord().Set("landmarks", setting("landmarks")).Set("noise", setting("noise")).
		Set("draws", setting("draws")))
	keys := make([]string, 0, len(fragile))
	for key := range fragile {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	fl := &eval.List{}
	for _, key := range keys {
		fl.Elems = append(fl.Elems, eval.Str(key))
	}
	rec.Set("fragile", fl)
	if len(keys) > 0 {
		a.Th.Interp().Warn(a.Pos, fmt.Sprintf("bkl: %d of the lengthscales chosen (residuals of variable | set) are fragile, e.g. %s (ℓ = %.3g); the list is in the result's fragile field", len(keys), keys[0], fragile[keys[0]]))
	}
}

// failed turns a runtime error of pc or fci into the builtin's error.
func failed(a *eval.Args, err error) error {
	if e := a.Context().Err(); e != nil {
		return a.Interrupted(e)
	}
	return a.Fail("%v", err)
}

func pcBuiltin(a *eval.Args) (eval.Value, error) {
	g, err := readGraphInputs(a, "pc")
	if err != nil {
		return nil, err
	}
	ci, err := g.newTest(g.data, g.seed)
	if err != nil {
		return nil, a.Errorf("data", "%v", err)
	}
	_, p := g.data.Dims()
	res, err := rcausal.PC(a.Context(), p, ci, rcausal.Settings{Alpha: g.alpha, MaxCond: g.maxCond, Knowledge: g.know})
	if err != nil {
		return nil, failed(a, err)
	}
	rec := pcRecord(res, g.names)
	rec.Set("alpha", eval.Num(g.alpha)).Set("test", eval.Str(g.test)).Set("kernel", g.kernelDesc)
	g.finish(rec)
	if g.know != nil {
		knowledgeFields(a, rec, res.Knowledge, g.names)
	}
	if err := stabilityFields(a, rec, g, pcGraphFunc(g, p), pcNames(g.names)); err != nil {
		return nil, err
	}
	return rec, nil
}
