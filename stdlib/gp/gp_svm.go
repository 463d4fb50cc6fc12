package gp

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model"
	rgp "github.com/kml-lang/kml/runtime/gp"
	"github.com/kml-lang/kml/runtime/kernels"
)

// svmLoss is the runtime's loss for objective obj, with the observations
// y turned into ±1 labels for the hinge.
func svmLoss(obj model.Objective, y []float64) (rgp.Loss, error) {
	loss := rgp.Loss{C: obj.C, Epsilon: obj.Epsilon}
	switch obj.Loss {
	case model.LossHinge:
		loss.Kind = rgp.Hinge
		if err := signLabels(y); err != nil {
			return loss, fmt.Errorf("with loss \"hinge\": %v", err)
		}
	case model.LossEpsInsensitive:
		loss.Kind = rgp.EpsInsensitive
	default:
		return loss, fmt.Errorf("unknown loss %q", obj.Loss)
	}
	return loss, nil
}

// svmLogLik is the regularised-risk MKL objective with an SVM loss in
// place of the observation's likelihood (rgp.SVM), with its gradient on
// the tape through the kernel's hyperparameters; the likelihood's own
// parameters play no part.
func (g *gpLatent) svmLogLik(ev *model.Eval, y []float64) (eval.Value, error) {
	if g.lowRank() && !g.auto {
		return nil, fmt.Errorf(`an SVM loss needs the exact GP (inducing: "exact")`)
	}
	obj := ev.Objective()
	loss, err := svmLoss(obj, y)
	if err != nil {
		return nil, err
	}
	s, err := g.gpSettings(obj, true)
	if err != nil {
		return nil, err
	}
	s.Kind = rgp.MKL
	k := g.kernel.K
	if !g.HasAD() {
		v, err := rgp.SVM(s, k, g.x, y, loss, nil)
		if err != nil {
			return nil, &ast.Error{Pos: g.pos, Msg: fmt.Sprintf("gp: %v (kernel %s)", bare(err), k)}
		}
		return eval.Num(v), nil
	}
	var recErr error
	out := eval.FuncNode(g.kernel.Hyper, func(x, d []float64) float64 {
		kk, err := k.WithHyper(x)
		if err != nil {
			return math.NaN()
		}
		v, err := rgp.SVM(s, kk, g.x, y, loss, d)
		if recErr = err; err != nil {
			return math.NaN()
		}
		return v
	})
	if recErr != nil {
		return nil, &ast.Error{Pos: g.pos, Msg: fmt.Sprintf("gp: %v (kernel %s)", bare(recErr), k)}
	}
	return out, nil
}

// svmPredict is the SVM's decision function at xnew, f(x) = k(x)ᵀw with w
// the dual solution at the fitted kernel (u = Kw at the training rows):
// f_mean; there is no predictive variance.
func (g *gpLatent) svmPredict(obj model.Objective, y []float64, xnew *mat.Dense) (*drawPred, error) {
	loss, err := svmLoss(obj, y)
	if err != nil {
		return nil, err
	}
	K, err := kernels.Gram(g.kernel.K, g.x)
	if err != nil {
		return nil, err
	}
	n := K.SymmetricDim()
	for i := range n {
		K.SetSym(i, i, K.At(i, i)+rgp.MapJitter)
	}
	w, _, err := rgp.SVMDual(K, y, loss)
	if err != nil {
		return nil, err
	}
	ks, err := kernels.Cross(g.kernel.K, xnew, g.x)
	if err != nil {
		return nil, err
	}
	m, _ := xnew.Dims()
	f := mat.NewVecDense(m, nil)
	f.MulVec(ks, mat.NewVecDense(n, w))
	return &drawPred{fmean: f.RawVector().Data, svm: true}, nil
}
