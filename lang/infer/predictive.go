package infer

import (
	"context"
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model"
	"github.com/kml-lang/kml/lang/model/dists"
	"github.com/kml-lang/kml/runtime/progress"
	"github.com/kml-lang/kml/runtime/rng"
)

// Predictive is a predictive check's draws: replicated data from the prior
// predictive (prior_predictive: parameters drawn from their priors) or
// from the posterior predictive (ppc: parameters from posterior draws),
// made by forward sampling the model (model.Forward). Its record is what
// the user reads; the record keeps the Predictive (eval.Record.SetOf) so
// that plot draws it as a check without guessing from field names.
type Predictive struct {
	// Kind is "prior_predictive" or "posterior_predictive".
	Kind  string
	Draws int
	Seed  uint64
	// Params are the parameters' values, one row per draw.
	Params []PredictiveColumn
	// Data are the observation statements' replicates, one row per draw,
	// beside the observed data, flattened row by row.
	Data []PredictiveData
	// Latents are the latent GPs' draws at their inputs, one row per
	// draw, and what each was drawn from ("prior", "exact", or the
	// approximation whose q(f) the posterior draw took).
	Latents []PredictiveColumn
	Method  []string
}

// PredictiveColumn is one parameter's draws: Rows[i] holds draw i's
// values (one for a number).
type PredictiveColumn struct {
	Name   string
	Vector bool
	Rows   [][]float64
}

// PredictiveData is one observation statement's replicates.
type PredictiveData struct {
	Name     string
	Observed []float64
	Rows     [][]float64
}

// PriorPredictive draws n forward runs of model m: each parameter from its
// prior, then the data.
func PriorPredictive(ctx context.Context, th *eval.Thread, m *eval.Model, n int, seed uint64) (*Predictive, error) {
	r := rng.New(seed, rng.Builtin)
	opt := model.ForwardOptions{Latent: rng.New(seed, rng.ForwardLatent)}
	p := &Predictive{Kind: "prior_predictive", Draws: n, Seed: seed}
	task := progress.Start(ctx, "draws", n)
	defer task.Done()
	for range n {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		fd, err := model.ForwardWith(th, m, r, nil, opt)
		if err != nil {
			return nil, err
		}
		if err := p.add(fd); err != nil {
			return nil, err
		}
		task.Add(1)
	}
	return p, nil
}

// PosteriorPredictive draws one replicate of the data for each of n
// posterior draws, evenly spaced over the chains' draws taken one chain
// after another (all of them when n is their number).
func PosteriorPredictive(ctx context.Context, th *eval.Thread, post *Posterior, n int, seed uint64) (*Predictive, error) {
	var rows [][]float64
	for _, ch := range post.Values {
		rows = append(rows, ch...)
	}
	if n > len(rows) {
		return nil, fmt.Errorf("draws = %d is more than the posterior's %d draws", n, len(rows))
	}
	r := rng.New(seed, rng.Builtin)
	opt := model.ForwardOptions{Latent: rng.New(seed, rng.ForwardLatent), Approx: post.Comp.Terms.Latent.Approx}
	p := &Predictive{Kind: "posterior_predictive", Draws: n, Seed: seed}
	cols := post.Comp.Columns()
	task := progress.Start(ctx, "draws", n)
	defer task.Done()
	for i := range n {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		row := rows[i*len(rows)/n]
		fd, err := model.ForwardWith(th, post.Model, r, post.Comp.Record(row[:cols]), opt)
		if err != nil {
			return nil, err
		}
		if err := p.add(fd); err != nil {
			return nil, err
		}
		task.Add(1)
	}
	return p, nil
}

// add appends one forward run's values.
func (p *Predictive) add(fd *model.ForwardDraw) error {
	if p.Params == nil {
		for _, nv := range fd.Params {
			_, vec := nv.Value.(eval.Num)
			p.Params = append(p.Params, PredictiveColumn{Name: nv.Name, Vector: !vec})
		}
		for _, r := range fd.Data {
			obs, ok := flat(r.Observed)
			if !ok {
				return fmt.Errorf("cannot replicate %s: its data are %s, not numbers", r.Name, eval.Describe(r.Observed))
			}
			p.Data = append(p.Data, PredictiveData{Name: r.Name, Observed: obs})
		}
		for _, l := range fd.Latents {
			p.Latents = append(p.Latents, PredictiveColumn{Name: l.Name, Vector: true})
			p.Method = append(p.Method, l.Method)
		}
	}
	for i, nv := range fd.Params {
		p.Params[i].Rows = append(p.Params[i].Rows, paramValues(nv.Value))
	}
	for i, r := range fd.Data {
		xs, _ := flat(r.Value)
		p.Data[i].Rows = append(p.Data[i].Rows, xs)
	}
	if len(fd.Latents) != len(p.Latents) {
		return fmt.Errorf("a forward draw drew %d latent GPs where the first drew %d", len(fd.Latents), len(p.Latents))
	}
	for i, l := range fd.Latents {
		p.Latents[i].Rows = append(p.Latents[i].Rows, l.Value.Data)
	}
	return nil
}

// paramValues are a parameter's values as a posterior's columns hold
// them: a matrix column by column (L.1.1, L.2.1, ...).
func paramValues(v eval.Value) []float64 {
	m, ok := v.(*eval.Mat)
	if !ok {
		return dists.FlatValues(v)
	}
	r, c := m.Dims()
	out := make([]float64, 0, r*c)
	for j := range c {
		out = append(out, mat.Col(nil, j, m.M)...)
	}
	return out
}

// flat is a number's, a vector's or a matrix's values, a matrix row by
// row.
func flat(v eval.Value) ([]float64, bool) {
	switch v := v.(type) {
	case eval.Num:
		return []float64{float64(v)}, true
	case *eval.Vec:
		return v.Data, true
	case *eval.Mat:
		r, c := v.Dims()
		out := make([]float64, 0, r*c)
		for i := range r {
			out = append(out, mat.Row(nil, i, v.M)...)
		}
		return out, true
	}
	return nil, false
}

// Record is the check as the user reads it: kind, draws and seed; params,
// a record of each parameter's draws (a vector, or a draws × K matrix);
// yrep, a record of each observed variable's replicates (a draws × n
// matrix, one draw per row); and y, the observed data. A model with a
// latent GP adds latent, each latent GP's draws at its inputs (a draws × n
// matrix), and latent_method, what each was drawn from. It keeps p for
// plot.
func (p *Predictive) Record() *eval.Record {
	params := eval.NewRecord()
	for _, c := range p.Params {
		params.Set(c.Name, rowsValue(c.Rows, c.Vector))
	}
	yrep, y := eval.NewRecord(), eval.NewRecord()
	for _, d := range p.Data {
		yrep.Set(d.Name, rowsValue(d.Rows, true))
		y.Set(d.Name, &eval.Vec{Data: d.Observed})
	}
	rec := eval.NewRecord().
		Set("kind", eval.Str(p.Kind)).
		Set("draws", eval.Num(p.Draws)).
		Set("seed", eval.Num(p.Seed)).
		Set("params", params).
		Set("yrep", yrep).
		Set("y", y)
	if len(p.Latents) > 0 {
		lat, how := eval.NewRecord(), eval.NewRecord()
		for i, c := range p.Latents {
			lat.Set(c.Name, rowsValue(c.Rows, true))
			how.Set(c.Name, eval.Str(p.Method[i]))
		}
		rec.Set("latent", lat).Set("latent_method", how)
	}
	return rec.SetOf(p)
}

// rowsValue is rows as a draws × k matrix, or a vector of the draws of a
// number.
func rowsValue(rows [][]float64, vector bool) eval.Value {
	if !vector {
		xs := make([]float64, len(rows))
		for i, r := range rows {
			xs[i] = r[0]
		}
		return &eval.Vec{Data: xs}
	}
	if len(rows) == 0 || len(rows[0]) == 0 {
		return eval.NewMat(&mat.Dense{})
	}
	m := mat.NewDense(len(rows), len(rows[0]), nil)
	for i, r := range rows {
		m.SetRow(i, r)
	}
	return eval.NewMat(m)
}
