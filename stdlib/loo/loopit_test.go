package loo_test

import (
	"math"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/infer"
	"github.com/kml-lang/kml/runtime/ecdf"
	rloo "github.com/kml-lang/kml/runtime/loo"
	"github.com/kml-lang/kml/runtime/rng"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

// pitY is a small data set for the conjugate normal model y_i ~
// normal(mu, 1), mu ~ normal(0, 3): with six points, leaving one out moves
// mu's posterior by up to one sd, so LOO-PIT and the in-sample PIT differ.
var pitY = []float64{-1.5, 0.2, 0.8, 2.9, -0.3, 1.1}

const pitModel = `
let y = [-1.5, 0.2, 0.8, 2.9, -0.3, 1.1]
model m {
  mu ~ normal(0, 3)
  y ~ normal(mu, 1)
}
let post = sample(m, seed: 2, chains: 4, warmup: 500, draws: 5000)
let r = loo_pit(post, seed: 3)
`

// exactPIT is P(ỹ_i ≤ y_i | y_−i) of the conjugate model, by exact
// leave-one-out: mu | y_−i is normal with precision 1/9 + (n−1) and mean
// Σ_{j≠i} y_j / precision, so ỹ_i | y_−i is normal(mean, √(1 + 1/prec)).
func exactPIT(y []float64) []float64 {
	out := make([]float64, len(y))
	for i, yi := range y {
		prec, sum := 1/9.0, 0.0
		for j, v := range y {
			if j != i {
				prec, sum = prec+1, sum+v
			}
		}
		out[i] = 0.5 * math.Erfc(-(yi-sum/prec)/math.Sqrt(2*(1+1/prec)))
	}
	return out
}

// TestLOOPITConjugate checks the LOO-PIT values three ways. (1) By hand:
// the PSIS weights of each point's log likelihood at the posterior's draws
// (computed here from mu's draws), summed over the draws whose replicate
// (regenerated here as ppc draws it, from the record of ppc with the same
// seed) is at most y_i: equal to 1e-12. (2) Against exact leave-one-out
// (exactPIT): the estimate's error is Monte Carlo error, a weighted mean
// of indicators, whose sd is √(Σₛ w̃ₛ² p(1−p)) for independent draws
// (NUTS's draws of one Gaussian parameter are about as good); with 20,000
// draws that is 0.001–0.004 here, and the tolerance is 4 sd. The
// in-sample PIT (equal weights, what a test without the LOO weights
// would compute) is off by 0.008–0.038 at every point, beyond tolerances
// of 0.004–0.014, and the test checks that it would fail at three or more.
// (3) The band is the one sbc uses: ecdf.NewBand with the same n, L,
// alpha, null samples and stream, and the p-value its PValue of the
// ranks ⌊p (L+1)⌋.
func TestLOOPITConjugate(t *testing.T) {
	in, _ := kmltest.Run(t, pitModel+`let check = ppc(post, seed: 3)
`)
	res := kmltest.Lookup[*eval.Record](t, in, "r").Of().(*infer.LOOPIT)
	post := kmltest.Lookup[*infer.Posterior](t, in, "post")
	muv, _ := post.Attr("mu")
	mu := muv.(*eval.Vec).Data
	check := kmltest.Lookup[*eval.Record](t, in, "check").Of().(*infer.Predictive)
	rows := check.Data[0].Rows
	if len(rows) != len(mu) {
		t.Fatalf("ppc has %d replicates for %d draws", len(rows), len(mu))
	}
	exact := exactPIT(pitY)
	wrong := 0
	for i, y := range pitY {
		ll := make([]float64, len(mu))
		for s, m := range mu {
			ll[s] = -0.5*math.Log(2*math.Pi) - 0.5*(y-m)*(y-m)
		}
		lw, _ := rloo.LogWeights(ll, 1)
		byHand, sumW2, inSample := 0.0, 0.0, 0.0
		for s := range mu {
			w := math.Exp(lw[s])
			sumW2 += w * w
			if rows[s][i] <= y {
				byHand += w
				inSample += 1 / float64(len(mu))
			}
		}
		if math.Abs(res.PIT[i]-byHand) > 1e-12 {
			t.Errorf("point %d: PIT %.12f, by hand %.12f", i+1, res.PIT[i], byHand)
		}
		tol := 4 * math.Sqrt(sumW2*exact[i]*(1-exact[i]))
		if d := math.Abs(res.PIT[i] - exact[i]); d > tol {
			t.Errorf("point %d: PIT %.4f, exact LOO %.4f: off by %.4f > %.4f", i+1, res.PIT[i], exact[i], d, tol)
		}
		if math.Abs(inSample-exact[i]) > tol {
			wrong++
		}
		t.Logf("point %d: LOO-PIT %.4f, exact %.4f, in-sample %.4f, tolerance %.4f", i+1, res.PIT[i], exact[i], inSample, tol)
	}
	if wrong < 3 {
		t.Errorf("the in-sample PIT is within tolerance at %d of %d points: the test cannot tell it from LOO-PIT", len(pitY)-wrong, len(pitY))
	}
	L := infer.PITPoints
	band, err := ecdf.NewBand(len(pitY), L, 0.05, 2000, rng.New(3, rng.SBCNull))
	if err != nil {
		t.Fatal(err)
	}
	ranks := make([]int, len(pitY))
	for i, p := range res.PIT {
		ranks[i] = min(int(p*float64(L+1)), L)
	}
	if res.Band.L != L || !equalInts(res.Band.Lower, band.Lower) || !equalInts(res.Band.Upper, band.Upper) || res.Band.Gamma != band.Gamma {
		t.Errorf("band differs from sbc's: L %d, gamma %v (want %v)", res.Band.L, res.Band.Gamma, band.Gamma)
	}
	if !equalInts(res.Ranks, ranks) || res.PValue != band.PValue(ranks) {
		t.Errorf("ranks %v p %v, want %v p %v", res.Ranks, res.PValue, ranks, band.PValue(ranks))
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestLOOPITDiscrete: for counts the PIT is randomised, so each value
// lies between the weighted shares of replicates below and at most y_i
// (computed here from the draws and the ppc replicates of the same seed),
// and strictly inside where replicates equal y_i; the record says the
// variable is discrete.
func TestLOOPITDiscrete(t *testing.T) {
	in, _ := kmltest.Run(t, `
let y = [2, 0, 3, 1, 4, 2, 1, 5]
model m {
  lam ~ gamma(2, 1)
  y ~ poisson(lam)
}
let post = sample(m, seed: 4, chains: 2, warmup: 300, draws: 1000)
let r = loo_pit(post, seed: 9)
let check = ppc(post, seed: 9)
`)
	rec := kmltest.Lookup[*eval.Record](t, in, "r")
	res := rec.Of().(*infer.LOOPIT)
	if !res.Discrete[0] {
		t.Fatal("poisson counts not taken as discrete")
	}
	post := kmltest.Lookup[*infer.Posterior](t, in, "post")
	lv, _ := post.Attr("lam")
	lam := lv.(*eval.Vec).Data
	rows := kmltest.Lookup[*eval.Record](t, in, "check").Of().(*infer.Predictive).Data[0].Rows
	y := []float64{2, 0, 3, 1, 4, 2, 1, 5}
	for i, yi := range y {
		ll := make([]float64, len(lam))
		lg, _ := math.Lgamma(yi + 1)
		for s, l := range lam {
			ll[s] = yi*math.Log(l) - l - lg
		}
		lw, _ := rloo.LogWeights(ll, 1)
		below, atMost := 0.0, 0.0
		for s := range lam {
			w := math.Exp(lw[s])
			if rows[s][i] < yi {
				below += w
			}
			if rows[s][i] <= yi {
				atMost += w
			}
		}
		if p := res.PIT[i]; p < below-1e-12 || p > atMost+1e-12 || (atMost > below && (p == below || p == atMost)) {
			t.Errorf("point %d: PIT %v outside (%v, %v)", i+1, p, below, atMost)
		}
	}
}

// TestLOOPITRefusals: a multivariate observation has no PIT per point.
func TestLOOPITRefusals(t *testing.T) {
	kmltest.ExpectError(t, `
let y = [0.5, -0.2]
model m {
  mu ~ normal(0, 1)
  y ~ multi_normal([mu, mu], [[1, 0], [0, 1]])
}
let post = sample(m, seed: 1, chains: 1, warmup: 100, draws: 100)
let r = loo_pit(post)`, "LOO-PIT needs one observed value per point")
	kmltest.ExpectError(t, pitModel+`let q = loo_pit(post, alpha: 2)`, "alpha must be between 0 and 1")
}
