package loo

import (
	"fmt"
	"strings"

	"github.com/kml-lang/kml/lang/eval"
	rloo "github.com/kml-lang/kml/runtime/loo"
)

// LOOValue is the value loo returns: the estimates with their standard
// errors, the pointwise values and k̂, printed as R's loo prints them.
type LOOValue struct {
	*rloo.LOO
	Model string
	// Reloo, when not nil, is what reloo: true refitted.
	Reloo *Reloo
}

var _ eval.HasAttrs = (*LOOValue)(nil)

func (l *LOOValue) Type() string { return "loo" }

func (l *LOOValue) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "PSIS-LOO of model %s: %d draws × %d observations (r_eff %g, tail %d)\n", l.Model, l.S, l.N, l.Reff, l.Tail)
	fmt.Fprintf(&b, "          %10s %8s\n", "estimate", "se")
	for _, r := range []struct {
		name string
		e    rloo.Estimate
	}{{"elpd_loo", l.Elpd}, {"p_loo", l.P}, {"looic", l.IC}} {
		fmt.Fprintf(&b, "%-9s %10.1f %8.1f\n", r.name, r.e.Value, r.e.SE)
	}
	if l.Bad == 0 {
		fmt.Fprintf(&b, "Pareto k̂: all %d ≤ %.2f (good)", l.N, l.KThreshold)
	} else {
		fmt.Fprintf(&b, "Pareto k̂: %d of %d > %.2f (unreliable): points %s", l.Bad, l.N, l.KThreshold, badPoints(l.K, l.KThreshold))
	}
	if r := l.Reloo; r != nil {
		if len(r.Points) == 0 {
			fmt.Fprintf(&b, "\nreloo: no point to refit")
		} else {
			fmt.Fprintf(&b, "\nreloo: %d point(s) refitted exactly without them (k̂ set to 0; %d chains × %d draws): points %s", len(r.Points), r.Settings.Chains, r.Settings.Draws, oneBased(r.Points))
		}
	}
	return b.String()
}

// badPoints lists the points (1-based) whose k̂ is above t, the first ten.
func badPoints(k []float64, t float64) string {
	var out []string
	for i, x := range k {
		if x > t {
			if len(out) == 10 {
				out = append(out, "...")
				break
			}
			out = append(out, fmt.Sprint(i+1))
		}
	}
	return strings.Join(out, ", ")
}

var looAttrs = []string{"elpd_loo", "se_elpd_loo", "p_loo", "se_p_loo", "looic", "se_looic",
	"elpd_loo_i", "p_loo_i", "looic_i", "pareto_k", "k_threshold", "bad_k", "draws", "observations", "r_eff", "tail"}

// relooAttrs are the attributes of a loo with reloo: true.
var relooAttrs = []string{"refitted", "refit_k", "refit_seeds", "seed"}

func (l *LOOValue) AttrNames() []string {
	if l.Reloo == nil {
		return looAttrs
	}
	return append(append([]string(nil), looAttrs...), relooAttrs...)
}

// oneBased lists 0-based indices as 1-based numbers, the first ten.
func oneBased(idx []int) string {
	var out []string
	for j, i := range idx {
		if j == 10 {
			out = append(out, "...")
			break
		}
		out = append(out, fmt.Sprint(i+1))
	}
	return strings.Join(out, ", ")
}

func (l *LOOValue) Attr(name string) (eval.Value, bool) {
	switch name {
	case "elpd_loo":
		return eval.Num(l.Elpd.Value), true
	case "se_elpd_loo":
		return eval.Num(l.Elpd.SE), true
	case "p_loo":
		return eval.Num(l.P.Value), true
	case "se_p_loo":
		return eval.Num(l.P.SE), true
	case "looic":
		return eval.Num(l.IC.Value), true
	case "se_looic":
		return eval.Num(l.IC.SE), true
	case "elpd_loo_i":
		return vec(l.ElpdI), true
	case "p_loo_i":
		return vec(l.PI), true
	case "looic_i":
		return vec(l.ICI), true
	case "pareto_k":
		return vec(l.K), true
	case "k_threshold":
		return eval.Num(l.KThreshold), true
	case "bad_k":
		return eval.Num(l.Bad), true
	case "draws":
		return eval.Num(l.S), true
	case "observations":
		return eval.Num(l.N), true
	case "r_eff":
		return eval.Num(l.Reff), true
	case "tail":
		return eval.Num(l.Tail), true
	}
	if r := l.Reloo; r != nil {
		switch name {
		case "refitted":
			x := make([]float64, len(r.Points))
			for j, i := range r.Points {
				x[j] = float64(i + 1)
			}
			return &eval.Vec{Data: x}, true
		case "refit_k":
			return vec(r.K), true
		case "refit_seeds":
			return vec(r.Seeds), true
		case "seed":
			return eval.Num(r.Seed), true
		}
	}
	return nil, false
}

func vec(x []float64) eval.Value { return &eval.Vec{Data: append([]float64(nil), x...)} }

// WAICValue is the value waic returns.
type WAICValue struct {
	*rloo.WAIC
	Model string
}

var _ eval.HasAttrs = (*WAICValue)(nil)

func (w *WAICValue) Type() string { return "waic" }

func (w *WAICValue) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "WAIC of model %s: %d draws × %d observations\n", w.Model, w.S, w.N)
	fmt.Fprintf(&b, "          %10s %8s\n", "estimate", "se")
	for _, r := range []struct {
		name string
		e    rloo.Estimate
	}{{"elpd_waic", w.Elpd}, {"p_waic", w.P}, {"waic", w.IC}} {
		fmt.Fprintf(&b, "%-9s %10.1f %8.1f\n", r.name, r.e.Value, r.e.SE)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

var waicAttrs = []string{"elpd_waic", "se_elpd_waic", "p_waic", "se_p_waic", "waic", "se_waic",
	"elpd_waic_i", "p_waic_i", "waic_i", "draws", "observations"}

func (w *WAICValue) AttrNames() []string { return waicAttrs }

func (w *WAICValue) Attr(name string) (eval.Value, bool) {
	switch name {
	case "elpd_waic":
		return eval.Num(w.Elpd.Value), true
	case "se_elpd_waic":
		return eval.Num(w.Elpd.SE), true
	case "p_waic":
		return eval.Num(w.P.Value), true
	case "se_p_waic":
		return eval.Num(w.P.SE), true
	case "waic":
		return eval.Num(w.IC.Value), true
	case "se_waic":
		return eval.Num(w.IC.SE), true
	case "elpd_waic_i":
		return vec(w.ElpdI), true
	case "p_waic_i":
		return vec(w.PI), true
	case "waic_i":
		return vec(w.ICI), true
	case "draws":
		return eval.Num(w.S), true
	case "observations":
		return eval.Num(w.N), true
	}
	return nil, false
}

// CompareValue is the value loo_compare returns: the models best first.
type CompareValue struct{ Rows []rloo.Comparison }

var _ eval.HasAttrs = (*CompareValue)(nil)

func (c *CompareValue) Type() string { return "loo comparison" }

func (c *CompareValue) String() string {
	w := len("model")
	for _, r := range c.Rows {
		w = max(w, len(r.Name))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-*s %10s %8s %10s %8s", w, "model", "elpd_diff", "se_diff", "elpd_loo", "se")
	for _, r := range c.Rows {
		fmt.Fprintf(&b, "\n%-*s %10.1f %8.1f %10.1f %8.1f", w, r.Name, r.ElpdDiff, r.SEDiff, r.Elpd.Value, r.Elpd.SE)
	}
	return b.String()
}

func (c *CompareValue) AttrNames() []string {
	return []string{"models", "elpd_diff", "se_diff", "elpd_loo", "se_elpd_loo"}
}

func (c *CompareValue) Attr(name string) (eval.Value, bool) {
	col := func(f func(rloo.Comparison) float64) eval.Value {
		x := make([]float64, len(c.Rows))
		for i, r := range c.Rows {
			x[i] = f(r)
		}
		return &eval.Vec{Data: x}
	}
	switch name {
	case "models":
		l := &eval.List{}
		for _, r := range c.Rows {
			l.Elems = append(l.Elems, eval.Str(r.Name))
		}
		return l, true
	case "elpd_diff":
		return col(func(r rloo.Comparison) float64 { return r.ElpdDiff }), true
	case "se_diff":
		return col(func(r rloo.Comparison) float64 { return r.SEDiff }), true
	case "elpd_loo":
		return col(func(r rloo.Comparison) float64 { return r.Elpd.Value }), true
	case "se_elpd_loo":
		return col(func(r rloo.Comparison) float64 { return r.Elpd.SE }), true
	}
	return nil, false
}
