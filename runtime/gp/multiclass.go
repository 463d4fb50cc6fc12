package gp

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/kernels"
	"github.com/kml-lang/kml/runtime/linalg"
)

// Multi-class classification with the softmax likelihood and one latent
// GP per class, independent with the same kernel matrix K (Williams and
// Barber 1998; Rasmussen and Williams 2006, §3.5, Algorithms 3.3 and 3.4).
// The latent vector f of length nC is stored class by class, f = (f¹, ...,
// f^C), each fᶜ of length n; P(yᵢ = c | fᵢ) = πᵢᶜ = exp fᵢᶜ / Σ_c' exp fᵢᶜ'.
// The negative Hessian of the log likelihood is W = D − ΠΠᵀ with D =
// diag(π) and Π the nC × n stack of diag(πᶜ): C × C blocks per point,
// singular (its rows sum to 0), so everything goes through
//
//	Eᶜ = (K + Dᶜ⁻¹)⁻¹ = Dᶜ^½ Bᶜ⁻¹ Dᶜ^½,  Bᶜ = I + Dᶜ^½ K Dᶜ^½,  M = Σ_c Eᶜ,
//
// in which (I + WK)⁻¹W = E − E R M⁻¹ Rᵀ E (R the nC × n stack of
// identities) and, by the matrix determinant lemma with Σ_c πᶜ = 1,
//
//	log|I + KW| = Σ_c log|Bᶜ| + log|M|.
//
// The log|M| term is missing from Algorithm 3.3 as printed (line 21 sums
// only the zᶜ = log|Bᶜ|/2); TestMultiLaplaceDense compares both with a
// dense determinant.

// MultiPosterior is Laplace's approximation at the posterior mode of a
// multi-class GP: f ~ N(f̂, (K⁻¹ + W)⁻¹) with f̂ = Kâ, given by what the
// predictions need.
type MultiPosterior struct {
	N, C int
	// F, Alpha and Pi are f̂, â = y − π̂ and π̂, each C vectors of n.
	F, Alpha, Pi [][]float64
	// E are the Eᶜ, and Z the Lᴹ⁻¹Eᶜ with Lᴹ the Cholesky factor of M.
	E, Z []*mat.Dense
	// LogDet is log|I + KW| and LogQ Laplace's log marginal likelihood.
	LogDet, LogQ float64
	// Iterations is the number of Newton steps the mode took.
	Iterations int
	lm         mat.Cholesky
}

// multiPsi is Ψ(f) = Σᵢ log πᵢ^{yᵢ} − ½ aᵀf with f = Ka, and it writes π.
func multiPsi(f, a [][]float64, y []int, pi [][]float64) float64 {
	C, n := len(f), len(y)
	v := 0.0
	for i := range n {
		m := math.Inf(-1)
		for c := range C {
			m = math.Max(m, f[c][i])
		}
		z := 0.0
		for c := range C {
			z += math.Exp(f[c][i] - m)
		}
		lse := m + math.Log(z)
		for c := range C {
			pi[c][i] = math.Exp(f[c][i] - lse)
		}
		v += f[y[i]][i] - lse
	}
	for c := range C {
		for i := range n {
			v -= 0.5 * a[c][i] * f[c][i]
		}
	}
	return v
}

// multiFactors computes the Eᶜ at π, the factor of M = Σ Eᶜ, and
// Σ_c log|Bᶜ| + log|M|. Each Bᶜ is factored and inverted in place by
// blas3's potrf and potri (no condition estimate, no copies); Eᶜ's upper
// triangle and M's are written row by row from the raw arrays, and Eᶜ's
// lower triangle mirrored by tiles (mirrorLower).
func multiFactors(K *mat.SymDense, pi [][]float64, E []*mat.Dense, lm *mat.Cholesky) (float64, error) {
	n := K.SymmetricDim()
	B := mat.NewSymDense(n, nil)
	M := mat.NewSymDense(n, nil)
	mr := M.RawSymmetric()
	sd := make([]float64, n)
	logdet := 0.0
	for c, p := range pi {
		for i := range sd {
			sd[i] = math.Sqrt(p[i])
		}
		fillB(B, K, sd)
		t, ok := potrf(B.RawSymmetric())
		if !ok {
			return 0, ErrNotPD
		}
		logdet += logDetUpper(t)
		if !potri(t) {
			return 0, ErrNotPD
		}
		if E[c] == nil {
			E[c] = mat.NewDense(n, n, nil)
		}
		er := E[c].RawMatrix()
		for i := range n {
			bi := t.Data[i*t.Stride+i : i*t.Stride+n]
			ei := er.Data[i*er.Stride+i : i*er.Stride+n]
			mi := mr.Data[i*mr.Stride+i : i*mr.Stride+n]
			sj := sd[i:n]
			for j, v := range bi {
				v *= sd[i] * sj[j]
				ei[j] = v
				mi[j] += v
			}
		}
		mirrorLower(er.Data, er.Stride, n)
	}
	if !lm.Factorize(M) {
		return 0, ErrNotPD
	}
	return logdet + lm.LogDet(), nil
}

// mirrorLower copies the upper triangle of the n × n row-major a (stride
// lda) into its lower triangle, by 32 × 32 tiles so that both the reads
// down a column and the writes along a row stay in cache.
func mirrorLower(a []float64, lda, n int) {
	const tile = 32
	for i0 := 0; i0 < n; i0 += tile {
		i1 := min(i0+tile, n)
		for j0 := 0; j0 <= i0; j0 += tile {
			j1 := min(j0+tile, n)
			for i := i0; i < i1; i++ {
				row := a[i*lda:]
				for j := j0; j < min(j1, i); j++ {
					row[j] = a[j*lda+i]
				}
			}
		}
	}
}

// MultiLaplaceMode finds the posterior mode of the C latent GPs with
// kernel matrix K given labels y in 0..C−1 by Newton's method as in
// Algorithm 3.3, each step halved until Ψ increases (Ψ is concave, so
// this only guards against rounding), and returns Laplace's approximation
// there.
func MultiLaplaceMode(K *mat.SymDense, y []int, C int) (*MultiPosterior, error) {
	p, _, err := multiLaplaceModeFrom(K, y, C, nil)
	return p, err
}

// multiLaplaceModeFrom is MultiLaplaceMode with Newton's method started at
// a = start (f = Ka) instead of zero when start is not nil; as
// laplaceModeFrom, started at the â a previous call returned for the same
// K it returns that mode to the bit, and fixed says the mode passed the
// gradient test (modeTol).
func multiLaplaceModeFrom(K *mat.SymDense, y []int, C int, start [][]float64) (*MultiPosterior, bool, error) {
	n := K.SymmetricDim()
	if len(y) != n {
		return nil, false, fmt.Errorf("gp: %d labels for %d input rows", len(y), n)
	}
	if C < 2 {
		return nil, false, fmt.Errorf("gp: multi-class classification needs at least 2 classes, got %d", C)
	}
	for i, v := range y {
		if v < 0 || v >= C {
			return nil, false, fmt.Errorf("gp: label %d is %d, not a class from 1 to %d", i+1, v+1, C)
		}
	}
	p := &MultiPosterior{N: n, C: C, E: make([]*mat.Dense, C)}
	newVecs := func() [][]float64 {
		v := make([][]float64, C)
		for c := range v {
			v[c] = make([]float64, n)
		}
		return v
	}
	f, a, pi := newVecs(), newVecs(), newVecs()
	na, nf, npi := newVecs(), newVecs(), newVecs()
	b, cc := newVecs(), newVecs()
	if start != nil {
		for c := range C {
			copy(a[c], start[c])
			mat.NewVecDense(n, f[c]).MulVec(K, mat.NewVecDense(n, a[c]))
		}
	}
	asc := newtonAscent{cur: multiPsi(f, a, y, pi)}
	kf := fullSymTo(square(n), K)
	defer release(kf)
	tmp := mat.NewVecDense(n, nil)
	sum := mat.NewVecDense(n, nil)
	done, fixed := false, false
	for it := 0; it <= modeMax && !done; it++ {
		// The gradient of Ψ in f: y − π − a.
		// Relative to max(1, Σ_j |K_ij||a_j|): f = Ka carries rounding
		// of about ε times that sum, which π passes on to the gradient,
		// so at a large kernel scale the gradient cannot fall below a
		// floor far above 10⁻¹² and the steps, whose Ψ then moves up and
		// down by units in its last place, would wander there (50 to 90
		// of them in examples/gp_digits_multiclass.kml's fit, a = 247).
		gmax, scale := 0.0, 1.0
		for c := range C {
			for i := range n {
				t := 0.0
				if y[i] == c {
					t = 1
				}
				gmax = math.Max(gmax, math.Abs(t-pi[c][i]-a[c][i]))
				s := 0.0
				for j, v := range kf[i*n : (i+1)*n] {
					s += math.Abs(v) * math.Abs(a[c][j])
				}
				scale = math.Max(scale, s)
			}
		}
		if gmax <= modeTol*scale {
			p.Iterations = it
			done, fixed = true, true
			break
		}
		if it == modeMax {
			return nil, false, ErrMode
		}
		if _, err := multiFactors(K, pi, p.E, &p.lm); err != nil {
			return nil, false, err
		}
		// b = Wf + y − π, with (Wf)ᵢᶜ = πᵢᶜfᵢᶜ − πᵢᶜ Σ_c' πᵢᶜ'fᵢᶜ'.
		for i := range n {
			s := 0.0
			for c := range C {
				s += pi[c][i] * f[c][i]
			}
			for c := range C {
				t := 0.0
				if y[i] == c {
					t = 1
				}
				b[c][i] = pi[c][i]*(f[c][i]-s) + t - pi[c][i]
			}
		}
		// c = EKb; a = b − c + E R M⁻¹ Rᵀ c.
		sum.Zero()
		for c := range C {
			tmp.MulVec(K, mat.NewVecDense(n, b[c]))
			out := mat.NewVecDense(n, cc[c])
			out.MulVec(p.E[c], tmp)
			sum.AddVec(sum, out)
		}
		if err := linalg.IgnoreCondition(p.lm.SolveVecTo(sum, sum)); err != nil {
			return nil, false, err
		}
		da, df := newVecs(), newVecs()
		for c := range C {
			tmp.MulVec(p.E[c], sum)
			for i := range n {
				da[c][i] = b[c][i] - cc[c][i] + tmp.AtVec(i) - a[c][i]
			}
			mat.NewVecDense(n, df[c]).MulVec(K, mat.NewVecDense(n, da[c]))
		}
		_, ok := asc.step(func(t float64) float64 {
			for c := range C {
				for i := range n {
					na[c][i] = a[c][i] + t*da[c][i]
					nf[c][i] = f[c][i] + t*df[c][i]
				}
			}
			return multiPsi(nf, na, y, npi)
		})
		if asc.stuck(ok) {
			if gmax <= 1e-7 {
				p.Iterations = it
				done = true
				break
			}
			return nil, false, ErrMode
		}
		for c := range C {
			// f = Ka afresh, so that rounding does not pull them apart.
			copy(a[c], na[c])
			mat.NewVecDense(n, f[c]).MulVec(K, mat.NewVecDense(n, a[c]))
		}
		asc.cur = multiPsi(f, a, y, pi)
	}
	logdet, err := multiFactors(K, pi, p.E, &p.lm)
	if err != nil {
		return nil, false, err
	}
	p.F, p.Pi, p.LogDet = f, pi, logdet
	// At the mode a = y − π; keep the a that gives f = Ka.
	p.Alpha = a
	p.LogQ = asc.cur - 0.5*logdet
	var lt mat.TriDense
	p.lm.LTo(&lt)
	p.Z = make([]*mat.Dense, C)
	for c := range C {
		p.Z[c] = mat.NewDense(n, n, nil)
		if err := linalg.IgnoreCondition(p.Z[c].Solve(&lt, p.E[c])); err != nil {
			return nil, false, err
		}
	}
	return p, fixed, nil
}

// MultiLaplace is Laplace's approximation to the log marginal likelihood
// of multi-class GP classification with kernel k at the rows of x and
// labels y in 0..C−1,
//
//	log q(y) = Σᵢ log π̂ᵢ^{yᵢ} − ½ âᵀf̂ − ½ log|I + KW|,
//
// with, when grad is not nil, its gradient in k's hyperparameters written
// to grad (Williams and Barber 1998; Rasmussen and Williams eq. 5.23 with
// W's block structure): the explicit part ½ Σ_c (âᶜâᶜᵀ − Rᶜᶜ) contracted
// with ∂K, Rᶜᶜ the diagonal blocks of (I + WK)⁻¹W, and the implicit part
// through the mode, uᵀ ∂K â with u = (I + WK)⁻¹s and
//
//	sᵢᵉ = −½ tr(Σᵢ ∂Wᵢ/∂fᵢᵉ),
//
// Σᵢ the C × C block of the posterior covariance (K⁻¹ + W)⁻¹ at point i.
func MultiLaplace(k kernels.Kernel, x *mat.Dense, y []int, C int, grad []float64) (float64, *MultiPosterior, error) {
	return MultiLaplaceWarm(nil, k, x, y, C, grad)
}

// MultiLaplaceWarm is MultiLaplace with the mode found from w's start
// (MultiWarm); a nil w starts from zero.
func MultiLaplaceWarm(w *MultiWarm, k kernels.Kernel, x *mat.Dense, y []int, C int, grad []float64) (float64, *MultiPosterior, error) {
	K, err := kernels.Gram(k, x)
	if err != nil {
		return 0, nil, err
	}
	for _, v := range K.RawSymmetric().Data {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, nil, ErrNonFinite
		}
	}
	p, err := w.mode(K, y, C)
	if err != nil {
		return 0, nil, err
	}
	if grad == nil {
		return p.LogQ, p, nil
	}
	clear(grad)
	wc := multiGradMatrix(K, p)
	ContractSym(grad[:k.NumHyper()], k, x, wc)
	return p.LogQ, p, nil
}

// multiGradMatrix is the symmetric matrix G with ∂log q/∂h = ½ Σᵢⱼ Gᵢⱼ
// ∂Kᵢⱼ/∂h (see MultiLaplace).
func multiGradMatrix(K *mat.SymDense, p *MultiPosterior) *mat.SymDense {
	n, C := p.N, p.C
	// G_c = EᶜK and Qᶜ = Lᴹ⁻¹EᶜK = ZᶜK give the C × C blocks of the
	// posterior covariance at each point:
	// Σᵢ[c][c'] = δ(Kᵢᵢ − (KEᶜK)ᵢᵢ) + (KEᶜM⁻¹Eᶜ'K)ᵢᵢ, the last the dot
	// product of columns i of Qᶜ and Qᶜ', kept as rows of Qᶜᵀ = KZᶜᵀ. K is
	// copied to a general matrix so that the products are DGEMMs.
	Kd := mat.DenseCopyOf(K)
	Qt := make([]*mat.Dense, C)
	diagKEK := make([][]float64, C)
	var G mat.Dense
	for c := range C {
		G.Mul(p.E[c], Kd)
		diagKEK[c] = make([]float64, n)
		for i := range n {
			diagKEK[c][i] = linalg.Dot(Kd.RawRowView(i), mat.Col(nil, i, &G))
		}
		Qt[c] = mat.NewDense(n, n, nil)
		Qt[c].Mul(Kd, p.Z[c].T())
	}
	s := make([][]float64, C)
	for c := range s {
		s[c] = make([]float64, n)
	}
	S := make([]float64, C*C)
	sp := make([]float64, C)
	for i := range n {
		for c := range C {
			for e := c; e < C; e++ {
				v := linalg.Dot(Qt[c].RawRowView(i), Qt[e].RawRowView(i))
				if c == e {
					v += K.At(i, i) - diagKEK[c][i]
				}
				S[c*C+e], S[e*C+c] = v, v
			}
		}
		// tr(Σᵢ ∂Wᵢ/∂fᵉ) = Σ_c ∂πᶜ (Sᶜᶜ − 2(Sπ)ᶜ), ∂πᶜ = πᶜ(δ_ce − πᵉ).
		avg := 0.0
		for c := range C {
			t := 0.0
			for e := range C {
				t += S[c*C+e] * p.Pi[e][i]
			}
			sp[c] = S[c*C+c] - 2*t
			avg += p.Pi[c][i] * sp[c]
		}
		for e := range C {
			s[e][i] = -0.5 * p.Pi[e][i] * (sp[e] - avg)
		}
	}
	// u = s − RKs, (Rv)ᶜ = Eᶜvᶜ − EᶜM⁻¹Σ_c' Eᶜ'vᶜ'.
	u := p.applyR(K, s)
	for c := range C {
		for i := range n {
			u[c][i] = s[c][i] - u[c][i]
		}
	}
	wc := mat.NewSymDense(n, nil)
	var zz mat.Dense
	for c := range C {
		zz.Mul(p.Z[c].T(), p.Z[c])
		a, uc, E := p.Alpha[c], u[c], p.E[c]
		for i := range n {
			for j := i; j < n; j++ {
				v := a[i]*a[j] - (E.At(i, j) - zz.At(i, j)) + a[i]*uc[j] + uc[i]*a[j]
				wc.SetSym(i, j, wc.At(i, j)+v)
			}
		}
	}
	return wc
}

// applyR returns R K v for R = (I + WK)⁻¹W at the mode.
func (p *MultiPosterior) applyR(K *mat.SymDense, v [][]float64) [][]float64 {
	n, C := p.N, p.C
	out := make([][]float64, C)
	sum := mat.NewVecDense(n, nil)
	kv := mat.NewVecDense(n, nil)
	for c := range C {
		kv.MulVec(K, mat.NewVecDense(n, v[c]))
		o := mat.NewVecDense(n, nil)
		o.MulVec(p.E[c], kv)
		out[c] = o.RawVector().Data
		sum.AddVec(sum, o)
	}
	_ = linalg.IgnoreCondition(p.lm.SolveVecTo(sum, sum))
	for c := range C {
		kv.MulVec(p.E[c], sum)
		for i := range n {
			out[c][i] -= kv.AtVec(i)
		}
	}
	return out
}
