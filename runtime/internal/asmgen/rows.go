package asmgen

// bke's row kernels (rows_amd64.s): AVX2, four landmarks per step.

// rowsFile is runtime/bke/rows_amd64.s.
func rowsFile() []byte {
	a := new(Asm)
	header(a, "runtime/bke")
	rowKernel(a, "func row2Iso(u, q, c, cy, v, s1, s2, sy, sky []float64, cq float64, acc *[24]float64)", []string{
		"Per landmark l (four per step): e = cq·u; de = e − c; s1 += de;",
		"s2 += de²; dy = e·q − cy; sy += dy; sky += de·dy; with (d0, d1) = v[2l:],",
		"w = u², p00 = w·d0², p10 = w·d0·d1, p11 = w·d1²: g += p, t += p·q.",
	}, "", 6, 64, func(f *Func) {
		f.Op("VMOVUPD", "(DI)", "Y6").C("d0 d1 of l, l+1")
		f.Op("VMOVUPD", "32(DI)", "Y7").C("of l+2, l+3")
		f.Op("VUNPCKLPD", "Y7", "Y6", "Y8").C("d0 of l, l+2, l+1, l+3")
		f.Op("VUNPCKHPD", "Y7", "Y6", "Y9").C("d1 likewise")
		f.Op("VPERMPD", "$0xd8", "Y8", "Y8").C("into landmark order")
		f.Op("VPERMPD", "$0xd8", "Y9", "Y9")
		f.Op("VMULPD", "Y0", "Y0", "Y2").C("w = u²")
		f.Op("VMULPD", "Y8", "Y2", "Y3").C("w·d0")
		f.Op("VMULPD", "Y9", "Y2", "Y4").C("w·d1")
		f.Op("VMULPD", "Y8", "Y3", "Y5").C("p00")
		f.Op("VMULPD", "Y9", "Y3", "Y6").C("p10")
		f.Op("VMULPD", "Y9", "Y4", "Y7").C("p11")
		f.Op("VADDPD", "Y5", "Y10", "Y10")
		f.Op("VADDPD", "Y6", "Y11", "Y11")
		f.Op("VADDPD", "Y7", "Y12", "Y12")
		f.Op("VFMADD231PD", "Y1", "Y5", "Y13").C("t00 += p00·q")
		f.Op("VFMADD231PD", "Y1", "Y6", "Y14")
		f.Op("VFMADD231PD", "Y1", "Y7", "Y15")
	})
	rowKernel(a, "func row1Grad(u, q, c, cy, v, s1, s2, sy, sky []float64, cq float64, acc *[8]float64)", []string{
		"row1's accumulating loop with grad: the sums as row2Iso, and with",
		"w = u²·v², g += w, t += w·q (four lanes each in acc).",
	}, "1", 2, 32, func(f *Func) {
		f.Op("VMOVUPD", "(DI)", "Y6").C("v")
		f.Op("VMULPD", "Y0", "Y0", "Y2").C("u²")
		f.Op("VMULPD", "Y6", "Y2", "Y2")
		f.Op("VMULPD", "Y6", "Y2", "Y2").C("w = u²·v·v")
		f.Op("VADDPD", "Y2", "Y10", "Y10").C("g += w")
		f.Op("VFMADD231PD", "Y1", "Y2", "Y11").C("t += w·q")
	})
	distKernel(a, 2)
	distKernel(a, 1)
	return a.Bytes()
}

// rowKernel writes row2Iso or row1Grad: the landmark sums (rowSums), then
// body, which adds this step's terms of G̃ and T̃ into the nacc
// accumulators Y10…, reading v at DI (advanced by vstep bytes per step).
func rowKernel(a *Asm, sig string, doc []string, suffix string, nacc, vstep int, body func(*Func)) {
	f := a.Text(sig, doc...)
	f.loadArgs(
		Reg{"u_base", "AX"}, Reg{"u_len", "CX"}, Reg{"q_base", "BX"},
		Reg{"c_base", "DX"}, Reg{"cy_base", "SI"}, Reg{"v_base", "DI"},
		Reg{"s1_base", "R8"}, Reg{"s2_base", "R9"}, Reg{"sy_base", "R10"},
		Reg{"sky_base", "R11"}, Reg{"acc", "R12"})
	acc := regs(Y, 10, nacc)
	f.zero("VXORPD", acc...)
	f.Op("SHRQ", "$2", "CX")
	f.Op("JZ", "store"+suffix)

	f.Label("loop" + suffix)
	rowSums(f)
	body(f)
	f.advance(Step{"AX", 32}, Step{"BX", 32}, Step{"DX", 32}, Step{"SI", 32}, Step{"DI", vstep},
		Step{"R8", 32}, Step{"R9", 32}, Step{"R10", 32}, Step{"R11", 32})
	f.countdown("CX", "loop"+suffix)

	f.Label("store" + suffix)
	f.store("R12", 32, acc...)
	f.end()
}

// rowSums loads u (Y0) and q (Y1) and adds four landmarks' terms to the
// block sums: e = cq·u (Y2), de = e − c (Y3), s1 += de, s2 += de²,
// dy = e·q − cy (Y5), sy += dy, sky += de·dy (c, cy, s1, s2, sy, sky at
// DX, SI, R8, R9, R10, R11).
func rowSums(f *Func) {
	f.Op("VMOVUPD", "(AX)", "Y0").C("u")
	f.Op("VMOVUPD", "(BX)", "Y1").C("q")
	f.Op("VBROADCASTSD", f.Arg("cq"), "Y2")
	f.Op("VMULPD", "Y0", "Y2", "Y2").C("e")
	f.Op("VSUBPD", "(DX)", "Y2", "Y3").C("de = e − c")
	f.Op("VADDPD", "(R8)", "Y3", "Y4")
	f.Op("VMOVUPD", "Y4", "(R8)").C("s1 += de")
	f.Op("VMOVUPD", "(R9)", "Y4")
	f.Op("VFMADD231PD", "Y3", "Y3", "Y4")
	f.Op("VMOVUPD", "Y4", "(R9)").C("s2 += de²")
	f.Op("VMULPD", "Y1", "Y2", "Y5")
	f.Op("VSUBPD", "(SI)", "Y5", "Y5").C("dy = e·q − cy")
	f.Op("VADDPD", "(R10)", "Y5", "Y4")
	f.Op("VMOVUPD", "Y4", "(R10)").C("sy += dy")
	f.Op("VMOVUPD", "(R11)", "Y4")
	f.Op("VFMADD231PD", "Y5", "Y3", "Y4")
	f.Op("VMOVUPD", "Y4", "(R11)").C("sky += de·dy")
}

// distKernel writes dist2 (d = 2) or dist1: the distances of four
// landmarks per step, their least value in Y2, reduced to one at the end.
func distKernel(a *Asm, d int) {
	var f *Func
	var loop, done string
	if d == 2 {
		f = a.Text("func dist2(x0, x1, a0, a1 float64, z, v, q []float64) (qmin float64)",
			"For len(q)/4·4 landmarks, four per step: v[2l:2l+2] = x − z_l,",
			"q_l = (x0 − z_l0)²·a0 + (x1 − z_l1)²·a1 (each product rounded as row2's",
			"Go loop rounds it), and the least q_l (a NaN q_l is skipped, as `<` does).")
		loop, done = "loop2", "done2"
	} else {
		f = a.Text("func dist1(x, a float64, z, v, q []float64) (qmin float64)",
			"dist2 for D = 1: v_l = x − z_l, q_l = v_l²·a (rounded as row1 rounds).")
		loop, done = "loopd1", "done1"
	}
	f.loadArgs(Reg{"z_base", "SI"}, Reg{"v_base", "DI"}, Reg{"q_base", "BX"}, Reg{"q_len", "CX"})
	if d == 2 {
		f.Op("VBROADCASTF128", f.Arg("x0"), "Y0").C("x0 x1 x0 x1")
		f.Op("VBROADCASTF128", f.Arg("a0"), "Y1").C("a0 a1 a0 a1")
	} else {
		f.Op("VBROADCASTSD", f.Arg("x"), "Y0")
		f.Op("VBROADCASTSD", f.Arg("a"), "Y1")
	}
	f.broadcastInf("X2", "Y2").C("qmin = +Inf")
	f.Op("SHRQ", "$2", "CX")
	f.Op("JZ", done)

	f.Label(loop)
	if d == 2 {
		f.Op("VMOVUPD", "(SI)", "Y3").C("z of l, l+1")
		f.Op("VMOVUPD", "32(SI)", "Y4").C("z of l+2, l+3")
		f.Op("VSUBPD", "Y3", "Y0", "Y3").C("x − z")
		f.Op("VSUBPD", "Y4", "Y0", "Y4")
		f.Op("VMOVUPD", "Y3", "(DI)")
		f.Op("VMOVUPD", "Y4", "32(DI)")
		f.Op("VMULPD", "Y3", "Y3", "Y3")
		f.Op("VMULPD", "Y1", "Y3", "Y3").C("d²·a per coordinate")
		f.Op("VMULPD", "Y4", "Y4", "Y4")
		f.Op("VMULPD", "Y1", "Y4", "Y4")
		f.Op("VHADDPD", "Y4", "Y3", "Y5").C("q of l, l+2, l+1, l+3")
		f.Op("VPERMPD", "$0xd8", "Y5", "Y5").C("into landmark order")
		f.Op("VMOVUPD", "Y5", "(BX)")
		f.Op("VMINPD", "Y2", "Y5", "Y2").C("NaN in q keeps the old minimum")
		f.advance(Step{"SI", 64}, Step{"DI", 64}, Step{"BX", 32})
	} else {
		f.Op("VMOVUPD", "(SI)", "Y3")
		f.Op("VSUBPD", "Y3", "Y0", "Y3").C("x − z")
		f.Op("VMOVUPD", "Y3", "(DI)")
		f.Op("VMULPD", "Y3", "Y3", "Y3")
		f.Op("VMULPD", "Y1", "Y3", "Y3").C("d²·a")
		f.Op("VMOVUPD", "Y3", "(BX)")
		f.Op("VMINPD", "Y2", "Y3", "Y2")
		f.advance(Step{"SI", 32}, Step{"DI", 32}, Step{"BX", 32})
	}
	f.countdown("CX", loop)

	f.Label(done)
	f.Op("VEXTRACTF128", "$1", "Y2", "X3")
	f.Op("VMINPD", "X3", "X2", "X2")
	f.Op("VPERMILPD", "$1", "X2", "X3")
	f.Op("VMINPD", "X3", "X2", "X2")
	f.Op("VMOVSD", "X2", f.Arg("qmin"))
	f.end()
}
