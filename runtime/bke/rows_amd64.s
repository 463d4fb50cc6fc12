//go:build amd64 && !purego

#include "textflag.h"

// func row2Iso(u, q, c, cy, v, s1, s2, sy, sky []float64, cq float64, acc *[24]float64)
// Per landmark l (four per step): e = cq·u; de = e − c; s1 += de;
// s2 += de²; dy = e·q − cy; sy += dy; sky += de·dy; with (d0, d1) = v[2l:],
// w = u², p00 = w·d0², p10 = w·d0·d1, p11 = w·d1²: g += p, t += p·q.
TEXT ·row2Iso(SB), NOSPLIT, $0-232
	MOVQ u_base+0(FP), AX
	MOVQ u_len+8(FP), CX
	MOVQ q_base+24(FP), BX
	MOVQ c_base+48(FP), DX
	MOVQ cy_base+72(FP), SI
	MOVQ v_base+96(FP), DI
	MOVQ s1_base+120(FP), R8
	MOVQ s2_base+144(FP), R9
	MOVQ sy_base+168(FP), R10
	MOVQ sky_base+192(FP), R11
	MOVQ acc+224(FP), R12
	VXORPD Y10, Y10, Y10
	VXORPD Y11, Y11, Y11
	VXORPD Y12, Y12, Y12
	VXORPD Y13, Y13, Y13
	VXORPD Y14, Y14, Y14
	VXORPD Y15, Y15, Y15
	SHRQ $2, CX
	JZ   store

loop:
	VMOVUPD      (AX), Y0          // u
	VMOVUPD      (BX), Y1          // q
	VBROADCASTSD cq+216(FP), Y2
	VMULPD       Y0, Y2, Y2        // e
	VSUBPD       (DX), Y2, Y3      // de = e − c
	VADDPD       (R8), Y3, Y4
	VMOVUPD      Y4, (R8)          // s1 += de
	VMOVUPD      (R9), Y4
	VFMADD231PD  Y3, Y3, Y4
	VMOVUPD      Y4, (R9)          // s2 += de²
	VMULPD       Y1, Y2, Y5
	VSUBPD       (SI), Y5, Y5      // dy = e·q − cy
	VADDPD       (R10), Y5, Y4
	VMOVUPD      Y4, (R10)         // sy += dy
	VMOVUPD      (R11), Y4
	VFMADD231PD  Y5, Y3, Y4
	VMOVUPD      Y4, (R11)         // sky += de·dy
	VMOVUPD      (DI), Y6          // d0 d1 of l, l+1
	VMOVUPD      32(DI), Y7        // of l+2, l+3
	VUNPCKLPD    Y7, Y6, Y8        // d0 of l, l+2, l+1, l+3
	VUNPCKHPD    Y7, Y6, Y9        // d1 likewise
	VPERMPD      $0xd8, Y8, Y8     // into landmark order
	VPERMPD      $0xd8, Y9, Y9
	VMULPD       Y0, Y0, Y2        // w = u²
	VMULPD       Y8, Y2, Y3        // w·d0
	VMULPD       Y9, Y2, Y4        // w·d1
	VMULPD       Y8, Y3, Y5        // p00
	VMULPD       Y9, Y3, Y6        // p10
	VMULPD       Y9, Y4, Y7        // p11
	VADDPD       Y5, Y10, Y10
	VADDPD       Y6, Y11, Y11
	VADDPD       Y7, Y12, Y12
	VFMADD231PD  Y1, Y5, Y13       // t00 += p00·q
	VFMADD231PD  Y1, Y6, Y14
	VFMADD231PD  Y1, Y7, Y15
	ADDQ         $32, AX
	ADDQ         $32, BX
	ADDQ         $32, DX
	ADDQ         $32, SI
	ADDQ         $64, DI
	ADDQ         $32, R8
	ADDQ         $32, R9
	ADDQ         $32, R10
	ADDQ         $32, R11
	DECQ         CX
	JNZ          loop

store:
	VMOVUPD Y10, (R12)
	VMOVUPD Y11, 32(R12)
	VMOVUPD Y12, 64(R12)
	VMOVUPD Y13, 96(R12)
	VMOVUPD Y14, 128(R12)
	VMOVUPD Y15, 160(R12)
	VZEROUPPER
	RET

// func row1Grad(u, q, c, cy, v, s1, s2, sy, sky []float64, cq float64, acc *[8]float64)
// row1's accumulating loop with grad: the sums as row2Iso, and with
// w = u²·v², g += w, t += w·q (four lanes each in acc).
TEXT ·row1Grad(SB), NOSPLIT, $0-232
	MOVQ   u_base+0(FP), AX
	MOVQ   u_len+8(FP), CX
	MOVQ   q_base+24(FP), BX
	MOVQ   c_base+48(FP), DX
	MOVQ   cy_base+72(FP), SI
	MOVQ   v_base+96(FP), DI
	MOVQ   s1_base+120(FP), R8
	MOVQ   s2_base+144(FP), R9
	MOVQ   sy_base+168(FP), R10
	MOVQ   sky_base+192(FP), R11
	MOVQ   acc+224(FP), R12
	VXORPD Y10, Y10, Y10
	VXORPD Y11, Y11, Y11
	SHRQ   $2, CX
	JZ     store1

loop1:
	VMOVUPD      (AX), Y0
	VMOVUPD      (BX), Y1
	VBROADCASTSD cq+216(FP), Y2
	VMULPD       Y0, Y2, Y2
	VSUBPD       (DX), Y2, Y3
	VADDPD       (R8), Y3, Y4
	VMOVUPD      Y4, (R8)
	VMOVUPD      (R9), Y4
	VFMADD231PD  Y3, Y3, Y4
	VMOVUPD      Y4, (R9)
	VMULPD       Y1, Y2, Y5
	VSUBPD       (SI), Y5, Y5
	VADDPD       (R10), Y5, Y4
	VMOVUPD      Y4, (R10)
	VMOVUPD      (R11), Y4
	VFMADD231PD  Y5, Y3, Y4
	VMOVUPD      Y4, (R11)
	VMOVUPD      (DI), Y6              // v
	VMULPD       Y0, Y0, Y2            // u²
	VMULPD       Y6, Y2, Y2
	VMULPD       Y6, Y2, Y2            // w = u²·v·v
	VADDPD       Y2, Y10, Y10          // g += w
	VFMADD231PD  Y1, Y2, Y11           // t += w·q
	ADDQ         $32, AX
	ADDQ         $32, BX
	ADDQ         $32, DX
	ADDQ         $32, SI
	ADDQ         $32, DI
	ADDQ         $32, R8
	ADDQ         $32, R9
	ADDQ         $32, R10
	ADDQ         $32, R11
	DECQ         CX
	JNZ          loop1

store1:
	VMOVUPD Y10, (R12)
	VMOVUPD Y11, 32(R12)
	VZEROUPPER
	RET

// func dist2(x0, x1, a0, a1 float64, z, v, q []float64) (qmin float64)
// For len(q)/4·4 landmarks, four per step: v[2l:2l+2] = x − z_l,
// q_l = (x0 − z_l0)²·a0 + (x1 − z_l1)²·a1 (each product rounded as row2's
// Go loop rounds it), and the least q_l (a NaN q_l is skipped, as `<` does).
TEXT ·dist2(SB), NOSPLIT, $0-112
	MOVQ           z_base+32(FP), SI
	MOVQ           v_base+56(FP), DI
	MOVQ           q_base+80(FP), BX
	MOVQ           q_len+88(FP), CX
	VBROADCASTF128 x0+0(FP), Y0        // x0 x1 x0 x1
	VBROADCASTF128 a0+16(FP), Y1       // a0 a1 a0 a1
	MOVQ           $0x7FF0000000000000, AX
	VMOVQ          AX, X2
	VBROADCASTSD   X2, Y2              // qmin = +Inf
	SHRQ           $2, CX
	JZ             done2

loop2:
	VMOVUPD   (SI), Y3                 // z of l, l+1
	VMOVUPD   32(SI), Y4               // z of l+2, l+3
	VSUBPD    Y3, Y0, Y3               // x − z
	VSUBPD    Y4, Y0, Y4
	VMOVUPD   Y3, (DI)
	VMOVUPD   Y4, 32(DI)
	VMULPD    Y3, Y3, Y3
	VMULPD    Y1, Y3, Y3               // d²·a per coordinate
	VMULPD    Y4, Y4, Y4
	VMULPD    Y1, Y4, Y4
	VHADDPD   Y4, Y3, Y5               // q of l, l+2, l+1, l+3
	VPERMPD   $0xd8, Y5, Y5            // into landmark order
	VMOVUPD   Y5, (BX)
	VMINPD    Y2, Y5, Y2               // NaN in q keeps the old minimum
	ADDQ      $64, SI
	ADDQ      $64, DI
	ADDQ      $32, BX
	DECQ      CX
	JNZ       loop2

done2:
	VEXTRACTF128 $1, Y2, X3
	VMINPD       X3, X2, X2
	VPERMILPD    $1, X2, X3
	VMINPD       X3, X2, X2
	VMOVSD       X2, qmin+104(FP)
	VZEROUPPER
	RET

// func dist1(x, a float64, z, v, q []float64) (qmin float64)
// dist2 for D = 1: v_l = x − z_l, q_l = v_l²·a (rounded as row1 rounds).
TEXT ·dist1(SB), NOSPLIT, $0-96
	MOVQ         z_base+16(FP), SI
	MOVQ         v_base+40(FP), DI
	MOVQ         q_base+64(FP), BX
	MOVQ         q_len+72(FP), CX
	VBROADCASTSD x+0(FP), Y0
	VBROADCASTSD a+8(FP), Y1
	MOVQ         $0x7FF0000000000000, AX
	VMOVQ        AX, X2
	VBROADCASTSD X2, Y2
	SHRQ         $2, CX
	JZ           done1

loopd1:
	VMOVUPD (SI), Y3
	VSUBPD  Y3, Y0, Y3                 // x − z
	VMOVUPD Y3, (DI)
	VMULPD  Y3, Y3, Y3
	VMULPD  Y1, Y3, Y3                 // d²·a
	VMOVUPD Y3, (BX)
	VMINPD  Y2, Y3, Y2
	ADDQ    $32, SI
	ADDQ    $32, DI
	ADDQ    $32, BX
	DECQ    CX
	JNZ     loopd1

done1:
	VEXTRACTF128 $1, Y2, X3
	VMINPD       X3, X2, X2
	VPERMILPD    $1, X2, X3
	VMINPD       X3, X2, X2
	VMOVSD       X2, qmin+88(FP)
	VZEROUPPER
	RET
