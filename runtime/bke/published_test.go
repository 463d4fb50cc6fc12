package bke

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// stanProgram transcribes the computation of the authors' Stan program
// (Flaxman et al. 2016, appendix B) for data x and landmarks u, with the n×n
// eigendecomposition it forms. basis, if not nil, replaces the eigenvectors
// of the all-ones matrix (the eigensolver's choice for the eigenvalue-0
// space is arbitrary). It returns the log density the program increments,
// the vector mv2 and weights e of its quadratic form, and the Jacobian sum.
// fixed transcribes the program with its index order repaired: the weights
// run with the m index fastest, as to_vector does, and n sits at the
// position of the eigenvalue-n eigenvector.
func stanProgram(t *testing.T, x, u []float64, ell, sigma2 float64, basis *mat.Dense, fixed bool) (lp float64, mv2, e []float64, jac float64) {
	n, m := len(x), len(u)
	ones := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			ones.SetSym(i, j, 1)
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(ones, true) {
		t.Fatal("eigen(ones) failed")
	}
	var q1 mat.Dense
	eig.VectorsTo(&q1)
	if basis != nil {
		q1.CloneFrom(basis)
	}
	e1 := make([]float64, n)
	e1[0] = float64(n) // transformed data: e1[1] <- n
	if fixed {
		e1[0], e1[n-1] = 0, float64(n) // eigenvalues_sym sorts ascending
	}

	r := mat.NewSymDense(m, nil)
	k := mat.NewDense(n, m, nil)
	for i := 0; i < m; i++ {
		for j := i; j < m; j++ {
			r.SetSym(i, j, math.Exp(-(u[i]-u[j])*(u[i]-u[j])/(4*ell*ell)))
		}
	}
	for i := 0; i < n; i++ {
		var sumJ float64
		for j := 0; j < m; j++ {
			d2 := (x[i] - u[j]) * (x[i] - u[j])
			kij := math.Exp(-d2 / (2 * ell * ell))
			k.Set(i, j, kij)
			sumJ += kij * kij * d2 / math.Pow(ell, 4)
		}
		jac += math.Log(0.5 * sumJ) // increment_log_prob(log(.5 * sum(J[i])))
	}

	// kron_multi_normal(K, R, Q1, e1, m, n, sigma2)
	var eigR mat.EigenSym
	if !eigR.Factorize(r, true) {
		t.Fatal("eigen(R) failed")
	}
	var q2 mat.Dense
	eigR.VectorsTo(&q2)
	e2 := eigR.Values(nil)
	e = make([]float64, m*n)
	for j := 0; j < m; j++ {
		for i := 0; i < n; i++ {
			if fixed {
				e[i*m+j] = 1 / (e1[i]*e2[j] + sigma2)
			} else {
				e[j*n+i] = 1 / (e1[i]*e2[j] + sigma2) // e[(j-1)*n + i]
			}
		}
	}
	var prod mat.Dense // Q2ᵀ Kᵀ Q1, m×n
	prod.Product(q2.T(), k.T(), &q1)
	mv2 = make([]float64, m*n)
	for col := 0; col < n; col++ { // to_vector is column-major
		for row := 0; row < m; row++ {
			mv2[col*m+row] = prod.At(row, col)
		}
	}
	var mvp, logdet float64
	for i := range mv2 {
		mvp += mv2[i] * e[i] * mv2[i]
	}
	for j := 0; j < m; j++ {
		logdet += math.Log(e2[j]*float64(n) + sigma2)
	}
	logdet += float64(m*(n-1)) * math.Log(sigma2)
	return jac + (-0.5*logdet - 0.5*mvp), mv2, e, jac
}

// TestPublishedMatchesStanProgram checks the Published variant against the
// transcribed Stan program. Their quadratic form puts the m weights
// 1/(nλ_j + s2) on positions j·n of mv2, which for n > m are all entries of
// the centred part (eigenvectors orthogonal to 1ₙ); every other entry,
// including all of the mean column, gets 1/s2. Published is the program's
// value with those m weights set to 1/s2 as well: the part that does not
// depend on the eigensolver's basis for the null space of 1ₙ1ₙᵀ.
func TestPublishedMatchesStanProgram(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	for _, c := range []struct {
		n, m      int
		ell, tau2 float64
	}{{7, 3, 0.8, 0.5}, {12, 4, 1.3, 2}, {30, 5, 0.4, 1}} {
		x := make([]float64, c.n)
		u := make([]float64, c.m)
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		for j := range u {
			u[j] = rng.NormFloat64()
		}
		md, err := New(mat.NewDense(c.n, 1, x), mat.NewDense(c.m, 1, u), Options{Variant: Published})
		if err != nil {
			t.Fatal(err)
		}
		got, err := md.LogDensity(Hyper{Ell: []float64{c.ell}, Tau2: c.tau2}, nil)
		if err != nil {
			t.Fatal(err)
		}

		lp, mv2, e, _ := stanProgram(t, x, u, c.ell, c.tau2, nil, false)
		var misplaced float64 // −½ Σ over the m special weights of mv2²(w − 1/s2)
		for j := 0; j < c.m; j++ {
			pos := j * c.n
			if col := pos / c.m; col == c.n-1 {
				t.Fatalf("n=%d m=%d: weight %d lands on the mean column", c.n, c.m, j)
			}
			misplaced += -0.5 * mv2[pos] * mv2[pos] * (e[pos] - 1/c.tau2)
		}
		if want := lp - misplaced; math.Abs(got-want) > 1e-10*(1+math.Abs(want)) {
			t.Errorf("n=%d m=%d: published %.15g, Stan program without its misplaced weights %.15g", c.n, c.m, got, want)
		}

		// Another orthonormal basis of the eigenvalue-0 space changes the
		// program's value but not Published.
		basis := rotatedOnesBasis(t, c.n, rng)
		lp2, mv2b, eb, _ := stanProgram(t, x, u, c.ell, c.tau2, basis, false)
		var misplaced2 float64
		for j := 0; j < c.m; j++ {
			pos := j * c.n
			misplaced2 += -0.5 * mv2b[pos] * mv2b[pos] * (eb[pos] - 1/c.tau2)
		}
		if math.Abs(lp2-lp) < 1e-9 {
			t.Errorf("n=%d m=%d: the program's value did not depend on the basis", c.n, c.m)
		}
		if want := lp2 - misplaced2; math.Abs(got-want) > 1e-10*(1+math.Abs(want)) {
			t.Errorf("n=%d m=%d, rotated basis: published %.15g, program without misplaced weights %.15g", c.n, c.m, got, want)
		}

		// With the index order repaired, the program computes the derived
		// Gaussian part: Derived = fixed program − its Jacobian + the
		// derived Jacobian − ½ mn log 2π.
		fixedLP, _, _, stanJac := stanProgram(t, x, u, c.ell, c.tau2, nil, true)
		mdD, err := New(mat.NewDense(c.n, 1, x), mat.NewDense(c.m, 1, u), Options{})
		if err != nil {
			t.Fatal(err)
		}
		derived, err := mdD.LogDensity(Hyper{Ell: []float64{c.ell}, Tau2: c.tau2}, nil)
		if err != nil {
			t.Fatal(err)
		}
		// Σ log(½ ΣJ) = 2 Σ ½ log ΣJ − n log 2.
		derivedJac := (stanJac + float64(c.n)*math.Ln2) / 2
		want := fixedLP - stanJac + derivedJac - 0.5*float64(c.n*c.m)*math.Log(2*math.Pi)
		if math.Abs(derived-want) > 1e-10*(1+math.Abs(want)) {
			t.Errorf("n=%d m=%d: derived %.15g, repaired Stan program %.15g", c.n, c.m, derived, want)
		}
	}
}

// rotatedOnesBasis returns an orthonormal basis of Rⁿ whose last column is
// 1ₙ/√n and whose other columns are a random basis of its complement.
func rotatedOnesBasis(t *testing.T, n int, rng *rand.Rand) *mat.Dense {
	a := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		a.Set(i, 0, 1)
		for j := 1; j < n; j++ {
			a.Set(i, j, rng.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(a)
	var q mat.Dense
	qr.QTo(&q)
	b := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 1; j < n; j++ {
			b.Set(i, j-1, q.At(i, j))
		}
		b.Set(i, n-1, 1/math.Sqrt(float64(n)))
	}
	return b
}

func TestPublishedGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 34))
	x := randMatrix(rng, 40, 1, 1)
	z := randMatrix(rng, 6, 1, 1)
	for _, pr := range []Prior{Normalised, Lebesgue, Gaussian} {
		md, err := New(x, z, Options{Variant: Published, Prior: pr, Eta: 2})
		if err != nil {
			t.Fatal(err)
		}
		checkGradient(t, "published "+pr.String(), md, Hyper{Ell: []float64{0.7}, Amp: 1.4, Tau2: 0.6}, 1e-6)
	}
}

// densePublished computes the Published density in any D by brute force:
// log|C| of the dense mn×mn covariance C = 1ₙ1ₙᵀ ⊗ R + τ²I (which is
// log|A| + m log n + m(n−1) log τ²), ‖K‖_F² from math.Exp, and each
// ‖∇ₓ k(x_i, z_l)‖² by central differences of k in x.
func densePublished(t *testing.T, x, z *mat.Dense, prior Prior, eta float64, h Hyper) float64 {
	n, dim := x.Dims()
	m, _ := z.Dims()
	ell := func(d int) float64 {
		if len(h.Ell) == 1 {
			return h.Ell[0]
		}
		return h.Ell[d]
	}
	k := func(a, b []float64) float64 {
		var q float64
		for d := range a {
			v := (a[d] - b[d]) / ell(d)
			q += v * v
		}
		return h.Amp * math.Exp(-q/2)
	}
	r, err := NewPriorKernel(h.Amp, h.Ell, prior, eta)
	if err != nil {
		t.Fatal(err)
	}
	c := mat.NewSymDense(n*m, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			for a := 0; a < m; a++ {
				for b := 0; b < m; b++ {
					v := r.Eval(z.RawRowView(a), z.RawRowView(b))
					if i == j && a == b {
						v += h.Tau2
					}
					c.SetSym(i*m+a, j*m+b, v)
				}
			}
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(c) {
		t.Fatal("dense C not positive definite")
	}
	var kf2, jac float64
	step := 1e-5
	for i := 0; i < n; i++ {
		var sum float64
		for l := 0; l < m; l++ {
			xi, zl := x.RawRowView(i), z.RawRowView(l)
			kv := k(xi, zl)
			kf2 += kv * kv
			for d := 0; d < dim; d++ {
				xp := append([]float64(nil), xi...)
				xm := append([]float64(nil), xi...)
				xp[d] += step
				xm[d] -= step
				dk := (k(xp, zl) - k(xm, zl)) / (2 * step)
				sum += dk * dk
			}
		}
		jac += math.Log(0.5 * sum)
	}
	return -0.5*(ch.LogDet()+kf2/h.Tau2) + jac
}

func TestPublishedDenseND(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	for _, c := range []struct {
		n, m, dim int
		ell       []float64
	}{
		{7, 4, 2, []float64{0.8}},
		{7, 4, 2, []float64{0.6, 1.3}},
		{6, 5, 3, []float64{0.9}},
		{6, 5, 3, []float64{0.7, 1.1, 1.6}},
		{5, 3, 1, []float64{0.7}},
	} {
		x := randMatrix(rng, c.n, c.dim, 1)
		z := randMatrix(rng, c.m, c.dim, 1)
		for _, pr := range []Prior{Normalised, Lebesgue, Gaussian} {
			md, err := New(x, z, Options{Variant: Published, Prior: pr, Eta: 1.5})
			if err != nil {
				t.Fatal(err)
			}
			h := Hyper{Ell: c.ell, Amp: 1.3, Tau2: 0.4}
			got, err := md.LogDensity(h, nil)
			if err != nil {
				t.Fatal(err)
			}
			want := densePublished(t, x, z, pr, 1.5, h)
			if math.Abs(got-want) > 1e-7*(1+math.Abs(want)) {
				t.Errorf("D=%d ell=%v %s: published %.12g, dense %.12g", c.dim, c.ell, pr, got, want)
			}
		}
	}
}

func TestPublishedGradientND(t *testing.T) {
	rng := rand.New(rand.NewPCG(43, 44))
	for _, dim := range []int{2, 3} {
		x := randMatrix(rng, 30, dim, 1)
		z := randMatrix(rng, 6, dim, 1)
		for _, pr := range []Prior{Normalised, Lebesgue, Gaussian} {
			md, err := New(x, z, Options{Variant: Published, Prior: pr, Eta: 2})
			if err != nil {
				t.Fatal(err)
			}
			checkGradient(t, "published iso "+pr.String(), md, Hyper{Ell: []float64{0.7}, Amp: 1.4, Tau2: 0.6}, 1e-6)
			ard := []float64{0.6, 0.9, 1.4}[:dim]
			checkGradient(t, "published ARD "+pr.String(), md, Hyper{Ell: ard, Amp: 1.4, Tau2: 0.6}, 1e-6)
		}
	}
}

// publishedJacobian in D = 1 must equal the term the D = 1 path takes from
// the pass, 2 Σ_i ½ log J_i − n log 2, and its derivative.
func TestPublishedJacobianMatchesPass1D(t *testing.T) {
	rng := rand.New(rand.NewPCG(45, 46))
	md, err := New(randMatrix(rng, 50, 1, 1), randMatrix(rng, 7, 1, 1), Options{Variant: Published})
	if err != nil {
		t.Fatal(err)
	}
	p, err := md.prepare(Hyper{Ell: []float64{0.45}, Amp: 1.7, Tau2: 1}, true)
	if err != nil {
		t.Fatal(err)
	}
	res, err := md.run(p, true, true)
	if err != nil {
		t.Fatal(err)
	}
	n, l := float64(md.n), p.ell[0]
	want := 2*(res.logJac+n*(math.Log(p.amp)-2*math.Log(l))) - n*math.Ln2
	wantD := 2 * (res.dJac[0]/l - 2*n/l)
	d := make([]float64, 1)
	got, err := md.publishedJacobian(p, d)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(got-want) > 1e-10*math.Abs(want) || math.Abs(d[0]-wantD) > 1e-9*math.Abs(wantD) {
		t.Errorf("publishedJacobian %.15g (d/dℓ %.15g), pass %.15g (%.15g)", got, d[0], want, wantD)
	}
}

// Far from every landmark (q ≈ 10⁴, e² = exp(−q) underflows) the term
// stays finite and equals its log-sum-exp form, also for a point on a
// landmark (whose own term is 0); a point on every landmark is an error
// naming its row.
func TestPublishedJacobianFar(t *testing.T) {
	x := mat.NewDense(1, 2, []float64{1, 0})
	z := mat.NewDense(2, 2, []float64{0, 0, 0, 0.5})
	md, err := New(x, z, Options{Variant: Published})
	if err != nil {
		t.Fatal(err)
	}
	l := 0.01
	p, _ := md.prepare(Hyper{Ell: []float64{l}, Tau2: 1}, true)
	got, err := md.publishedJacobian(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Landmark l: q = |v|²/ℓ², s = |v|²/ℓ⁴.
	q1, q2 := 1/(l*l), 1.25/(l*l)
	s1, s2 := 1/(l*l*l*l), 1.25/(l*l*l*l)
	want := math.Log(0.5) - q1 + math.Log(s1+math.Exp(q1-q2)*s2)
	if math.IsInf(got, 0) || math.Abs(got-want) > 1e-12*math.Abs(want) {
		t.Errorf("far point: %.15g, want %.15g", got, want)
	}
	x2 := mat.NewDense(1, 2, []float64{0, 0})
	md2, _ := New(x2, mat.NewDense(2, 2, []float64{0, 0, 0, 0.5}), Options{Variant: Published})
	p2, _ := md2.prepare(Hyper{Ell: []float64{l}, Tau2: 1}, true)
	got, err = md2.publishedJacobian(p2, nil)
	if want := math.Log(0.5) - 0.25/(l*l) + math.Log(0.25/(l*l*l*l)); err != nil || math.Abs(got-want) > 1e-12*math.Abs(want) {
		t.Errorf("point on a landmark: %.15g (%v), want %.15g", got, err, want)
	}
	md3, _ := New(x2, mat.NewDense(2, 2, []float64{0, 0, 0, 0}), Options{Variant: Published})
	if _, err := md3.publishedJacobian(p2, nil); err == nil || !strings.Contains(err.Error(), "row 1") {
		t.Errorf("point on a landmark: err = %v, want one naming row 1", err)
	}
}
