package kst

import (
	"fmt"
	"math"

	"github.com/kml-lang/kml/stdlib/kernel"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/kernels"
	rkst "github.com/kml-lang/kml/runtime/kst"
	"github.com/kml-lang/kml/runtime/stats"
)

func registerKst(reg *eval.Registry) {
	reg.Register("kst(x, kernel, sigma0 = 1, alpha = 1, beta = 1)",
		"The kernel Student-t density (Huszár and Lacoste-Julien 2011) of the rows of x: the normal–inverse-Wishart posterior predictive in the kernel's feature space (with the corrected posterior scale), times the Jacobian factor for kernels that are not shift-invariant. Unnormalised. A density value for logpdf, novelty and classify. Fitting costs one N×N Cholesky factorisation; each new point N kernel values and one triangular solve. Needs sigma0, alpha, beta > 0 and alpha + N > d − 1.",
		kstBuiltin)
	reg.Register("kde(x, kernel)",
		"The Parzen-window density (1/N) Σ_i k(x, x_i) of the rows of x, the kernel density estimate kst is compared with. Unnormalised unless the kernel integrates to one. A density value for logpdf, novelty and classify.",
		kdeBuiltin)
	reg.Register("novelty(d, points)",
		"Novelty scores −log q(x) of the rows of points under the density d (from kst, kde or dpm): higher is more novel. The relative novelty of two densities is logpdf(d1, x) - logpdf(d2, x).",
		func(a *eval.Args) (eval.Value, error) {
			v, err := densityLogPDF(a, "d", "points")
			if err != nil {
				return nil, err
			}
			return negate(v), nil
		})
	reg.Register("auc(scores, labels)",
		"The area under the ROC curve of scores for telling the points labelled 1 from those labelled 0 (labels a 0/1 vector): the probability that a random 1 scores higher than a random 0, ties counting one half.",
		aucBuiltin)
	reg.Register("onehot(y, labels)",
		"The n×K one-hot matrix of the values y: column j is 1 where y equals the j-th label. labels is a vector of the label values, or a number K for the labels 1..K.",
		onehotBuiltin)
	reg.Register("classify(d, features, labels)",
		"Label reconstruction with a density d fitted to rows of features followed by a one-hot label (onehot): for each row of features, the joint density with each label, renormalised over the labels. Returns {label, probs}: the most probable label value of each row and the n×K matrix of probabilities. labels is as in onehot.",
		classifyBuiltin)
	reg.Register(`tune(x, valid, kernel, method = "kst", score = "auc", ell?, sigma0 = 1, alpha = 1, beta = 1, novel?, labels?, window?, seed?)`,
		`Chooses hyperparameters of kst (sigma0, alpha, beta and a lengthscale) or kde (the lengthscale) over a grid by a held-out score. kernel: a kernel, or a function of one lengthscale returning a kernel, tried at each value of ell; ell may also be a matrix, each row passed to the function as a vector (several lengthscales tuned jointly, e.g. pixels and labels). sigma0, alpha, beta: numbers or vectors of values to try. valid: held-out rows, or a number m to hold out m random rows of x (seeded). score: "auc" (valid rows with novel: a 0/1 vector marking the novel ones; higher AUC of novelty scores wins), "error" (valid rows are features and a one-hot label; labels as in classify; lowest error rate of classify wins) or "logpdf" (one-dimensional data: the mean held-out log density, normalised by quadrature over window: [lo, hi]). Returns {kernel, ell, sigma0, alpha, beta, score, grid}: the best point, its score (AUC, error rate or mean log density) and every point tried as a record of vectors.`,
		tuneBuiltin)
}

// densityVal is a fitted density: the value of kst(...), kde(...) or dpm(...).
type densityVal struct {
	D     rkst.Density
	label string
}

func (d *densityVal) Type() string   { return "density" }
func (d *densityVal) String() string { return d.label }

// densityArg unpacks "a density from kst, kde or dpm".
type densityArg struct{ *densityVal }

func (d *densityArg) UnpackArg(name string, v eval.Value) error {
	dv, ok := v.(*densityVal)
	if !ok {
		return fmt.Errorf("%s must be a density from kst, kde or dpm, got %s", name, eval.Describe(v))
	}
	d.densityVal = dv
	return nil
}

// fixedKernel unpacks a kernel whose hyperparameters are plain numbers.
func fixedKernel(a *eval.Args, name string) (kernels.Kernel, error) {
	k, err := kernel.Unpack(a, name)
	if err != nil {
		return nil, err
	}
	if k.HasAD() {
		return nil, a.Errorf(name, "%s's hyperparameters must be numbers, not model parameters", name)
	}
	return k.K, nil
}

func dataLabel(x *mat.Dense) string {
	r, c := x.Dims()
	return fmt.Sprintf("%d×%d data", r, c)
}

func kstBuiltin(a *eval.Args) (eval.Value, error) {
	var x *mat.Dense
	var h rkst.Hyper
	if err := a.Unpack("x", &x, "sigma0", &h.Sigma0, "alpha", &h.Alpha, "beta", &h.Beta); err != nil {
		return nil, err
	}
	k, err := fixedKernel(a, "kernel")
	if err != nil {
		return nil, err
	}
	if n, _ := x.Dims(); n > 0 {
		if err := a.CheckDense(n, 2*n, "the fit's Gram matrix and its Cholesky factor", "fit on a subsample of the rows"); err != nil {
			return nil, err
		}
	}
	m, err := rkst.Fit(k, x, h)
	if err != nil {
		return nil, a.Fail("%v", err)
	}
	return &densityVal{D: m, label: fmt.Sprintf("kst(%s, kernel: %s, sigma0: %s, alpha: %s, beta: %s)",
		dataLabel(x), k, eval.FormatNumber(h.Sigma0), eval.FormatNumber(h.Alpha), eval.FormatNumber(h.Beta))}, nil
}

func kdeBuiltin(a *eval.Args) (eval.Value, error) {
	var x *mat.Dense
	if err := a.Unpack("x", &x); err != nil {
		return nil, err
	}
	k, err := fixedKernel(a, "kernel")
	if err != nil {
		return nil, err
	}
	e, err := rkst.NewKDE(k, x)
	if err != nil {
		return nil, a.Fail("%v", err)
	}
	return &densityVal{D: e, label: fmt.Sprintf("kde(%s, kernel: %s)", dataLabel(x), k)}, nil
}

// densityPoints reads the points argument for a density of dimension dim:
// a matrix has a point per row; for a one-dimensional density a number is
// one point and a vector holds many; otherwise a vector as long as dim is
// one point. single reports a lone point.
func densityPoints(a *eval.Args, name string, dim int) (x *mat.Dense, single bool, err error) {
	v := a.Value(name)
	if eval.IsAD(v) {
		return nil, false, a.Errorf(name, "%s depends on model parameters: give one point (a number for a one-dimensional density, a vector of length %d otherwise), whose log density has a gradient; several points or a matrix do not", name, dim)
	}
	if _, ok := v.(*eval.Mat); ok {
		m, _ := eval.ToMatrix(v)
		return m, false, nil
	}
	if f, ok := v.(eval.Num); ok && dim == 1 {
		return mat.NewDense(1, 1, []float64{float64(f)}), true, nil
	}
	xs, ok := eval.ToFloats(v)
	if !ok {
		return nil, false, a.Errorf(name, "%s must be a matrix with a row per point, got %s", name, eval.Describe(v))
	}
	if dim == 1 {
		if len(xs) == 0 {
			return nil, false, a.Errorf(name, "%s is empty", name)
		}
		return mat.NewDense(len(xs), 1, xs), false, nil
	}
	if len(xs) != dim {
		return nil, false, a.Errorf(name, "%s is a vector of length %d but the density has %d dimensions: give one point as a vector of length %d or a matrix with a row per point", name, len(xs), dim, dim)
	}
	return mat.NewDense(1, dim, xs), true, nil
}

// adPoint returns the elements of v when it is one point of dimension dim
// that depends on model parameters, for eval.FuncNode, and their values
// (peeked: the node recomputes from them).
func adPoint(v eval.Value, dim int) ([]eval.Value, []float64, bool) {
	switch v := v.(type) {
	case *eval.ADNum:
		if dim == 1 {
			return []eval.Value{v}, []float64{v.Peek()}, true
		}
	case *eval.ADVec:
		if len(v.Vs) == dim && dim > 1 {
			ps := make([]eval.Value, dim)
			for i := range ps {
				ps[i] = eval.Elem(v, i)
			}
			return ps, v.Peeks(), true
		}
	}
	return nil, nil, false
}

// densityLogPDF evaluates the density argument dName at the points pName.
// One point that depends on model parameters gets a tape node with the
// gradient of log q in x, so `target += logpdf(d, theta)` samples from d.
func densityLogPDF(a *eval.Args, dName, pName string) (eval.Value, error) {
	var d densityArg
	if err := a.Unpack(dName, &d); err != nil {
		return nil, err
	}
	if ps, x, ok := adPoint(a.Value(pName), d.D.Dim()); ok {
		gd, ok := d.D.(rkst.GradDensity)
		if !ok {
			return nil, a.Errorf(dName, "%s has no gradient in its points", d)
		}
		finite := func(x []float64) bool {
			for _, v := range x {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return false
				}
			}
			return true
		}
		for _, v := range x {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, a.Errorf(pName, "%s has the non-finite value %v", pName, v)
			}
		}
		// One replayable node: log q and its gradient at the point's
		// values (NaN, so a walk that reports, at a non-finite point).
		return eval.FuncNode(ps, func(x, d []float64) float64 {
			if !finite(x) {
				return math.NaN()
			}
			return gd.LogPDFGrad(d, x)
		}), nil
	}
	x, single, err := densityPoints(a, pName, d.D.Dim())
	if err != nil {
		return nil, err
	}
	r, _ := x.Dims()
	out := make([]float64, r)
	if err := d.D.LogPDF(out, x); err != nil {
		return nil, a.Errorf(pName, "%v", err)
	}
	if single {
		return eval.Num(out[0]), nil
	}
	return &eval.Vec{Data: out}, nil
}

func negate(v eval.Value) eval.Value {
	switch v := v.(type) {
	case eval.Num:
		return -v
	case *eval.Vec:
		for i := range v.Data {
			v.Data[i] = -v.Data[i]
		}
	}
	return v
}

// zeroOne reads a vector of 0/1 values.
func zeroOne(a *eval.Args, name string) ([]bool, error) {
	var xs []float64
	if err := a.Unpack(name, &xs); err != nil {
		return nil, err
	}
	out := make([]bool, len(xs))
	for i, v := range xs {
		switch v {
		case 0:
		case 1:
			out[i] = true
		default:
			return nil, a.Errorf(name, "%s must be 0 or 1, got %s at position %d", name, eval.FormatNumber(v), i+1)
		}
	}
	return out, nil
}

func aucBuiltin(a *eval.Args) (eval.Value, error) {
	var s []float64
	if err := a.Unpack("scores", &s); err != nil {
		return nil, err
	}
	pos, err := zeroOne(a, "labels")
	if err != nil {
		return nil, err
	}
	v, err := stats.AUC(s, pos)
	if err != nil {
		return nil, a.Fail("%v", err)
	}
	return eval.Num(v), nil
}

// labelValues reads a labels argument: a vector of distinct label values,
// or a number K for 1..K.
func labelValues(a *eval.Args, name string) ([]float64, error) {
	v := a.Value(name)
	if n, ok := v.(eval.Num); ok {
		k := float64(n)
		if k != math.Trunc(k) || k < 2 || k > 10000 {
			return nil, a.Errorf(name, "%s must be a whole number of labels from 2 to 10000 or a vector of label values, got %s", name, eval.FormatNumber(k))
		}
		out := make([]float64, int(k))
		for i := range out {
			out[i] = float64(i + 1)
		}
		return out, nil
	}
	xs, ok := eval.ToFloats(v)
	if !ok || len(xs) < 2 {
		return nil, a.Errorf(name, "%s must be a vector of at least 2 label values or their number, got %s", name, eval.Describe(v))
	}
	seen := map[float64]bool{}
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, a.Errorf(name, "%s must be finite, got %v", name, x)
		}
		if seen[x] {
			return nil, a.Errorf(name, "%s repeats the label %s", name, eval.FormatNumber(x))
		}
		seen[x] = true
	}
	return xs, nil
}

func onehotBuiltin(a *eval.Args) (eval.Value, error) {
	var y []float64
	if err := a.Unpack("y", &y); err != nil {
		return nil, err
	}
	labels, err := labelValues(a, "labels")
	if err != nil {
		return nil, err
	}
	if len(y) == 0 {
		return nil, a.Errorf("y", "y is empty")
	}
	col := map[float64]int{}
	for j, l := range labels {
		col[l] = j
	}
	out := mat.NewDense(len(y), len(labels), nil)
	for i, v := range y {
		j, ok := col[v]
		if !ok {
			return nil, a.Errorf("y", "y[%d] = %s is not one of the labels", i+1, eval.FormatNumber(v))
		}
		out.Set(i, j, 1)
	}
	return eval.NewMat(out), nil
}

func classifyBuiltin(a *eval.Args) (eval.Value, error) {
	var d densityArg
	var f *mat.Dense
	if err := a.Unpack("d", &d, "features", &f); err != nil {
		return nil, err
	}
	labels, err := labelValues(a, "labels")
	if err != nil {
		return nil, err
	}
	idx, probs, err := rkst.Classify(d.D, f, len(labels))
	if err != nil {
		return nil, a.Fail("%v", err)
	}
	lab := make([]float64, len(idx))
	for i, j := range idx {
		lab[i] = labels[j]
	}
	return eval.NewRecord().Set("label", &eval.Vec{Data: lab}).Set("probs", eval.NewMat(probs)), nil
}

// LogPDFCall implements dists.LogPDFer: logpdf of a fitted density.
func (d *densityVal) LogPDFCall(a *eval.Args) (eval.Value, error) {
	return densityLogPDF(a, "d", "x")
}

// KSTDensity gives the fitted density to ksd_test (stdlib/ktest), which
// tests data against its score.
func (d *densityVal) KSTDensity() rkst.Density { return d.D }
