package kst

import (
	"github.com/kml-lang/kml/lang/eval"
	rkst "github.com/kml-lang/kml/runtime/kst"
)

func registerKstFantasy(reg *eval.Registry) {
	reg.Register("fantasy(n, kernel, dim = 1, sigma0 = 1, alpha = 1, beta = 1, box?, warmup = 200, jumps = 100, seed?)",
		"Fantasy data from the kernel Student-t model (Huszár and Lacoste-Julien 2011, Figure 2): x_1 = 0, then each point drawn from the predictive density kst(previous points, kernel, sigma0, alpha, beta) by one NUTS chain started at the previous point (warmup iterations, then one draw) followed by jumps independence Metropolis–Hastings steps whose proposal covers every point so far and the box, so that a far cluster the local chain would miss is visited in proportion to its mass. Returns an n×dim matrix. A shift-invariant kernel (rbf, matern, ...) gives an improper predictive density (it tends to a constant far from the data), so it needs box: B, which restricts the draws to [-B, B]^dim.",
		fantasyBuiltin)
}

func fantasyBuiltin(a *eval.Args) (eval.Value, error) {
	var n, dim, warmup eval.PositiveInt
	var jumps int
	var h rkst.Hyper
	var box float64
	if err := a.Unpack("n", &n, "dim", &dim, "warmup", &warmup, "sigma0", &h.Sigma0, "alpha", &h.Alpha, "beta", &h.Beta, "box?", &box, "jumps", &jumps); err != nil {
		return nil, err
	}
	if n > 10000 || dim > 100 {
		return nil, a.Fail("fantasy draws at most 10000 points of dimension at most 100 (each point refits the density), got %d of dimension %d", n, dim)
	}
	if jumps < 0 || jumps > 100000 {
		return nil, a.Errorf("jumps", "jumps must be from 0 to 100000, got %d", jumps)
	}
	if a.Given("box") && !(box > 0) {
		return nil, a.Errorf("box", "box must be positive, got %v", box)
	}
	k, err := fixedKernel(a, "kernel")
	if err != nil {
		return nil, err
	}
	seed, err := a.Seed()
	if err != nil {
		return nil, err
	}
	x, err := rkst.Fantasy(a.Context(), k, h, rkst.FantasySettings{N: int(n), Dim: int(dim), Box: box, Warmup: int(warmup), Jumps: jumps, Seed: seed})
	if err != nil {
		return nil, a.Fail("%v", err)
	}
	return eval.NewMat(x), nil
}
