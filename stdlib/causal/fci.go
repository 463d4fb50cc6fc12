package causal

import (
	"fmt"
	"strings"

	"github.com/kml-lang/kml/lang/eval"
	rcausal "github.com/kml-lang/kml/runtime/causal"
)

func fciBuiltin(a *eval.Args) (eval.Value, error) {
	g, err := readGraphInputs(a, "fci")
	if err != nil {
		return nil, err
	}
	ci, err := g.newTest(g.data, g.seed)
	if err != nil {
		return nil, a.Errorf("data", "%v", err)
	}
	_, p := g.data.Dims()
	res, err := rcausal.FCI(a.Context(), p, ci, rcausal.Settings{Alpha: g.alpha, MaxCond: g.maxCond, Knowledge: g.know})
	if err != nil {
		return nil, failed(a, err)
	}
	rec := pagRecord(res, g.names)
	rec.Set("alpha", eval.Num(g.alpha)).Set("test", eval.Str(g.test)).Set("kernel", g.kernelDesc)
	g.finish(rec)
	if g.know != nil {
		knowledgeFields(a, rec, res.Knowledge, g.names)
	}
	if err := stabilityFields(a, rec, g, fciGraphFunc(g, p), pagNames(g.names)); err != nil {
		return nil, err
	}
	return rec, nil
}

// dotMark is Graphviz's arrow shape for a PAG mark.
var dotMark = map[rcausal.Mark]string{rcausal.Circle: "odot", rcausal.Arrow: "normal", rcausal.Tail: "none"}

// pagRecord turns FCI's result into a record with names: edges {from,
// to, type} with type the marks ("o->", "<->", "o-o", "-->", ...).
func pagRecord(res *rcausal.FCIResult, names []string) *eval.Record {
	edges := &eval.List{}
	var text, dot strings.Builder
	dot.WriteString("digraph fci {\n")
	for _, name := range names {
		fmt.Fprintf(&dot, "  %q;\n", name)
	}
	es := res.Edges()
	for _, e := range es {
		typ := e.String()
		edges.Elems = append(edges.Elems, eval.NewRecord().Set("from", eval.Str(names[e.From])).
			Set("to", eval.Str(names[e.To])).Set("type", eval.Str(typ)))
		fmt.Fprintf(&text, "%s %s %s\n", names[e.From], typ, names[e.To])
		fmt.Fprintf(&dot, "  %q -> %q [dir=both, arrowtail=%s, arrowhead=%s];\n", names[e.From], names[e.To],
			dotMark[e.FromMark], dotMark[e.ToMark])
	}
	dot.WriteString("}\n")
	if len(es) == 0 {
		text.WriteString("(no edges)\n")
	}
	removed := &eval.List{}
	for _, m := range res.Removed {
		sep := &eval.List{}
		for _, s := range m.Sep {
			sep.Elems = append(sep.Elems, eval.Str(names[s]))
		}
		removed.Elems = append(removed.Elems, eval.NewRecord().Set("x", eval.Str(names[m.I])).
			Set("y", eval.Str(names[m.J])).Set("sepset", sep).Set("pvalue", eval.Num(m.PValue)))
	}
	nameList := &eval.List{}
	for _, n := range names {
		nameList.Elems = append(nameList.Elems, eval.Str(n))
	}
	return eval.NewRecord().Set("edges", edges).Set("removed", removed).Set("names", nameList).
		Set("tests", eval.Num(res.Tests)).Set("possible_dsep", eval.Num(res.PossibleDSep)).
		Set("text", eval.Str(strings.TrimSuffix(text.String(), "\n"))).Set("dot", eval.Str(dot.String()))
}
