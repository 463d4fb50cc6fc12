package kbr

import (
	"fmt"

	"github.com/kml-lang/kml/stdlib/kernel"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	rkbr "github.com/kml-lang/kml/runtime/kbr"
	"github.com/kml-lang/kml/runtime/kernels"
)

// WeightedVal is a weighted sample: the rows of X with a column of weights
// per observation conditioned on (`condition` on several observations
// gives several columns; `weighted`, `abc` and `condition` on one give
// one). K is the kernel on X, which `preimage` needs; nil when unknown.
// Info holds extra fields (abc's simulation counts).
type WeightedVal struct {
	X     *mat.Dense
	W     *mat.Dense
	Batch bool
	K     kernels.Kernel
	Info  *eval.Record
}

var (
	_ eval.HasAttrs = (*WeightedVal)(nil)
	_ eval.JSONer   = (*WeightedVal)(nil)
)

// JSON writes the fields, as a record of them would be written.
func (w *WeightedVal) JSON() any {
	r := eval.NewRecord()
	for _, name := range w.AttrNames() {
		v, _ := w.Attr(name)
		r.Set(name, v)
	}
	return eval.ToJSON(r)
}

func (w *WeightedVal) Type() string { return "weighted sample" }
func (w *WeightedVal) String() string {
	n, m := w.W.Dims()
	if w.Batch {
		return fmt.Sprintf("weighted sample of %d points, for %d observations", n, m)
	}
	return fmt.Sprintf("weighted sample of %d points", n)
}

// Attr gives x (the points), w (the weights: a vector, or an n×m matrix
// for several observations) and the Info fields.
func (w *WeightedVal) Attr(name string) (eval.Value, bool) {
	switch name {
	case "x":
		return dataValue(w.X), true
	case "w":
		if w.Batch {
			return eval.NewMat(w.W), true
		}
		return &eval.Vec{Data: mat.Col(nil, 0, w.W)}, true
	}
	if w.Info != nil {
		return w.Info.Attr(name)
	}
	return nil, false
}

func (w *WeightedVal) AttrNames() []string {
	names := []string{"x", "w"}
	if w.Info != nil {
		names = append(names, w.Info.AttrNames()...)
	}
	return names
}

// column returns the weights for observation j.
func (w *WeightedVal) column(j int) []float64 { return mat.Col(nil, j, w.W) }

// Mean is the normalised weighted mean Σ_i w_i X_i / Σ_i w_i (rkbr.Mean:
// negative weights keep their sign), which `mean` returns: a number or a
// vector for one observation, a vector or a matrix (a row per
// observation) for several.
func (w *WeightedVal) Mean() (eval.Value, error) {
	_, m := w.W.Dims()
	_, d := w.X.Dims()
	out := mat.NewDense(m, d, nil)
	for j := 0; j < m; j++ {
		row, err := rkbr.Mean(w.X, w.column(j), true)
		if err != nil {
			if w.Batch {
				return nil, fmt.Errorf("observation %d: %w", j+1, err)
			}
			return nil, err
		}
		out.SetRow(j, row)
	}
	return w.shape(out), nil
}

func (w *WeightedVal) shape(out *mat.Dense) eval.Value { return shapeRows(out, w.Batch) }

// shapeRows turns an m×d result (a row per observation) into the value the
// user expects: for one observation a number (d = 1) or a vector; for
// several a vector (d = 1) or the matrix.
func shapeRows(out *mat.Dense, several bool) eval.Value {
	_, d := out.Dims()
	if !several {
		if d == 1 {
			return eval.Num(out.At(0, 0))
		}
		return &eval.Vec{Data: mat.Row(nil, 0, out)}
	}
	if d == 1 {
		return &eval.Vec{Data: mat.Col(nil, 0, out)}
	}
	return eval.NewMat(out)
}

// dataValue shows an n×1 matrix as a vector, as the language treats them
// alike and vectors print more simply.
func dataValue(x *mat.Dense) eval.Value {
	if _, c := x.Dims(); c == 1 {
		return &eval.Vec{Data: mat.Col(nil, 0, x)}
	}
	return eval.NewMat(x)
}

// conditioner is what kbr and cme build: observations to weights over X.
type conditioner interface {
	Condition(ys *mat.Dense) (*mat.Dense, error)
}

// KBRVal is a posterior operator from `kbr` or `cme`: `condition` applies
// it to observations.
type KBRVal struct {
	Kind   string // "kbr" or "cme"
	X, Y   *mat.Dense
	KX, KY kernels.Kernel
	Eps    float64
	Delta  float64 // kbr only
	Rank   int
	c      conditioner
}

var _ eval.HasAttrs = (*KBRVal)(nil)

func (k *KBRVal) Type() string { return k.Kind }
func (k *KBRVal) String() string {
	n, _ := k.X.Dims()
	s := fmt.Sprintf("%s on %d pairs, kx = %s, ky = %s, eps = %.4g", k.Kind, n, k.KX, k.KY, k.Eps)
	if k.Kind == "kbr" {
		s += fmt.Sprintf(", delta = %.4g", k.Delta)
	}
	if k.Rank > 0 {
		s += fmt.Sprintf(", rank %d", k.Rank)
	}
	return s
}

// Attr gives the settings: kx, ky, eps, delta, rank, and (for kbr) mu, the
// prior's weights pushed onto the sample.
func (k *KBRVal) Attr(name string) (eval.Value, bool) {
	switch name {
	case "kx":
		return kernel.Fixed(k.KX), true
	case "ky":
		return kernel.Fixed(k.KY), true
	case "eps":
		return eval.Num(k.Eps), true
	case "delta":
		if k.Kind == "kbr" {
			return eval.Num(k.Delta), true
		}
	case "rank":
		return eval.Num(k.Rank), true
	case "mu":
		if p, ok := k.c.(*rkbr.Posterior); ok {
			return &eval.Vec{Data: p.Mu}, true
		}
	}
	return nil, false
}

func (k *KBRVal) AttrNames() []string {
	if k.Kind == "kbr" {
		return []string{"kx", "ky", "eps", "delta", "rank", "mu"}
	}
	return []string{"kx", "ky", "eps", "rank"}
}
