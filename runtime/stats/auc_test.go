package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// AUC agrees with counting every positive–negative pair.
func TestAUCPairs(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 0x617563))
	for trial := 0; trial < 50; trial++ {
		n := 2 + r.IntN(60)
		s := make([]float64, n)
		p := make([]bool, n)
		for i := range s {
			s[i] = float64(r.IntN(8)) // many ties
			if trial%5 == 0 {
				s[i] = r.NormFloat64()
			}
			p[i] = r.IntN(3) == 0
		}
		p[0], p[1] = true, false
		got, err := AUC(s, p)
		if err != nil {
			t.Fatal(err)
		}
		var wins, pairs float64
		for i := range s {
			for j := range s {
				if p[i] && !p[j] {
					pairs++
					switch {
					case s[i] > s[j]:
						wins++
					case s[i] == s[j]:
						wins += 0.5
					}
				}
			}
		}
		if want := wins / pairs; math.Abs(got-want) > 1e-12 {
			t.Fatalf("trial %d: AUC %v, pair count %v", trial, got, want)
		}
	}
}

func TestAUCErrors(t *testing.T) {
	if _, err := AUC([]float64{1, 2}, []bool{true, true}); err == nil {
		t.Error("one class: no error")
	}
	if _, err := AUC([]float64{1, math.NaN()}, []bool{true, false}); err == nil {
		t.Error("NaN: no error")
	}
	if got, _ := AUC([]float64{math.Inf(1), math.Inf(-1)}, []bool{true, false}); got != 1 {
		t.Errorf("infinite scores: %v, want 1", got)
	}
}
