package plot

import "testing"

// The legend goes to the top when the lines end low (a falling error
// rate) and stays at the bottom when they end high (a rising AUC).
func TestEndsLow(t *testing.T) {
	falling := map[string][]float64{"a": {0.6, 0.3, 0.05}, "b": {0.55, 0.25, 0.04}}
	rising := map[string][]float64{"a": {0.6, 0.9, 0.99}, "b": {0.5, 0.9, 0.98}}
	if !endsLow(falling, []string{"a", "b"}) {
		t.Error("falling lines: legend not at the top")
	}
	if endsLow(rising, []string{"a", "b"}) {
		t.Error("rising lines: legend at the top")
	}
}
