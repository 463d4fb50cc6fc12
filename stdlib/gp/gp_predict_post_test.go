package gp_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/infer"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

const gpPostSrc = `
let x = [[0.1, 1.0], [0.5, -0.3], [0.9, 0.4], [1.3, 1.1], [1.7, -0.8], [2.1, 0.2], [2.6, 0.9], [3.0, -0.1]]
let y = [0.2, 0.6, 0.8, 0.9, 0.7, 0.3, -0.1, -0.4]
let xt = [[0.2, 0.1], [1.5, 0.5], [4.0, 0.0]]
model g {
  ell[2] ~ lognormal(0, 1)
  a ~ lognormal(0, 1)
  sigma ~ lognormal(-1, 1)
  f ~ gp(x, a * rbf(ell))
  y ~ normal(f, sigma)
}
let post = sample(g, chains: 2, warmup: 40, draws: 15, seed: 11)
let pr = predict(post, xt, draws: 10, level: 0.8)
`

// TestGPPredictPosterior: predict after sample is the equal-weight mixture
// of the per-draw predictives. The test recomputes each draw's exact GP
// predictive with a dense inverse of K + σ²I built from the kernel's
// formula, at the draws predict says it uses (10 of 30, evenly spaced),
// then the mixture's mean and total variance, and checks that the mixture
// CDF, summed independently, is 0.1 and 0.9 at the returned quantiles.
func TestGPPredictPosterior(t *testing.T) {
	in, _ := kmltest.Run(t, gpPostSrc)
	post := kmltest.Lookup[*infer.Posterior](t, in, "post")
	pr := kmltest.Lookup[*eval.Record](t, in, "pr")
	vec := func(name string) []float64 {
		v, ok := pr.Attr(name)
		if !ok {
			t.Fatalf("predict has no %s", name)
		}
		return v.(*eval.Vec).Data
	}
	xs := [][]float64{{0.1, 1.0}, {0.5, -0.3}, {0.9, 0.4}, {1.3, 1.1}, {1.7, -0.8}, {2.1, 0.2}, {2.6, 0.9}, {3.0, -0.1}}
	ys := []float64{0.2, 0.6, 0.8, 0.9, 0.7, 0.3, -0.1, -0.4}
	xt := [][]float64{{0.2, 0.1}, {1.5, 0.5}, {4.0, 0.0}}
	n, m := len(xs), len(xt)
	total := post.DrawCount()
	if total != 30 {
		t.Fatalf("%d draws", total)
	}
	const k = 10
	var mus, fvs, yvs [k][]float64
	for j := range k {
		rec := post.DrawValues(j * total / k)
		ellv, _ := rec.Attr("ell")
		av, _ := rec.Attr("a")
		sv, _ := rec.Attr("sigma")
		ell := ellv.(*eval.Vec).Data
		a, s := float64(av.(eval.Num)), float64(sv.(eval.Num))
		kf := func(p, q []float64) float64 {
			d0, d1 := (p[0]-q[0])/ell[0], (p[1]-q[1])/ell[1]
			return a * math.Exp(-0.5*(d0*d0+d1*d1))
		}
		c := mat.NewDense(n, n, nil)
		for i := range n {
			for l := range n {
				c.Set(i, l, kf(xs[i], xs[l]))
			}
			c.Set(i, i, c.At(i, i)+s*s)
		}
		var inv mat.Dense
		if err := inv.Inverse(c); err != nil {
			t.Fatal(err)
		}
		for i := range m {
			ks := mat.NewVecDense(n, nil)
			for l := range n {
				ks.SetVec(l, kf(xt[i], xs[l]))
			}
			var w mat.VecDense
			w.MulVec(&inv, ks)
			mus[j] = append(mus[j], mat.Dot(&w, mat.NewVecDense(n, ys)))
			fv := a - mat.Dot(&w, ks)
			fvs[j] = append(fvs[j], fv)
			yvs[j] = append(yvs[j], fv+s*s)
		}
	}
	fm, fv, yv := vec("f_mean"), vec("f_var"), vec("y_var")
	flo, fhi, ylo, yhi := vec("f_lower"), vec("f_upper"), vec("y_lower"), vec("y_upper")
	cdf := func(i int, x float64, vs [k][]float64) float64 {
		c := 0.0
		for j := range k {
			c += 0.5 * math.Erfc(-(x-mus[j][i])/math.Sqrt(2*vs[j][i]))
		}
		return c / k
	}
	for i := range m {
		var mean, sq, ysq float64
		for j := range k {
			mean += mus[j][i] / k
			sq += (fvs[j][i] + mus[j][i]*mus[j][i]) / k
			ysq += (yvs[j][i] + mus[j][i]*mus[j][i]) / k
		}
		if math.Abs(fm[i]-mean) > 1e-9 || math.Abs(fv[i]-(sq-mean*mean)) > 1e-9 || math.Abs(yv[i]-(ysq-mean*mean)) > 1e-9 {
			t.Errorf("point %d: mean %g var %g y_var %g, brute force %g %g %g", i, fm[i], fv[i], yv[i], mean, sq-mean*mean, ysq-mean*mean)
		}
		for _, c := range []struct {
			x, q float64
			vs   [k][]float64
		}{{flo[i], 0.1, fvs}, {fhi[i], 0.9, fvs}, {ylo[i], 0.1, yvs}, {yhi[i], 0.9, yvs}} {
			if got := cdf(i, c.x, c.vs); math.Abs(got-c.q) > 1e-9 {
				t.Errorf("point %d: the mixture CDF at the %g quantile %g is %g", i, c.q, c.x, got)
			}
		}
	}
}

// TestGPPredictPosteriorNoise: under Student-t noise the y quantiles come
// from seeded draws of each component; the test draws its own sample of
// the mixture (its own stream, f by the per-draw predictive of
// predict(m, values)) and asks for agreement within Monte Carlo error.
func TestGPPredictPosteriorNoise(t *testing.T) {
	src := `
let x = [[0.1], [0.5], [0.9], [1.3], [1.7], [2.1], [2.6], [3.0]]
let y = [0.2, 0.6, 0.8, 2.9, 0.7, 0.3, -0.1, -0.4]
model h {
  ell ~ lognormal(0, 1)
  f ~ gp(x, rbf(ell))
  y ~ student_t(4, f, 0.3)
}
let post = sample(h, chains: 1, warmup: 30, draws: 8, seed: 5)
let pr = predict(post, [[1.0]], draws: 8, samples: 4000, seed: 2)
let ells = post.ell
`
	for i := 1; i <= 8; i++ {
		src += fmt.Sprintf("let p%d = predict(h, [[1.0]], values: {ell: ells[%d]})\n", i, i)
	}
	in, _ := kmltest.Run(t, src)
	pr := kmltest.Lookup[*eval.Record](t, in, "pr")
	var fm, fv []float64
	for i := 1; i <= 8; i++ {
		p := kmltest.Lookup[*eval.Record](t, in, fmt.Sprintf("p%d", i))
		mv, _ := p.Attr("f_mean")
		vv, _ := p.Attr("f_var")
		fm = append(fm, mv.(*eval.Vec).Data[0])
		fv = append(fv, vv.(*eval.Vec).Data[0])
	}
	rng := rand.New(rand.NewPCG(77, 78))
	var ys []float64
	for j := range fm {
		for range 20000 {
			f := fm[j] + math.Sqrt(fv[j])*rng.NormFloat64()
			// t₄ = Z/√(χ²₄/4), χ²₄ the sum of four squared normals.
			var c float64
			for range 4 {
				z := rng.NormFloat64()
				c += z * z
			}
			ys = append(ys, f+0.3*rng.NormFloat64()/math.Sqrt(c/4))
		}
	}
	sort.Float64s(ys)
	lo, hi := ys[len(ys)*5/100], ys[len(ys)*95/100]
	glo, _ := pr.Attr("y_lower")
	ghi, _ := pr.Attr("y_upper")
	gl, gh := glo.(*eval.Vec).Data[0], ghi.(*eval.Vec).Data[0]
	if math.Abs(gl-lo) > 0.05 || math.Abs(gh-hi) > 0.05 {
		t.Errorf("y quantiles %g %g, independent Monte Carlo %g %g", gl, gh, lo, hi)
	}
}
