package ktest

import (
	"context"
	"math"
	"os"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"
)

// TestBKLLevelUnderTheNull: the rejection rate of the "bkl" tests at their
// default settings (DefaultLandmarks, DefaultTau2, DefaultDraws) lies
// within 3 SE of α = 0.05 over 200 seeded replications with 199
// permutations (SE 0.0154, band ±0.046), for MMD and HSIC, normal and
// Student-t(3) data, at n = 40 (m = n/5: 16 landmarks of the 80 pooled
// rows for MMD, 8 of 40 for HSIC) and for MMD at n = 250 (m = 50 of 500,
// τ² = 5). It runs only with KML_LONG=1 (several minutes of CPU):
//
//	KML_LONG=1 go test ./runtime/ktest -run TestBKLLevel -v
//
// TestLevelUnderTheNull checks "bkl" at n = 30 on every run.
func TestBKLLevelUnderTheNull(t *testing.T) {
	if os.Getenv("KML_LONG") == "" {
		t.Skip("KML_LONG=1 runs the 200-replication level check of \"bkl\"")
	}
	const reps, perms, alpha = 200, 199, 0.05
	choose := func(data *mat.Dense, seed uint64) (Chosen, error) {
		return ChooseBKL(context.Background(), data, seed, BKLOptions{})
	}
	se := math.Sqrt(alpha * (1 - alpha) / reps)
	for _, c := range []struct {
		name        string
		hsic, heavy bool
		n           int
	}{
		{"mmd", false, false, 40}, {"hsic", true, false, 40},
		{"mmd t3", false, true, 40}, {"hsic t3", true, true, 40},
		{"mmd n250", false, false, 250},
	} {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			// Streams of their own: 2705.. for n = 40, 2805.. for n = 250.
			stream := uint64(2705)
			if c.n != 40 {
				stream = 2805
			}
			rate := choiceLevel(t, choose, stream, c.hsic, c.heavy, reps, c.n, perms)
			if math.Abs(rate-alpha) > 3*se {
				t.Errorf("rejection rate %.3f under the null, want %.2f ± %.3f", rate, alpha, 3*se)
			}
			t.Logf("%s: rejection rate %.3f ± %.4f (SE) over %d replications, n = %d, %d permutations, %.1f s",
				c.name, rate, se, reps, c.n, perms, time.Since(start).Seconds())
		})
	}
}
