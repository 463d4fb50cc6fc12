package gp

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/linalg"
)

// jointMAP is the inner solve of the MAP and MKL objectives (kind): the
// latent function maximised with its GP prior N(0, K + εI), ε = MapJitter,
// whose fixed point is VB's at z = 0 (Table 2), found by FitSites (with
// the dual active-set method for the Laplace likelihood and Newton's
// method for the logistic). Its posterior is that of the Gaussian sites
// around û; the ε is added here, once, for the objective and for the
// predictive.
type jointMAP struct{ kind Kind }

// Fit is the joint MAP objective at K + εI (sitesPosterior).
func (j jointMAP) Fit(K *mat.SymDense, y []float64, l Lik, needs Needs) (*Posterior, error) {
	n := K.SymmetricDim()
	ke := mat.NewSymDense(n, nil)
	ke.CopySym(K)
	raw := ke.RawSymmetric()
	for i := 0; i < n; i++ {
		raw.Data[i*raw.Stride+i] += MapJitter
	}
	return sitesPosterior(ke, y, l, j.kind, needs)
}

// laplaceMAP finds the joint MAP latent function under a Laplace
// likelihood, min_u ½uᵀK⁻¹u + Σ|y_i − u_i|/b, where reweighted least
// squares crawls (sites whose residual vanishes), through its dual: the
// box-constrained quadratic program max_{|w_i| ≤ c} wᵀy − ½wᵀKw, c = 1/b,
// with u = Kw and residual r = y − Kw. A primal–dual active-set method
// (Hintermüller, Ito and Kunisch 2002) solves it: w_i is held at ±c where
// its coordinate optimum w_i + r_i/K_ii lies beyond the bound, the rest
// solve K_II w_I = y_I − K_IA w_A (they interpolate, r_I = 0), until the
// sets repeat. It returns the sites of reweighted least squares at the
// solution (γ_i = b|r_i|, floored), whose Gaussian posterior mean is u.
func laplaceMAP(K *mat.SymDense, y []float64, b float64) (*Sites, error) {
	n := K.SymmetricDim()
	c := 1 / b
	w := make([]float64, n)
	state := make([]int, n)
	kw := mat.NewVecDense(n, nil)
	s := &Sites{Gamma: make([]float64, n), M: append([]float64(nil), y...)}
	for it := 1; it <= innerMax; it++ {
		kw.MulVec(K, mat.NewVecDense(n, w))
		changed := it == 1
		var free []int
		for i := 0; i < n; i++ {
			z := w[i] + (y[i]-kw.AtVec(i))/K.At(i, i)
			next := 0
			switch {
			case z > c:
				next = 1
			case z < -c:
				next = -1
			}
			if next != state[i] {
				changed = true
			}
			state[i] = next
			if next == 0 {
				free = append(free, i)
			}
		}
		s.Iterations = it
		if !changed {
			for i := range s.Gamma {
				s.Gamma[i] = math.Max(b*math.Abs(y[i]-kw.AtVec(i)), gammaMin*b*b)
			}
			return s, nil
		}
		for i := range w {
			w[i] = float64(state[i]) * c
		}
		if len(free) == 0 {
			continue
		}
		// K_II w_I = y_I − K_IA w_A.
		kii := mat.NewSymDense(len(free), nil)
		rhs := mat.NewVecDense(len(free), nil)
		for a, i := range free {
			v := y[i]
			for j := 0; j < n; j++ {
				if state[j] != 0 {
					v -= K.At(i, j) * w[j]
				}
			}
			rhs.SetVec(a, v)
			for bb := a; bb < len(free); bb++ {
				kii.SetSym(a, bb, K.At(i, free[bb]))
			}
		}
		var ch mat.Cholesky
		if _, ok := linalg.CholeskyJitter(&ch, kii, false); !ok {
			return nil, ErrNotPD
		}
		sol := mat.NewVecDense(len(free), nil)
		if err := linalg.IgnoreCondition(ch.SolveVecTo(sol, rhs)); err != nil {
			return nil, err
		}
		for a, i := range free {
			w[i] = sol.AtVec(a)
		}
	}
	return nil, ErrInner
}

// logitMAP finds the joint MAP latent function under the logistic
// likelihood by Newton's method (Rasmussen and Williams 2006, algorithm
// 3.1: f = Ka with a = b − W^½B⁻¹W^½Kb, B = I + W^½KW^½, b = Wf + ∇log P),
// halving a step that does not increase the objective, where the
// Jaakkola–Jordan fixed point converges only linearly. It returns the
// bound's sites tangent at the solution (ξ_i = |f_i|), whose Gaussian
// posterior mean is f.
func logitMAP(K *mat.SymDense, y []float64, l Lik) (*Sites, error) {
	n := K.SymmetricDim()
	f := make([]float64, n)
	a := mat.NewVecDense(n, nil)
	obj := func(a *mat.VecDense, f []float64) float64 {
		v := 0.0
		for i := range f {
			v += logSigmoid(y[i]*f[i]) - 0.5*a.AtVec(i)*f[i]
		}
		return v
	}
	asc := newtonAscent{cur: obj(a, f)}
	sw := make([]float64, n)
	bvec := mat.NewVecDense(n, nil)
	B := mat.NewSymDense(n, nil)
	s := &Sites{Gamma: make([]float64, n), M: make([]float64, n)}
	for it := 1; it <= innerMax; it++ {
		for i := range f {
			p := 1 / (1 + math.Exp(-f[i])) // σ(f)
			w := p * (1 - p)
			sw[i] = math.Sqrt(w)
			t := (y[i] + 1) / 2
			bvec.SetVec(i, w*f[i]+t-p)
		}
		fillB(B, K, sw)
		var ch mat.Cholesky
		if !ch.Factorize(B) {
			return nil, ErrNotPD
		}
		var kb, tmp mat.VecDense
		kb.MulVec(K, bvec)
		for i := 0; i < n; i++ {
			kb.SetVec(i, sw[i]*kb.AtVec(i))
		}
		if err := linalg.IgnoreCondition(ch.SolveVecTo(&tmp, &kb)); err != nil {
			return nil, err
		}
		next := mat.NewVecDense(n, nil)
		for i := 0; i < n; i++ {
			next.SetVec(i, bvec.AtVec(i)-sw[i]*tmp.AtVec(i))
		}
		// Step from a to next, halving until the objective rises.
		da := mat.NewVecDense(n, nil)
		da.SubVec(next, a)
		nf := make([]float64, n)
		var cand *mat.VecDense
		prev := asc.cur
		v, ok := asc.step(func(t float64) float64 {
			cand = mat.NewVecDense(n, nil)
			cand.AddScaledVec(a, t, da)
			var kf mat.VecDense
			kf.MulVec(K, cand)
			copy(nf, kf.RawVector().Data)
			return obj(cand, nf)
		})
		if ok {
			a = cand
		}
		moved := 0.0
		for i := range f {
			moved = math.Max(moved, math.Abs(nf[i]-f[i])/(1+math.Abs(f[i])))
		}
		copy(f, nf)
		gain := v - prev
		s.Iterations = it
		if moved <= innerTol || gain <= 1e-15*(1+math.Abs(asc.cur)) {
			for i := range f {
				s.Gamma[i] = l.gamma(f[i] * f[i])
				s.M[i] = l.target(y[i], s.Gamma[i])
			}
			return s, nil
		}
	}
	return nil, ErrInner
}
