package hmc

import (
	"cmp"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/kml-lang/kml/runtime/stats"
)

// One column's summary from one sort. Rhat, ESSBulk, ESSTail and MCSEMean
// each sort the pooled draws again (the quantiles, the median, the ranks
// of the draws and of the folded draws), build a fresh FFT and allocate
// their series: a GARCH fit's 203 columns of 4000 draws spent 0.8 s of CPU
// there, 37% of the whole run. columnSummary computes the same numbers to
// the bit from one (value, index) sort of the pooled draws:
//   - the quantiles, the median and the 5% and 95% cut-offs of ESSTail are
//     read from the sorted values;
//   - with chains of even length the split chains pooled are the draws in
//     the same order, so the ranks of the bulk R̂ and of ESSBulk are one
//     computation;
//   - the folded draws |θ − median| are in order when the draws below the
//     median, taken downwards, are merged with those above (subtraction
//     and |·| round monotonically), so they need no second sort; tied
//     values get their average rank whatever their order among
//     themselves;
//   - Φ⁻¹((r − 3/8)/(S + 1/4)) depends only on r, which is a whole or a
//     half number, so a worker takes each once;
//   - essBasic's storage and FFT are the worker's (essScratch).
// Columns the shortcut does not cover (a NaN, an infinity or −0 among the
// draws, which sort or compare differently; chains of odd or unequal
// length; a constant column) take the functions themselves.

// pair is a draw's value and its position among the pooled draws.
type pair struct {
	x float64
	i int
}

// comparePairs orders pairs by value, then by position: without NaN the
// order of a stable sort by value.
func comparePairs(a, b pair) int {
	switch {
	case a.x < b.x:
		return -1
	case b.x < a.x:
		return 1
	}
	return cmp.Compare(a.i, b.i)
}

// columnScratch is one summary worker's storage.
type columnScratch struct {
	pairs                []pair
	idx, idx2            []uint32
	keys, keys2          []uint64
	all, sorted, z, zf   []float64
	folded, ind, phi     []float64
	order                []int
	split, splitF, spInd [][]float64
	ess                  essScratch
}

// columnSummary is summarizeColumn's result for chains, with w's storage.
func columnSummary(name string, chains [][]float64, w *columnScratch) ParamSummary {
	if !w.load(chains) {
		return columnSummaryPlain(name, chains)
	}
	all, sorted := w.all, w.sorted
	s := len(all)
	mean, v := meanVar(all)
	q5, q50, q95 := stats.SortedQuantile(sorted, 0.05), stats.SortedQuantile(sorted, 0.5), stats.SortedQuantile(sorted, 0.95)
	// The bulk: ranks of the draws, in pooled order, which is also the
	// split chains' order.
	w.ranks(w.z, all, func(k int) int { return w.pairs[k].i })
	// The tail: the folded draws, ordered by merging the two sides of the
	// median.
	for i, x := range all {
		w.folded[i] = math.Abs(x - q50)
	}
	p, _ := slices.BinarySearchFunc(w.pairs, q50, func(a pair, m float64) int { return cmp.Compare(a.x, m) })
	order := w.order[:0]
	lo, hi := p-1, p
	for lo >= 0 || hi < s {
		if hi >= s || lo >= 0 && w.folded[w.pairs[lo].i] <= w.folded[w.pairs[hi].i] {
			order = append(order, w.pairs[lo].i)
			lo--
		} else {
			order = append(order, w.pairs[hi].i)
			hi++
		}
	}
	w.order = order
	w.ranks(w.zf, w.folded, func(k int) int { return order[k] })
	splitInto(w.split, w.z)
	splitInto(w.splitF, w.zf)
	rhat := math.Max(rhatBasic(w.split), rhatBasic(w.splitF))
	bulk := essBasicWith(w.split, &w.ess)
	tail := math.Min(w.essQuantile(stats.SortedQuantile(sorted, 0.05)), w.essQuantile(q95))
	splitInto(w.split, all)
	essMean := essBasicWith(w.split, &w.ess)
	return ParamSummary{Name: name, Mean: mean, SD: math.Sqrt(v), Q5: q5, Q50: q50, Q95: q95,
		Rhat: rhat, ESSBulk: bulk, ESSTail: tail, MCSEMean: math.Sqrt(v / essMean)}
}

// columnSummaryPlain is the summary by the functions themselves.
func columnSummaryPlain(name string, chains [][]float64) ParamSummary {
	all := pooled(chains)
	mean, v := meanVar(all)
	sorted := slices.Clone(all)
	slices.Sort(sorted)
	return ParamSummary{Name: name, Mean: mean, SD: math.Sqrt(v),
		Q5: stats.SortedQuantile(sorted, 0.05), Q50: stats.SortedQuantile(sorted, 0.5), Q95: stats.SortedQuantile(sorted, 0.95),
		Rhat: Rhat(chains), ESSBulk: ESSBulk(chains), ESSTail: ESSTail(chains), MCSEMean: MCSEMean(chains)}
}

// load pools chains into w and sorts them; false when the column needs the
// functions themselves.
func (w *columnScratch) load(chains [][]float64) bool {
	m := len(chains)
	if m == 0 {
		return false
	}
	n := len(chains[0])
	if n < 4 || n%2 != 0 {
		return false
	}
	s := m * n
	if s >= math.MaxInt32 {
		return false // sortPairs counts in int32
	}
	if cap(w.all) < s {
		w.all, w.sorted, w.z, w.zf = make([]float64, s), make([]float64, s), make([]float64, s), make([]float64, s)
		w.folded, w.ind = make([]float64, s), make([]float64, s)
		w.pairs, w.order = make([]pair, s), make([]int, 0, s)
		w.idx, w.idx2, w.keys, w.keys2 = make([]uint32, s), make([]uint32, s), make([]uint64, s), make([]uint64, s)
	}
	w.all, w.sorted, w.z, w.zf = w.all[:s], w.sorted[:s], w.z[:s], w.zf[:s]
	w.folded, w.ind, w.pairs = w.folded[:s], w.ind[:s], w.pairs[:s]
	w.idx, w.idx2, w.keys, w.keys2 = w.idx[:s], w.idx2[:s], w.keys[:s], w.keys2[:s]
	if len(w.split) != 2*m {
		w.split, w.splitF, w.spInd = make([][]float64, 2*m), make([][]float64, 2*m), make([][]float64, 2*m)
	}
	if len(w.phi) != 2*s-1 {
		w.phi = make([]float64, 2*s-1)
		for i := range w.phi {
			w.phi[i] = math.NaN()
		}
	}
	k := 0
	varies := false
	for _, c := range chains {
		if len(c) != n {
			return false
		}
		for _, x := range c {
			if math.IsNaN(x) || math.IsInf(x, 0) || x == 0 && math.Signbit(x) {
				return false
			}
			varies = varies || x != chains[0][0]
			w.all[k] = x
			w.pairs[k] = pair{x, k}
			k++
		}
	}
	if !varies {
		return false
	}
	w.sortPairs()
	for k, p := range w.pairs {
		w.sorted[k] = p.x
	}
	return true
}

// ranks writes into out, at each draw's position, Φ⁻¹((r − 3/8)/(S + 1/4))
// of its rank r among vals (ties get their average rank), where at(k) is
// the position of the k-th smallest: rankNormalize's numbers.
func (w *columnScratch) ranks(out, vals []float64, at func(k int) int) {
	s := len(vals)
	for i := 0; i < s; {
		j := i
		for j+1 < s && vals[at(j+1)] == vals[at(i)] {
			j++
		}
		// avg = (i+j)/2 + 1, a whole or a half number: Φ⁻¹ of it is
		// taken once per worker.
		z := w.phi[i+j]
		if math.IsNaN(z) {
			avg := float64(i+j)/2 + 1
			z = distuv.UnitNormal.Quantile((avg - 0.375) / (float64(s) + 0.25))
			w.phi[i+j] = z
		}
		for k := i; k <= j; k++ {
			out[at(k)] = z
		}
		i = j + 1
	}
}

// essQuantile is ESSQuantile at the cut-off q on the loaded draws.
func (w *columnScratch) essQuantile(q float64) float64 {
	first := w.all[0] <= q
	varies := false
	for i, x := range w.all {
		b := x <= q
		varies = varies || b != first
		w.ind[i] = 0
		if b {
			w.ind[i] = 1
		}
	}
	if !varies {
		return math.NaN()
	}
	splitInto(w.spInd, w.ind)
	return essBasicWith(w.spInd, &w.ess)
}

// splitInto points dst's 2m slices at the halves of the m chains of equal
// (even) length pooled in all: splitChains of them.
func splitInto(dst [][]float64, all []float64) {
	h := len(all) / len(dst)
	for i := range dst {
		dst[i] = all[i*h : (i+1)*h]
	}
}

// sortPairs puts w.pairs, loaded in position order, in comparePairs's
// order: a stable radix sort, a byte at a time from the lowest, on the
// values' bits mapped so that unsigned order is numeric order (the sign
// bit set for positives, every bit flipped for negatives), carrying each
// key's position (12 bytes a move, not a pair's 16 and its key's 8).
// Without NaN or −0, which load excludes, equal keys are equal values and
// stability keeps them in position order. pdqsort through comparePairs
// took a third of a column's summary.
func (w *columnScratch) sortPairs() {
	n := len(w.pairs)
	keys, keys2 := w.keys[:n], w.keys2[:n]
	idx, idx2 := w.idx[:n], w.idx2[:n]
	var counts [8][256]int32
	for k, p := range w.pairs {
		b := math.Float64bits(p.x)
		if b>>63 != 0 {
			b = ^b
		} else {
			b |= 1 << 63
		}
		keys[k] = b
		idx[k] = uint32(k)
		for d := range 8 {
			counts[d][byte(b>>(8*d))]++
		}
	}
	for d := range 8 {
		c := &counts[d]
		if int(c[byte(keys[0]>>(8*d))]) == n {
			continue // every key has this byte
		}
		var sum int32
		for i := range c {
			c[i], sum = sum, sum+c[i]
		}
		for k, key := range keys {
			at := c[byte(key>>(8*d))]
			c[byte(key>>(8*d))]++
			keys2[at], idx2[at] = key, idx[k]
		}
		keys, keys2 = keys2, keys
		idx, idx2 = idx2, idx
	}
	all := w.all
	for k, i := range idx {
		w.pairs[k] = pair{all[i], int(i)}
	}
}
