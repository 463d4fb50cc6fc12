package kbr

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	rkbr "github.com/kml-lang/kml/runtime/kbr"
)

func registerKbrcv(reg *eval.Registry) {
	reg.Register(`cv(joint, kx?, ky?, eps?, delta?, folds = 5, criterion = "marginal", rank = 0, seed?)`,
		`K-fold cross-validation of kbr's eps and delta (KBR paper sec. 4.2) over grids (vectors; by default eps in 10^(-4..0) and delta in 10^(-8, -6, ..., 0)), with the training x as the prior: "marginal" scores the RKHS distance between the posterior averaged over the held-out y and the held-out x's kernel mean (the paper's criterion), "pointwise" the mean distance between each posterior and its own held-out x. Returns {eps, delta, score, scores} (scores: one row per eps, one column per delta).`,
		func(a *eval.Args) (eval.Value, error) {
			x, y, err := splitJoint(a.Value("joint"))
			if err != nil {
				return nil, a.Errorf("joint", "%v", err)
			}
			kx, err := kernelOrMedian(a, "kx", x)
			if err != nil {
				return nil, err
			}
			ky, err := kernelOrMedian(a, "ky", y)
			if err != nil {
				return nil, err
			}
			eps := []float64{1e-4, 1e-3, 1e-2, 1e-1, 1}
			delta := []float64{1e-8, 1e-6, 1e-4, 1e-2, 1}
			var folds eval.PositiveInt
			var crit string
			var rank eval.Length
			if err := a.Unpack("eps?", &eps, "delta?", &delta, "folds", &folds, "criterion", &crit, "rank", &rank); err != nil {
				return nil, err
			}
			for _, g := range []struct {
				name string
				vals []float64
			}{{"eps", eps}, {"delta", delta}} {
				for _, v := range g.vals {
					if !(v > 0) || math.IsInf(v, 0) {
						return nil, a.Errorf(g.name, "every %s must be a positive number, got %v", g.name, v)
					}
				}
			}
			if crit != string(rkbr.Marginal) && crit != string(rkbr.Pointwise) {
				return nil, a.Errorf("criterion", `criterion must be "marginal" or "pointwise", got %q`, crit)
			}
			n, _ := x.Dims()
			if int(folds) < 2 || int(folds) > n {
				return nil, a.Errorf("folds", "folds must be from 2 to the %d pairs, got %d", n, folds)
			}
			rnd, err := a.Rand()
			if err != nil {
				return nil, err
			}
			scores, err := rkbr.CV(a.Context(), x, y, kx, ky, eps, delta, int(folds), rkbr.Criterion(crit), rkbr.Settings{Rank: int(rank)}, rnd)
			if err != nil {
				return nil, a.Fail("%v", err)
			}
			bi, bj := 0, 0
			for i := range eps {
				for j := range delta {
					if scores.At(i, j) < scores.At(bi, bj) {
						bi, bj = i, j
					}
				}
			}
			return eval.NewRecord().Set("eps", eval.Num(eps[bi])).Set("delta", eval.Num(delta[bj])).
				Set("score", eval.Num(scores.At(bi, bj))).Set("scores", eval.NewMat(mat.DenseCopyOf(scores))), nil
		})
}
