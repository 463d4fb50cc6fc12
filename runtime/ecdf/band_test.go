package ecdf

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestBandCoverage: the band is simultaneous at 1−α. Fresh samples of
// uniform ranks, drawn by brute force on their own stream, stay inside
// every point of it 95% of the time, within the Monte Carlo error of the
// band's simulation (2000 null samples) and of this check's (4000): the
// sd of the difference is √(.0475/2000 + .0475/4000) ≈ 0.006; we allow
// 4 sd.
func TestBandCoverage(t *testing.T) {
	for _, c := range []struct{ n, L int }{{50, 20}, {100, 99}, {30, 200}} {
		b, err := NewBand(c.n, c.L, 0.05, 2000, rand.New(rand.NewPCG(1, uint64(c.L))))
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(2, uint64(c.L)))
		const trials = 4000
		in := 0
		ranks := make([]int, c.n)
		for range trials {
			for j := range ranks {
				ranks[j] = r.IntN(c.L + 1)
			}
			// Inside by the band's bounds, checked from the counts here.
			ok := true
			k := 0
			for i := 1; i <= c.L; i++ {
				k = 0
				for _, x := range ranks {
					if x < i {
						k++
					}
				}
				if k < b.Lower[i-1] || k > b.Upper[i-1] {
					ok = false
					break
				}
			}
			if ok {
				in++
			}
		}
		cover := float64(in) / trials
		if math.Abs(cover-0.95) > 4*0.006 {
			t.Errorf("n %d, L %d: the band holds %.4f of uniform samples, want 0.95 ± 0.024", c.n, c.L, cover)
		}
		// The band is around the expected count n·z and narrower than
		// the trivial one.
		for i, z := range b.Z {
			e := float64(c.n) * z
			if float64(b.Lower[i]) > e || float64(b.Upper[i]) < e || (b.Lower[i] == 0 && b.Upper[i] == c.n) {
				t.Fatalf("n %d, L %d: band at z %.3f is [%d, %d], expected count %.1f", c.n, c.L, z, b.Lower[i], b.Upper[i], e)
			}
		}
	}
}

// TestPValue: uniform ranks give p-values spread over (0, 1) (about 5%
// below 0.05); ranks piled at one end (a miscalibration) give a tiny one;
// and a sample is outside the band when its p-value is at most α.
func TestPValue(t *testing.T) {
	const n, L = 60, 30
	b, err := NewBand(n, L, 0.05, 2000, rand.New(rand.NewPCG(3, 0)))
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(4, 0))
	ranks := make([]int, n)
	small, agree := 0, 0
	const trials = 2000
	for range trials {
		for j := range ranks {
			ranks[j] = r.IntN(L + 1)
		}
		p := b.PValue(ranks)
		if p <= 0.05 {
			small++
		}
		if (p <= 0.05) == !b.Inside(ranks) {
			agree++
		}
	}
	if f := float64(small) / trials; math.Abs(f-0.05) > 0.02 {
		t.Errorf("share of p ≤ 0.05 under the null = %.3f, want 0.05 ± 0.02", f)
	}
	if f := float64(agree) / trials; f < 0.99 {
		t.Errorf("band and p-value agree on %.3f of samples, want ≥ 0.99", f)
	}
	for j := range ranks {
		ranks[j] = r.IntN(L/3 + 1) // too low: the prior draw below most posterior draws
	}
	if p := b.PValue(ranks); p > 0.001 {
		t.Errorf("p-value of ranks in the lowest third = %g, want ≤ 0.001", p)
	}
}
