package hmc

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/kml-lang/kml/runtime/stats"
)

// An independent, direct transcription of the formulas of Vehtari et al.
// (2021, sections 3 and 4, and appendix A): autocovariances by the O(n²)
// sum, ranks by sorting, the normal scores Φ⁻¹((r − 3/8)/(S + 1/4)).

func refSplit(chains [][]float64) [][]float64 {
	var out [][]float64
	for _, c := range chains {
		n := len(c)
		out = append(out, c[:n/2], c[n-n/2:])
	}
	return out
}

func refZ(chains [][]float64) [][]float64 {
	type item struct {
		v    float64
		c, i int
	}
	var all []item
	for c, ch := range chains {
		for i, v := range ch {
			all = append(all, item{v, c, i})
		}
	}
	sort.Slice(all, func(a, b int) bool { return all[a].v < all[b].v })
	S := float64(len(all))
	out := make([][]float64, len(chains))
	for c := range chains {
		out[c] = make([]float64, len(chains[c]))
	}
	for r := 0; r < len(all); {
		j := r
		for j+1 < len(all) && all[j+1].v == all[r].v {
			j++
		}
		rank := float64(r+j)/2 + 1
		for k := r; k <= j; k++ {
			out[all[k].c][all[k].i] = distuv.UnitNormal.Quantile((rank - 3.0/8) / (S + 0.25))
		}
		r = j + 1
	}
	return out
}

func refRhat(chains [][]float64) float64 {
	m, n := float64(len(chains)), float64(len(chains[0]))
	var means []float64
	W := 0.0
	grand := 0.0
	for _, c := range chains {
		mu := 0.0
		for _, v := range c {
			mu += v
		}
		mu /= n
		s2 := 0.0
		for _, v := range c {
			s2 += (v - mu) * (v - mu)
		}
		W += s2 / (n - 1) / m
		means = append(means, mu)
		grand += mu / m
	}
	B := 0.0
	for _, mu := range means {
		B += (mu - grand) * (mu - grand)
	}
	B *= n / (m - 1)
	return math.Sqrt(((n-1)/n*W + B/n) / W)
}

func refESS(chains [][]float64) float64 {
	m, n := len(chains), len(chains[0])
	rhoHat := func(t int) float64 {
		if t == 0 {
			return 1 // by definition
		}
		// 1 − (W − mean of the chains' lag-t autocovariances)/var⁺.
		W, acf, grand := 0.0, 0.0, 0.0
		var means []float64
		for _, c := range chains {
			mu := 0.0
			for _, v := range c {
				mu += v
			}
			mu /= float64(n)
			means = append(means, mu)
			grand += mu / float64(m)
			a0, at := 0.0, 0.0
			for i := 0; i < n; i++ {
				a0 += (c[i] - mu) * (c[i] - mu)
			}
			for i := 0; i+t < n; i++ {
				at += (c[i] - mu) * (c[i+t] - mu)
			}
			W += a0 / float64(n-1) / float64(m)
			acf += at / float64(n) / float64(m)
		}
		B := 0.0
		for _, mu := range means {
			B += (mu - grand) * (mu - grand)
		}
		B /= float64(m - 1)
		varPlus := W*float64(n-1)/float64(n) + B
		return 1 - (W-acf)/varPlus
	}
	// Geyer's initial positive sequence on pairs Γ_j = ρ̂_{2j} + ρ̂_{2j+1}:
	// pairs are taken while the previous one is positive and its even lag
	// is below n − 5 (the truncation of Stan and of the posterior package);
	// a negative pair ends the sequence. With T the even lag of the last
	// pair looked at, τ = −1 + 2Σ_{j<T/2} Γ_j + max(ρ̂_T, 0), the Γ_j made
	// monotone non-increasing first.
	gammas := []float64{1 + rhoHat(1)}
	T := 0
	for T < n-5 && gammas[len(gammas)-1] > 0 {
		T += 2
		g := rhoHat(T) + rhoHat(T+1)
		if g < 0 {
			break
		}
		gammas = append(gammas, g)
	}
	pairs := gammas[:T/2]
	for j := 1; j < len(pairs); j++ {
		pairs[j] = math.Min(pairs[j], pairs[j-1])
	}
	tau := -1.0
	for _, g := range pairs {
		tau += 2 * g
	}
	tau += math.Max(rhoHat(T), 0)
	return float64(m*n) / math.Max(tau, 1/math.Log10(float64(m*n)))
}

// ar1 makes chains of an AR(1) process with coefficient rho and offsets.
func ar1(rng *rand.Rand, chains, n int, rho float64, offset []float64) [][]float64 {
	out := make([][]float64, chains)
	for c := range out {
		x := rng.NormFloat64() / math.Sqrt(1-rho*rho)
		out[c] = make([]float64, n)
		for i := range out[c] {
			x = rho*x + rng.NormFloat64()
			out[c][i] = x + offset[c]
		}
	}
	return out
}

func TestDiagnosticsMatchDirectFormulas(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	cases := []struct {
		name   string
		chains [][]float64
	}{
		{"iid", ar1(rng, 4, 201, 0, []float64{0, 0, 0, 0})},
		{"ar1 0.7", ar1(rng, 4, 300, 0.7, []float64{0, 0, 0, 0})},
		{"shifted chain", ar1(rng, 4, 250, 0.3, []float64{0, 0, 0, 1.5})},
		{"skewed", func() [][]float64 {
			c := ar1(rng, 3, 180, 0.5, []float64{0, 0, 0})
			for _, ch := range c {
				for i := range ch {
					ch[i] = math.Exp(ch[i])
				}
			}
			return c
		}()},
	}
	for _, c := range cases {
		split := refSplit(c.chains)
		wantBulkR := refRhat(refZ(split))
		med := stats.Quantile(pooled(c.chains), 0.5)
		folded := make([][]float64, len(split))
		for i, ch := range split {
			for _, v := range ch {
				folded[i] = append(folded[i], math.Abs(v-med))
			}
		}
		wantR := math.Max(wantBulkR, refRhat(refZ(folded)))
		if got := Rhat(c.chains); math.Abs(got-wantR) > 1e-10 {
			t.Errorf("%s: Rhat %v, direct %v", c.name, got, wantR)
		}
		if got, want := ESSBulk(c.chains), refESS(refZ(split)); math.Abs(got-want) > 1e-8*want {
			t.Errorf("%s: ESSBulk %v, direct %v", c.name, got, want)
		}
		if got, want := ESSMean(c.chains), refESS(split); math.Abs(got-want) > 1e-8*want {
			t.Errorf("%s: ESSMean %v, direct %v", c.name, got, want)
		}
	}
}

func TestESSOfKnownProcesses(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	n := 4000
	iid := ar1(rng, 4, n, 0, []float64{0, 0, 0, 0})
	if e := ESSBulk(iid); math.Abs(e/float64(4*n)-1) > 0.1 {
		t.Errorf("i.i.d. draws: ESS %v of %d", e, 4*n)
	}
	rho := 0.8
	ar := ar1(rng, 4, n, rho, []float64{0, 0, 0, 0})
	want := float64(4*n) * (1 - rho) / (1 + rho)
	if e := ESSMean(ar); math.Abs(e/want-1) > 0.15 {
		t.Errorf("AR(1) ρ = %v: ESS %v, theory %v", rho, e, want)
	}
	if r := Rhat(ar); r > 1.01 {
		t.Errorf("AR(1) chains of one process: R-hat %v", r)
	}
	if r := Rhat(ar1(rng, 4, 1000, 0.5, []float64{0, 0, 0, 2})); r < 1.1 {
		t.Errorf("one chain shifted by 2 sd: R-hat %v does not flag it", r)
	}
}

func TestMCSEQuantileAndEBFMI(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	iid := ar1(rng, 4, 2500, 0, []float64{0, 0, 0, 0})
	// For i.i.d. normal draws the sd of the median estimate is
	// √(p(1−p)/S)/φ(0) = √(π/2)/√S... times the unit sd.
	want := math.Sqrt(0.25/10000) / distuv.UnitNormal.Prob(0)
	if got := MCSEQuantile(iid, 0.5); math.Abs(got/want-1) > 0.25 {
		t.Errorf("MCSE of the median %v, theory %v", got, want)
	}
	// Independent energies: E-BFMI ≈ 2; a slow random walk: ≪ 1.
	e := make([]float64, 5000)
	for i := range e {
		e[i] = rng.NormFloat64()
	}
	if b := EBFMI(e); math.Abs(b-2) > 0.15 {
		t.Errorf("E-BFMI of independent energies %v, want ≈ 2", b)
	}
	walk := ar1(rng, 1, 5000, 0.99, []float64{0})[0]
	if b := EBFMI(walk); b > 0.1 {
		t.Errorf("E-BFMI of a slow walk %v, want small", b)
	}
}

// essBasic sums the first directLags lags directly and takes the rest by
// FFT: on chains slow enough that Geyer's sequence runs past directLags
// (AR(1), ρ = 0.97) it is the direct formula's ESS, and the FFT's lags
// agree with the direct sums.
func TestESSPastDirectLags(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	chains := ar1(rng, 4, 600, 0.97, []float64{0, 0, 0, 0})
	split := refSplit(chains)
	w := &essScratch{}
	got := essBasicWith(split, w)
	if w.have != w.n {
		t.Fatalf("the sequence stopped at lag %d of %d: raise ρ so that the test reaches the FFT", w.have, w.n)
	}
	if want := refESS(split); math.Abs(got-want) > 1e-8*want {
		t.Errorf("ESS %v, direct %v", got, want)
	}
	// The lags below directLags were summed four per pass (lagSums4).
	for k := range directLags {
		if d := lagSum(w.cent[0][:w.n-k], w.cent[0][k:]) / float64(w.n); math.Abs(d-w.acov[0][k]) > 1e-13*w.acov[0][0] {
			t.Errorf("lag %d summed: %v, one lag at a time %v", k, w.acov[0][k], d)
		}
	}
	// Every lag by FFT.
	w.have = 0
	w.lag(directLags)
	for k := range 2 * directLags {
		if d := lagSum(w.cent[0][:w.n-k], w.cent[0][k:]) / float64(w.n); math.Abs(d-w.acov[0][k]) > 1e-12*w.acov[0][0] {
			t.Errorf("lag %d by FFT: %v, direct %v", k, w.acov[0][k], d)
		}
	}
	// Few lags: the sequence stops before directLags and no FFT is made.
	iid := ar1(rng, 4, 600, 0, []float64{0, 0, 0, 0})
	w2 := &essScratch{}
	essBasicWith(refSplit(iid), w2)
	if w2.fft != nil || w2.have >= directLags {
		t.Errorf("i.i.d. draws: %d lags, FFT made %v", w2.have, w2.fft != nil)
	}
}

// lagSum is Σ a[j]·b[j] in four running sums.
func lagSum(a, b []float64) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float64
	j := 0
	for ; j+4 <= len(a); j += 4 {
		s0 += a[j] * b[j]
		s1 += a[j+1] * b[j+1]
		s2 += a[j+2] * b[j+2]
		s3 += a[j+3] * b[j+3]
	}
	for ; j < len(a); j++ {
		s0 += a[j] * b[j]
	}
	return (s0 + s1) + (s2 + s3)
}
