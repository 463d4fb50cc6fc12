package blas3

import (
	"runtime"
	"sync"

	"github.com/kml-lang/kml/runtime/internal/cpufeat"
	"github.com/kml-lang/kml/runtime/interrupt"
)

// kernelFunc adds α·Σ_p a[p·MR+i]·b[p·NR+j] into c[i·ldc+j] for the full
// MR×NR tile, over p < k (k ≥ 1). a and b are packed micro-panels.
type kernelFunc func(k int, a, b, c []float64, ldc int, alpha float64)

// shape is a micro-kernel and the block sizes around it (see the package
// documentation for why these sizes).
type shape struct {
	mr, nr     int
	mc, kc, nc int
	kern       kernelFunc
}

var goShape = shape{mr: 4, nr: 4, mc: 128, kc: 256, nc: 4096, kern: kernGo4x4}

// current is the shape for cpufeat.Vector.
func current() *shape {
	if s := archShape(cpufeat.Vector); s != nil {
		return s
	}
	return &goShape
}

// view is op(X) for a row-major X with leading dimension ld: element
// (i, j) of op(X) is data[i·ld+j], or data[j·ld+i] when trans.
type view struct {
	data  []float64
	ld    int
	trans bool
}

// sub is op(X)[i:, j:].
func (v view) sub(i, j int) view {
	if v.trans {
		i, j = j, i
	}
	if i*v.ld+j == len(v.data) {
		return view{data: nil, ld: v.ld, trans: v.trans}
	}
	v.data = v.data[i*v.ld+j:]
	return v
}

// t is op(X)ᵀ.
func (v view) t() view { v.trans = !v.trans; return v }

// Tuning thresholds; tests set them to zero to exercise the kernels on
// every size.
var (
	// minGemm is m·n·k below which Dgemm uses gonum's code.
	minGemm = 24 * 24 * 24
	// minPar is m·n·k from which the product is split over the processors.
	minPar = 96 * 96 * 96
)

type buffers struct{ a, b, t []float64 }

var pool = sync.Pool{New: func() any { return new(buffers) }}

func grow(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}

// gemm adds α·op(A)·op(B) into the m×n matrix C (leading dimension ldc),
// op(A) m×k and op(B) k×n, on up to GOMAXPROCS goroutines.
func gemm(m, n, k int, alpha float64, a, b view, c []float64, ldc int) {
	if m == 0 || n == 0 || k == 0 || alpha == 0 {
		return
	}
	s := current()
	workers := runtime.GOMAXPROCS(0)
	if workers < 2 || m*n*k < minPar {
		gemmSerial(s, m, n, k, alpha, a, b, c, ldc)
		return
	}
	// Split the columns if there are enough for each worker to have a few
	// micro-panels, else the rows.
	var wg sync.WaitGroup
	if n >= 2*s.nr*workers || n >= m {
		part := roundUp((n+workers-1)/workers, s.nr)
		for j0 := part; j0 < n; j0 += part {
			wg.Go(func() {
				nn := min(part, n-j0)
				gemmSerial(s, m, nn, k, alpha, a, b.sub(0, j0), c[j0:], ldc)
			})
		}
		gemmSerial(s, m, min(part, n), k, alpha, a, b, c, ldc)
	} else {
		part := roundUp((m+workers-1)/workers, s.mr)
		for i0 := part; i0 < m; i0 += part {
			wg.Go(func() {
				mm := min(part, m-i0)
				gemmSerial(s, mm, n, k, alpha, a.sub(i0, 0), b, c[i0*ldc:], ldc)
			})
		}
		gemmSerial(s, min(part, m), n, k, alpha, a, b, c, ldc)
	}
	wg.Wait()
}

func roundUp(x, q int) int { return (x + q - 1) / q * q }

// gemmSerial is gemm on the calling goroutine.
func gemmSerial(s *shape, m, n, k int, alpha float64, a, b view, c []float64, ldc int) {
	mr, nr := s.mr, s.nr
	buf := pool.Get().(*buffers)
	defer pool.Put(buf)
	kcMax := min(s.kc, k)
	buf.a = grow(buf.a, roundUp(min(s.mc, m), mr)*kcMax)
	buf.b = grow(buf.b, roundUp(min(s.nc, n), nr)*kcMax)
	buf.t = grow(buf.t, mr*nr)
	tile := buf.t
	for jc := 0; jc < n; jc += s.nc {
		nc := min(s.nc, n-jc)
		for pc := 0; pc < k; pc += s.kc {
			kc := min(s.kc, k-pc)
			packB(buf.b, b, pc, kc, jc, nc, nr)
			for ic := 0; ic < m; ic += s.mc {
				// An interrupt leaves C half computed: the caller's
				// routine panics with interrupt.Stop once its workers
				// are back, so the result is never used.
				if interrupt.Raised() {
					return
				}
				mc := min(s.mc, m-ic)
				packA(buf.a, a, ic, mc, pc, kc, mr)
				macro(s, mc, nc, kc, alpha, buf.a, buf.b, c[ic*ldc+jc:], ldc, tile)
			}
		}
	}
}

// macro adds α times the product of the packed mc×kc block pa and kc×nc
// slab pb into the mc×nc block of C at c, one micro-kernel call per tile;
// tiles on the edges go through the MR×NR scratch tile.
func macro(s *shape, mc, nc, kc int, alpha float64, pa, pb, c []float64, ldc int, tile []float64) {
	mr, nr := s.mr, s.nr
	for jr := 0; jr < nc; jr += nr {
		nn := min(nr, nc-jr)
		bp := pb[jr*kc : (jr+nr)*kc]
		for ir := 0; ir < mc; ir += mr {
			mm := min(mr, mc-ir)
			ap := pa[ir*kc : (ir+mr)*kc]
			off := ir*ldc + jr
			if mm == mr && nn == nr {
				s.kern(kc, ap, bp, c[off:], ldc, alpha)
				continue
			}
			clear(tile)
			s.kern(kc, ap, bp, tile, nr, alpha)
			for i := range mm {
				ci := c[off+i*ldc : off+i*ldc+nn]
				for j, v := range tile[i*nr : i*nr+nn] {
					ci[j] += v
				}
			}
		}
	}
}

// packA packs op(A)[i0:i0+mc, p0:p0+kc] into ⌈mc/mr⌉ micro-panels, each
// kc rows of mr, padded with zeros.
func packA(dst []float64, a view, i0, mc, p0, kc, mr int) {
	for ir := 0; ir < mc; ir += mr {
		d := dst[ir*kc : (ir+mr)*kc]
		rows := min(mr, mc-ir)
		if a.trans {
			// op(A)[i, p] = A[p, i]: rows of A are contiguous in i.
			copyRows(d, a.data[p0*a.ld+i0+ir:], a.ld, kc, rows, mr)
			continue
		}
		gather(d, a.data[(i0+ir)*a.ld+p0:], a.ld, kc, rows, mr)
		if rows < mr {
			for p := range kc {
				clear(d[p*mr+rows : p*mr+mr])
			}
		}
	}
}

// packB packs op(B)[p0:p0+kc, j0:j0+nc] into ⌈nc/nr⌉ micro-panels, each
// kc rows of nr, padded with zeros.
func packB(dst []float64, b view, p0, kc, j0, nc, nr int) {
	for jr := 0; jr < nc; jr += nr {
		d := dst[jr*kc : (jr+nr)*kc]
		cols := min(nr, nc-jr)
		if !b.trans {
			copyRows(d, b.data[p0*b.ld+j0+jr:], b.ld, kc, cols, nr)
			continue
		}
		// op(B)[p, j] = B[j, p].
		gather(d, b.data[(j0+jr)*b.ld+p0:], b.ld, kc, cols, nr)
		if cols < nr {
			for p := range kc {
				clear(d[p*nr+cols : p*nr+nr])
			}
		}
	}
}

// kernGo4x4 is the portable micro-kernel: MR×NR = 4×4.
func kernGo4x4(k int, a, b, c []float64, ldc int, alpha float64) {
	var c00, c01, c02, c03, c10, c11, c12, c13 float64
	var c20, c21, c22, c23, c30, c31, c32, c33 float64
	a = a[:4*k]
	b = b[:4*k]
	for p := 0; p < len(a); p += 4 {
		ap := a[p : p+4 : p+4]
		bp := b[p : p+4 : p+4]
		a0, a1, a2, a3 := ap[0], ap[1], ap[2], ap[3]
		b0, b1, b2, b3 := bp[0], bp[1], bp[2], bp[3]
		c00 += a0 * b0
		c01 += a0 * b1
		c02 += a0 * b2
		c03 += a0 * b3
		c10 += a1 * b0
		c11 += a1 * b1
		c12 += a1 * b2
		c13 += a1 * b3
		c20 += a2 * b0
		c21 += a2 * b1
		c22 += a2 * b2
		c23 += a2 * b3
		c30 += a3 * b0
		c31 += a3 * b1
		c32 += a3 * b2
		c33 += a3 * b3
	}
	r := c[0:4:4]
	r[0] += alpha * c00
	r[1] += alpha * c01
	r[2] += alpha * c02
	r[3] += alpha * c03
	r = c[ldc : ldc+4 : ldc+4]
	r[0] += alpha * c10
	r[1] += alpha * c11
	r[2] += alpha * c12
	r[3] += alpha * c13
	r = c[2*ldc : 2*ldc+4 : 2*ldc+4]
	r[0] += alpha * c20
	r[1] += alpha * c21
	r[2] += alpha * c22
	r[3] += alpha * c23
	r = c[3*ldc : 3*ldc+4 : 3*ldc+4]
	r[0] += alpha * c30
	r[1] += alpha * c31
	r[2] += alpha * c32
	r[3] += alpha * c33
}

// copyRows sets row p < kc of the w-wide panel dst to the first n ≤ w
// elements of row p of src (leading dimension ld), padded with zeros.
func copyRows(dst, src []float64, ld, kc, n, w int) {
	if n == w {
		switch w {
		case 8:
			for p := range kc {
				*(*[8]float64)(dst[p*8:]) = [8]float64(src[p*ld:])
			}
			return
		case 24:
			for p := range kc {
				*(*[24]float64)(dst[p*24:]) = [24]float64(src[p*ld:])
			}
			return
		}
	}
	for p := range kc {
		dp := dst[p*w : p*w+w]
		copy(dp, src[p*ld:p*ld+n])
		clear(dp[n:])
	}
}

// gather sets column i < n of the w-wide panel dst (kc rows) to the first
// kc elements of row i of src (leading dimension ld), four rows at a time
// so that the writes are contiguous. The caller pads columns n to w.
func gather(dst, src []float64, ld, kc, n, w int) {
	i := 0
	for ; i+4 <= n; i += 4 {
		if gatherVec(dst[i:], src[i*ld:], ld, kc, w) {
			continue
		}
		r0 := src[i*ld : i*ld+kc]
		r1 := src[(i+1)*ld : (i+1)*ld+kc]
		r2 := src[(i+2)*ld : (i+2)*ld+kc]
		r3 := src[(i+3)*ld : (i+3)*ld+kc]
		for p, v := range r0 {
			d := dst[p*w+i : p*w+i+4 : p*w+i+4]
			d[0], d[1], d[2], d[3] = v, r1[p], r2[p], r3[p]
		}
	}
	for ; i < n; i++ {
		for p, v := range src[i*ld : i*ld+kc] {
			dst[p*w+i] = v
		}
	}
}
