package gp_test

import (
	"fmt"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

// BenchmarkHsgpVsMultiNormal is the speed figure of hsgp (issue 39, item
// 4): one gradient of the log density, as NUTS takes at every leapfrog
// step, of a GP regression at n = 2000 with an rbf kernel whose amplitude
// and lengthscale are parameters, written two ways: the latent function
// through hsgp with m = 30 basis functions and 30 standard normal weights
// (O(n·m) per gradient), and the exact marginal
// y ~ multi_normal(0, s²·K + σ²I) (O(n³) per gradient: the Gram matrix on
// the tape and its Cholesky factor).
func BenchmarkHsgpVsMultiNormal(b *testing.B) {
	const n = 2000
	src := fmt.Sprintf(`
let x = draw(uniform(-3, 3), %d, seed: 1)
let y = sin(2 * x) + draw(normal(0, 0.3), %d, seed: 2)
model approx {
  ell ~ lognormal(0, 1)
  s ~ half_normal(1)
  sigma ~ half_normal(1)
  beta[30] ~ normal(0, 1)
  y ~ normal(hsgp(x, s^2 * rbf(ell), m: 30, c: 2) @ beta, sigma)
}
model exact {
  ell ~ lognormal(0, 1)
  s ~ half_normal(1)
  sigma ~ half_normal(1)
  y ~ multi_normal(rep(0, %d), s^2 * gram(rbf(ell), x) + sigma^2 * eye(%d))
}
`, n, n, n, n)
	in, _ := kmltest.Run(b, src)
	for _, name := range []string{"hsgp", "multi_normal"} {
		b.Run(name, func(b *testing.B) {
			mname := map[string]string{"hsgp": "approx", "multi_normal": "exact"}[name]
			m := kmltest.Lookup[*eval.Model](b, in, mname)
			c, err := model.CompileFor(in, m, nil, model.Terms{Prior: true, Likelihood: true, Jacobian: true})
			if err != nil {
				b.Fatal(err)
			}
			d := c.NewDensityFor(in)
			q := make([]float64, len(c.Names()))
			grad := make([]float64, len(q))
			for i := range q {
				q[i] = 0.1
			}
			if _, err := d.LogDensity(grad, q); err != nil { // records the tape
				b.Fatal(err)
			}
			for i := 0; b.Loop(); i++ {
				q[0] = 0.1 + 1e-3*float64(i%7)
				if _, err := d.LogDensity(grad, q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
