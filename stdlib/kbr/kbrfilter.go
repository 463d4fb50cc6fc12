package kbr

import (
	"fmt"
	"math"

	"github.com/kml-lang/kml/stdlib/kernel"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	rkbr "github.com/kml-lang/kml/runtime/kbr"
)

// FilterVal is a trained KBR filter (runtime/kbr.Filter).
type FilterVal struct {
	F      *rkbr.Filter
	Eps    float64
	Delta  float64
	Rank   int
	States int
	// Smooth makes run return the smoothed estimates (Filter.Smooth).
	Smooth bool
	// SmoothDelta is the backward pass's δ.
	SmoothDelta float64
}

var _ eval.HasAttrs = (*FilterVal)(nil)

func (f *FilterVal) Type() string { return "kbr filter" }
func (f *FilterVal) String() string {
	s := fmt.Sprintf("kbr filter trained on %d steps, kx = %s, ky = %s, eps = %.4g, delta = %.4g", f.States, f.F.KX, f.F.KY, f.Eps, f.Delta)
	if f.Rank > 0 {
		s += fmt.Sprintf(", rank %d", f.Rank)
	}
	if f.Smooth {
		s += fmt.Sprintf(", smoothing with delta %.4g", f.SmoothDelta)
	}
	return s
}

func (f *FilterVal) Attr(name string) (eval.Value, bool) {
	switch name {
	case "kx":
		return kernel.Fixed(f.F.KX), true
	case "ky":
		return kernel.Fixed(f.F.KY), true
	case "eps":
		return eval.Num(f.Eps), true
	case "delta":
		return eval.Num(f.Delta), true
	case "rank":
		return eval.Num(f.Rank), true
	case "smooth":
		return eval.Bool(f.Smooth), true
	case "smooth_delta":
		return eval.Num(f.SmoothDelta), true
	}
	return nil, false
}

func (f *FilterVal) AttrNames() []string {
	return []string{"kx", "ky", "eps", "delta", "rank", "smooth", "smooth_delta"}
}

func registerKbrfilter(reg *eval.Registry) {
	reg.Register(`kbr_filter(states, observations, kx?, ky?, eps?, delta?, rank = 0, transition = "sample", smooth = false, smooth_delta = 0.01)`,
		`The KBR filter (KBR paper sec. 4.3) trained on a sequence of hidden states and their observations (a row per time step); run(f, new_observations) estimates the state at every step (the weighted mean of the training states; after each step the weights are divided by their signed sum, negative weights keeping their sign). Defaults as kbr: Gaussian kernels at the median heuristic, eps = 0.1/sqrt(n), delta = eps²; rank > 0 makes each step O(n rank²). transition "sample" moves each weight from a training state to its successor (MATH.md); "operator" first smooths the weights by (G_X + n eps I)⁻¹G_X, the empirical transition operator. smooth: true makes run return the smoothed estimates E[x_t | all observations], one per step, by the kernel backward pass (the KBR counterpart of the Rauch-Tung-Striebel smoother, with the filter's eps and its own regulariser smooth_delta: the filter's delta, 1e-6 to 1e-3, made the smoother worse than the filter on the rotation models of sec. 5.3, and 0.01 beat the filter in all 20 settings tried there).`,
		func(a *eval.Args) (eval.Value, error) {
			var x, y *mat.Dense
			if err := a.Unpack("states", &x, "observations", &y); err != nil {
				return nil, err
			}
			j, err := kernelSettings(a, x, y, "states")
			if err != nil {
				return nil, err
			}
			if err := unpackDelta(a, &j.settings); err != nil {
				return nil, err
			}
			var tr string
			if err := a.Unpack("transition", &tr); err != nil {
				return nil, err
			}
			if tr != string(rkbr.TransitionSample) && tr != string(rkbr.TransitionOperator) {
				return nil, a.Errorf("transition", `transition must be "sample" or "operator", got %q`, tr)
			}
			var smooth bool
			var sdelta float64
			if err := a.Unpack("smooth", &smooth, "smooth_delta", &sdelta); err != nil {
				return nil, err
			}
			if !(sdelta > 0) || math.IsInf(sdelta, 0) {
				return nil, a.Errorf("smooth_delta", "smooth_delta must be a positive number, got %v", sdelta)
			}
			f, err := rkbr.NewFilterContext(a.Context(), x, y, j.kx, j.ky, j.settings, rkbr.Transition(tr))
			if err != nil {
				return nil, a.Fail("%v", err)
			}
			n, _ := x.Dims()
			return &FilterVal{F: f, Eps: j.settings.Eps, Delta: j.settings.Delta, Rank: j.settings.Rank, States: n, Smooth: smooth, SmoothDelta: sdelta}, nil
		})
	reg.Register(`run(f, observations, estimate = "mean", predict = false)`,
		`Runs a kbr_filter on new observations (a row per time step; for one-dimensional observations a vector) and returns the state estimate at each step, a row per step (a vector for one-dimensional states): estimate "mean" is the weighted mean of the training states, "preimage" the fixed-point pre-image for the Gaussian kx (the weighted mean where it does not converge, with a warning). A filter made with smooth: true gives the smoothed estimates instead (row t from all the observations). predict: true gives the one-step predictions instead: row t estimates the state at step t+1 from the observations up to t (the filter's weights moved to the training states' successors).`,
		func(a *eval.Args) (eval.Value, error) {
			f, ok := a.Value("f").(*FilterVal)
			if !ok {
				return nil, a.Errorf("f", "f must be a filter from kbr_filter, got %s", eval.Describe(a.Value("f")))
			}
			_, dy := f.F.Y.Dims()
			obs, several, err := observations(a, "observations", dy)
			if err != nil {
				return nil, err
			}
			var how string
			if err := a.Unpack("estimate", &how); err != nil {
				return nil, err
			}
			if how != "mean" && how != "preimage" {
				return nil, a.Errorf("estimate", `estimate must be "mean" or "preimage", got %q`, how)
			}
			var pred bool
			if err := a.Unpack("predict", &pred); err != nil {
				return nil, err
			}
			if pred && f.Smooth {
				return nil, a.Errorf("predict", "predict: true asks for one-step predictions, but this filter smooths (smooth: true); train one without smooth for predictions")
			}
			w, est, err := f.F.Run(a.Context(), obs)
			if err != nil {
				return nil, a.Errorf("observations", "%v", err)
			}
			// The pre-images are over the states the weights are over.
			support := f.F.X
			switch {
			case f.Smooth:
				if w, est, err = f.F.Smooth(a.Context(), w, f.SmoothDelta); err != nil {
					return nil, a.Errorf("observations", "%v", err)
				}
			case pred:
				if w, est, err = f.F.Predict(w); err != nil {
					return nil, a.Errorf("observations", "%v", err)
				}
				support = f.F.XPlus
			}
			if how == "preimage" {
				failed := 0
				task := a.Progress("pre-images", est.RawMatrix().Rows)
				defer task.Done()
				for t := 0; t < est.RawMatrix().Rows; t++ {
					if err := a.Step(task); err != nil {
						return nil, err
					}
					pt, ok, err := rkbr.Preimage(f.F.KX, support, mat.Col(nil, t, w), rkbr.PreimageSettings{})
					if err != nil {
						return nil, a.Errorf("estimate", "%v", err)
					}
					if !ok {
						failed++
					}
					est.SetRow(t, pt)
				}
				if failed > 0 {
					a.Th.Interp().Warn(a.Pos, fmt.Sprintf("run: the pre-image did not converge at %d of %d steps; the weighted mean was used there", failed, est.RawMatrix().Rows))
				}
			}
			return shapeRows(est, several), nil
		})
}
