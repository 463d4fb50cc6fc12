package bke

import (
	"strings"
	"testing"

	rbke "github.com/kml-lang/kml/runtime/bke"
)

// TestDegenerateMessage checks the words a user reads for each pathology
// rbke.Degenerate finds.
func TestDegenerateMessage(t *testing.T) {
	for _, c := range []struct {
		f    rbke.Finding
		says []string
	}{
		{rbke.Finding{Kind: rbke.ConstantEmbedding, Ell: []float64{3200}, Amp: 1}, []string{"lengthscale 3.2e3 is so large", "≈ 1", "fix tau2"}},
		{rbke.Finding{Kind: rbke.ConstantEmbedding, Ell: []float64{5000, 40}, Amp: 2}, []string{"lengthscales [5e3, 40] are", "≈ 2"}},
		{rbke.Finding{Kind: rbke.NoiseBelowRounding, Ell: []float64{1}, Tau2: 1e-40, MeanK2: 0.25}, []string{"tau2 = 1e-40", "rounding", "= 0.25"}},
		{rbke.Finding{Kind: rbke.Underflow, Ell: []float64{1e-7}}, []string{"lengthscale 1e-7 is so small", "underflows"}},
		{rbke.Finding{Kind: rbke.NotDegenerate}, nil},
	} {
		msg := degenerateMessage(c.f)
		if c.says == nil && msg != "" {
			t.Errorf("%+v: message %q without degeneracy", c.f, msg)
		}
		for _, s := range c.says {
			if !strings.Contains(msg, s) {
				t.Errorf("%+v: message %q does not say %q", c.f, msg, s)
			}
		}
	}
}
