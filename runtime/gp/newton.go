package gp

import "gonum.org/v1/gonum/mat"

// newtonAscent is the step control shared by the Newton iterations that
// maximise a concave-ish Ψ over the latent function: Laplace's mode
// (LaplaceMode), the multi-class mode (MultiLaplaceMode) and the logistic
// joint MAP (logitMAP). Each computes its Newton direction in its own
// parametrisation and hands step a function that evaluates Ψ a fraction t
// of the way along it.
type newtonAscent struct {
	// cur is Ψ at the current point.
	cur float64
	// stalled counts the accepted steps in a row that left Ψ unchanged.
	stalled int
}

// step tries t = 1, ½, ¼, … (30 lengths) until try(t) ≥ cur, and then
// moves cur there. It returns the last value tried and whether a step was
// accepted; a rejected direction leaves cur as it was.
func (s *newtonAscent) step(try func(t float64) float64) (v float64, ok bool) {
	t := 1.0
	for range 30 {
		if v = try(t); v >= s.cur {
			s.stalled++
			if v > s.cur {
				s.stalled = 0
			}
			s.cur = v
			return v, true
		}
		t /= 2
	}
	return v, false
}

// stuck reports whether the last step was rejected (ok false) or Ψ has not
// risen in three accepted steps: no ascent left at working precision.
func (s *newtonAscent) stuck(ok bool) bool { return !ok || s.stalled >= 3 }

// fillB writes B = I + diag(sw) K diag(sw) (R&W Algorithm 3.1's
// B = I + W^½KW^½, sw = W^½) into b's upper triangle.
func fillB(b, K *mat.SymDense, sw []float64) {
	n := K.SymmetricDim()
	kr, br := K.RawSymmetric(), b.RawSymmetric()
	for i := 0; i < n; i++ {
		ki := kr.Data[i*kr.Stride+i : i*kr.Stride+n]
		bi := br.Data[i*br.Stride+i : i*br.Stride+n]
		swj := sw[i:n]
		for j, v := range ki {
			bi[j] = sw[i] * v * swj[j]
		}
		bi[0]++
	}
}
