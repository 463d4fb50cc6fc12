package dist

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/stat/distuv"
)

// cdfCases are the families with a CDF, at the parameters of cases.
func cdfCases(t *testing.T) []struct {
	f CDF
	p []float64
} {
	var out []struct {
		f CDF
		p []float64
	}
	for _, c := range cases {
		if f, ok := lookup(t, c.name).(CDF); ok {
			out = append(out, struct {
				f CDF
				p []float64
			}{f, c.p})
		}
	}
	if len(out) != 11 {
		t.Fatalf("%d families have a CDF, want 11", len(out))
	}
	return out
}

// gonumCDF is F(x) and 1 − F(x) computed by gonum, or by a textbook formula
// for the families gonum lacks.
func gonumCDF(name string, x float64, p []float64) (float64, float64) {
	type cdfer interface {
		CDF(float64) float64
		Survival(float64) float64
	}
	var d cdfer
	switch name {
	case "normal":
		d = distuv.Normal{Mu: p[0], Sigma: p[1]}
	case "student_t":
		d = distuv.StudentsT{Nu: p[0], Mu: p[1], Sigma: p[2]}
	case "laplace":
		d = distuv.Laplace{Mu: p[0], Scale: p[1]}
	case "lognormal":
		d = distuv.LogNormal{Mu: p[0], Sigma: p[1]}
	case "gamma":
		d = distuv.Gamma{Alpha: p[0], Beta: p[1]}
	case "inv_gamma":
		d = distuv.InverseGamma{Alpha: p[0], Beta: p[1]}
	case "exponential":
		d = distuv.Exponential{Rate: p[0]}
	case "beta":
		d = distuv.Beta{Alpha: p[0], Beta: p[1]}
	case "half_normal":
		n := distuv.Normal{Mu: 0, Sigma: p[0]}
		return 2*n.CDF(x) - 1, 2 * n.Survival(x)
	case "cauchy":
		f := 0.5 + math.Atan((x-p[0])/p[1])/math.Pi
		return f, 1 - f
	case "half_cauchy":
		f := 2 / math.Pi * math.Atan(x/p[0])
		return f, 1 - f
	}
	return d.CDF(x), d.Survival(x)
}

// TestLogCDFMatchesGonum compares exp of both log tails with gonum's CDF
// and survival function at points across the support and in both tails.
func TestLogCDFMatchesGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, c := range cdfCases(t) {
		lo, hi := c.f.Support(c.p)
		var xs []float64
		for range 40 {
			xs = append(xs, interior(c.f, c.p, rng))
		}
		for _, x := range []float64{-200, -30, -8, -1e-3, 1e-6, 1e-3, 0.01, 0.999, 8, 30, 200, 1e4} {
			if x > lo && x < hi {
				xs = append(xs, x)
			}
		}
		for _, x := range xs {
			lf, ls := c.f.LogCDF(x, c.p)
			wf, ws := gonumCDF(c.f.Name(), x, c.p)
			for _, pair := range [][2]float64{{math.Exp(lf), wf}, {math.Exp(ls), ws}} {
				if got, want := pair[0], pair[1]; !(math.Abs(got-want) <= 1e-9*want+1e-14) {
					t.Errorf("%s%v at x = %v: CDF tails %v, %v; gonum %v, %v", c.f.Name(), c.p, x, math.Exp(lf), math.Exp(ls), wf, ws)
				}
			}
		}
		// Outside the support the CDF is 0 below and 1 above.
		if !math.IsInf(lo, -1) {
			if lf, ls := c.f.LogCDF(lo-1, c.p); !math.IsInf(lf, -1) || ls != 0 {
				t.Errorf("%s below its support: log F = %v, log(1 − F) = %v", c.f.Name(), lf, ls)
			}
		}
	}
}

// TestLogCDFFarTails checks log F where F underflows, against values
// computed with mpmath at 40 digits.
func TestLogCDFFarTails(t *testing.T) {
	for _, c := range []struct {
		name string
		p    []float64
		x    float64
		want float64
		up   bool // compare log(1 − F)
	}{
		{"normal", []float64{0, 1}, -5, -15.064998393988725736, false},
		{"normal", []float64{0, 1}, -20, -203.91715537109726394, false},
		{"normal", []float64{0, 1}, -36.9, -685.33288316535061216, false},
		{"normal", []float64{0, 1}, -37.1, -692.73828071562329266, false},
		{"normal", []float64{0, 1}, 40, -804.60844201375378817, true},
		{"normal", []float64{2, 0.5}, -48, -5005.5242086942050886, false},
		{"normal", []float64{0, 1}, -1000, -500007.82669481218431, false},
		{"normal", []float64{0, 1}, 3, -0.0013508099647481937988, false},
		{"normal", []float64{0, 1}, -10, -7.6198530241605260704e-24, true},
		{"student_t", []float64{3, 0, 1}, -1e6, -41.348808234851822331, false},
		{"student_t", []float64{3, 0, 2}, 60, -10.10986243376751041, true},
		{"gamma", []float64{2.5, 1.5}, 300, -441.11748001892941222, true},
		{"gamma", []float64{2.5, 1.5}, 1e-6, -34.726088298415868875, false},
		{"lognormal", []float64{0.1, 0.6}, 1e-20, -2963.5668454984796232, false},
	} {
		f := lookup(t, c.name).(CDF)
		lf, ls := f.LogCDF(c.x, c.p)
		got := lf
		if c.up {
			got = ls
		}
		if math.Abs(got-c.want) > 1e-11*math.Abs(c.want) {
			t.Errorf("%s%v at %v: log tail %.17g, want %.17g", c.name, c.p, c.x, got, c.want)
		}
	}
}

// TestCDFGradients checks ∂F/∂pⱼ = rⱼ f against finite differences of F, and
// that the parameters without a closed form are reported as such.
func TestCDFGradients(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	set := &fd.Settings{Formula: fd.Central, Step: 1e-6}
	for _, c := range cdfCases(t) {
		r := make([]float64, len(c.p))
		for range 5 {
			x := interior(c.f, c.p, rng)
			c.f.CDFGrad(r, x, c.p)
			fx := math.Exp(c.f.LogProb(x, c.p))
			want := fd.Gradient(nil, func(q []float64) float64 {
				lf, _ := c.f.LogCDF(x, q)
				return math.Exp(lf)
			}, c.p, set)
			for j := range c.p {
				if !c.f.CDFGradIn(j) {
					if !math.IsNaN(r[j]) {
						t.Errorf("%s: CDFGrad in %s = %v, want NaN", c.f.Name(), c.f.ParamNames()[j], r[j])
					}
					continue
				}
				if got := r[j] * fx; math.Abs(got-want[j]) > 1e-6*math.Max(1, math.Abs(want[j])) {
					t.Errorf("%s%v at x = %v: dF/d%s = %v, finite differences %v", c.f.Name(), c.p, x, c.f.ParamNames()[j], got, want[j])
				}
			}
			// And dF/dx = f.
			dx := fd.Derivative(func(y float64) float64 { lf, _ := c.f.LogCDF(y, c.p); return math.Exp(lf) }, x, set)
			if math.Abs(dx-fx) > 1e-6*math.Max(1, fx) {
				t.Errorf("%s at x = %v: dF/dx %v, density %v", c.f.Name(), x, dx, fx)
			}
		}
	}
}
