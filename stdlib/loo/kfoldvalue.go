package loo

import (
	"fmt"
	"math"
	"strings"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/hmc"
	rloo "github.com/kml-lang/kml/runtime/loo"
)

// KFoldValue is the value kfold returns: elpd_kfold, p_kfold and kfoldic
// with their standard errors and pointwise values, the folds, the seeds
// and the settings, printed as R's loo prints a kfold result. loo_compare
// takes it beside loo results through its LOO view.
type KFoldValue struct {
	Model       string
	Elpd, P, IC rloo.Estimate
	ElpdI, PI   []float64
	ICI, LPD    []float64
	Folds       []int // 0-based fold of each point
	K           int
	Seed        uint64
	Seeds       []float64
	Split       []string
	Settings    hmc.Settings
	Metric      string
	// Approx is the approximation a latent GP's fits sample under (and
	// its held-out predictive uses), the approx argument.
	Approx string
}

var _ eval.HasAttrs = (*KFoldValue)(nil)

func newKFold(name string, elpd, lpd []float64, folds []int, K int, seed uint64, seeds []float64, split []string, s hmc.Settings, metric string) *KFoldValue {
	n := len(elpd)
	p, ic := make([]float64, n), make([]float64, n)
	for i := range elpd {
		p[i], ic[i] = lpd[i]-elpd[i], -2*elpd[i]
	}
	return &KFoldValue{Model: name, Elpd: estimate(elpd), P: estimate(p), IC: estimate(ic),
		ElpdI: elpd, PI: p, ICI: ic, LPD: lpd, Folds: folds, K: K, Seed: seed, Seeds: seeds,
		Split: split, Settings: s, Metric: metric}
}

// estimate is the sum of x with its standard error √N·sd(x), as R's loo.
func estimate(x []float64) rloo.Estimate {
	n := float64(len(x))
	sum := 0.0
	for _, v := range x {
		sum += v
	}
	ss := 0.0
	for _, v := range x {
		ss += (v - sum/n) * (v - sum/n)
	}
	return rloo.Estimate{Value: sum, SE: math.Sqrt(n * ss / (n - 1))}
}

// LOO is the view loo_compare takes: elpd_kfold in place of elpd_loo.
func (k *KFoldValue) LOO() *rloo.LOO {
	return &rloo.LOO{Elpd: k.Elpd, P: k.P, IC: k.IC, ElpdI: k.ElpdI, PI: k.PI, ICI: k.ICI,
		S: k.Settings.Chains * k.Settings.Draws, N: len(k.ElpdI)}
}

func (k *KFoldValue) Type() string { return "kfold" }

func (k *KFoldValue) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d-fold cross-validation of model %s: %d observations, split %s (seed %d)\n", k.K, k.Model, len(k.ElpdI), strings.Join(k.Split, ", "), k.Seed)
	fmt.Fprintf(&b, "          %10s %8s\n", "estimate", "se")
	for _, r := range []struct {
		name string
		e    rloo.Estimate
	}{{"elpd_kfold", k.Elpd}, {"p_kfold", k.P}, {"kfoldic", k.IC}} {
		fmt.Fprintf(&b, "%-10s %9.1f %8.1f\n", r.name, r.e.Value, r.e.SE)
	}
	s := k.Settings
	fmt.Fprintf(&b, "each fit: NUTS, %d chains × %d draws after %d warm-up", s.Chains, s.Draws, s.Warmup)
	return b.String()
}

var kfoldAttrs = []string{"elpd_kfold", "se_elpd_kfold", "p_kfold", "se_p_kfold", "kfoldic", "se_kfoldic",
	"elpd_kfold_i", "p_kfold_i", "kfoldic_i", "elpd_full", "K", "folds", "seed", "seeds", "split",
	"observations", "chains", "warmup", "draws", "adapt_delta", "max_depth", "metric", "approx"}

func (k *KFoldValue) AttrNames() []string { return kfoldAttrs }

func (k *KFoldValue) Attr(name string) (eval.Value, bool) {
	switch name {
	case "elpd_kfold":
		return eval.Num(k.Elpd.Value), true
	case "se_elpd_kfold":
		return eval.Num(k.Elpd.SE), true
	case "p_kfold":
		return eval.Num(k.P.Value), true
	case "se_p_kfold":
		return eval.Num(k.P.SE), true
	case "kfoldic":
		return eval.Num(k.IC.Value), true
	case "se_kfoldic":
		return eval.Num(k.IC.SE), true
	case "elpd_kfold_i":
		return vec(k.ElpdI), true
	case "p_kfold_i":
		return vec(k.PI), true
	case "kfoldic_i":
		return vec(k.ICI), true
	case "elpd_full":
		return eval.Num(estimate(k.LPD).Value), true
	case "K":
		return eval.Num(k.K), true
	case "folds":
		f := make([]float64, len(k.Folds))
		for i, v := range k.Folds {
			f[i] = float64(v + 1)
		}
		return &eval.Vec{Data: f}, true
	case "seed":
		return eval.Num(float64(k.Seed)), true
	case "seeds":
		return vec(k.Seeds), true
	case "split":
		l := &eval.List{}
		for _, s := range k.Split {
			l.Elems = append(l.Elems, eval.Str(s))
		}
		return l, true
	case "observations":
		return eval.Num(len(k.ElpdI)), true
	case "chains":
		return eval.Num(k.Settings.Chains), true
	case "warmup":
		return eval.Num(k.Settings.Warmup), true
	case "draws":
		return eval.Num(k.Settings.Draws), true
	case "adapt_delta":
		return eval.Num(k.Settings.AdaptDelta), true
	case "max_depth":
		return eval.Num(k.Settings.MaxDepth), true
	case "approx":
		return eval.Str(k.Approx), true
	case "metric":
		return eval.Str(k.Metric), true
	}
	return nil, false
}
