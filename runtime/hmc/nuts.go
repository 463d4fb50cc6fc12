package hmc

import (
	"context"
	"math"
	"math/rand/v2"

	"github.com/kml-lang/kml/runtime/linalg"
)

// maxDeltaH is the energy error above which a trajectory is divergent, as in
// Stan.
const maxDeltaH = 1000

// point is a state in phase space: position, momentum, and the log density
// and its gradient at the position.
type point struct {
	q, p, grad []float64
	lp         float64
}

func newPoint(d int) *point {
	return &point{q: make([]float64, d), p: make([]float64, d), grad: make([]float64, d)}
}

func (z *point) copyFrom(o *point) {
	copy(z.q, o.q)
	copy(z.p, o.p)
	copy(z.grad, o.grad)
	z.lp = o.lp
}

// level holds the vectors one level of the tree recursion needs, allocated
// once per chain.
type level struct {
	propFinal                                         *point
	pInitEnd, pSharpInitEnd, rhoInit, pFinalBeg       []float64
	pSharpFinalBeg, rhoFinal, rhoSubtree, rhoExtended []float64
}

// sampler runs NUTS transitions for one chain. Its logic follows Stan's
// base_nuts: multinomial sampling within a trajectory built by doubling in
// random directions, biased progressive sampling between the old trajectory
// and each new subtree, and the generalised no-U-turn criterion checked on
// every merged subtree and across the seams between subtrees.
type sampler struct {
	m        Model
	dim      int
	rng      *rand.Rand
	ctx      context.Context
	metric   *metric
	eps      float64
	maxDepth int

	z         *point // the current state
	gradEvals int64
	cancelled error

	// Scratch, reused across transitions.
	v                         []float64
	levels                    []level
	fwd, bck, sample, propose *point
	// The momenta and sharp momenta at the ends of the forward and
	// backward subtrees, and the trajectory's summed momenta.
	pFwdFwd, pSharpFwdFwd, pFwdBck, pSharpFwdBck []float64
	pBckFwd, pSharpBckFwd, pBckBck, pSharpBckBck []float64
	rho, rhoFwd, rhoBck, rhoExt                  []float64
}

// transitionStats are the per-transition sampler statistics.
type transitionStats struct {
	accept    float64
	depth     int
	nLeapfrog int
	divergent bool
	energy    float64
}

func newSampler(m Model, rng *rand.Rand, ctx context.Context, met *metric, maxDepth int) *sampler {
	d := m.Dim()
	s := &sampler{m: m, dim: d, rng: rng, ctx: ctx, metric: met, eps: 1, maxDepth: maxDepth, z: newPoint(d), v: make([]float64, d)}
	vec := func() []float64 { return make([]float64, d) }
	s.levels = make([]level, maxDepth+1)
	for i := range s.levels {
		s.levels[i] = level{propFinal: newPoint(d), pInitEnd: vec(), pSharpInitEnd: vec(), rhoInit: vec(),
			pFinalBeg: vec(), pSharpFinalBeg: vec(), rhoFinal: vec(), rhoSubtree: vec(), rhoExtended: vec()}
	}
	s.fwd, s.bck, s.sample, s.propose = newPoint(d), newPoint(d), newPoint(d), newPoint(d)
	for _, p := range []*[]float64{&s.pFwdFwd, &s.pSharpFwdFwd, &s.pFwdBck, &s.pSharpFwdBck,
		&s.pBckFwd, &s.pSharpBckFwd, &s.pBckBck, &s.pSharpBckBck, &s.rho, &s.rhoFwd, &s.rhoBck, &s.rhoExt} {
		*p = vec()
	}
	return s
}

// logDensity evaluates the model, mapping errors and non-finite values to
// −Inf.
func (s *sampler) logDensity(grad, q []float64) float64 {
	s.gradEvals++
	lp, err := s.m.LogDensity(grad, q)
	if err != nil || math.IsNaN(lp) || math.IsInf(lp, 1) {
		return math.Inf(-1)
	}
	for _, g := range grad {
		if math.IsNaN(g) || math.IsInf(g, 0) {
			return math.Inf(-1)
		}
	}
	return lp
}

// setPosition moves the current state to q.
func (s *sampler) setPosition(q []float64) float64 {
	copy(s.z.q, q)
	s.z.lp = s.logDensity(s.z.grad, s.z.q)
	return s.z.lp
}

// hamiltonian is −log p(q) + ½ pᵀM⁻¹p.
func (s *sampler) hamiltonian(z *point) float64 {
	s.metric.velocity(s.v, z.p)
	return -z.lp + 0.5*linalg.Dot(z.p, s.v)
}

// leapfrog moves z by one step of size eps.
// 0.5·eps·g is (0.5·eps)·g, so the half step is taken once; the slices
// are cut to one length so the loops carry no bounds checks.
func (s *sampler) leapfrog(z *point, eps float64) {
	half := 0.5 * eps
	p, g, v := z.p, z.grad[:len(z.p)], s.v[:len(z.p)]
	for i := range p {
		p[i] += half * g[i]
	}
	s.metric.velocity(s.v, p)
	q := z.q[:len(v)]
	for i := range q {
		q[i] += eps * v[i]
	}
	z.lp = s.logDensity(z.grad, z.q)
	if math.IsInf(z.lp, -1) {
		return
	}
	for i := range p {
		p[i] += half * g[i]
	}
}

// criterion is the generalised no-U-turn condition on a stretch of
// trajectory with summed momentum rho and sharp momenta at its ends.
func criterion(pSharpMinus, pSharpPlus, rho []float64) bool {
	return linalg.Dot(pSharpPlus, rho) > 0 && linalg.Dot(pSharpMinus, rho) > 0
}

func logSumExp(a, b float64) float64 {
	if math.IsInf(a, -1) {
		return b
	}
	if math.IsInf(b, -1) {
		return a
	}
	if a > b {
		return a + math.Log1p(math.Exp(b-a))
	}
	return b + math.Log1p(math.Exp(a-b))
}

func add(dst, a, b []float64) {
	a, b = a[:len(dst)], b[:len(dst)]
	for i := range dst {
		dst[i] = a[i] + b[i]
	}
}

// addTo is dst += a.
func addTo(dst, a []float64) {
	a = a[:len(dst)]
	for i := range dst {
		dst[i] += a[i]
	}
}

// transition runs one NUTS iteration from the current state and leaves the
// chosen state in s.z.
func (s *sampler) transition() transitionStats {
	s.metric.samplePM(s.z.p, s.rng)
	s.fwd.copyFrom(s.z)
	s.bck.copyFrom(s.z)
	s.sample.copyFrom(s.z)
	s.propose.copyFrom(s.z)

	s.metric.velocity(s.pSharpFwdFwd, s.z.p)
	for _, v := range [][]float64{s.pFwdFwd, s.pFwdBck, s.pBckFwd, s.pBckBck} {
		copy(v, s.z.p)
	}
	for _, v := range [][]float64{s.pSharpFwdBck, s.pSharpBckFwd, s.pSharpBckBck} {
		copy(v, s.pSharpFwdFwd)
	}
	copy(s.rho, s.z.p)

	logSumWeight := 0.0
	h0 := s.hamiltonian(s.z)
	nLeapfrog := 0
	sumMetroProb := 0.0
	depth := 0
	divergent := false

	for depth < s.maxDepth {
		clear(s.rhoFwd)
		clear(s.rhoBck)
		logSumWeightSub := math.Inf(-1)
		var valid bool
		if s.rng.Float64() > 0.5 {
			// Extend forward.
			s.z.copyFrom(s.fwd)
			copy(s.rhoBck, s.rho)
			copy(s.pBckFwd, s.pFwdBck)
			copy(s.pSharpBckFwd, s.pSharpFwdBck)
			valid = s.buildTree(depth, s.propose, s.pSharpFwdBck, s.pSharpFwdFwd, s.rhoFwd, s.pFwdBck, s.pFwdFwd,
				h0, 1, &nLeapfrog, &logSumWeightSub, &sumMetroProb, &divergent)
			s.fwd.copyFrom(s.z)
		} else {
			// Extend backward.
			s.z.copyFrom(s.bck)
			copy(s.rhoFwd, s.rho)
			copy(s.pFwdBck, s.pBckFwd)
			copy(s.pSharpFwdBck, s.pSharpBckFwd)
			valid = s.buildTree(depth, s.propose, s.pSharpBckFwd, s.pSharpBckBck, s.rhoBck, s.pBckFwd, s.pBckBck,
				h0, -1, &nLeapfrog, &logSumWeightSub, &sumMetroProb, &divergent)
			s.bck.copyFrom(s.z)
		}
		if !valid {
			break
		}
		depth++
		if logSumWeightSub > logSumWeight {
			s.sample.copyFrom(s.propose)
		} else if s.rng.Float64() < math.Exp(logSumWeightSub-logSumWeight) {
			s.sample.copyFrom(s.propose)
		}
		logSumWeight = logSumExp(logSumWeight, logSumWeightSub)

		add(s.rho, s.rhoBck, s.rhoFwd)
		persist := criterion(s.pSharpBckBck, s.pSharpFwdFwd, s.rho)
		add(s.rhoExt, s.rhoBck, s.pFwdBck)
		persist = persist && criterion(s.pSharpBckBck, s.pSharpFwdBck, s.rhoExt)
		add(s.rhoExt, s.rhoFwd, s.pBckFwd)
		persist = persist && criterion(s.pSharpBckFwd, s.pSharpFwdFwd, s.rhoExt)
		if !persist {
			break
		}
	}
	s.z.copyFrom(s.sample)
	accept := 0.0
	if nLeapfrog > 0 {
		accept = sumMetroProb / float64(nLeapfrog)
	}
	return transitionStats{accept: accept, depth: depth, nLeapfrog: nLeapfrog, divergent: divergent, energy: s.hamiltonian(s.z)}
}

// buildTree extends the trajectory by 2^depth leapfrog steps in direction
// sign from s.z, leaving the end state in s.z. It returns false when the
// subtree diverged, turned back on itself, or the run was cancelled.
func (s *sampler) buildTree(depth int, propose *point, pSharpBeg, pSharpEnd, rho, pBeg, pEnd []float64,
	h0, sign float64, nLeapfrog *int, logSumWeight, sumMetroProb *float64, divergent *bool) bool {
	if depth == 0 {
		if s.cancelled == nil && s.ctx.Err() != nil {
			s.cancelled = s.ctx.Err()
		}
		if s.cancelled != nil {
			return false
		}
		s.leapfrog(s.z, sign*s.eps)
		*nLeapfrog++
		h := s.hamiltonian(s.z)
		if math.IsNaN(h) {
			h = math.Inf(1)
		}
		if h-h0 > maxDeltaH {
			*divergent = true
		}
		*logSumWeight = logSumExp(*logSumWeight, h0-h)
		if h0-h > 0 {
			*sumMetroProb++
		} else {
			*sumMetroProb += math.Exp(h0 - h)
		}
		propose.copyFrom(s.z)
		// hamiltonian left M⁻¹p for this very p in s.v.
		copy(pSharpBeg, s.v)
		copy(pSharpEnd, pSharpBeg)
		addTo(rho, s.z.p)
		copy(pBeg, s.z.p)
		copy(pEnd, s.z.p)
		return !*divergent
	}
	lv := &s.levels[depth]
	logSumWeightInit := math.Inf(-1)
	clear(lv.rhoInit)
	if !s.buildTree(depth-1, propose, pSharpBeg, lv.pSharpInitEnd, lv.rhoInit, pBeg, lv.pInitEnd,
		h0, sign, nLeapfrog, &logSumWeightInit, sumMetroProb, divergent) {
		return false
	}
	lv.propFinal.copyFrom(s.z)
	logSumWeightFinal := math.Inf(-1)
	clear(lv.rhoFinal)
	if !s.buildTree(depth-1, lv.propFinal, lv.pSharpFinalBeg, pSharpEnd, lv.rhoFinal, lv.pFinalBeg, pEnd,
		h0, sign, nLeapfrog, &logSumWeightFinal, sumMetroProb, divergent) {
		return false
	}
	logSumWeightSub := logSumExp(logSumWeightInit, logSumWeightFinal)
	*logSumWeight = logSumExp(*logSumWeight, logSumWeightSub)
	if logSumWeightFinal > logSumWeightSub {
		propose.copyFrom(lv.propFinal)
	} else if s.rng.Float64() < math.Exp(logSumWeightFinal-logSumWeightSub) {
		propose.copyFrom(lv.propFinal)
	}
	add(lv.rhoSubtree, lv.rhoInit, lv.rhoFinal)
	addTo(rho, lv.rhoSubtree)
	persist := criterion(pSharpBeg, pSharpEnd, lv.rhoSubtree)
	add(lv.rhoExtended, lv.rhoInit, lv.pFinalBeg)
	persist = persist && criterion(pSharpBeg, lv.pSharpFinalBeg, lv.rhoExtended)
	add(lv.rhoExtended, lv.rhoFinal, lv.pInitEnd)
	persist = persist && criterion(lv.pSharpInitEnd, pSharpEnd, lv.rhoExtended)
	return persist
}

// initStepSize is Stan's heuristic: double or halve the step size until the
// acceptance of one leapfrog step from a fresh momentum crosses 0.8.
func (s *sampler) initStepSize() {
	if s.eps == 0 || s.eps > 1e7 || math.IsNaN(s.eps) {
		return
	}
	z0 := newPoint(s.dim)
	z0.copyFrom(s.z)
	defer s.z.copyFrom(z0)
	try := func() float64 {
		s.z.copyFrom(z0)
		s.metric.samplePM(s.z.p, s.rng)
		h0 := s.hamiltonian(s.z)
		s.leapfrog(s.z, s.eps)
		h := s.hamiltonian(s.z)
		if math.IsNaN(h) {
			h = math.Inf(1)
		}
		return h0 - h
	}
	direction := -1.0
	if try() > math.Log(0.8) {
		direction = 1
	}
	for i := 0; i < 100; i++ {
		dh := try()
		if direction == 1 && !(dh > math.Log(0.8)) || direction == -1 && !(dh < math.Log(0.8)) {
			return
		}
		if direction == 1 {
			s.eps *= 2
		} else {
			s.eps /= 2
		}
		if s.eps > 1e7 || s.eps == 0 {
			return
		}
	}
}
