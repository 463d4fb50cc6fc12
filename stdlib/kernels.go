package stdlib

import (
	"fmt"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/kernels"
)

func init() {
	reg := func(spec, doc string, fn func(a *eval.Args) (eval.Value, error)) {
		b := eval.Register(spec, doc, fn)
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
		ell, hv, err := ellArg(a, "ell")
		if err != nil {
			return nil, err
		}
		alpha, av, err := hyperArg(a, "alpha")
		if err != nil {
			return nil, err
		}
		k, err := kernels.NewRQ(ell, alpha)
		if err != nil {
			return nil, a.Fail("%v", err)
		}
		return &eval.KernelVal{K: k, Hyper: append(hv, av)}, nil
	})
	reg("periodic(ell, period)", "The periodic kernel exp(-2 Σ_d sin²(π (x_d - y_d)/period)/ell²).", func(a *eval.Args) (eval.Value, error) {
		ell, ev, err := hyperArg(a, "ell")
		if err != nil {
			return nil, err
		}
		p, pv, err := hyperArg(a, "period")
		if err != nil {
			return nil, err
		}
		k, err := kernels.NewPeriodic(ell, p)
		if err != nil {
			return nil, a.Fail("%v", err)
		}
		return &eval.KernelVal{K: k, Hyper: []eval.Value{ev, pv}}, nil
	})
	reg("linear(c = 0)", "The linear kernel xᵀy + c, c ≥ 0.", func(a *eval.Args) (eval.Value, error) {
		c, cv, err := hyperArg(a, "c")
		if err != nil {
			return nil, err
		}
		k, err := kernels.NewLinear(c)
		if err != nil {
			return nil, a.Fail("%v", err)
		}
		return &eval.KernelVal{K: k, Hyper: []eval.Value{cv}}, nil
	})
	reg("poly(degree, c = 1)", "The polynomial kernel (xᵀy + c)^degree, degree a whole number ≥ 1 (fixed), c ≥ 0.", func(a *eval.Args) (eval.Value, error) {
		deg, err := a.Int("degree")
		if err != nil {
			return nil, err
		}
		c, cv, err := hyperArg(a, "c")
		if err != nil {
			return nil, err
		}
		k, err := kernels.NewPoly(deg, c)
		if err != nil {
			return nil, a.Fail("%v", err)
		}
		return &eval.KernelVal{K: k, Hyper: []eval.Value{cv}}, nil
	})
	eval.Register("white()", "White noise: 1 for an observation with itself, 0 otherwise (its Gram matrix is the identity).", func(a *eval.Args) (eval.Value, error) {
		return &eval.KernelVal{K: kernels.White{}}, nil
	})
	eval.Register("constant()", "The constant kernel 1; c * constant() is the constant c.", func(a *eval.Args) (eval.Value, error) {
		return &eval.KernelVal{K: kernels.Constant{}}, nil
	})
	eval.Register("gram(k, x, y?)", "The Gram matrix of kernel k on the rows of x (k(x_i, x_j)), or between the rows of x and y (k(x_i, y_j)).", func(a *eval.Args) (eval.Value, error) {
		k, err := kernelArg(a, "k")
		if err != nil {
			return nil, err
		}
		x, err := a.Matrix("x")
		if err != nil {
			return nil, err
		}
		if a.Value("y") == nil {
			g, err := kernels.Gram(k.K, x)
			if err != nil {
				return nil, a.Errorf("x", "%v", err)
			}
			return eval.NewMat(denseOf(g)), nil
		}
		y, err := a.Matrix("y")
		if err != nil {
			return nil, err
		}
		c, err := kernels.Cross(k.K, x, y)
		if err != nil {
			return nil, a.Fail("%v", err)
		}
		return eval.NewMat(c), nil
	})
	eval.Register("median_heuristic(x, seed?)",
		"The median Euclidean distance between rows of x over pairs i < j, so rbf(median_heuristic(x)) is exp(-|x - y|²/(2 m²)) with m the median (the convention of Muandet et al. 2014; the other, exp(-|x - y|²/m²), is rbf(m/sqrt(2))). Above 2000 rows a seeded subsample of 2000 rows is used.",
		func(a *eval.Args) (eval.Value, error) {
			x, err := a.Matrix("x")
			if err != nil {
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
	eval.Register(`landmarks(x, m, seed?, method = "random")`,
		`m landmark points for x: "random" takes m distinct rows; "kmeans" returns the centres of a seeded k-means (k-means++ starts, then Lloyd iterations).`,
		func(a *eval.Args) (eval.Value, error) {
			x, err := a.Matrix("x")
			if err != nil {
				return nil, err
			}
			m, err := a.PositiveInt("m")
			if err != nil {
				return nil, err
			}
			seed, err := a.Seed()
			if err != nil {
				return nil, err
			}
			method, err := a.Str("method")
			if err != nil {
				return nil, err
			}
			z, err := kernels.Landmarks(x, m, seed, kernels.LandmarkMethod(method))
			if err != nil {
				return nil, a.Fail("%v", err)
			}
			return eval.NewMat(z), nil
		})
}

func kernelArg(a *eval.Args, name string) (*eval.KernelVal, error) {
	k, ok := a.Value(name).(*eval.KernelVal)
	if !ok {
		return nil, a.Errorf(name, "%s must be a kernel such as rbf(1), got %s", name, eval.Describe(a.Value(name)))
	}
	return k, nil
}

// hyperArg reads a scalar hyperparameter, which may depend on model
// parameters.
func hyperArg(a *eval.Args, name string) (float64, eval.Value, error) {
	switch v := a.Value(name).(type) {
	case eval.Num:
		return float64(v), v, nil
	case *eval.ADNum:
		return v.Value(), v, nil
	}
	return 0, nil, a.Errorf(name, "%s must be a number, got %s", name, eval.Describe(a.Value(name)))
}

// ellArg reads a lengthscale: a number (isotropic) or a vector (ARD).
func ellArg(a *eval.Args, name string) ([]float64, []eval.Value, error) {
	switch v := a.Value(name).(type) {
	case eval.Num, *eval.ADNum:
		x, hv, err := hyperArg(a, name)
		return []float64{x}, []eval.Value{hv}, err
	case *eval.Vec:
		hv := make([]eval.Value, len(v.Data))
		for i, x := range v.Data {
			hv[i] = eval.Num(x)
		}
		return v.Data, hv, nil
	case *eval.ADVec:
		hv := make([]eval.Value, len(v.Vs))
		for i, node := range v.Vs {
			hv[i] = &eval.ADNum{T: v.T, V: node}
		}
		return v.Values(), hv, nil
	}
	return nil, nil, a.Errorf(name, "%s must be a number or a vector (one per input column), got %s", name, eval.Describe(a.Value(name)))
}

func stationary(a *eval.Args, mk func([]float64) (kernels.Kernel, error)) (eval.Value, error) {
	ell, hv, err := ellArg(a, "ell")
	if err != nil {
		return nil, err
	}
	k, err := mk(ell)
	if err != nil {
		return nil, a.Errorf("ell", "%v", err)
	}
	return &eval.KernelVal{K: k, Hyper: hv}, nil
}
