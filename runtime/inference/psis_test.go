package inference

import (
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestPSISAgreesWithLoo: PSIS and GPDFit against R's loo (psis with
// r_eff = 1) on the deterministic log ratios of testdata/psis_loo.R, whose
// output is testdata/psis_loo.csv: k̂ and every smoothed log weight to
// 1e-9.
func TestPSISAgreesWithLoo(t *testing.T) {
	data, err := os.ReadFile("testdata/psis_loo.csv")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Split(line, ",")
		nums := make([]float64, len(f))
		for i, s := range f {
			if nums[i], err = strconv.ParseFloat(s, 64); err != nil {
				t.Fatal(err)
			}
		}
		scale, s, wantK, want := nums[1], int(nums[2]), nums[3], nums[4:]
		lw := make([]float64, s)
		for i := range lw {
			k := float64(i + 1)
			lw[i] = scale*-math.Log(1-(k-0.5)/float64(s)) + 0.3*math.Sin(7*k)
		}
		got, k := PSIS(lw)
		if math.Abs(k-wantK) > 1e-9 {
			t.Errorf("scale %v, S %d: k̂ %.12f, loo %.12f", scale, s, k, wantK)
		}
		worst := 0.0
		for i := range got {
			worst = math.Max(worst, math.Abs(got[i]-want[i]))
		}
		if worst > 1e-9 {
			t.Errorf("scale %v, S %d: smoothed log weights differ from loo's by up to %g", scale, s, worst)
		}
		t.Logf("scale %v, S %d: k̂ %.6f (loo %.6f), weights within %.1g", scale, s, k, wantK, worst)
	}
}
