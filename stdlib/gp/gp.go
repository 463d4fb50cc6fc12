package gp

import (
	"fmt"
	"math"
	"strings"

	"github.com/kml-lang/kml/stdlib/kernel"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/model"
	rgp "github.com/kml-lang/kml/runtime/gp"
	"github.com/kml-lang/kml/runtime/kernels"
)

func registerGp(reg *eval.Registry) {
	b := reg.Register(`gp(x, kernel, inducing = "auto", seed = 1, sparse = "vfe", select = "kmeans", classes?)`,
		`A latent Gaussian process at the rows of x with covariance kernel, for use in a model: f ~ gp(X, rbf(ell) + c * linear()), then y ~ normal(f, sigma) (sigma one number, one parameter, a vector of known per-observation standard deviations, or a vector expression of parameters such as exp(b0 + b1 * x) for noise that varies with the input; or laplace(f, b), student_t(nu, f, s), bernoulli_logit(f), or counts through poisson_log(f) and neg_binomial_2_log(f, phi), whose marginal likelihood takes approx: "laplace" or "ep"). f is integrated out (exactly for Gaussian noise) or optimised, as optimize's objective says; see predict. inducing: "auto" (exact up to 3000 rows; above, the Nyström approximation through 512 k-means centres of x), "exact", a number m of k-means centres (seeded by seed), or a matrix of inducing points (built from model parameters, e.g. transpose([z1, z2]), they are learned with the hyperparameters on Titsias' bound); the Nyström path is for normal observations and the marginal likelihood. sparse: the objective on that path, "vfe" (Titsias' 2009 collapsed variational bound log N(y | 0, Q + sigma²I) − tr(K − Q)/(2 sigma²), a lower bound on the exact log marginal likelihood), "fitc" (log N(y | 0, Q + diag(K − Q) + sigma²I), Snelson and Ghahramani 2006) or "dtc" (log N(y | 0, Q + sigma²I) alone, without the trace term). select: how a number of inducing points (or "auto"'s 512) is chosen, "kmeans" (k-means centres of x, once) or "greedy" (greedy conditional-variance selection among the rows of x, Burt, Rasmussen and van der Wilk 2020, redone with the kernel at each evaluation). classes: C (at least 2) makes f C independent GPs with this kernel, one per class, observed as labels 1..C through c ~ categorical_logit(f) and fitted with Laplace's approximation (optimize(m, objective: "ml", approx: "laplace")).`,
		gpBuiltin)
	b.AD = true
}

// gpLatent is the value of gp(x, kernel) inside a model.
type gpLatent struct {
	kernel *kernel.KernelVal
	xv     eval.Value
	x      *mat.Dense
	pos    ast.Pos
	// inducing is the number of k-means inducing points (0: exact), or z
	// the inducing points given.
	inducing int
	z        *mat.Dense
	// zAD, when the inducing points given depend on model parameters, is
	// that matrix (z then holds its values at construction): the points
	// are learned with the hyperparameters, on Titsias' bound only.
	zAD  *eval.ADMat
	seed uint64
	// auto says the Nyström path was chosen by size, not by the user.
	auto bool
	// sparse is the Nyström path's objective: "vfe" (Titsias' bound),
	// "fitc" or "dtc"; greedy says its inducing points are chosen by
	// rgp.GreedyVariance at each kernel rather than by k-means.
	sparse string
	greedy bool
	// classes is C for one GP per class (classes: C), else 0.
	classes int
}

// Beyond lowRankAbove rows, gp(...) takes the Nyström path with
// lowRankPoints k-means inducing points unless told otherwise: the exact
// path's O(n³) per evaluation is then seconds.
const (
	lowRankAbove  = 3000
	lowRankPoints = 512
)

var (
	_ model.Latent  = (*gpLatent)(nil)
	_ eval.ADHolder = (*gpLatent)(nil)
)

func (g *gpLatent) Type() string { return "latent GP" }

// Describe is the latent GP in messages where a number or vector was
// wanted: its values are used only by its observation statement, and
// exp(f) or inv_logit(f) there is written through the link.
func (g *gpLatent) Describe() string {
	return "latent GP (observe it directly through a link: y ~ poisson_log(f) for counts with rate exp(f), y ~ bernoulli_logit(f) for inv_logit(f), y ~ normal(f, sigma))"
}
func (g *gpLatent) String() string {
	r, c := g.x.Dims()
	if g.classes > 0 {
		return fmt.Sprintf("gp(%d×%d matrix, %s, classes: %d)", r, c, g.kernel, g.classes)
	}
	return fmt.Sprintf("gp(%d×%d matrix, %s)", r, c, g.kernel)
}
func (g *gpLatent) HasAD() bool { return g.kernel.HasAD() || g.zAD != nil }

func gpBuiltin(a *eval.Args) (eval.Value, error) {
	var k kernel.Arg
	var x *mat.Dense
	if err := a.Unpack("x", &x, "kernel", &k); err != nil {
		return nil, err
	}
	if err := kernels.CheckData(x, "x"); err != nil {
		return nil, a.Errorf("x", "%v", err)
	}
	if d := k.K.Dim(); d != 0 {
		if _, c := x.Dims(); c != d {
			return nil, a.Errorf("kernel", "the kernel %s takes %d input columns but x has %d", k.K, d, c)
		}
	}
	g := &gpLatent{kernel: k.KernelVal, xv: a.Value("x"), x: x, pos: a.Pos}
	n, d := x.Dims()
	seed, err := a.Int("seed")
	if err != nil {
		return nil, err
	}
	g.seed = uint64(seed)
	if a.Given("classes") {
		c, err := a.Num("classes")
		if err != nil {
			return nil, err
		}
		if c != math.Trunc(c) || c < 2 || c > 1000 {
			return nil, a.Errorf("classes", "classes must be a whole number of classes from 2 to 1000, got %s", eval.FormatNumber(c))
		}
		g.classes = int(c)
	}
	switch v := a.Value("inducing").(type) {
	case eval.Str:
		switch v {
		case "auto":
			if n > lowRankAbove {
				g.inducing, g.auto = lowRankPoints, true
			}
		case "exact":
		default:
			return nil, a.Errorf("inducing", `inducing must be "auto", "exact", a number of points or a matrix of points, got %q`, string(v))
		}
	case eval.Num:
		m := int(v)
		if float64(m) != float64(v) || m < 1 || m > n {
			return nil, a.Errorf("inducing", "inducing must be a whole number of points between 1 and the %d rows of x, got %s", n, eval.FormatNumber(float64(v)))
		}
		g.inducing = m
	case *eval.ADMat:
		// Inducing points that are model parameters, learned with the
		// hyperparameters (normalLogLik's node takes them as parents).
		if v.Cols != d {
			return nil, a.Errorf("inducing", "the inducing points have %d columns but x has %d", v.Cols, d)
		}
		if v.Rows < 1 {
			return nil, a.Errorf("inducing", "inducing needs at least one point")
		}
		zs := make([]float64, len(v.Vs))
		for i, w := range v.Vs {
			zs[i] = v.T.Peek(w) // the node recomputes from its parents
		}
		g.z, g.zAD = mat.NewDense(v.Rows, v.Cols, zs), v
	default:
		z, err := a.Matrix("inducing")
		if err != nil {
			return nil, a.Errorf("inducing", `inducing must be "auto", "exact", a number of points or a matrix of points, got %s`, eval.Describe(v))
		}
		if _, c := z.Dims(); c != d {
			return nil, a.Errorf("inducing", "the inducing points have %d columns but x has %d", c, d)
		}
		if err := kernels.CheckData(z, "inducing"); err != nil {
			return nil, a.Errorf("inducing", "%v", err)
		}
		g.z = z
	}
	switch v, _ := a.Str("sparse"); v {
	case "vfe", "fitc", "dtc":
		g.sparse = v
	default:
		return nil, a.Errorf("sparse", `sparse must be "vfe", "fitc" or "dtc", got %s`, eval.Describe(a.Value("sparse")))
	}
	switch v, _ := a.Str("select"); v {
	case "kmeans":
	case "greedy":
		g.greedy = true
	default:
		return nil, a.Errorf("select", `select must be "kmeans" or "greedy", got %s`, eval.Describe(a.Value("select")))
	}
	if g.greedy && g.z != nil {
		return nil, a.Errorf("select", `select: "greedy" chooses the inducing points among the rows of x; inducing gives them already`)
	}
	if !g.lowRank() {
		// The exact path keeps the Gram matrix, its factor and its inverse
		// for the gradient.
		if err := a.CheckDense(n, 3*n, "the exact GP's n×n matrices (three of them)", `use inducing: "auto" or a number of points (the Nyström path), or a smaller sample`); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// lowRank reports whether the Nyström path applies.
func (g *gpLatent) lowRank() bool { return g.z != nil || g.inducing > 0 }

type inducingKey struct {
	x    eval.Value
	m    int
	seed uint64
}

// inducingPoints returns the inducing points: the given ones, those
// rgp.GreedyVariance chooses for kernel k (select: "greedy", at every
// call), or seeded k-means centres of x, computed once per model (cache
// nil: every call).
func (g *gpLatent) inducingPoints(ev *model.Eval, k kernels.Kernel) (*mat.Dense, error) {
	if g.z != nil {
		return g.z, nil
	}
	if g.greedy {
		return rgp.GreedyVariance(k, g.x, g.inducing, 0)
	}
	build := func() (any, error) {
		return kernels.Landmarks(g.x, g.inducing, g.seed, kernels.LandmarkMethod("kmeans"))
	}
	if ev == nil {
		z, err := build()
		if err != nil {
			return nil, err
		}
		return z.(*mat.Dense), nil
	}
	z, err := ev.Cache(inducingKey{g.xv, g.inducing, g.seed}, build)
	if err != nil {
		return nil, err
	}
	return z.(*mat.Dense), nil
}

// bare is err's message without runtime/gp's "gp: " prefix, for messages
// that add their own (so none reads "gp: gp: ...").
func bare(err error) string {
	return strings.TrimPrefix(err.Error(), "gp: ")
}
