package kernel

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/kernels"
)

func registerKernels(registry *eval.Registry) {
	reg := func(spec, doc string, fn func(a *eval.Args) (eval.Value, error)) {
		b := registry.Register(spec, doc, fn)
		b.AD = true
	}
	reg("rbf(ell)", "The squared-exponential kernel exp(-|x - y|²/(2 ell²)); a vector ell (one per input column) makes it ARD.", func(a *eval.Args) (eval.Value, error) {
		return stationary(a, func(ell []float64) (kernels.Kernel, error) { return kernels.NewRBF(ell) })
	})
	reg("laplacian(ell)", "The Laplacian kernel exp(-|x - y|/ell) (Euclidean distance; the same as matern12); vector ell for ARD.", func(a *eval.Args) (eval.Value, error) {
		return stationary(a, func(ell []float64) (kernels.Kernel, error) { return kernels.NewLaplacian(ell) })
	})
	for _, nu := range []int{1, 3, 5} {
		name := fmt.Sprintf("matern%d2", nu)
		reg(name+"(ell)", fmt.Sprintf("The Matérn kernel of smoothness %d/2 in r = |x - y|/ell; vector ell for ARD.", nu), func(a *eval.Args) (eval.Value, error) {
			return stationary(a, func(ell []float64) (kernels.Kernel, error) { return kernels.NewMatern(nu, ell) })
		})
	}
	reg("rq(ell, alpha)", "The rational quadratic kernel (1 + |x - y|²/(2 alpha ell²))^(-alpha); vector ell for ARD.", func(a *eval.Args) (eval.Value, error) {
		var ell lengthscale
		var alpha hyper
		if err := a.Unpack("ell", &ell, "alpha", &alpha); err != nil {
			return nil, err
		}
		k, err := kernels.NewRQ(ell.Ell, alpha.X)
		if err != nil {
			return nil, a.Fail("%v", err)
		}
		return NewKernelVal(k, append(ell.V, alpha.V)), nil
	})
	reg("periodic(ell, period)", "The periodic kernel exp(-2 Σ_d sin²(π (x_d - y_d)/period)/ell²).", func(a *eval.Args) (eval.Value, error) {
		var ell, period hyper
		if err := a.Unpack("ell", &ell, "period", &period); err != nil {
			return nil, err
		}
		k, err := kernels.NewPeriodic(ell.X, period.X)
		if err != nil {
			return nil, a.Fail("%v", err)
		}
		return NewKernelVal(k, []eval.Value{ell.V, period.V}), nil
	})
	reg("linear(c = 0)", "The linear kernel xᵀy + c, c ≥ 0.", func(a *eval.Args) (eval.Value, error) {
		var c hyper
		if err := a.Unpack("c", &c); err != nil {
			return nil, err
		}
		k, err := kernels.NewLinear(c.X)
		if err != nil {
			return nil, a.Fail("%v", err)
		}
		return NewKernelVal(k, []eval.Value{c.V}), nil
	})
	reg("poly(degree, c = 1)", "The polynomial kernel (xᵀy + c)^degree, degree a whole number ≥ 1 (fixed), c ≥ 0.", func(a *eval.Args) (eval.Value, error) {
		var deg int
		var c hyper
		if err := a.Unpack("degree", &deg, "c", &c); err != nil {
			return nil, err
		}
		k, err := kernels.NewPoly(deg, c.X)
		if err != nil {
			return nil, a.Fail("%v", err)
		}
		return NewKernelVal(k, []eval.Value{c.V}), nil
	})
	registry.Register("white()", "White noise: 1 for an observation with itself, 0 otherwise (its Gram matrix is the identity).", func(a *eval.Args) (eval.Value, error) {
		return NewKernelVal(kernels.White{}, nil), nil
	})
	registry.Register("constant()", "The constant kernel 1; c * constant() is the constant c.", func(a *eval.Args) (eval.Value, error) {
		return NewKernelVal(kernels.Constant{}, nil), nil
	})
	registry.Register("gram(k, x, y?)", "The Gram matrix of kernel k on the rows of x (k(x_i, x_j)), or between the rows of x and y (k(x_i, y_j)). Inside a model, k's hyperparameters may be parameters (x and y are data); gradients flow to them.", func(a *eval.Args) (eval.Value, error) {
		for _, name := range []string{"x", "y"} {
			if v := a.Value(name); v != nil && eval.IsAD(v) {
				return nil, a.Errorf(name, "gram's %s must be data, not a value that depends on model parameters", name)
			}
		}
		var k Arg
		var x, y *mat.Dense
		if err := a.Unpack("k", &k, "x", &x, "y?", &y); err != nil {
			return nil, err
		}
		if k.HasAD() {
			n, _ := x.Dims()
			m := n
			if y != nil {
				m, _ = y.Dims()
			}
			if err := a.CheckDense(n, m, "the Gram matrix", "use a smaller sample"); err != nil {
				return nil, err
			}
			g, err := gramOnTape(k.KernelVal, x, y)
			if err != nil {
				return nil, a.Errorf("x", "%v", err)
			}
			return g, nil
		}
		n, _ := x.Dims()
		m := n
		if y != nil {
			m, _ = y.Dims()
		}
		if err := a.CheckDense(n, m, "the Gram matrix", "use landmarks(x, m) and gram(k, x, landmarks) for an n×m matrix, or a smaller sample"); err != nil {
			return nil, err
		}
		if y == nil {
			g, err := kernels.GramDense(k.K, x)
			if err != nil {
				return nil, a.Errorf("x", "%v", err)
			}
			// GramDense mirrors one triangle, so g is exactly symmetric
			// and chol(g + ...) need not check it.
			return eval.NewSymMat(g), nil
		}
		c, err := kernels.Cross(k.K, x, y)
		if err != nil {
			return nil, a.Fail("%v", err)
		}
		return eval.NewMat(c), nil
	}).AD = true
	registry.Register("median_heuristic(x, seed?)",
		"The median Euclidean distance between rows of x over pairs i < j, so rbf(median_heuristic(x)) is exp(-|x - y|²/(2 m²)) with m the median (the convention of Muandet et al. 2014; the other, exp(-|x - y|²/m²), is rbf(m/sqrt(2))). Above 2000 rows a seeded subsample of 2000 rows is used.",
		func(a *eval.Args) (eval.Value, error) {
			var x *mat.Dense
			if err := a.Unpack("x", &x); err != nil {
				return nil, err
			}
			seed, err := a.Seed()
			if err != nil {
				return nil, err
			}
			m, err := kernels.MedianHeuristic(x, seed)
			if err != nil {
				return nil, a.Errorf("x", "%v", err)
			}
			return eval.Num(m), nil
		})
	registry.Register(`landmarks(x, m, seed?, method = "random")`,
		`m landmark points for x: "random" takes m distinct rows; "kmeans" returns the centres of a seeded k-means (k-means++ starts, then Lloyd iterations).`,
		func(a *eval.Args) (eval.Value, error) {
			var x *mat.Dense
			var m eval.PositiveInt
			var method string
			if err := a.Unpack("x", &x, "m", &m, "method", &method); err != nil {
				return nil, err
			}
			seed, err := a.Seed()
			if err != nil {
				return nil, err
			}
			z, err := kernels.Landmarks(x, int(m), seed, kernels.LandmarkMethod(method))
			if err != nil {
				return nil, a.Fail("%v", err)
			}
			return eval.NewMat(z), nil
		})
}

// kernel is an argument that must be a kernel value.
// Arg is an argument that must be a kernel value (an eval.Unpacker).
type Arg struct{ *KernelVal }

// UnpackArg implements eval.Unpacker.
func (k *Arg) UnpackArg(name string, v eval.Value) error {
	kv, ok := v.(*KernelVal)
	if !ok {
		return fmt.Errorf("%s must be a kernel such as rbf(1), got %s", name, eval.Describe(v))
	}
	k.KernelVal = kv
	return nil
}

// Unpack reads argument name as a kernel, for the builtins not yet
// unpacked declaratively (bke, kst).
func Unpack(a *eval.Args, name string) (*KernelVal, error) {
	var k Arg
	err := a.Unpack(name, &k)
	return k.KernelVal, err
}

// hyper is a scalar hyperparameter, which may depend on model parameters:
// its current value X and the value V the kernel keeps for the gradient.
type hyper struct {
	X float64
	V eval.Value
}

func (h *hyper) UnpackArg(name string, v eval.Value) error {
	switch v := v.(type) {
	case eval.Num:
		h.X, h.V = float64(v), v
		return nil
	case *eval.ADNum:
		// Peeked: every node that uses a kernel recomputes it from the
		// hyperparameters' values at replay (gram's VecFunc, bke's and
		// gp's FuncNode), and checks them there.
		h.X, h.V = v.Peek(), v
		return nil
	}
	return fmt.Errorf("%s must be a number, got %s", name, eval.Describe(v))
}

// lengthscale is a number (isotropic) or a vector (ARD), each element of
// which may depend on model parameters.
type lengthscale struct {
	Ell []float64
	V   []eval.Value
}

func (l *lengthscale) UnpackArg(name string, v eval.Value) error {
	switch v := v.(type) {
	case eval.Num, *eval.ADNum:
		var h hyper
		err := h.UnpackArg(name, v)
		l.Ell, l.V = []float64{h.X}, []eval.Value{h.V}
		return err
	case *eval.Vec:
		l.Ell, l.V = v.Data, make([]eval.Value, len(v.Data))
		for i, x := range v.Data {
			l.V[i] = eval.Num(x)
		}
		return nil
	case *eval.ADVec:
		l.Ell, l.V = v.Peeks(), make([]eval.Value, len(v.Vs))
		for i, node := range v.Vs {
			l.V[i] = &eval.ADNum{T: v.T, V: node}
		}
		return nil
	}
	return fmt.Errorf("%s must be a number or a vector (one per input column), got %s", name, eval.Describe(v))
}

func stationary(a *eval.Args, mk func([]float64) (kernels.Kernel, error)) (eval.Value, error) {
	var ell lengthscale
	if err := a.Unpack("ell", &ell); err != nil {
		return nil, err
	}
	k, err := mk(ell.Ell)
	if err != nil {
		return nil, a.Errorf("ell", "%v", err)
	}
	return NewKernelVal(k, ell.V), nil
}
