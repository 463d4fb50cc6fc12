package infer

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/model"
)

// maxCurvatureDim bounds the dimension for which Optimize checks the
// curvature at its optimum: the check costs 2·dim gradients and an
// eigendecomposition.
const maxCurvatureDim = 50

// curvatureWarnings checks the optimum x of c's objective on the
// unconstrained scale for the two ways L-BFGS can "converge" to no
// maximum: an objective that keeps increasing as some coordinates grow
// without bound (a separated logistic regression: the optimum is at
// infinity and the gradient vanishes only because the objective
// flattens), and an objective flat along some direction (a
// non-identified model such as y ~ normal(a + b, 1): the Hessian is
// singular there and the optimum is a ridge, not a point).
func curvatureWarnings(d *model.Density, c *model.Compiled, x []float64) []string {
	dim := len(x)
	if dim == 0 || dim > maxCurvatureDim {
		return nil
	}
	f0, err := d.Value(x)
	if err != nil || math.IsInf(f0, 0) || math.IsNaN(f0) {
		return nil
	}
	var w []string
	// At infinity: the large coordinates, scaled together by 2 and by 4,
	// give an objective no lower.
	big := 0.0
	for _, v := range x {
		big = math.Max(big, math.Abs(v))
	}
	if big >= 5 {
		var idx []int
		for i, v := range x {
			if math.Abs(v) >= big/4 {
				idx = append(idx, i)
			}
		}
		scaled := func(k float64) float64 {
			q := append([]float64(nil), x...)
			for _, i := range idx {
				q[i] *= k
			}
			f, err := d.Value(q)
			if err != nil || math.IsNaN(f) {
				return math.Inf(-1)
			}
			return f
		}
		// Scaled by 4 only when scaling by 2 gave no lower objective.
		if f2 := scaled(2); f2 >= f0 && scaled(4) >= f2 {
			var up, down []int
			for _, i := range idx {
				if x[i] > 0 {
					up = append(up, i)
				} else {
					down = append(down, i)
				}
			}
			if len(down) == 0 {
				w = append(w, fmt.Sprintf("the objective keeps increasing as the values of %s grow: its maximum is at infinity (e.g. separated data in a logistic regression), so the values are only where the optimiser stopped; add a proper prior and use %s", c.CoordNames(idx), priorObjective(c)))
				return w
			}
			// Toward the lower end: for a positive parameter, 0 (an MKL
			// weight switching its kernel off), not infinity.
			msg := fmt.Sprintf("the objective keeps increasing as the values of %s fall toward the lower end of their support (0 for a positive parameter, such as an MKL kernel weight switching its kernel off)", c.CoordNames(down))
			if len(up) > 0 {
				msg += fmt.Sprintf(" and those of %s grow", c.CoordNames(up))
			}
			w = append(w, msg+": the supremum is on the boundary, so the values are only where the optimiser stopped")
			return w
		}
	}
	// Flat direction: the smallest eigenvalue of the Hessian (by central
	// differences of the gradient) is negligible next to the largest.
	h := mat.NewSymDense(dim, nil)
	gp, gm := make([]float64, dim), make([]float64, dim)
	q := append([]float64(nil), x...)
	cols := make([][]float64, dim)
	for j := range dim {
		step := 1e-4 * math.Max(1, math.Abs(x[j]))
		q[j] = x[j] + step
		if _, err := d.LogDensity(gp, q); err != nil {
			return w
		}
		q[j] = x[j] - step
		if _, err := d.LogDensity(gm, q); err != nil {
			return w
		}
		q[j] = x[j]
		cols[j] = make([]float64, dim)
		for i := range dim {
			cols[j][i] = (gp[i] - gm[i]) / (2 * step)
		}
	}
	for i := range dim {
		for j := i; j < dim; j++ {
			v := (cols[j][i] + cols[i][j]) / 2
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return w
			}
			h.SetSym(i, j, v)
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(h, true) {
		return w
	}
	vals := eig.Values(nil)
	lo, hi := math.Inf(1), 0.0
	k := 0
	for i, v := range vals {
		hi = math.Max(hi, math.Abs(v))
		if math.Abs(v) < lo {
			lo, k = math.Abs(v), i
		}
	}
	if hi == 0 || lo > 1e-6*hi {
		return w
	}
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	var idx []int
	var terms []string
	for i := range dim {
		if v := vecs.At(i, k); math.Abs(v) > 0.1 {
			idx = append(idx, i)
			terms = append(terms, fmt.Sprintf("%+.2g·%s", v, c.CoordName(i)))
		}
	}
	verb := "is"
	if len(idx) > 1 {
		verb = "are"
	}
	w = append(w, fmt.Sprintf("the objective is flat along a direction through the optimum (the Hessian is singular: smallest curvature %.2g against %.2g): %s %s not identified (flat along %s on the unconstrained scale), so the values are one point of a ridge; add a proper prior and use %s, or reparameterise",
		lo, hi, c.CoordNames(idx), verb, strings.Join(terms, " "), priorObjective(c)))
	return w
}

// priorObjective is the objective the warnings advise with a proper
// prior: "map", or for a model with a latent GP "ml_prior", the marginal
// likelihood with the priors (its "map" is joint MAP over the latent
// function, another objective).
func priorObjective(c *model.Compiled) string {
	if c.Terms.Latent.Name != model.ObjUnset {
		return `objective: "ml_prior" (the GP's marginal likelihood with the priors)`
	}
	return `objective: "map"`
}
