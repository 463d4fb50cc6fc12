package loo

import (
	"fmt"
	"math/rand/v2"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/infer"
	"github.com/kml-lang/kml/lang/model"
	"github.com/kml-lang/kml/runtime/hmc"
)

// Reloo is what loo(post, reloo: true) did: the points whose k̂ was above
// the threshold were refitted exactly, each by NUTS on the data without
// it, and their PSIS estimates replaced (R's reloo, in brms and rstanarm).
type Reloo struct {
	Points   []int     // 0-based, in order
	K        []float64 // their k̂ before the refit
	Seed     uint64
	Seeds    []float64 // each refit's seed
	Split    []string
	Settings hmc.Settings
}

// reloo refits the points of l whose k̂ is above its threshold, from ll,
// post's pointwise log likelihood: each refit is the model's family called
// on its data without the point (the rows of the split arguments, as
// kfold splits them), sampled with the sampler settings of the call, and
// the point scored exactly, elpd_loo_i = log(1/S Σ_s p(y_i | θ_s)) over
// the refit's draws; p_loo_i = lpd_i − elpd_loo_i, k̂_i = 0 (LOO.Refit).
// Refit j's seed is the j-th number of a stream seeded by seed.
func reloo(a *eval.Args, post *infer.Posterior, l *LOOValue, ll [][]float64) error {
	if err := takesData(a, "post", post.Model); err != nil {
		return err
	}
	s, err := infer.SamplerArgs(a)
	if err != nil {
		return err
	}
	seed, err := a.Seed()
	if err != nil {
		return err
	}
	rl := &Reloo{Seed: seed, Settings: s}
	l.Reloo = rl
	for i, k := range l.K {
		if k > l.KThreshold {
			rl.Points, rl.K = append(rl.Points, i), append(rl.K, k)
		}
	}
	if len(rl.Points) == 0 {
		return nil
	}
	if _, conditional, err := infer.PointCount(a.Th, post.Comp); err != nil {
		return a.Errorf("reloo", "reloo refits the model without each point as kfold does, which this model does not allow yet: %v", err)
	} else if conditional {
		// A GP model's points are its exact (or approximate) LOO given θ
		// already; refitting one would need the GP's predictive at the
		// refit's draws, which kfold computes: kfold(m, K: N) is exact LOO.
		return a.Errorf("reloo", "reloo does not refit GP models yet: their loo values are leave-one-out given the hyperparameters already; for a check of PSIS over the hyperparameters' draws use kfold(m, K: %d), exact leave-one-out", l.N)
	}
	terms := model.Terms{Prior: true, Likelihood: true, Jacobian: true}
	r, err := newRefitter(a, "loo", "post", post.Model, l.N, s, terms)
	if err != nil {
		return err
	}
	rl.Split, rl.Settings = r.split, r.s
	rng := rand.New(rand.NewPCG(seed, 0x72656c6f6f))
	task := a.Progress("refits", len(rl.Points))
	defer task.Done()
	elpd, lpd := make([]float64, len(rl.Points)), make([]float64, len(rl.Points))
	for j, i := range rl.Points {
		sj := rng.Uint64() >> 33 // exact as a KML number
		rl.Seeds = append(rl.Seeds, float64(sj))
		what := fmt.Sprintf("point %d left out", i+1)
		train := make([]int, 0, l.N-1)
		for t := range l.N {
			if t != i {
				train = append(train, t)
			}
		}
		ctrain, err := r.instance(train, what+" (training rows)")
		if err != nil {
			return err
		}
		e, err := r.heldOut(ctrain, []int{i}, sj, what)
		if err != nil {
			return err
		}
		elpd[j], lpd[j] = e[0], logMeanExp(ll[i])
		if err := a.Step(task); err != nil {
			return err
		}
	}
	l.Refit(rl.Points, elpd, lpd)
	return nil
}
