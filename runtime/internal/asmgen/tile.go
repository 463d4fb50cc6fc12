package asmgen

// bke's tile kernels (tile_amd64.s): AVX-512, eight data rows at once;
// their AVX2 forms are in tile2.go.

// tileFile is runtime/bke/tile_amd64.s.
func tileFile() []byte {
	a := new(Asm)
	header(a, "runtime/bke")
	for _, s := range []string{
		"",
		"// The tile kernels take eight data rows at once, one per AVX-512 lane, and",
		"// run the landmarks one at a time (tile.go). Every array is landmark-major",
		"// with eight lanes per landmark: element l·8 + k belongs to landmark l and",
		"// the tile's row k. The distances round as row1 and row2 round them (so",
		"// the exponentials are the same); the sums round differently, with fused",
		"// multiply–adds and (u·d)² for u²·d·d. The kernels named …Y do the same",
		"// with AVX2 and FMA, four lanes at a time.",
	} {
		a.Line(s)
	}
	tileDist(a, 2)
	tileDist(a, 1)
	tileAcc(a, 2)
	tileAcc(a, 1)
	tileJac(a, 2)
	tileJac(a, 1)
	tileFileAVX2(a)
	return a.Bytes()
}

// tileDist writes tileDist2 (d = 2) or tileDist1: a first pass over the
// landmarks for the distances and their least value per lane (Z9), a
// second for r = q − qmin.
func tileDist(a *Asm, d int) {
	var f *Func
	if d == 2 {
		f = a.Text("func tileDist2(x0, x1 *[8]float64, a0, a1 float64, z, d0, d1, q, r []float64)",
			"For the m = len(q)/8 landmarks: d0 = x0 − z_l0, d1 = x1 − z_l1,",
			"q = d0²·a0 + d1²·a1; then qmin = min_l q per lane (+Inf if every q",
			"overflows; a NaN q is skipped), r_l = q_l − qmin and r_m = qmin.")
		f.loadArgs(Reg{"x0", "AX"})
		f.Op("VMOVUPD", "(AX)", "Z0")
		f.loadArgs(Reg{"x1", "AX"})
		f.Op("VMOVUPD", "(AX)", "Z1")
		f.Op("VBROADCASTSD", f.Arg("a0"), "Z2")
		f.Op("VBROADCASTSD", f.Arg("a1"), "Z3")
		f.loadArgs(Reg{"z_base", "SI"}, Reg{"d0_base", "DI"}, Reg{"d1_base", "R8"})
	} else {
		f = a.Text("func tileDist1(x *[8]float64, a float64, z, d, q, r []float64)",
			"tileDist2 for D = 1: d = x − z_l, q = d²·a.")
		f.loadArgs(Reg{"x", "AX"})
		f.Op("VMOVUPD", "(AX)", "Z0")
		f.Op("VBROADCASTSD", f.Arg("a"), "Z2")
		f.loadArgs(Reg{"z_base", "SI"}, Reg{"d_base", "DI"})
	}
	f.loadArgs(Reg{"q_base", "BX"}, Reg{"q_len", "CX"}, Reg{"r_base", "R9"})
	f.broadcastInf("X9", "Z9").C("qmin = +Inf")
	f.Op("SHRQ", "$3", "CX")
	n := map[int]string{2: "2", 1: "1"}[d]
	f.Op("JZ", "last"+n)
	f.Op("MOVQ", "CX", "DX")

	f.Label("dist" + n)
	if d == 2 {
		f.Op("VSUBPD.BCST", "(SI)", "Z0", "Z4").C("d0 = x0 − z_l0")
		f.Op("VSUBPD.BCST", "8(SI)", "Z1", "Z5").C("d1")
		f.Op("VMOVUPD", "Z4", "(DI)")
		f.Op("VMOVUPD", "Z5", "(R8)")
		f.Op("VMULPD", "Z4", "Z4", "Z4")
		f.Op("VMULPD", "Z2", "Z4", "Z4").C("d0²·a0")
		f.Op("VMULPD", "Z5", "Z5", "Z5")
		f.Op("VMULPD", "Z3", "Z5", "Z5").C("d1²·a1")
		f.Op("VADDPD", "Z5", "Z4", "Z4").C("q")
	} else {
		f.Op("VSUBPD.BCST", "(SI)", "Z0", "Z4").C("d = x − z_l")
		f.Op("VMOVUPD", "Z4", "(DI)")
		f.Op("VMULPD", "Z4", "Z4", "Z4")
		f.Op("VMULPD", "Z2", "Z4", "Z4").C("q = d²·a")
	}
	f.Op("VMOVUPD", "Z4", "(BX)")
	f.Op("VMINPD", "Z9", "Z4", "Z9").C("a NaN q keeps the old minimum")
	if d == 2 {
		f.advance(Step{"SI", 16}, Step{"DI", 64}, Step{"R8", 64}, Step{"BX", 64})
	} else {
		f.advance(Step{"SI", 8}, Step{"DI", 64}, Step{"BX", 64})
	}
	f.countdown("DX", "dist"+n)

	f.Blank()
	f.loadArgs(Reg{"q_base", "BX"})

	f.Label("shift" + n)
	f.Op("VMOVUPD", "(BX)", "Z4")
	f.Op("VSUBPD", "Z9", "Z4", "Z4").C("r = q − qmin")
	f.Op("VMOVUPD", "Z4", "(R9)")
	f.advance(Step{"BX", 64}, Step{"R9", 64})
	f.countdown("CX", "shift"+n)

	f.Label("last" + n)
	f.Op("VMOVUPD", "Z9", "(R9)").C("r_m = qmin")
	f.end()
}

// tileSums adds one landmark's terms of the sums over rows, with u in Z0,
// q in Z1 and cq in Z20: e = cq·u, de = e − c, s1 += de, s2 += de²,
// dy = e·q − cy (fused), sy += dy, sky += de·dy (c and cy broadcast from
// (DX) and (SI); s1, s2, sy, sky at (R8), (R9), (R10), (R11)). It is
// rowSums for eight rows and one landmark.
func tileSums(f *Func) {
	f.Op("VMULPD", "Z0", "Z20", "Z2").C("e")
	f.Op("VSUBPD.BCST", "(DX)", "Z2", "Z3").C("de = e − c")
	f.Op("VADDPD", "(R8)", "Z3", "Z4")
	f.Op("VMOVUPD", "Z4", "(R8)").C("s1 += de")
	f.Op("VMOVUPD", "(R9)", "Z4")
	f.Op("VFMADD231PD", "Z3", "Z3", "Z4")
	f.Op("VMOVUPD", "Z4", "(R9)").C("s2 += de²")
	f.Op("VFMSUB213PD.BCST", "(SI)", "Z1", "Z2").C("dy = e·q − cy")
	f.Op("VADDPD", "(R10)", "Z2", "Z4")
	f.Op("VMOVUPD", "Z4", "(R10)").C("sy += dy")
	f.Op("VMOVUPD", "(R11)", "Z4")
	f.Op("VFMADD231PD", "Z2", "Z3", "Z4")
	f.Op("VMOVUPD", "Z4", "(R11)").C("sky += de·dy")
}

// tileAcc writes tileAcc2 (d = 2) or tileAcc1.
func tileAcc(a *Asm, d int) {
	var f *Func
	var ds []Reg
	if d == 2 {
		f = a.Text("func tileAcc2(u, q, d0, d1, c, cy, s1, s2, sy, sky []float64, acc *[48]float64)",
			"For the m = len(c) landmarks, with cq = u_m: the sums of tileSums, and per",
			"lane, with p00 = (u·d0)², p10 = (u·d0)(u·d1), p11 = (u·d1)²:",
			"G̃ = Σ_l p (acc[0:24]: p00, p10, p11 by eight lanes) and T̃ = Σ_l p·q",
			"(acc[24:48]).")
		ds = []Reg{{"d0_base", "R13"}, {"d1_base", "R14"}}
	} else {
		f = a.Text("func tileAcc1(u, q, d, c, cy, s1, s2, sy, sky []float64, acc *[48]float64)",
			"tileAcc2 for D = 1: with w = (u·d)², G̃ = Σ_l w (acc[0:8]) and",
			"T̃ = Σ_l w·q (acc[24:32]), where tileAcc2 puts g00 and t00; it leaves",
			"the rest of acc alone.")
		ds = []Reg{{"d_base", "R13"}}
	}
	n := map[int]string{2: "2", 1: "1"}[d]
	f.loadArgs(Reg{"u_base", "AX"}, Reg{"q_base", "BX"})
	f.loadArgs(ds...)
	f.loadArgs(Reg{"c_base", "DX"}, Reg{"c_len", "CX"}, Reg{"cy_base", "SI"},
		Reg{"s1_base", "R8"}, Reg{"s2_base", "R9"}, Reg{"sy_base", "R10"},
		Reg{"sky_base", "R11"}, Reg{"acc", "R12"})
	f.Op("MOVQ", "CX", "DI")
	f.Op("SHLQ", "$6", "DI")
	f.Op("ADDQ", "AX", "DI")
	f.Op("VMOVUPD", "(DI)", "Z20").C("cq")
	acc := regs(Z, 10, d*(d+1)) // the d(d+1)/2 entries of G̃, then of T̃
	f.zero("VXORPD", acc...)
	f.Op("TESTQ", "CX", "CX")
	f.Op("JZ", "store"+n)

	f.Label("acc" + n)
	f.Op("VMOVUPD", "(AX)", "Z0").C("u")
	f.Op("VMOVUPD", "(BX)", "Z1").C("q")
	tileSums(f)
	if d == 2 {
		f.Op("VMULPD", "(R13)", "Z0", "Z7").C("u·d0")
		f.Op("VMULPD", "(R14)", "Z0", "Z8").C("u·d1")
		f.Op("VMULPD", "Z7", "Z7", "Z18").C("p00 = (u·d0)²")
		f.Op("VMULPD", "Z8", "Z7", "Z19").C("p10")
		f.Op("VMULPD", "Z8", "Z8", "Z21").C("p11")
		f.Op("VADDPD", "Z18", "Z10", "Z10")
		f.Op("VADDPD", "Z19", "Z11", "Z11")
		f.Op("VADDPD", "Z21", "Z12", "Z12")
		f.Op("VFMADD231PD", "Z1", "Z18", "Z13").C("t00 += p00·q")
		f.Op("VFMADD231PD", "Z1", "Z19", "Z14")
		f.Op("VFMADD231PD", "Z1", "Z21", "Z15")
	} else {
		f.Op("VMULPD", "(R13)", "Z0", "Z7").C("u·d")
		f.Op("VMULPD", "Z7", "Z7", "Z6").C("w = (u·d)²")
		f.Op("VADDPD", "Z6", "Z10", "Z10").C("g += w")
		f.Op("VFMADD231PD", "Z1", "Z6", "Z11").C("t += w·q")
	}
	f.advance(Step{"AX", 64}, Step{"BX", 64})
	for _, r := range ds {
		f.advance(Step{r.Reg, 64})
	}
	f.advance(Step{"DX", 8}, Step{"SI", 8},
		Step{"R8", 64}, Step{"R9", 64}, Step{"R10", 64}, Step{"R11", 64})
	f.countdown("CX", "acc"+n)

	f.Label("store" + n)
	if d == 2 {
		f.store("R12", 64, acc...)
	} else {
		// g and t go where tileAcc2 puts g00 and t00.
		f.Op("VMOVUPD", "Z10", "(R12)")
		f.Op("VMOVUPD", "Z11", "192(R12)")
	}
	f.end()
}

// tileJac writes tileJac (d = 2) or tileJac1.
func tileJac(a *Asm, d int) {
	var f *Func
	if d == 2 {
		f = a.Text("func tileJac(acc *[48]float64, qmin *[8]float64, lim *jacLimits, out *[32]float64) (ok uint64)",
			"The closing of tileFinish for the eight rows at once, as small2 and",
			"small2Grad compute it: with G̃ = [a b; b c] and T̃ from acc, lane k is",
			"fast (bit k of ok) when a, c > tinyDiag, r = 1 − (b/a)(b/c) ≥",
			"hadamardLimit and det = a·c·r is a normal number. For the fast lanes",
			"out holds det's mantissa in [1, 2) (out[0:8]) and binary exponent",
			"(out[8:16]), tr(G̃⁻¹T̃) = (c·t00 − 2b·t10 + a·t11)/det (out[16:24]) and",
			"qmin (out[24:32]); for the others 1, 0, 0, 0. The constants come from",
			"lim (1, tinyDiag, hadamardLimit, minNormal, MaxFloat64). Only AVX-512F.")
	} else {
		f = a.Text("func tileJac1(acc *[48]float64, qmin *[8]float64, lim *jacLimits, out *[32]float64) (ok uint64)",
			"tileJac for D = 1, where G̃ = g (acc[0:8]) and T̃ = t (acc[24:32]): a",
			"lane is fast when g > tinyDiag and g is a normal number; det = g and",
			"tr(G̃⁻¹T̃) = t/g, one division (tileJac's three were a tenth of the",
			"pass at n = 800, m = 20).")
	}
	f.loadArgs(Reg{"acc", "AX"}, Reg{"qmin", "BX"}, Reg{"lim", "CX"}, Reg{"out", "DX"})
	if d == 2 {
		f.Op("VMOVUPD", "(AX)", "Z0").C("a")
		f.Op("VMOVUPD", "64(AX)", "Z1").C("b")
		f.Op("VMOVUPD", "128(AX)", "Z2").C("c")
		f.Op("VCMPPD.BCST", "$0x1e", "8(CX)", "Z0", "K1").C("a > tinyDiag")
		f.Op("VCMPPD.BCST", "$0x1e", "8(CX)", "Z2", "K2")
		f.Op("KANDW", "K2", "K1", "K1")
		f.Op("VDIVPD", "Z0", "Z1", "Z3").C("ba = b/a")
		f.Op("VDIVPD", "Z2", "Z1", "Z4").C("b/c")
		f.Op("VMULPD", "Z4", "Z3", "Z4")
		f.Op("VBROADCASTSD", "(CX)", "Z5")
		f.Op("VSUBPD", "Z4", "Z5", "Z5").C("r = 1 − ba·(b/c)")
		f.Op("VCMPPD.BCST", "$0x1d", "16(CX)", "Z5", "K2").C("r ≥ hadamardLimit")
		f.Op("KANDW", "K2", "K1", "K1")
		f.Op("VMULPD", "Z2", "Z0", "Z6")
		f.Op("VMULPD", "Z5", "Z6", "Z6").C("det = a·c·r")
		f.Op("VCMPPD.BCST", "$0x1e", "24(CX)", "Z6", "K2").C("det > minNormal")
		f.Op("KANDW", "K2", "K1", "K1")
		f.Op("VCMPPD.BCST", "$0x12", "32(CX)", "Z6", "K2").C("det ≤ MaxFloat64")
		f.Op("KANDW", "K2", "K1", "K1")
		f.Op("VMULPD", "192(AX)", "Z2", "Z7").C("c·t00")
		f.Op("VADDPD", "Z1", "Z1", "Z8").C("2b")
		f.Op("VMULPD", "256(AX)", "Z8", "Z8")
		f.Op("VSUBPD", "Z8", "Z7", "Z7").C("− 2b·t10")
		f.Op("VMULPD", "320(AX)", "Z0", "Z8")
		f.Op("VADDPD", "Z8", "Z7", "Z7").C("+ a·t11")
		f.Op("VDIVPD", "Z6", "Z7", "Z7").C("tr(G̃⁻¹T̃)")
	} else {
		f.Op("VMOVUPD", "(AX)", "Z6").C("det = g")
		f.Op("VCMPPD.BCST", "$0x1e", "8(CX)", "Z6", "K1").C("g > tinyDiag")
		f.Op("VCMPPD.BCST", "$0x1e", "24(CX)", "Z6", "K2").C("g > minNormal")
		f.Op("KANDW", "K2", "K1", "K1")
		f.Op("VCMPPD.BCST", "$0x12", "32(CX)", "Z6", "K2").C("g ≤ MaxFloat64")
		f.Op("KANDW", "K2", "K1", "K1")
		f.Op("VMOVUPD", "192(AX)", "Z7")
		f.Op("VDIVPD", "Z6", "Z7", "Z7").C("t/g")
	}
	jacOut(f)
	f.Op("MOVQ", "AX", f.Arg("ok"))
	f.end()
}

// jacOut ends tileJac and tileJac1: with det in Z6, tr(G̃⁻¹T̃) in Z7 and
// the fast lanes in K1, it writes out (det's mantissa in [1, 2) and
// exponent, the trace and qmin; 1, 0, 0, 0 in the slow lanes) and leaves
// the lane mask in AX.
func jacOut(f *Func) {
	f.Op("VGETMANTPD", "$0", "Z6", "Z9").C("det's mantissa in [1, 2)")
	f.Op("VGETEXPPD", "Z6", "Z10").C("and exponent")
	f.Op("VBROADCASTSD", "(CX)", "Z11").C("slow lanes: 1, 0, 0, 0")
	f.Op("VMOVAPD", "Z9", "K1", "Z11")
	f.Op("VXORPD", "Z12", "Z12", "Z12")
	f.Op("VMOVAPD", "Z10", "K1", "Z12")
	f.Op("VXORPD", "Z13", "Z13", "Z13")
	f.Op("VMOVAPD", "Z7", "K1", "Z13")
	f.Op("VXORPD", "Z14", "Z14", "Z14")
	f.Op("VMOVUPD", "(BX)", "K1", "Z14")
	f.store("DX", 64, "Z11", "Z12", "Z13", "Z14")
	f.Op("KMOVW", "K1", "AX")
}
