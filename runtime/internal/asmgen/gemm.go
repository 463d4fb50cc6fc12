package asmgen

import (
	"fmt"
	"math/bits"
)

// gemmKernel describes one blas3 micro-kernel: with the packed A
// micro-panel at AX (MR values per p) and the B micro-panel at BX (NR
// values per p), accumulate the MR×NR tile of A·B in registers, then
// C[i, j] = α·acc[i, j] + C[i, j] for the tile at DX with row stride R8
// bytes.
type gemmKernel struct {
	name   string
	doc    []string
	mr, nr int
	lanes  int              // float64 lanes of a vector register: 4 (YMM) or 8 (ZMM)
	reg    func(int) string // Y or Z
	zero   string           // the instruction that clears an accumulator
	unroll int              // steps of p per loop iteration; only 2 is written
	na     int              // registers the broadcast A elements rotate through
	alpha  int              // the register of α
	suffix string           // of the labels
}

// The accumulators are registers 0 … MR·NR/lanes − 1 (row i in nv = NR/lanes
// consecutive registers), then nv for a row of B, then na for the
// broadcasts of A.
func (k gemmKernel) nv() int          { return k.nr / k.lanes }
func (k gemmKernel) acc(i, j int) int { return i*k.nv() + j }
func (k gemmKernel) b(j int) int      { return k.mr*k.nv() + j }
func (k gemmKernel) a(i int) int      { return k.mr*k.nv() + k.nv() + i%k.na }

var gemmKernels = []gemmKernel{
	{
		name: "kernAVX2",
		doc: []string{
			"MR×NR = 6×8: Y0..Y11 hold the tile (row i in Y(2i), Y(2i+1)), Y12 and",
			"Y13 a row of B, Y14 a broadcast element of A.",
		},
		mr: 6, nr: 8, lanes: 4, reg: Y, zero: "VXORPD",
		unroll: 2, na: 1, alpha: 15, suffix: "2",
	},
	{
		name: "kernAVX512",
		doc: []string{
			"MR×NR = 8×24: Z0..Z23 hold the tile (row i in Z(3i)..Z(3i+2)), Z24..Z26",
			"a row of B, Z27 and Z28 (alternating rows) a broadcast element of A.",
		},
		mr: 8, nr: 24, lanes: 8, reg: Z, zero: "VPXORQ",
		unroll: 2, na: 2, alpha: 31, suffix: "5",
	},
}

// blas3File is runtime/internal/blas3/kernel_amd64.s.
func blas3File() []byte {
	a := new(Asm)
	header(a, "runtime/internal/blas3")
	for _, s := range []string{
		"",
		"// Both kernels: for p < k, with the packed A micro-panel at AX (MR values",
		"// per p) and the B micro-panel at BX (NR values per p), accumulate the",
		"// MR×NR tile of A·B in registers, then C[i, j] = α·acc[i, j] + C[i, j] for",
		"// the tile at DX with row stride R8 bytes. The p loop is unrolled by two.",
	} {
		a.Line(s)
	}
	for _, k := range gemmKernels {
		k.emit(a)
	}
	transpose4(a)
	return a.Bytes()
}

func (k gemmKernel) emit(a *Asm) {
	nregs := map[int]int{4: 16, 8: 32}[k.lanes]
	if k.nr%k.lanes != 0 || k.b(0)+k.nv()+k.na > nregs || k.alpha < k.a(0)+k.na || k.alpha >= nregs {
		panic(fmt.Sprintf("asmgen: %s: %d×%d does not fit the registers", k.name, k.mr, k.nr))
	}
	if k.unroll != 2 {
		panic(fmt.Sprintf("asmgen: %s: only an unroll of 2 is written", k.name))
	}
	loop, tail, store := "loop"+k.suffix, "tail"+k.suffix, "store"+k.suffix
	vec := k.lanes * 8
	f := a.Text("func "+k.name+"(k int, a, b, c []float64, ldc int, alpha float64)", k.doc...)
	f.loadArgs(Reg{"k", "CX"}, Reg{"a_base", "AX"}, Reg{"b_base", "BX"}, Reg{"c_base", "DX"}, Reg{"ldc", "R8"})
	f.Op("SHLQ", "$3", "R8")

	// A row of the tile is NR·8 bytes, on up to NR·8/64 + 1 cache lines
	// when it is not aligned: fetch every 64th byte and the last one.
	f.Note("Fetch the C tile now; the p loop hides the latency.")
	f.Op("MOVQ", "DX", "R10")
	row := k.nr * 8
	for i := 0; i < k.mr; i++ {
		if i > 0 {
			f.Op("ADDQ", "R8", "R10")
		}
		for off := 0; off < row; off += 64 {
			f.Op("PREFETCHT0", Mem(off, "R10"))
		}
		f.Op("PREFETCHT0", Mem(row-1, "R10"))
	}
	f.zero(k.zero, regs(k.reg, k.acc(0, 0), k.mr*k.nv())...)
	f.Op("MOVQ", "CX", "R9")
	f.Op("SHRQ", Imm(bits.TrailingZeros(uint(k.unroll))), "R9")
	f.Op("JZ", tail)

	f.Label(loop)
	for s := 0; s < k.unroll; s++ {
		k.step(f, s)
	}
	f.advance(Step{"AX", k.unroll * k.mr * 8}, Step{"BX", k.unroll * k.nr * 8})
	f.countdown("R9", loop)

	f.Label(tail)
	f.Op("TESTQ", "$1", "CX")
	f.Op("JZ", store)
	k.step(f, 0)

	f.Label(store)
	alpha := k.reg(k.alpha)
	f.Op("VBROADCASTSD", f.Arg("alpha"), alpha)
	for i := 0; i < k.mr; i++ {
		if i > 0 {
			f.Op("ADDQ", "R8", "DX")
		}
		for j := 0; j < k.nv(); j++ {
			f.Op("VFMADD213PD", Mem(j*vec, "DX"), alpha, k.reg(k.acc(i, j)))
		}
		for j := 0; j < k.nv(); j++ {
			f.Op("VMOVUPD", k.reg(k.acc(i, j)), Mem(j*vec, "DX"))
		}
	}
	f.end()
}

// step is step s of the unrolled p loop: load the B row, then for each
// row i of the tile broadcast A[i] and add it times the B row.
func (k gemmKernel) step(f *Func, s int) {
	for j := 0; j < k.nv(); j++ {
		f.Op("VMOVUPD", Mem((s*k.nr+j*k.lanes)*8, "BX"), k.reg(k.b(j)))
	}
	for i := 0; i < k.mr; i++ {
		f.Op("VBROADCASTSD", Mem((s*k.mr+i)*8, "AX"), k.reg(k.a(i)))
		for j := 0; j < k.nv(); j++ {
			f.Op("VFMADD231PD", k.reg(k.b(j)), k.reg(k.a(i)), k.reg(k.acc(i, j)))
		}
	}
}

// transpose4 is blas3's packing of four rows of A, written once.
func transpose4(a *Asm) {
	f := a.Text("func transpose4(dst, src []float64, ld, k, w int)",
		"For p < k (a multiple of 4) and i < 4: dst[p·w + i] = src[i·ld + p], by",
		"4×4 blocks: four rows of src loaded, transposed in registers (unpack the",
		"pairs, then swap the 128-bit halves), stored as four rows of dst.")
	f.loadArgs(Reg{"dst_base", "DI"}, Reg{"src_base", "SI"}, Reg{"ld", "R8"})
	f.Op("SHLQ", "$3", "R8")
	f.loadArgs(Reg{"k", "CX"})
	f.Op("SHRQ", "$2", "CX")
	f.Op("JZ", "tdone")
	f.loadArgs(Reg{"w", "R9"})
	f.Op("SHLQ", "$3", "R9")
	f.Op("LEAQ", "(SI)(R8*1)", "R10")
	f.Op("LEAQ", "(R10)(R8*1)", "R11")
	f.Op("LEAQ", "(R11)(R8*1)", "R12")
	f.Op("LEAQ", "(R9)(R9*2)", "R13")

	f.Label("tloop")
	rows := []string{"SI", "R10", "R11", "R12"}
	for i, r := range rows {
		f.Op("VMOVUPD", Mem(0, r), Y(i))
	}
	f.Op("VUNPCKLPD", "Y1", "Y0", "Y4")
	f.Op("VUNPCKHPD", "Y1", "Y0", "Y5")
	f.Op("VUNPCKLPD", "Y3", "Y2", "Y6")
	f.Op("VUNPCKHPD", "Y3", "Y2", "Y7")
	f.Op("VPERM2F128", "$0x20", "Y6", "Y4", "Y0")
	f.Op("VPERM2F128", "$0x20", "Y7", "Y5", "Y1")
	f.Op("VPERM2F128", "$0x31", "Y6", "Y4", "Y2")
	f.Op("VPERM2F128", "$0x31", "Y7", "Y5", "Y3")
	f.Op("VMOVUPD", "Y0", "(DI)")
	f.Op("VMOVUPD", "Y1", "(DI)(R9*1)")
	f.Op("VMOVUPD", "Y2", "(DI)(R9*2)")
	f.Op("VMOVUPD", "Y3", "(DI)(R13*1)")
	for _, r := range rows {
		f.advance(Step{r, 32})
	}
	f.Op("LEAQ", "(DI)(R9*4)", "DI")
	f.countdown("CX", "tloop")
	f.Op("VZEROUPPER")

	f.Label("tdone")
	f.Op("RET")
}
