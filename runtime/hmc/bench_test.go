package hmc

import (
	"context"
	"testing"

	"github.com/kml-lang/kml/runtime/internal/testmodel"
)

// BenchmarkNUTSNormal100 samples a 100-dimensional standard normal (4 chains
// × (1000 + 1000)) and reports the smallest bulk ESS per second and per
// gradient evaluation.
func BenchmarkNUTSNormal100(b *testing.B) {
	var essPerSec, essPerGrad float64
	for i := 0; i < b.N; i++ {
		r, err := Sample(context.Background(), factory(testmodel.StdNormal{D: 100}), Settings{Seed: uint64(i + 1)})
		if err != nil {
			b.Fatal(err)
		}
		minESS := 1e300
		for k := 0; k < 100; k++ {
			if e := ESSBulk(column(r, k, ident)); e < minESS {
				minESS = e
			}
		}
		essPerSec += minESS / r.Elapsed.Seconds()
		essPerGrad += minESS / float64(r.GradEvals)
	}
	b.ReportMetric(essPerSec/float64(b.N), "ess_bulk/s")
	b.ReportMetric(essPerGrad/float64(b.N), "ess/grad")
}
