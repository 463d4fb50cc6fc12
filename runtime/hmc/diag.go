package hmc

import (
	"math"
	"slices"
	"sort"

	"gonum.org/v1/gonum/dsp/fourier"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/kml-lang/kml/runtime/stats"
)

// Convergence diagnostics of Vehtari, Gelman, Simpson, Carpenter and Bürkner
// (2021), "Rank-normalization, folding, and localization: an improved R̂ for
// assessing convergence of MCMC". Every function takes draws as chains ×
// iterations and returns NaN when the draws are constant or too few.

// sortByValue orders idx by all[idx[·]] as a stable sort does: without
// NaN, ordering by (value, index) with pdqsort is the same order, several
// times faster than sort.SliceStable on thousands of draws (the summary of
// a model with hundreds of derived columns spent most of its time there);
// with a NaN, whose comparisons are not an order, the stable sort itself.
func sortByValue(idx []int, all []float64) {
	for _, x := range all {
		if math.IsNaN(x) {
			sort.SliceStable(idx, func(a, b int) bool { return all[idx[a]] < all[idx[b]] })
			return
		}
	}
	// Pairs sort faster than indices compared through all.
	ps := make([]pair, len(idx))
	for k, i := range idx {
		ps[k] = pair{all[i], i}
	}
	slices.SortFunc(ps, comparePairs)
	for k, p := range ps {
		idx[k] = p.i
	}
}

// splitChains halves each chain, dropping the middle draw of an odd chain.
func splitChains(chains [][]float64) [][]float64 {
	out := make([][]float64, 0, 2*len(chains))
	for _, c := range chains {
		half := len(c) / 2
		out = append(out, c[:half], c[len(c)-half:])
	}
	return out
}

func pooled(chains [][]float64) []float64 {
	var out []float64
	for _, c := range chains {
		out = append(out, c...)
	}
	return out
}

// rankNormalize replaces each draw by Φ⁻¹((r − 3/8)/(S + 1/4)), r its rank
// among all S draws (ties get their average rank).
func rankNormalize(chains [][]float64) [][]float64 {
	all := pooled(chains)
	s := len(all)
	idx := make([]int, s)
	for i := range idx {
		idx[i] = i
	}
	sortByValue(idx, all)
	ranks := make([]float64, s)
	for i := 0; i < s; {
		j := i
		for j+1 < s && all[idx[j+1]] == all[idx[i]] {
			j++
		}
		avg := float64(i+j)/2 + 1
		for k := i; k <= j; k++ {
			ranks[idx[k]] = avg
		}
		i = j + 1
	}
	out := make([][]float64, len(chains))
	k := 0
	for c, ch := range chains {
		out[c] = make([]float64, len(ch))
		for i := range ch {
			out[c][i] = distuv.UnitNormal.Quantile((ranks[k] - 0.375) / (float64(s) + 0.25))
			k++
		}
	}
	return out
}

func meanVar(x []float64) (mean, variance float64) {
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	for _, v := range x {
		variance += (v - mean) * (v - mean)
	}
	return mean, variance / float64(len(x)-1)
}

// rhatBasic is the potential scale reduction of chains of equal length.
func rhatBasic(chains [][]float64) float64 {
	m := len(chains)
	if m < 2 {
		return math.NaN()
	}
	n := len(chains[0])
	if n < 2 {
		return math.NaN()
	}
	means := make([]float64, m)
	w := 0.0
	for i, c := range chains {
		mu, v := meanVar(c)
		means[i] = mu
		w += v / float64(m)
	}
	_, b := meanVar(means) // B/n
	if w == 0 {
		return math.NaN()
	}
	varPlus := float64(n-1)/float64(n)*w + b
	return math.Sqrt(varPlus / w)
}

// directLags (a multiple of 4) is how many lags of the autocovariance
// essBasic sums directly before it takes all of them by FFT. Geyer's
// sequence usually stops after a few lags (NUTS draws are nearly
// independent), and a lag is one pass over the chain where the FFT costs
// about forty: a summary of 200 columns spent 70% of its time in FFTs of
// which it read a few lags.
const directLags = 32

// essScratch is the storage of essBasic, kept between calls by a summary's
// worker so that a column's four ESS estimates allocate nothing: the
// centred chains, the autocovariances known so far, and the FFT (making
// one costs as much as a transform) with its series for when more lags
// are needed than directLags.
type essScratch struct {
	m, n   int
	fft    *fourier.FFT
	padded []float64
	coef   []complex128
	seq    []float64
	cent   [][]float64
	// acov[i][t] is chain i's autocovariance at lag t (biased: divided
	// by n), known for t < have.
	acov  [][]float64
	have  int
	means []float64
	rho   []float64
}

// size makes w hold m chains of length n.
func (w *essScratch) size(m, n int) {
	if w.n != n || len(w.acov) < m {
		w.padded = make([]float64, 2*n)
		w.coef = make([]complex128, n+1)
		w.seq = make([]float64, 2*n)
		w.rho = make([]float64, n)
		w.acov = make([][]float64, m)
		w.cent = make([][]float64, m)
		for i := range w.acov {
			w.acov[i] = make([]float64, n)
			w.cent[i] = make([]float64, n)
		}
		w.means = make([]float64, m)
	}
	w.m, w.n = m, n
}

// lag makes the autocovariances of every chain known up to lag t: summed
// directly below directLags, and from there all of them at once by FFT on
// the zero-padded centred series.
func (w *essScratch) lag(t int) {
	if t < w.have {
		return
	}
	n := w.n
	if t < directLags && directLags <= n {
		// Four lags per pass (Geyer's sequence asks for two at a time).
		for ; w.have <= t; w.have += 4 {
			k := w.have
			for i, c := range w.cent[:w.m] {
				a := w.acov[i][k : k+4]
				lagSums4(c, k, a)
				for j := range a {
					a[j] /= float64(n)
				}
			}
		}
		return
	}
	if w.fft == nil || w.fft.Len() != 2*n {
		w.fft = fourier.NewFFT(2 * n)
	}
	for i, c := range w.cent[:w.m] {
		padded := w.padded[:2*n]
		copy(padded, c)
		clear(padded[n:])
		coef := w.fft.Coefficients(w.coef[:n+1], padded)
		for j, z := range coef {
			coef[j] = complex(real(z)*real(z)+imag(z)*imag(z), 0)
		}
		seq := w.fft.Sequence(w.seq[:2*n], coef)
		for j := w.have; j < n; j++ {
			w.acov[i][j] = seq[j] / float64(2*n) / float64(n)
		}
	}
	w.have = n
}

// lagSums4 writes out[i] = Σ_j c[j]·c[j+k+i] for i < 4 (0 for a lag of
// len(c) or more): four lags in one pass over c.
func lagSums4(c []float64, k int, out []float64) {
	n := len(c)
	var s0, s1, s2, s3 float64
	j := 0
	for ; j+k+3 < n; j++ {
		x := c[j]
		b := c[j+k : j+k+4]
		s0 += x * b[0]
		s1 += x * b[1]
		s2 += x * b[2]
		s3 += x * b[3]
	}
	// The last three terms of the shorter lags.
	for ; j+k < n; j++ {
		x := c[j]
		s0 += x * c[j+k]
		if j+k+1 < n {
			s1 += x * c[j+k+1]
		}
		if j+k+2 < n {
			s2 += x * c[j+k+2]
		}
	}
	out[0], out[1], out[2], out[3] = s0, s1, s2, s3
}

// essBasic is the effective sample size of chains of equal length, with
// Geyer's initial monotone sequence on the multi-chain autocorrelation.
func essBasic(chains [][]float64) float64 { return essBasicWith(chains, &essScratch{}) }

// essBasicWith is essBasic with w's storage.
func essBasicWith(chains [][]float64, w *essScratch) float64 {
	m := len(chains)
	n := len(chains[0])
	if n < 4 {
		return math.NaN()
	}
	w.size(m, n)
	w.have = 0
	means := w.means[:m]
	for i, c := range chains {
		mu := 0.0
		for _, v := range c {
			mu += v
		}
		mu /= float64(n)
		means[i] = mu
		for j, v := range c {
			w.cent[i][j] = v - mu
		}
	}
	w.lag(1)
	acov := w.acov[:m]
	meanVarW := 0.0
	for i := range acov {
		meanVarW += acov[i][0] * float64(n) / float64(n-1) / float64(m)
	}
	varPlus := meanVarW * float64(n-1) / float64(n)
	if m > 1 {
		_, b := meanVar(means)
		varPlus += b
	}
	if !(varPlus > 0) {
		return math.NaN()
	}
	rhoAt := func(t int) float64 {
		w.lag(t)
		s := 0.0
		for i := range acov {
			s += acov[i][t]
		}
		return 1 - (meanVarW-s/float64(m))/varPlus
	}
	rho := w.rho[:n]
	clear(rho)
	rho[0] = 1
	rhoEven, rhoOdd := 1.0, rhoAt(1)
	rho[1] = rhoOdd
	t := 0
	for t < n-5 && !math.IsNaN(rhoEven+rhoOdd) && rhoEven+rhoOdd > 0 {
		t += 2
		rhoEven, rhoOdd = rhoAt(t), rhoAt(t+1)
		if rhoEven+rhoOdd >= 0 {
			rho[t], rho[t+1] = rhoEven, rhoOdd
		}
	}
	maxT := t
	if rhoEven > 0 {
		rho[maxT] = rhoEven
	}
	for t = 0; t <= maxT-4; {
		t += 2
		if rho[t]+rho[t+1] > rho[t-2]+rho[t-1] {
			rho[t] = (rho[t-2] + rho[t-1]) / 2
			rho[t+1] = rho[t]
		}
	}
	total := float64(m * n)
	tau := -1.0 + rho[maxT]
	for i := 0; i < maxT; i++ {
		tau += 2 * rho[i]
	}
	tau = math.Max(tau, 1/math.Log10(total))
	return total / tau
}

func constant(chains [][]float64) bool {
	first := chains[0][0]
	for _, c := range chains {
		for _, v := range c {
			if v != first || math.IsNaN(v) || math.IsInf(v, 0) {
				return v == first
			}
		}
	}
	return true
}

// Rhat is the rank-normalised split-R̂: the larger of the bulk R̂ (on
// rank-normalised split chains) and the tail R̂ (on the same for the folded
// draws |θ − median|).
func Rhat(chains [][]float64) float64 {
	if len(chains) == 0 || len(chains[0]) < 4 || constant(chains) {
		return math.NaN()
	}
	split := splitChains(chains)
	bulk := rhatBasic(rankNormalize(split))
	med := stats.Quantile(pooled(chains), 0.5)
	folded := make([][]float64, len(split))
	for i, c := range split {
		folded[i] = make([]float64, len(c))
		for j, v := range c {
			folded[i][j] = math.Abs(v - med)
		}
	}
	tail := rhatBasic(rankNormalize(folded))
	return math.Max(bulk, tail)
}

// ESSBulk is the effective sample size of the rank-normalised split chains.
func ESSBulk(chains [][]float64) float64 {
	if len(chains) == 0 || len(chains[0]) < 4 || constant(chains) {
		return math.NaN()
	}
	return essBasic(rankNormalize(splitChains(chains)))
}

// ESSTail is the smaller of the effective sample sizes of the 5% and 95%
// quantile indicators.
func ESSTail(chains [][]float64) float64 {
	return math.Min(ESSQuantile(chains, 0.05), ESSQuantile(chains, 0.95))
}

// ESSQuantile is the effective sample size of the indicator I(θ ≤ q_p) on
// the split chains.
func ESSQuantile(chains [][]float64, p float64) float64 {
	if len(chains) == 0 || len(chains[0]) < 4 || constant(chains) {
		return math.NaN()
	}
	q := stats.Quantile(pooled(chains), p)
	split := splitChains(chains)
	ind := make([][]float64, len(split))
	for i, c := range split {
		ind[i] = make([]float64, len(c))
		for j, v := range c {
			if v <= q {
				ind[i][j] = 1
			}
		}
	}
	if constant(ind) {
		return math.NaN()
	}
	return essBasic(ind)
}

// ESSMean is the effective sample size for the mean: on the split chains,
// without rank normalisation.
func ESSMean(chains [][]float64) float64 {
	if len(chains) == 0 || len(chains[0]) < 4 || constant(chains) {
		return math.NaN()
	}
	return essBasic(splitChains(chains))
}

// MCSEMean is the Monte Carlo standard error of the posterior mean,
// sd/√ESSMean.
func MCSEMean(chains [][]float64) float64 {
	_, v := meanVar(pooled(chains))
	return math.Sqrt(v / ESSMean(chains))
}

// MCSEQuantile is the Monte Carlo standard error of the p-quantile: half the
// width of the ±1 sd interval of the quantile from the Beta distribution of
// the indicator's effective count (the method of the posterior R package).
func MCSEQuantile(chains [][]float64, p float64) float64 {
	ess := ESSQuantile(chains, p)
	if math.IsNaN(ess) {
		return math.NaN()
	}
	b := distuv.Beta{Alpha: ess*p + 1, Beta: ess*(1-p) + 1}
	a1, a2 := b.Quantile(0.1586553), b.Quantile(0.8413447)
	sorted := append([]float64(nil), pooled(chains)...)
	sort.Float64s(sorted)
	s := len(sorted)
	i1 := max(int(math.Floor(a1*float64(s))), 1)
	i2 := min(int(math.Ceil(a2*float64(s))), s)
	return (sorted[i2-1] - sorted[i1-1]) / 2
}

// EBFMI is the energy Bayesian fraction of missing information of one
// chain: Σ(E_n − E_{n−1})² / Σ(E_n − Ē)². Values below 0.3 suggest the
// momentum resampling explores the energy distribution poorly.
func EBFMI(energy []float64) float64 {
	if len(energy) < 2 {
		return math.NaN()
	}
	mean, _ := meanVar(energy)
	num, den := 0.0, 0.0
	for i, e := range energy {
		if i > 0 {
			d := e - energy[i-1]
			num += d * d
		}
		den += (e - mean) * (e - mean)
	}
	return num / den
}
