package kernels

import (
	"fmt"
	"math"
	"runtime"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/runtime/internal/fastexp"
	"github.com/kml-lang/kml/runtime/internal/par"
	"github.com/kml-lang/kml/runtime/interrupt"
	"github.com/kml-lang/kml/runtime/linalg"
)

// blockRows is the number of rows one worker fills at a time.
const blockRows = 64

// Gram returns the symmetric Gram matrix K_ij = k(x_i, x_j) of the rows of
// x, computed in parallel row blocks with GOMAXPROCS workers. Each pair is
// computed once, into the upper triangle that gonum's SymDense reads.
func Gram(k Kernel, x *mat.Dense) (*mat.SymDense, error) { return GramN(k, x, 0) }

// GramN is Gram with a given number of workers (0: GOMAXPROCS).
func GramN(k Kernel, x *mat.Dense, workers int) (*mat.SymDense, error) {
	if err := checkInputs(k, x, nil); err != nil {
		return nil, err
	}
	n, _ := x.Dims()
	dst := mat.NewSymDense(n, nil)
	if err := GramInto(dst, k, x, workers); err != nil {
		return nil, err
	}
	return dst, nil
}

// GramInto is GramN writing into dst, an n×n SymDense whose storage is
// reused: a model that evaluates the Gram matrix at every step allocates it
// once (a fresh 5000×5000 matrix costs more to map in than to fill).
func GramInto(dst *mat.SymDense, k Kernel, x *mat.Dense, workers int) error {
	if err := checkInputs(k, x, nil); err != nil {
		return err
	}
	n, _ := x.Dims()
	buf, err := symBuffer(dst, n)
	if err != nil {
		return err
	}
	g := newGrid(x, nil, workers)
	g.fill(k, buf)
	return nil
}

// GramFull is Gram with both triangles filled, row-major, for the
// statistics (package ktest) that read whole rows.
func GramFull(k Kernel, x *mat.Dense) ([]float64, error) {
	g, err := GramDense(k, x)
	if err != nil {
		return nil, err
	}
	return g.RawMatrix().Data, nil
}

// GramDense is Gram as a general n×n Dense: the upper triangle is filled
// and mirrored into the lower in the same buffer, so a caller that needs a
// Dense (a script's matrix) pays no copy.
func GramDense(k Kernel, x *mat.Dense) (*mat.Dense, error) {
	if err := checkInputs(k, x, nil); err != nil {
		return nil, err
	}
	n, _ := x.Dims()
	out := make([]float64, n*n)
	g := newGrid(x, nil, 0)
	g.fill(k, out)
	g.mirror(out)
	return mat.NewDense(n, n, out), nil
}

// mirror is mirror on the workers, each writing the lower triangle of its
// own row blocks: in a fresh matrix this is the first touch of half its
// pages, whose faults then are taken on every core.
func (g *grid) mirror(a []float64) {
	const tile = 64
	n := g.n
	g.parallel(func(r0, r1 int) {
		for c0 := 0; c0 < r1; c0 += tile {
			for r := r0; r < r1; r++ {
				dst := a[r*n : r*n+r]
				for c := c0; c < min(c0+tile, r); c++ {
					dst[c] = a[c*n+r]
				}
			}
		}
	})
}

// Mirror copies the upper triangle of the row-major n×n matrix a to its
// lower triangle, in tiles and on every core: for callers that hold a
// SymDense's backing array (only its upper triangle is its value) and
// want whole rows.
func Mirror(a []float64, n int) {
	(&grid{n: n, workers: workerCount(0)}).mirror(a)
}

// GramFullInto is GramFull into dst (n×n values, row-major), so that a
// caller computing several Gram matrices in turn can reuse one buffer.
func GramFullInto(dst []float64, k Kernel, x *mat.Dense) error {
	n, _ := x.Dims()
	if len(dst) != n*n {
		return fmt.Errorf("kernels: GramFullInto: %d values for a %d×%d matrix", len(dst), n, n)
	}
	if err := GramInto(mat.NewSymDense(n, dst), k, x, 0); err != nil {
		return err
	}
	mirror(dst, n)
	return nil
}

// Cross returns K_ij = k(x_i, y_j), n×m.
func Cross(k Kernel, x, y *mat.Dense) (*mat.Dense, error) { return CrossN(k, x, y, 0) }

// CrossN is Cross with a given number of workers.
func CrossN(k Kernel, x, y *mat.Dense, workers int) (*mat.Dense, error) {
	if err := checkInputs(k, x, y); err != nil {
		return nil, err
	}
	n, _ := x.Dims()
	m, _ := y.Dims()
	dst := mat.NewDense(n, m, nil)
	if err := CrossInto(dst, k, x, y, workers); err != nil {
		return nil, err
	}
	return dst, nil
}

// CrossInto is CrossN writing into dst, an n×m Dense whose storage is reused.
func CrossInto(dst *mat.Dense, k Kernel, x, y *mat.Dense, workers int) error {
	if err := checkInputs(k, x, y); err != nil {
		return err
	}
	n, _ := x.Dims()
	m, _ := y.Dims()
	buf, err := denseBuffer(dst, n, m)
	if err != nil {
		return err
	}
	g := newGrid(x, y, workers)
	g.fill(k, buf)
	return nil
}

// denseBuffer returns a's storage if a is a compact n×m matrix.
func denseBuffer(a *mat.Dense, n, m int) ([]float64, error) {
	raw := a.RawMatrix()
	if raw.Rows != n || raw.Cols != m || raw.Stride != m {
		return nil, fmt.Errorf("kernel matrix: destination is %d×%d, want %d×%d", raw.Rows, raw.Cols, n, m)
	}
	return raw.Data[:n*m], nil
}

// symBuffer returns a's storage if a is an n×n upper-triangle SymDense.
func symBuffer(a *mat.SymDense, n int) ([]float64, error) {
	raw := a.RawSymmetric()
	if raw.N != n || raw.Stride != n || raw.Uplo != blas.Upper {
		return nil, fmt.Errorf("gram: destination is %d×%d, data has %d rows", raw.N, raw.N, n)
	}
	return raw.Data, nil
}

// gradInto fills val and one buffer per hyperparameter: stationary kernels
// in place, others computed and copied.
func (g *grid) gradInto(k Kernel, val []float64, grads [][]float64) error {
	if len(grads) != k.NumHyper() {
		return fmt.Errorf("kernel matrix: %d derivative matrices for %d hyperparameters", len(grads), k.NumHyper())
	}
	if s, ok := k.(*Stationary); ok {
		g.stationaryGradInto(s, val, grads)
		return nil
	}
	v, dk := g.fillGrad(k)
	copy(val, v)
	for h := range dk {
		copy(grads[h], dk[h])
	}
	return nil
}

// GramGrad returns the Gram matrix and its derivative with respect to each
// hyperparameter (in the order of k.HyperNames()).
func GramGrad(k Kernel, x *mat.Dense) (*mat.SymDense, []*mat.SymDense, error) {
	if err := checkInputs(k, x, nil); err != nil {
		return nil, nil, err
	}
	n, _ := x.Dims()
	g := newGrid(x, nil, 0)
	val, grads := g.fillGrad(k)
	out := make([]*mat.SymDense, len(grads))
	for i, dk := range grads {
		out[i] = mat.NewSymDense(n, dk)
	}
	return mat.NewSymDense(n, val), out, nil
}

// GramGradInto is GramGrad writing into dst and dgrads (one n×n matrix per
// hyperparameter), whose storage is reused. Stationary kernels are written
// in place; other kernels are computed and then copied.
func GramGradInto(dst *mat.SymDense, dgrads []*mat.SymDense, k Kernel, x *mat.Dense, workers int) error {
	if err := checkInputs(k, x, nil); err != nil {
		return err
	}
	n, _ := x.Dims()
	val, err := symBuffer(dst, n)
	if err != nil {
		return err
	}
	grads := make([][]float64, len(dgrads))
	for h, a := range dgrads {
		if grads[h], err = symBuffer(a, n); err != nil {
			return err
		}
	}
	g := newGrid(x, nil, workers)
	return g.gradInto(k, val, grads)
}

// CrossGrad returns K(x, y) and its derivative with respect to each
// hyperparameter.
func CrossGrad(k Kernel, x, y *mat.Dense) (*mat.Dense, []*mat.Dense, error) {
	return CrossGradN(k, x, y, 0)
}

// CrossGradN is CrossGrad with a given number of workers.
func CrossGradN(k Kernel, x, y *mat.Dense, workers int) (*mat.Dense, []*mat.Dense, error) {
	if err := checkInputs(k, x, y); err != nil {
		return nil, nil, err
	}
	n, _ := x.Dims()
	m, _ := y.Dims()
	g := newGrid(x, y, workers)
	val, grads := g.fillGrad(k)
	out := make([]*mat.Dense, len(grads))
	for i, dk := range grads {
		out[i] = mat.NewDense(n, m, dk)
	}
	return mat.NewDense(n, m, val), out, nil
}

// CrossGradInto is CrossGradN writing into dst and dgrads (one n×m matrix
// per hyperparameter), whose storage is reused.
func CrossGradInto(dst *mat.Dense, dgrads []*mat.Dense, k Kernel, x, y *mat.Dense, workers int) error {
	if err := checkInputs(k, x, y); err != nil {
		return err
	}
	n, _ := x.Dims()
	m, _ := y.Dims()
	val, err := denseBuffer(dst, n, m)
	if err != nil {
		return err
	}
	grads := make([][]float64, len(dgrads))
	for h, a := range dgrads {
		if grads[h], err = denseBuffer(a, n, m); err != nil {
			return err
		}
	}
	g := newGrid(x, y, workers)
	return g.gradInto(k, val, grads)
}

func workerCount(w int) int {
	if w <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return w
}

// mirror copies the upper triangle of a row-major n×n matrix to the lower,
// in tiles so that both the reads and the writes stay in cache.
func mirror(a []float64, n int) {
	const tile = 64
	for i0 := 0; i0 < n; i0 += tile {
		for j0 := i0; j0 < n; j0 += tile {
			for i := i0; i < min(i0+tile, n); i++ {
				for j := max(j0, i+1); j < min(j0+tile, n); j++ {
					a[j*n+i] = a[i*n+j]
				}
			}
		}
	}
}

// grid is a pair of point sets whose kernel matrix is being filled. In a
// symmetric grid only the upper triangle (j ≥ i) is computed.
type grid struct {
	xs, ys  []float64
	n, m    int
	dim     int
	sym     bool
	workers int
}

// newGrid is the grid of x against y, or of x against itself (symmetric,
// one row-major copy) when y is nil.
func newGrid(x, y *mat.Dense, workers int) *grid {
	n, d := x.Dims()
	xs := linalg.RowMajor(x)
	if y == nil {
		return &grid{xs: xs, ys: xs, n: n, m: n, dim: d, sym: true, workers: workerCount(workers)}
	}
	m, _ := y.Dims()
	return &grid{xs: xs, ys: linalg.RowMajor(y), n: n, m: m, dim: d, workers: workerCount(workers)}
}

// parallel runs body over row blocks on the workers. Blocks are handed out
// in order, which balances the triangular work of a symmetric grid.
//
// Each block first checks its run's interrupt (runtime/interrupt; the
// workers inherit the caller's run), as the dense BLAS kernels do: a Gram matrix of thousands of rows takes
// seconds on a loaded machine, and par.Blocks carries the panic to the
// caller's goroutine.
func (g *grid) parallel(body func(i0, i1 int)) {
	if g.workers <= 1 || g.n <= blockRows {
		interrupt.Check()
		body(0, g.n)
		return
	}
	par.Blocks(g.n, blockRows, g.workers, func(_, i0, i1 int) {
		interrupt.Check()
		body(i0, i1)
	})
}

// jStart is the first column computed in row i.
func (g *grid) jStart(i int) int {
	if g.sym {
		return i
	}
	return 0
}

// fill writes k's matrix into out (row-major n×m; upper triangle only when
// symmetric).
func (g *grid) fill(k Kernel, out []float64) {
	switch k := k.(type) {
	case *Stationary:
		// One pass: each block's distances are turned into kernel values
		// while they are still in cache.
		p := g.prepare(k.Ell, useExpansion(g.dim))
		g.parallel(func(i0, i1 int) {
			g.sqDistBlock(p, out, i0, i1)
			tmp := make([]float64, g.m)
			for i := i0; i < i1; i++ {
				row := out[i*g.m : (i+1)*g.m]
				k.applyRow(row[g.jStart(i):], tmp)
			}
		})
	case *Linear, *Poly:
		g.inner(out)
		c, deg := 0.0, 1
		if l, ok := k.(*Linear); ok {
			c = l.C
		} else {
			c, deg = k.(*Poly).C, k.(*Poly).Degree
		}
		g.parallel(func(i0, i1 int) {
			for i := i0; i < i1; i++ {
				row := out[i*g.m : (i+1)*g.m]
				for j := g.jStart(i); j < g.m; j++ {
					row[j] = pow(row[j]+c, deg)
				}
			}
		})
	case Constant:
		for i := range out {
			out[i] = 1
		}
	case White:
		if g.sym {
			clear(out)
			for i := 0; i < g.n; i++ {
				out[i*g.m+i] = 1
			}
			return
		}
		g.each(k, out)
	case *Scaled:
		g.fill(k.K, out)
		for i := range out {
			out[i] *= k.C
		}
	case *Sum:
		g.fill(k.A, out)
		tmp := make([]float64, len(out))
		g.fill(k.B, tmp)
		for i := range out {
			out[i] += tmp[i]
		}
	case *Product:
		g.fill(k.A, out)
		tmp := make([]float64, len(out))
		g.fill(k.B, tmp)
		for i := range out {
			out[i] *= tmp[i]
		}
	default:
		g.each(k, out)
	}
}

// each evaluates a kernel entry by entry, for kernels without a fast path.
func (g *grid) each(k Kernel, out []float64) {
	d := g.dim
	g.parallel(func(i0, i1 int) {
		for i := i0; i < i1; i++ {
			x := g.xs[i*d : (i+1)*d]
			for j := g.jStart(i); j < g.m; j++ {
				out[i*g.m+j] = k.Eval(x, g.ys[j*d:(j+1)*d])
			}
		}
	})
}

// applyRow replaces scaled squared distances by kernel values, the
// exponentials of the row in one vectorised call; tmp is scratch of at
// least len(row) for the Matérn kernels, which need r beside e^{−cr}.
func (k *Stationary) applyRow(row, tmp []float64) {
	switch k.kind {
	case profRBF:
		fastexp.Exps(row, row, -0.5, 0)
	case profMatern12:
		for j, u := range row {
			row[j] = math.Sqrt(u)
		}
		fastexp.Exps(row, row, -1, 0)
	case profMatern32, profMatern52:
		c := 3.0
		if k.kind == profMatern52 {
			c = 5
		}
		s := tmp[:len(row)]
		for j, u := range row {
			s[j] = math.Sqrt(c * u)
		}
		fastexp.Exps(row, s, -1, 0)
		if k.kind == profMatern32 {
			for j, e := range row {
				row[j] = (1 + s[j]) * e
			}
			return
		}
		for j, e := range row {
			sj := s[j]
			row[j] = (1 + sj + sj*sj/3) * e
		}
	default:
		for j, u := range row {
			row[j] = k.value(u)
		}
	}
}

// scaled returns the points divided by the lengthscales.
func (g *grid) scaled(ell []float64) (xs, ys []float64) {
	d := g.dim
	inv := make([]float64, d)
	for i := range inv {
		if len(ell) == 1 {
			inv[i] = 1 / ell[0]
		} else {
			inv[i] = 1 / ell[i]
		}
	}
	scale := func(src []float64, rows int) []float64 {
		s := make([]float64, len(src))
		for r := 0; r < rows; r++ {
			for c := 0; c < d; c++ {
				s[r*d+c] = src[r*d+c] * inv[c]
			}
		}
		return s
	}
	xs = scale(g.xs, g.n)
	ys = xs
	if !g.sym {
		ys = scale(g.ys, g.m)
	}
	return xs, ys
}

func norms(xs []float64, rows, d int) []float64 {
	out := make([]float64, rows)
	for r := range out {
		out[r] = dot(xs[r*d:(r+1)*d], xs[r*d:(r+1)*d])
	}
	return out
}

// inner writes the inner products xᵢᵀyⱼ.
func (g *grid) inner(out []float64) {
	d := g.dim
	a := blas64.General{Rows: g.n, Cols: d, Stride: d, Data: g.xs}
	if g.sym {
		blas64.Syrk(blas.NoTrans, 1, a, 0, blas64.Symmetric{Uplo: blas.Upper, N: g.n, Stride: g.m, Data: out})
		return
	}
	b := blas64.General{Rows: g.m, Cols: d, Stride: d, Data: g.ys}
	blas64.Gemm(blas.NoTrans, blas.Trans, 1, a, b, 0, blas64.General{Rows: g.n, Cols: g.m, Stride: g.m, Data: out})
}

// fillGrad returns the kernel matrix and its derivative with respect to
// each hyperparameter (upper triangles when symmetric).
func (g *grid) fillGrad(k Kernel) ([]float64, [][]float64) {
	size := g.n * g.m
	switch k := k.(type) {
	case *Stationary:
		return g.stationaryGrad(k)
	case *Scaled:
		val, grads := g.fillGrad(k.K)
		dc := append([]float64(nil), val...)
		for i := range val {
			val[i] *= k.C
		}
		for _, dk := range grads {
			for i := range dk {
				dk[i] *= k.C
			}
		}
		return val, append([][]float64{dc}, grads...)
	case *Sum:
		va, ga := g.fillGrad(k.A)
		vb, gb := g.fillGrad(k.B)
		for i := range va {
			va[i] += vb[i]
		}
		return va, append(ga, gb...)
	case *Product:
		va, ga := g.fillGrad(k.A)
		vb, gb := g.fillGrad(k.B)
		for _, dk := range ga {
			for i := range dk {
				dk[i] *= vb[i]
			}
		}
		for _, dk := range gb {
			for i := range dk {
				dk[i] *= va[i]
			}
		}
		for i := range va {
			va[i] *= vb[i]
		}
		return va, append(ga, gb...)
	}
	// Entry by entry for the rest (few hyperparameters, cheap kernels).
	val := make([]float64, size)
	g.fill(k, val)
	nh := k.NumHyper()
	grads := make([][]float64, nh)
	for h := range grads {
		grads[h] = make([]float64, size)
	}
	if nh == 0 {
		return val, grads
	}
	d := g.dim
	g.parallel(func(i0, i1 int) {
		buf := make([]float64, nh)
		for i := i0; i < i1; i++ {
			x := g.xs[i*d : (i+1)*d]
			for j := g.jStart(i); j < g.m; j++ {
				k.GradHyper(buf, x, g.ys[j*d:(j+1)*d])
				for h, v := range buf {
					grads[h][i*g.m+j] = v
				}
			}
		}
	})
	return val, grads
}

// stationaryGrad fills a stationary kernel and its lengthscale (and α)
// derivatives in one pass.
func (g *grid) stationaryGrad(k *Stationary) ([]float64, [][]float64) {
	size := g.n * g.m
	val := make([]float64, size)
	grads := make([][]float64, k.NumHyper())
	for h := range grads {
		grads[h] = make([]float64, size)
	}
	g.stationaryGradInto(k, val, grads)
	return val, grads
}

// stationaryGradInto is stationaryGrad writing into given buffers.
func (g *grid) stationaryGradInto(k *Stationary, val []float64, grads [][]float64) {
	nh := len(grads)
	d := g.dim
	if k.kind == profRBF && len(k.Ell) == 1 {
		// The common case in one pass per block: u from the scaled points,
		// then k = e^{−u/2} and ∂k/∂ℓ = k·u/ℓ.
		p := g.prepare(k.Ell, useExpansion(g.dim))
		dl, inv := grads[0], 1/k.Ell[0]
		g.parallel(func(i0, i1 int) {
			g.sqDistBlock(p, val, i0, i1)
			for i := i0; i < i1; i++ {
				lo, hi := i*g.m+g.jStart(i), (i+1)*g.m
				row, drow := val[lo:hi], dl[lo:hi]
				copy(drow, row)
				fastexp.Exps(row, row, -0.5, 0)
				for j, v := range row {
					drow[j] *= v * inv
				}
			}
		})
		return
	}
	iso := len(k.Ell) == 1
	g.parallel(func(i0, i1 int) {
		for i := i0; i < i1; i++ {
			x := g.xs[i*d : (i+1)*d]
			for j := g.jStart(i); j < g.m; j++ {
				y := g.ys[j*d : (j+1)*d]
				u := k.scaledSq(x, y)
				v, dv := k.f(u)
				idx := i*g.m + j
				val[idx] = v
				if iso {
					grads[0][idx] = dv * (-2 * u / k.Ell[0])
				} else {
					for c, l := range k.Ell {
						t := (x[c] - y[c]) / l
						grads[c][idx] = dv * (-2 * t * t / l)
					}
				}
				if k.kind == profRQ {
					b := 1 + u/(2*k.Alpha)
					grads[nh-1][idx] = v * (-logB(b) + u/(2*k.Alpha*b))
				}
			}
		}
	})
}
