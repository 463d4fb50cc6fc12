package causal

import (
	"fmt"

	"github.com/kml-lang/kml/lang/eval"
	rcausal "github.com/kml-lang/kml/runtime/causal"
)

// readKnowledge reads pc's and fci's knowledge argument, a record
// {tiers: [[names], ...], required: [[from, to], ...], forbidden: [...]}
// with any of its fields, into runtime/causal's Knowledge; nil when absent.
func readKnowledge(a *eval.Args, names []string) (*rcausal.Knowledge, error) {
	v := a.Value("knowledge")
	if v == nil {
		return nil, nil
	}
	r, ok := v.(*eval.Record)
	if !ok {
		return nil, a.Errorf("knowledge", "knowledge must be a record {tiers:, required:, forbidden:}, got %s", eval.Describe(v))
	}
	index := map[string]int{}
	for i, n := range names {
		index[n] = i
	}
	fail := func(format string, args ...any) error {
		return a.Errorf("knowledge", "knowledge: "+format, args...)
	}
	name := func(v eval.Value, field string) (int, error) {
		s, ok := v.(eval.Str)
		if !ok {
			return 0, fail("%s must hold variable names, got %s", field, eval.Describe(v))
		}
		i, ok := index[string(s)]
		if !ok {
			return 0, fail("%s names %q, which is not a variable (names: %v)", field, string(s), names)
		}
		return i, nil
	}
	list := func(v eval.Value, field string) ([]eval.Value, error) {
		l, ok := v.(*eval.List)
		if !ok {
			return nil, fail("%s must be a list, got %s", field, eval.Describe(v))
		}
		return l.Elems, nil
	}
	k := &rcausal.Knowledge{}
	for _, field := range r.AttrNames() {
		fv, _ := r.Attr(field)
		switch field {
		case "tiers":
			tiers, err := list(fv, "tiers")
			if err != nil {
				return nil, err
			}
			k.Tier = make([]int, len(names))
			for i := range k.Tier {
				k.Tier[i] = -1
			}
			for t, tv := range tiers {
				members, err := list(tv, "each tier")
				if err != nil {
					return nil, err
				}
				for _, m := range members {
					i, err := name(m, "tiers")
					if err != nil {
						return nil, err
					}
					if k.Tier[i] >= 0 {
						return nil, fail("%q is in tiers %d and %d", names[i], k.Tier[i]+1, t+1)
					}
					k.Tier[i] = t
				}
			}
		case "required", "forbidden":
			pairs, err := list(fv, field)
			if err != nil {
				return nil, err
			}
			for _, pv := range pairs {
				p, err := list(pv, field+"'s edges")
				if err != nil || len(p) != 2 {
					return nil, fail("each %s edge must be a pair [from, to], got %s", field, eval.Describe(pv))
				}
				i, err := name(p[0], field)
				if err != nil {
					return nil, err
				}
				j, err := name(p[1], field)
				if err != nil {
					return nil, err
				}
				if i == j {
					return nil, fail("%s edge from %q to itself", field, names[i])
				}
				if field == "required" {
					k.Required = append(k.Required, [2]int{i, j})
				} else {
					k.Forbidden = append(k.Forbidden, [2]int{i, j})
				}
			}
		default:
			return nil, fail("unknown field %q (tiers, required, forbidden)", field)
		}
	}
	return k, nil
}

// knowledgeError names the variables of a runtime/causal error about the
// knowledge.
func knowledgeError(a *eval.Args, err error, names []string) error {
	if ke, ok := err.(*rcausal.KnowledgeError); ok {
		return a.Errorf("knowledge", "knowledge: the edge %s → %s %s", names[ke.I], names[ke.J], ke.Msg)
	}
	return a.Errorf("knowledge", "%v", err)
}

// knowledgeFields records the conflicts between knowledge and data,
// {kind, x, y, sepset, pvalue} each, and warns once if there are any.
func knowledgeFields(a *eval.Args, rec *eval.Record, cs []rcausal.KnowledgeConflict, names []string) {
	l := &eval.List{}
	for _, c := range cs {
		p := eval.Value(eval.NoneValue)
		if c.PValue >= 0 {
			p = eval.Num(c.PValue)
		}
		sep := &eval.List{}
		for _, s := range c.Sep {
			sep.Elems = append(sep.Elems, eval.Str(names[s]))
		}
		l.Elems = append(l.Elems, eval.NewRecord().Set("kind", eval.Str(c.Kind)).Set("x", eval.Str(names[c.I])).
			Set("y", eval.Str(names[c.J])).Set("sepset", sep).Set("pvalue", p))
	}
	rec.Set("knowledge_conflicts", l)
	if len(cs) > 0 {
		c := cs[0]
		a.Th.Interp().Warn(a.Pos, fmt.Sprintf("knowledge and data disagree in %d places, e.g. %s, %s: %s; the list is in the result's knowledge_conflicts field",
			len(cs), names[c.I], names[c.J], c.Kind))
	}
}
