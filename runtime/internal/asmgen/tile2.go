package asmgen

// bke's tile kernels for AVX2 with FMA (tile_amd64.s): the eight lanes
// of a tile as two halves of four, each half a pass of the AVX-512
// kernel's loop with 32 bytes added to every lane-indexed address. The
// arithmetic is the AVX-512 kernels' instruction for instruction (a
// broadcast operand becomes a VBROADCASTSD into a register), so both
// paths give the same bits; the Jacobian's closing (tileJac), which needs
// AVX-512's masks and VGETMANTPD, is Go on this path (tileJacGo).

// tileFileAVX2 adds the AVX2 kernels to a.
func tileFileAVX2(a *Asm) {
	tileDistY(a, 2)
	tileDistY(a, 1)
	tileAccY(a, 2)
	tileAccY(a, 1)
}

// tileDistY writes tileDist2Y (d = 2) or tileDist1Y, tileDist's AVX2 form.
func tileDistY(a *Asm, d int) {
	var f *Func
	if d == 2 {
		f = a.Text("func tileDist2Y(x0, x1 *[8]float64, a0, a1 float64, z, d0, d1, q, r []float64)",
			"tileDist2 with AVX2: lanes 0–3, then 4–7.")
	} else {
		f = a.Text("func tileDist1Y(x *[8]float64, a float64, z, d, q, r []float64)",
			"tileDist1 with AVX2: lanes 0–3, then 4–7.")
	}
	n := map[int]string{2: "2", 1: "1"}[d]
	for h := range 2 {
		off := 32 * h
		s := n + "h" + Imm(h)[1:]
		if d == 2 {
			f.loadArgs(Reg{"x0", "AX"})
			f.Op("VMOVUPD", Mem(off, "AX"), "Y0")
			f.loadArgs(Reg{"x1", "AX"})
			f.Op("VMOVUPD", Mem(off, "AX"), "Y1")
			f.Op("VBROADCASTSD", f.Arg("a0"), "Y2")
			f.Op("VBROADCASTSD", f.Arg("a1"), "Y3")
			f.loadArgs(Reg{"z_base", "SI"}, Reg{"d0_base", "DI"}, Reg{"d1_base", "R8"})
		} else {
			f.loadArgs(Reg{"x", "AX"})
			f.Op("VMOVUPD", Mem(off, "AX"), "Y0")
			f.Op("VBROADCASTSD", f.Arg("a"), "Y2")
			f.loadArgs(Reg{"z_base", "SI"}, Reg{"d_base", "DI"})
		}
		f.loadArgs(Reg{"q_base", "BX"}, Reg{"q_len", "CX"}, Reg{"r_base", "R9"})
		if off > 0 {
			f.advance(Step{"DI", off}, Step{"BX", off}, Step{"R9", off})
			if d == 2 {
				f.advance(Step{"R8", off})
			}
		}
		f.broadcastInf("X9", "Y9").C("qmin = +Inf")
		f.Op("SHRQ", "$3", "CX")
		f.Op("JZ", "lastY"+s)
		f.Op("MOVQ", "CX", "DX")

		f.Label("distY" + s)
		f.Op("VBROADCASTSD", "(SI)", "Y6")
		f.Op("VSUBPD", "Y6", "Y0", "Y4").C("d0 = x0 − z_l0")
		if d == 2 {
			f.Op("VBROADCASTSD", "8(SI)", "Y7")
			f.Op("VSUBPD", "Y7", "Y1", "Y5").C("d1")
			f.Op("VMOVUPD", "Y4", "(DI)")
			f.Op("VMOVUPD", "Y5", "(R8)")
			f.Op("VMULPD", "Y4", "Y4", "Y4")
			f.Op("VMULPD", "Y2", "Y4", "Y4").C("d0²·a0")
			f.Op("VMULPD", "Y5", "Y5", "Y5")
			f.Op("VMULPD", "Y3", "Y5", "Y5").C("d1²·a1")
			f.Op("VADDPD", "Y5", "Y4", "Y4").C("q")
		} else {
			f.Op("VMOVUPD", "Y4", "(DI)")
			f.Op("VMULPD", "Y4", "Y4", "Y4")
			f.Op("VMULPD", "Y2", "Y4", "Y4").C("q = d²·a")
		}
		f.Op("VMOVUPD", "Y4", "(BX)")
		f.Op("VMINPD", "Y9", "Y4", "Y9").C("a NaN q keeps the old minimum")
		if d == 2 {
			f.advance(Step{"SI", 16}, Step{"DI", 64}, Step{"R8", 64}, Step{"BX", 64})
		} else {
			f.advance(Step{"SI", 8}, Step{"DI", 64}, Step{"BX", 64})
		}
		f.countdown("DX", "distY"+s)

		f.Blank()
		f.loadArgs(Reg{"q_base", "BX"})
		if off > 0 {
			f.advance(Step{"BX", off})
		}

		f.Label("shiftY" + s)
		f.Op("VMOVUPD", "(BX)", "Y4")
		f.Op("VSUBPD", "Y9", "Y4", "Y4").C("r = q − qmin")
		f.Op("VMOVUPD", "Y4", "(R9)")
		f.advance(Step{"BX", 64}, Step{"R9", 64})
		f.countdown("CX", "shiftY"+s)

		f.Label("lastY" + s)
		f.Op("VMOVUPD", "Y9", "(R9)").C("r_m = qmin")
	}
	f.end()
}

// tileSumsY is tileSums with AVX2: u in Y0, q in Y1, cq in Y6, Y5 for
// the broadcasts.
func tileSumsY(f *Func) {
	f.Op("VMULPD", "Y0", "Y6", "Y2").C("e")
	f.Op("VBROADCASTSD", "(DX)", "Y5")
	f.Op("VSUBPD", "Y5", "Y2", "Y3").C("de = e − c")
	f.Op("VADDPD", "(R8)", "Y3", "Y4")
	f.Op("VMOVUPD", "Y4", "(R8)").C("s1 += de")
	f.Op("VMOVUPD", "(R9)", "Y4")
	f.Op("VFMADD231PD", "Y3", "Y3", "Y4")
	f.Op("VMOVUPD", "Y4", "(R9)").C("s2 += de²")
	f.Op("VBROADCASTSD", "(SI)", "Y5")
	f.Op("VFMSUB213PD", "Y5", "Y1", "Y2").C("dy = e·q − cy")
	f.Op("VADDPD", "(R10)", "Y2", "Y4")
	f.Op("VMOVUPD", "Y4", "(R10)").C("sy += dy")
	f.Op("VMOVUPD", "(R11)", "Y4")
	f.Op("VFMADD231PD", "Y2", "Y3", "Y4")
	f.Op("VMOVUPD", "Y4", "(R11)").C("sky += de·dy")
}

// tileAccY writes tileAcc2Y (d = 2) or tileAcc1Y, tileAcc's AVX2 form.
func tileAccY(a *Asm, d int) {
	var f *Func
	var ds []Reg
	if d == 2 {
		f = a.Text("func tileAcc2Y(u, q, d0, d1, c, cy, s1, s2, sy, sky []float64, acc *[48]float64)",
			"tileAcc2 with AVX2: lanes 0–3, then 4–7.")
		ds = []Reg{{"d0_base", "R13"}, {"d1_base", "R14"}}
	} else {
		f = a.Text("func tileAcc1Y(u, q, d, c, cy, s1, s2, sy, sky []float64, acc *[48]float64)",
			"tileAcc1 with AVX2: lanes 0–3, then 4–7.")
		ds = []Reg{{"d_base", "R13"}}
	}
	n := map[int]string{2: "2", 1: "1"}[d]
	for h := range 2 {
		off := 32 * h
		s := n + "h" + Imm(h)[1:]
		f.loadArgs(Reg{"u_base", "AX"}, Reg{"q_base", "BX"})
		f.loadArgs(ds...)
		f.loadArgs(Reg{"c_base", "DX"}, Reg{"c_len", "CX"}, Reg{"cy_base", "SI"},
			Reg{"s1_base", "R8"}, Reg{"s2_base", "R9"}, Reg{"sy_base", "R10"},
			Reg{"sky_base", "R11"}, Reg{"acc", "R12"})
		if off > 0 {
			steps := []Step{{"AX", off}, {"BX", off}}
			for _, r := range ds {
				steps = append(steps, Step{r.Reg, off})
			}
			steps = append(steps, Step{"R8", off}, Step{"R9", off}, Step{"R10", off}, Step{"R11", off})
			f.advance(steps...)
		}
		f.Op("MOVQ", "CX", "DI")
		f.Op("SHLQ", "$6", "DI")
		f.Op("ADDQ", "AX", "DI")
		f.Op("VMOVUPD", "(DI)", "Y6").C("cq")
		acc := regs(Y, 7, d*(d+1)) // the d(d+1)/2 entries of G̃, then of T̃
		f.zero("VXORPD", acc...)
		f.Op("TESTQ", "CX", "CX")
		f.Op("JZ", "storeY"+s)

		f.Label("accY" + s)
		f.Op("VMOVUPD", "(AX)", "Y0").C("u")
		f.Op("VMOVUPD", "(BX)", "Y1").C("q")
		tileSumsY(f)
		if d == 2 {
			f.Op("VMULPD", "(R13)", "Y0", "Y13").C("u·d0")
			f.Op("VMULPD", "(R14)", "Y0", "Y14").C("u·d1")
			f.Op("VMULPD", "Y13", "Y13", "Y2").C("p00 = (u·d0)²")
			f.Op("VMULPD", "Y14", "Y13", "Y3").C("p10")
			f.Op("VMULPD", "Y14", "Y14", "Y4").C("p11")
			f.Op("VADDPD", "Y2", "Y7", "Y7")
			f.Op("VADDPD", "Y3", "Y8", "Y8")
			f.Op("VADDPD", "Y4", "Y9", "Y9")
			f.Op("VFMADD231PD", "Y1", "Y2", "Y10").C("t00 += p00·q")
			f.Op("VFMADD231PD", "Y1", "Y3", "Y11")
			f.Op("VFMADD231PD", "Y1", "Y4", "Y12")
		} else {
			f.Op("VMULPD", "(R13)", "Y0", "Y13").C("u·d")
			f.Op("VMULPD", "Y13", "Y13", "Y2").C("w = (u·d)²")
			f.Op("VADDPD", "Y2", "Y7", "Y7").C("g += w")
			f.Op("VFMADD231PD", "Y1", "Y2", "Y8").C("t += w·q")
		}
		f.advance(Step{"AX", 64}, Step{"BX", 64})
		for _, r := range ds {
			f.advance(Step{r.Reg, 64})
		}
		f.advance(Step{"DX", 8}, Step{"SI", 8},
			Step{"R8", 64}, Step{"R9", 64}, Step{"R10", 64}, Step{"R11", 64})
		f.countdown("CX", "accY"+s)

		f.Label("storeY" + s)
		if d == 2 {
			for i, r := range acc {
				f.Op("VMOVUPD", r, Mem(64*i+off, "R12"))
			}
		} else {
			// g and t go where tileAcc2Y puts g00 and t00.
			f.Op("VMOVUPD", "Y7", Mem(off, "R12"))
			f.Op("VMOVUPD", "Y8", Mem(192+off, "R12"))
		}
	}
	f.end()
}
