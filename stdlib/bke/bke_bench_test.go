package bke_test

import (
	"bytes"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/infer"
	_ "github.com/kml-lang/kml/stdlib"
)

// The posterior of ell with τ² = 1 and ell ~ Gamma(1, 1), sampled with
// 4 chains × (1000 + 1000) as the Stan comparison in project issue 5 was:
// Stan reached about 85 bulk ESS of ell per wall second at n = 800, m = 20,
// D = 1 and 36 at n = 900, m = 30, D = 2 on this kind of 2-core machine.
var stanShapes = []struct {
	name     string
	stanESSs float64 // Stan's bulk ESS of ell per wall second
	src      string
}{
	{"n=800,m=20,D=1", 85, `
fn mix(n, s) = concat(draw(normal(0, 1), n / 2, seed: s), draw(laplace(0, 1 / sqrt(2)), n / 2, seed: s + 1))
let x = mix(800, 1)
let z = mix(20, 11)
`},
	{"n=900,m=30,D=2", 36, `
fn cluster(k, n, s) = cbind(draw(normal(10 * (k % 3), 1), n, seed: s + 2 * k), draw(normal(10 * floor(k / 3), 1), n, seed: s + 2 * k + 1))
fn grid(k, n, s) = if k == 0 then cluster(0, n, s) else rbind(grid(k - 1, n, s), cluster(k, n, s))
let x = grid(8, 100, 1)
let zs = grid(8, 4, 101)
let z = zs[1:30, :]
`},
}

func BenchmarkBKEESSPerSecond(b *testing.B) {
	for _, shape := range stanShapes {
		b.Run(shape.name, func(b *testing.B) {
			var essPerSec, msPerGrad float64
			for i := 0; i < b.N; i++ {
				var out bytes.Buffer
				in := eval.New(eval.Options{Stdout: &out, Stderr: &out})
				_, err := in.Eval("bench.kml", shape.src+`
model m {
  ell ~ gamma(1, 1)
  x ~ bke(rbf(ell), noise: 1, landmarks: z)
}
let post = sample(m, chains: 4, warmup: 1000, draws: 1000, seed: `+eval.FormatNumber(float64(i+1))+`)
`)
				if err != nil {
					b.Fatal(err)
				}
				v, _ := in.Lookup("post")
				post := v.(*infer.Posterior)
				secs := post.Result.Elapsed.Seconds()
				essPerSec += post.Summary.Params[0].ESSBulk / secs
				// Wall time per evaluation on 2 cores, counted per core.
				msPerGrad += 1000 * secs * 2 / float64(post.Result.GradEvals)
			}
			b.ReportMetric(essPerSec/float64(b.N), "ess_bulk/s")
			b.ReportMetric(essPerSec/float64(b.N)/shape.stanESSs, "x_stan")
			b.ReportMetric(msPerGrad/float64(b.N), "ms/grad")
		})
	}
}
