package infer

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/ecdf"
	rloo "github.com/kml-lang/kml/runtime/loo"
	"github.com/kml-lang/kml/runtime/rng"
)

// LOO-PIT, the leave-one-out probability integral transform (Gabry,
// Simpson, Vehtari, Betancourt and Gelman 2019, "Visualization in Bayesian
// workflow", §5): for each observed point, pᵢ = P(ỹᵢ ≤ yᵢ | y₋ᵢ), which is
// uniform on (0, 1) over the points when the model's predictive
// distribution is calibrated. It is estimated from the posterior without
// refitting, by weighting one replicate per draw with the point's
// Pareto-smoothed leave-one-out importance weights w̃ᵢₛ (as loo's):
// pᵢ = Σₛ w̃ᵢₛ 1[ỹᵢₛ ≤ yᵢ]. For a discrete observation the PIT is
// randomised, pᵢ = Σₛ w̃ᵢₛ 1[ỹᵢₛ < yᵢ] + Uᵢ Σₛ w̃ᵢₛ 1[ỹᵢₛ = yᵢ] with Uᵢ
// uniform (Czado, Gneiting and Held 2009), so that it is uniform too.
// Uniformity is tested, and drawn, with the ECDF band sbc uses
// (runtime/ecdf; Säilynoja, Bürkner and Vehtari 2022) on L points.

// LOOPITSettings are LOO-PIT's settings, all reported in its result.
type LOOPITSettings struct {
	// Seed seeds the replicates (as ppc's), the randomisation of
	// discrete points and the band's null samples, each its own stream.
	Seed uint64
	// Reff is the draws' relative efficiency, which sets PSIS's tail.
	Reff float64
	// Alpha is the band's level; NullSims the null samples it comes from.
	Alpha    float64
	NullSims int
}

// PITPoints is the number of points the ECDF of PIT values is evaluated
// at, L, whatever the number of points n: fine enough that the ECDF's
// steps fall near the PIT values when n is small, and a band table of
// L × (n+1) binomial probabilities that stays small when n is large.
const PITPoints = 100

// loopitStream is the stream of the discrete points' uniforms.
const loopitStream = 0x6c6f6f706974 // "loopit"

// LOOPIT is the LOO-PIT of a posterior: the values, each point's k̂, the
// band and the test.
type LOOPIT struct {
	Model    string
	Settings LOOPITSettings
	Draws    int
	// Names are the observed variables; Points[v] how many points
	// variable v has, Discrete[v] whether its PIT was randomised.
	Names    []string
	Points   []int
	Discrete []bool
	// PIT and K are each point's value and its weights' Pareto k̂.
	PIT, K []float64
	// KThreshold is loo's threshold; Bad counts the k̂ above it.
	KThreshold float64
	Bad        int
	// Ranks are the PIT values on the band's grid, ⌊pᵢ (L+1)⌋ capped at
	// L, so that the ECDF's count below z_j = j/(L+1) is the number of
	// PIT values below z_j.
	Ranks  []int
	Band   *ecdf.Band
	PValue float64
}

// ComputeLOOPIT is the LOO-PIT of post: one replicate of the data per
// posterior draw (PosteriorPredictive, with seed, at every draw), the
// pointwise log likelihood at the same draws (PointwiseLogLik), and each
// point's PSIS weights (runtime/loo's LogWeights). Each observed point
// must be one element of an observed variable (univariate observations):
// a multivariate observation, one point for several values, is refused.
func ComputeLOOPIT(ctx context.Context, th *eval.Thread, post *Posterior, s LOOPITSettings) (*LOOPIT, error) {
	ll, err := PointwiseLogLik(ctx, th, post)
	if err != nil {
		return nil, err
	}
	S := post.DrawCount()
	pred, err := PosteriorPredictive(ctx, th, post, S, s.Seed)
	if err != nil {
		return nil, err
	}
	out := &LOOPIT{Model: post.Model.Name, Settings: s, Draws: S, KThreshold: rloo.KThreshold(S)}
	total := 0
	for _, d := range pred.Data {
		out.Names = append(out.Names, d.Name)
		out.Points = append(out.Points, len(d.Observed))
		total += len(d.Observed)
	}
	if total != len(ll) {
		return nil, fmt.Errorf("LOO-PIT needs one observed value per point, and model %s has %d observed values for %d points: a multivariate observation (multi_normal, dirichlet) is one point for several values, and has no PIT", post.Model.Name, total, len(ll))
	}
	u := rand.New(rand.NewPCG(s.Seed, loopitStream))
	i := 0
	for _, d := range pred.Data {
		disc := integral(d.Observed)
		for _, row := range d.Rows {
			disc = disc && integral(row)
		}
		out.Discrete = append(out.Discrete, disc)
		for j, y := range d.Observed {
			if i%64 == 0 {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
			}
			for t, x := range ll[i] {
				if math.IsInf(x, 0) {
					return nil, fmt.Errorf("point %d: the log likelihood at draw %d is %v: the point is impossible there, so its leave-one-out weights are not defined", i+1, t+1, x)
				}
			}
			lw, k := rloo.LogWeights(ll[i], s.Reff)
			below, equal := 0.0, 0.0
			for t, row := range d.Rows {
				w := math.Exp(lw[t])
				switch {
				case row[j] < y:
					below += w
				case row[j] == y:
					equal += w
				}
			}
			p := below + equal
			if disc {
				p = below + u.Float64()*equal
			}
			out.PIT = append(out.PIT, min(max(p, 0), 1))
			out.K = append(out.K, k)
			if k > out.KThreshold {
				out.Bad++
			}
			i++
		}
	}
	n := len(out.PIT)
	L := PITPoints
	out.Ranks = make([]int, n)
	for i, p := range out.PIT {
		out.Ranks[i] = min(int(p*float64(L+1)), L)
	}
	band, err := ecdf.NewBand(n, L, s.Alpha, s.NullSims, rng.New(s.Seed, rng.SBCNull))
	if err != nil {
		return nil, err
	}
	out.Band, out.PValue = band, band.PValue(out.Ranks)
	return out, nil
}

// integral reports whether every value is a whole number.
func integral(xs []float64) bool {
	for _, x := range xs {
		if x != math.Trunc(x) {
			return false
		}
	}
	return true
}

// Warnings say when some points' weights are unreliable.
func (r *LOOPIT) Warnings() []string {
	if r.Bad == 0 {
		return nil
	}
	return []string{fmt.Sprintf("%d of %d points have Pareto k̂ > %.2f: their LOO-PIT values rest on unreliable importance weights (as their loo estimates); loo_pit(...).pareto_k shows which", r.Bad, len(r.K), r.KThreshold)}
}

// Record is the result as the user reads it; it keeps r for plot.
func (r *LOOPIT) Record() *eval.Record {
	names := &eval.List{}
	disc := eval.NewRecord()
	for v, n := range r.Names {
		names.Elems = append(names.Elems, eval.Str(n))
		disc.Set(n, eval.Bool(r.Discrete[v]))
	}
	s := r.Settings
	rec := eval.NewRecord().
		Set("kind", eval.Str("loo_pit")).
		Set("model", eval.Str(r.Model)).
		Set("pit", &eval.Vec{Data: append([]float64(nil), r.PIT...)}).
		Set("pareto_k", &eval.Vec{Data: append([]float64(nil), r.K...)}).
		Set("k_threshold", eval.Num(r.KThreshold)).
		Set("bad_k", eval.Num(r.Bad)).
		Set("variables", names).
		Set("discrete", disc).
		Set("p_value", eval.Num(r.PValue)).
		Set("L", eval.Num(r.Band.L)).
		Set("test", eval.Str(fmt.Sprintf("ECDF uniformity test with a simultaneous %g%% band (Säilynoja, Bürkner and Vehtari 2022) on %d points, simulated from %d uniform samples", 100*(1-s.Alpha), r.Band.L, s.NullSims))).
		Set("draws", eval.Num(r.Draws)).
		Set("observations", eval.Num(len(r.PIT))).
		Set("seed", eval.Num(s.Seed)).
		Set("r_eff", eval.Num(s.Reff)).
		Set("alpha", eval.Num(s.Alpha)).
		Set("null_sims", eval.Num(s.NullSims))
	return rec.SetOf(r)
}
