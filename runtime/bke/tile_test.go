package bke

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/kml-lang/kml/runtime/internal/cpufeat"
)

// TestTilesMatchGeneral checks a block of rows through the tile kernels
// (block: five whole tiles, then five rows through row) against the same
// rows through rowGeneral, block sum by block sum, for D = 1 and D = 2
// with one lengthscale, with and without the gradient, with a row far from
// every landmark inside a tile and one among the rows after the tiles
// (both finished by cauchyBinet).
//
// It runs on every vector path this machine has with tile kernels
// (AVX2, AVX-512), and the paths must agree to the bit: the AVX2 kernels
// do the AVX-512 ones' arithmetic four lanes at a time.
func TestTilesMatchGeneral(t *testing.T) {
	if !tileKernels() {
		t.Skip("no AVX2: the tile kernels do not run here")
	}
	byLevel := map[string][]float64{}
	for _, lv := range cpufeat.Levels() {
		if lv < cpufeat.AVX2 {
			continue
		}
		restore := cpufeat.Use(lv)
		t.Run(lv.String(), func(t *testing.T) { byLevel[lv.String()] = testTilesMatchGeneral(t) })
		restore()
	}
	t.Logf("%d block sums on AVX2, %d on AVX-512", len(byLevel["avx2"]), len(byLevel["avx512"]))
	if a, b := byLevel["avx2"], byLevel["avx512"]; a != nil && b != nil {
		for k := range a {
			if math.Float64bits(a[k]) != math.Float64bits(b[k]) {
				t.Errorf("block sum %d: %.17g on AVX2, %.17g on AVX-512", k, a[k], b[k])
			}
		}
	}
}

// testTilesMatchGeneral is TestTilesMatchGeneral on the current path; it
// returns every block sum it computed by tiles, in order.
func testTilesMatchGeneral(t *testing.T) []float64 {
	var all []float64
	rng := rand.New(rand.NewPCG(3001, 3002))
	for _, dim := range []int{1, 2} {
		for _, m := range []int{3, 9, 20} {
			x := randMatrix(rng, 45, dim, 1)
			z := randMatrix(rng, m, dim, 1)
			x.Set(3, 0, 40)
			x.Set(42, dim-1, -35)
			md, err := New(x, z, Options{Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			p, err := md.prepare(Hyper{Ell: []float64{0.7}, Tau2: 1}, true)
			if err != nil {
				t.Fatal(err)
			}
			for _, grad := range []bool{false, true} {
				ps := &pass{md: md, p: p, grad: grad, jac: true, np: 1}
				ps.shifts(new(passBufs))
				if !ps.tiled() {
					t.Fatalf("D=%d: the pass does not run by tiles", dim)
				}
				sc := ps.newScratch()
				fast := make([]float64, ps.blockSize())
				slow := make([]float64, ps.blockSize())
				if err := ps.block(sc, ps.view(fast), 0, md.n); err != nil {
					t.Fatal(err)
				}
				for i := 0; i < md.n; i++ {
					if err := ps.rowGeneral(sc, ps.view(slow), i); err != nil {
						t.Fatal(err)
					}
				}
				sc.flushDet(ps.view(slow))
				for k := range fast {
					if math.Abs(fast[k]-slow[k]) > 1e-13*(1+math.Abs(slow[k])) {
						t.Errorf("D=%d m=%d grad=%v: block sum %d is %.17g, general %.17g", dim, m, grad, k, fast[k], slow[k])
					}
				}
				all = append(all, fast...)
			}
		}
	}
	return all
}

// TestRowOverflowError checks that a row whose scaled squared distances
// overflow is reported by its 1-based number, the first such row in row
// order, through the tiles, the written-out rows and rowGeneral alike.
func TestRowOverflowError(t *testing.T) {
	savedAsm, savedTile := useRowAsm, useTileAsm
	defer func() { useRowAsm, useTileAsm, generalRows = savedAsm, savedTile, false }()
	rng := rand.New(rand.NewPCG(3003, 3004))
	for _, dim := range []int{1, 2} {
		x := randMatrix(rng, 300, dim, 1)
		x.Set(203, 0, 1e200) // row 204 of the second block, in its first tile
		x.Set(250, 0, -1e200)
		md, err := New(x, randMatrix(rng, 6, dim, 1), Options{Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range []struct{ asm, tile, general bool }{
			{savedAsm, savedTile, false}, {false, false, false}, {false, false, true},
		} {
			useRowAsm, useTileAsm, generalRows = path.asm, path.tile, path.general
			var g Grad
			_, err := md.LogDensity(Hyper{Ell: []float64{0.5}, Tau2: 1}, &g)
			if err == nil || !strings.Contains(err.Error(), "data row 204:") {
				t.Errorf("D=%d %+v: error %v, want one naming data row 204", dim, path, err)
			}
		}
	}
}

// TestLogDensityWorkersTiles is TestLogDensityWorkers for the tile path
// (D = 1 and D = 2 with one lengthscale): the same bits on 1, 2 and 5
// workers, with blocks that end in rows outside any tile.
func TestLogDensityWorkersTiles(t *testing.T) {
	rng := rand.New(rand.NewPCG(3005, 3006))
	for _, dim := range []int{1, 2} {
		x := randMatrix(rng, 3*blockRows+21, dim, 1)
		z := randMatrix(rng, 11, dim, 1)
		h := Hyper{Ell: []float64{0.8}, Amp: 1.2, Tau2: 0.5}
		var ref float64
		var refG Grad
		for _, w := range []int{1, 2, 5} {
			md, err := New(x, z, Options{Workers: w})
			if err != nil {
				t.Fatal(err)
			}
			var g Grad
			v, err := md.LogDensity(h, &g)
			if err != nil {
				t.Fatal(err)
			}
			if w == 1 {
				ref, refG = v, g
				continue
			}
			if v != ref || g.Amp != refG.Amp || g.Tau2 != refG.Tau2 || g.Ell[0] != refG.Ell[0] {
				t.Errorf("D=%d workers %d: %v %+v, 1 worker: %v %+v", dim, w, v, g, ref, refG)
			}
		}
	}
}

// TestFrexpNormal checks frexpNormal against math.Frexp on normal numbers
// across the exponent range, the smallest and the largest.
func TestFrexpNormal(t *testing.T) {
	rng := rand.New(rand.NewPCG(3007, 3008))
	xs := []float64{minNormal, math.MaxFloat64, 1, 0.5, 0.75}
	for k := 0; k < 1000; k++ {
		xs = append(xs, math.Ldexp(1+rng.Float64(), rng.IntN(2045)-1022))
	}
	for _, x := range xs {
		f, e := frexpNormal(x)
		wf, we := math.Frexp(x)
		if f != wf || e != we {
			t.Errorf("frexpNormal(%g) = %v, %d; math.Frexp gives %v, %d", x, f, e, wf, we)
		}
	}
}

// TestTileJac checks tileJac lane by lane against small2 and small2Grad
// with finishFast's test for a normal determinant, on random G̃ and T̃ and
// on lanes at each threshold: a or c at tinyDiag, r at hadamardLimit, det
// overflowing, subnormal, NaN.
func TestTileJac(t *testing.T) {
	for _, impl := range jacImpls(2) {
		t.Run(impl.name, func(t *testing.T) { testTileJac(t, impl.f) })
	}
}

// jacImpl is a closing of eight lanes: tileJac or tileJac1 (AVX-512) or
// tileJacGo (the AVX2 path's).
type jacImpl struct {
	name string
	f    func(acc *[48]float64, qmin *[8]float64, lim *jacLimits, out *[32]float64) uint64
}

// jacImpls lists the closings for dim this machine can run: tileJacGo
// everywhere, the kernel where AVX-512 runs.
func jacImpls(dim int) []jacImpl {
	impls := []jacImpl{{"go", func(acc *[48]float64, qmin *[8]float64, lim *jacLimits, out *[32]float64) uint64 {
		return tileJacGo(dim, acc, qmin, lim, out)
	}}}
	if tileKernels() && tileWide() {
		if dim == 1 {
			impls = append(impls, jacImpl{"avx512", tileJac1})
		} else {
			impls = append(impls, jacImpl{"avx512", tileJac})
		}
	}
	return impls
}

func testTileJac(t *testing.T, tileJac func(acc *[48]float64, qmin *[8]float64, lim *jacLimits, out *[32]float64) uint64) {
	rng := rand.New(rand.NewPCG(3009, 3010))
	edge := [][3]float64{ // a, b, c
		{tinyDiag, 0, 1}, {tinyDiag * 1.0000001, 0, 1}, {1, 0, tinyDiag},
		{1, math.Sqrt(1 - hadamardLimit), 1}, {1, math.Sqrt(1-hadamardLimit) * 0.999999, 1},
		{1e200, 0, 1e200}, {1e-160, 0, 1e-160}, {math.NaN(), 0, 1}, {1, math.Inf(1), 1},
		{1, 0, 1}, {2, -1, 3}, {1e-300, 0, 1e10},
		{math.Nextafter(tinyDiag, 1), 0, 1}, {1, 0, math.Nextafter(tinyDiag, 1)},
		{minNormal, 0, 1}, {math.Nextafter(minNormal, 1), 0, 1},
		{math.MaxFloat64, 0, 1}, {math.MaxFloat64, 0, 1.0000001},
	}
	for rep := 0; rep < 50; rep++ {
		var acc [48]float64
		var qmin [8]float64
		for k := 0; k < 8; k++ {
			a, c := math.Exp(rng.NormFloat64()*3), math.Exp(rng.NormFloat64()*3)
			b := (2*rng.Float64() - 1) * math.Sqrt(a*c)
			if rep < len(edge) && k < 2 {
				e := edge[(rep+k)%len(edge)]
				a, b, c = e[0], e[1], e[2]
			}
			acc[k], acc[8+k], acc[16+k] = a, b, c
			for j := 24; j < 48; j += 8 {
				acc[j+k] = rng.NormFloat64()
			}
			qmin[k] = rng.Float64() * 10
		}
		var out [32]float64
		ok := tileJac(&acc, &qmin, &tileJacLimits, &out)
		for k := 0; k < 8; k++ {
			a, b, c := acc[k], acc[8+k], acc[16+k]
			ba, r, fast := small2(a, b, c)
			det := a * c * r
			fast = fast && det > minNormal && det <= math.MaxFloat64
			if got := ok&(1<<k) != 0; got != fast {
				t.Errorf("a=%g b=%g c=%g: tileJac fast %v, small2 and finishFast %v", a, b, c, got, fast)
				continue
			}
			if !fast {
				if out[k] != 1 || out[8+k] != 0 || out[16+k] != 0 || out[24+k] != 0 {
					t.Errorf("a=%g b=%g c=%g: slow lane gives %v %v %v %v, want 1 0 0 0", a, b, c, out[k], out[8+k], out[16+k], out[24+k])
				}
				continue
			}
			if got := math.Ldexp(out[k], int(out[8+k])); got != det || out[k] < 1 || out[k] >= 2 {
				t.Errorf("a=%g b=%g c=%g: mantissa %v, exponent %v; det %v", a, b, c, out[k], out[8+k], det)
			}
			want := small2Grad(a, b, c, ba, r, acc[24+k], acc[32+k], acc[40+k])
			if d := out[16+k]; math.Abs(d-want) > 1e-15*math.Abs(want) {
				t.Errorf("a=%g b=%g c=%g: tr(G⁻¹T) %v, small2Grad %v", a, b, c, d, want)
			}
			if out[24+k] != qmin[k] {
				t.Errorf("qmin lane %d: %v, want %v", k, out[24+k], qmin[k])
			}
		}
	}
}

// TestTileJac1 checks tileJac1 lane by lane against D = 1's closing
// (closeSmall: det = g, tr(G̃⁻¹T̃) = t/g when g > tinyDiag) with
// finishFast's normal-determinant test, on random g and at the thresholds.
func TestTileJac1(t *testing.T) {
	for _, impl := range jacImpls(1) {
		t.Run(impl.name, func(t *testing.T) { testTileJac1(t, impl.f) })
	}
}

func testTileJac1(t *testing.T, tileJac1 func(acc *[48]float64, qmin *[8]float64, lim *jacLimits, out *[32]float64) uint64) {
	rng := rand.New(rand.NewPCG(3017, 3018))
	edge := []float64{tinyDiag, math.Nextafter(tinyDiag, 1), minNormal, 1e-300,
		math.MaxFloat64, math.Inf(1), math.NaN(), 0, -1}
	for rep := 0; rep < 20; rep++ {
		var acc [48]float64
		var qmin [8]float64
		for k := 0; k < 8; k++ {
			acc[k] = math.Exp(rng.NormFloat64() * 5)
			if k < 3 {
				acc[k] = edge[(3*rep+k)%len(edge)]
			}
			acc[24+k] = rng.NormFloat64()
			qmin[k] = rng.Float64()
		}
		var out [32]float64
		ok := tileJac1(&acc, &qmin, &tileJacLimits, &out)
		for k := 0; k < 8; k++ {
			g := acc[k]
			fast := g > tinyDiag && g > minNormal && g <= math.MaxFloat64
			if got := ok&(1<<k) != 0; got != fast {
				t.Errorf("g=%g: tileJac1 fast %v, want %v", g, got, fast)
				continue
			}
			if !fast {
				if out[k] != 1 || out[8+k] != 0 || out[16+k] != 0 || out[24+k] != 0 {
					t.Errorf("g=%g: slow lane gives %v %v %v %v, want 1 0 0 0", g, out[k], out[8+k], out[16+k], out[24+k])
				}
				continue
			}
			if got := math.Ldexp(out[k], int(out[8+k])); got != g {
				t.Errorf("g=%g: mantissa %v, exponent %v", g, out[k], out[8+k])
			}
			if want := acc[24+k] / g; out[16+k] != want {
				t.Errorf("g=%g: t/g %v, want %v", g, out[16+k], want)
			}
			if out[24+k] != qmin[k] {
				t.Errorf("qmin lane %d: %v, want %v", k, out[24+k], qmin[k])
			}
		}
	}
}

// TestTileJacGoMatchesKernel sets the AVX2 path's closing (tileJacGo)
// against the AVX-512 kernels bit for bit, on random G̃ and T̃ with NaN,
// zero, tiny, huge and negative lanes.
func TestTileJacGoMatchesKernel(t *testing.T) {
	if !tileKernels() || !tileWide() {
		t.Skip("no AVX-512: the kernels do not run here")
	}
	rng := rand.New(rand.NewPCG(3021, 3022))
	odd := []float64{math.NaN(), 0, tinyDiag, minNormal, 1e-300, 1e300, math.MaxFloat64, math.Inf(1), -1}
	for rep := range 200 {
		var acc [48]float64
		var qmin [8]float64
		for j := range acc {
			acc[j] = math.Exp(rng.NormFloat64()*3) * float64(1-2*rng.IntN(2))
			if j < 24 && j%8 < 4 && rng.IntN(4) == 0 {
				acc[j] = odd[rng.IntN(len(odd))]
			}
		}
		for k := range qmin {
			qmin[k] = rng.Float64()
		}
		for _, dim := range []int{1, 2} {
			var got, want [32]float64
			okGot := tileJacGo(dim, &acc, &qmin, &tileJacLimits, &got)
			var okWant uint64
			if dim == 1 {
				okWant = tileJac1(&acc, &qmin, &tileJacLimits, &want)
			} else {
				okWant = tileJac(&acc, &qmin, &tileJacLimits, &want)
			}
			if okGot != okWant {
				t.Fatalf("rep %d D=%d: fast lanes %08b, kernel %08b", rep, dim, okGot, okWant)
			}
			for j := range got {
				if math.Float64bits(got[j]) != math.Float64bits(want[j]) {
					t.Fatalf("rep %d D=%d: out[%d] = %v, kernel %v", rep, dim, j, got[j], want[j])
				}
			}
		}
	}
}
