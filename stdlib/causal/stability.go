package causal

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	rcausal "github.com/kml-lang/kml/runtime/causal"
)

// stabilityFields runs graph on subsamples when resamples > 0 and adds the
// frequencies to rec: a stability record, and frequency and adjacent on
// each of rec's edges (whose types name is the full-data graph's).
func stabilityFields(a *eval.Args, rec *eval.Record, g *graphInputs, graph rcausal.Graph, names func(typ string, i, j int) (string, string, string)) error {
	resamples, err := a.IntIn("resamples", 0, 100000)
	if err != nil || resamples == 0 {
		return err
	}
	fraction, err := a.Num("fraction")
	if err != nil {
		return err
	}
	n, _ := g.data.Dims()
	if !(fraction > 0 && fraction <= 1) {
		return a.Errorf("fraction", "fraction must be in (0, 1], got %g", fraction)
	}
	if m := int(fraction*float64(n) + 0.5); m < 10 {
		return a.Errorf("fraction", "a subsample of %g of %d rows has %d rows; at least 10 are needed", fraction, n, m)
	}
	rs := rcausal.Resampling{Resamples: resamples, Fraction: fraction, Seed: g.seed}
	freq, err := rs.Run(a.Context(), g.data, graph)
	if err != nil {
		return failed(a, err)
	}
	edges := &eval.List{}
	lookup := map[string]float64{} // "from type to" → frequency
	adjacent := map[[2]string]float64{}
	for _, e := range freq {
		types := &eval.List{}
		for _, tf := range e.Types {
			from, typ, to := names(tf.Type, e.I, e.J)
			label := from + " " + typ + " " + to
			lookup[label] = tf.Frequency
			types.Elems = append(types.Elems, eval.NewRecord().Set("type", eval.Str(label)).Set("frequency", eval.Num(tf.Frequency)))
		}
		x, y := g.names[e.I], g.names[e.J]
		adjacent[[2]string{x, y}], adjacent[[2]string{y, x}] = e.Adjacent, e.Adjacent
		edges.Elems = append(edges.Elems, eval.NewRecord().Set("x", eval.Str(x)).Set("y", eval.Str(y)).
			Set("adjacent", eval.Num(e.Adjacent)).Set("types", types))
	}
	rec.Set("stability", eval.NewRecord().Set("resamples", eval.Num(resamples)).Set("fraction", eval.Num(fraction)).
		Set("seed", eval.Num(float64(g.seed))).Set("edges", edges))
	ev, _ := rec.Attr("edges")
	for _, v := range ev.(*eval.List).Elems {
		e := v.(*eval.Record)
		from, _ := e.Attr("from")
		to, _ := e.Attr("to")
		typ, _ := e.Attr("type")
		f := lookup[fmt.Sprintf("%s %s %s", from.(eval.Str), edgeSymbol(string(typ.(eval.Str))), to.(eval.Str))]
		e.Set("frequency", eval.Num(f)).Set("adjacent", eval.Num(adjacent[[2]string{string(from.(eval.Str)), string(to.(eval.Str))}]))
		e.Set("label", eval.Str(fmt.Sprintf("%.2f", f)))
	}
	return nil
}

// edgeSymbol is the symbol of a record's edge type: pc's "directed" and
// "undirected" as → and —, fci's marks as they are.
func edgeSymbol(typ string) string {
	switch typ {
	case "directed":
		return "→"
	case "undirected":
		return "—"
	}
	return typ
}

// pcNames names a PC edge type of the pair i < j as pcRecord does.
func pcNames(names []string) func(typ string, i, j int) (string, string, string) {
	return func(typ string, i, j int) (string, string, string) {
		switch typ {
		case "-->":
			return names[i], "→", names[j]
		case "<--":
			return names[j], "→", names[i]
		}
		return names[i], "—", names[j]
	}
}

// pagNames names a PAG edge type of the pair i < j as pagRecord does: the
// stronger mark at the second end.
func pagNames(names []string) func(typ string, i, j int) (string, string, string) {
	rank := map[byte]int{'-': 0, 'o': 1, '<': 2, '>': 2}
	flip := map[byte]byte{'<': '>', '>': '<', 'o': 'o', '-': '-'}
	return func(typ string, i, j int) (string, string, string) {
		if rank[typ[0]] > rank[typ[2]] {
			return names[j], string([]byte{flip[typ[2]], '-', flip[typ[0]]}), names[i]
		}
		return names[i], typ, names[j]
	}
}

// pcGraphFunc and fciGraphFunc run the algorithm on a subsample.
func pcGraphFunc(g *graphInputs, p int) rcausal.Graph {
	return func(ctx context.Context, sub *mat.Dense, seed uint64) (map[[2]int]string, error) {
		ci, err := g.newTest(sub, seed)
		if err != nil {
			return nil, err
		}
		res, err := rcausal.PC(ctx, p, ci, rcausal.Settings{Alpha: g.alpha, MaxCond: g.maxCond, Knowledge: g.know, Workers: 1})
		if err != nil {
			return nil, err
		}
		return rcausal.PCTypes(res), nil
	}
}

func fciGraphFunc(g *graphInputs, p int) rcausal.Graph {
	return func(ctx context.Context, sub *mat.Dense, seed uint64) (map[[2]int]string, error) {
		ci, err := g.newTest(sub, seed)
		if err != nil {
			return nil, err
		}
		res, err := rcausal.FCI(ctx, p, ci, rcausal.Settings{Alpha: g.alpha, MaxCond: g.maxCond, Knowledge: g.know, Workers: 1})
		if err != nil {
			return nil, err
		}
		return rcausal.PAGTypes(&res.PAG), nil
	}
}
