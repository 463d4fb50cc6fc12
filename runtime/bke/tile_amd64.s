//go:build amd64 && !purego

#include "textflag.h"

// The tile kernels take eight data rows at once, one per AVX-512 lane, and
// run the landmarks one at a time (tile.go). Every array is landmark-major
// with eight lanes per landmark: element l·8 + k belongs to landmark l and
// the tile's row k. The distances round as row1 and row2 round them (so
// the exponentials are the same); the sums round differently, with fused
// multiply–adds and (u·d)² for u²·d·d.

// func tileDist2(x0, x1 *[8]float64, a0, a1 float64, z, d0, d1, q, r []float64)
// For the m = len(q)/8 landmarks: d0 = x0 − z_l0, d1 = x1 − z_l1,
// q = d0²·a0 + d1²·a1; then qmin = min_l q per lane (+Inf if every q
// overflows; a NaN q is skipped), r_l = q_l − qmin and r_m = qmin.
TEXT ·tileDist2(SB), NOSPLIT, $0-152
	MOVQ         x0+0(FP), AX
	VMOVUPD      (AX), Z0
	MOVQ         x1+8(FP), AX
	VMOVUPD      (AX), Z1
	VBROADCASTSD a0+16(FP), Z2
	VBROADCASTSD a1+24(FP), Z3
	MOVQ         z_base+32(FP), SI
	MOVQ         d0_base+56(FP), DI
	MOVQ         d1_base+80(FP), R8
	MOVQ         q_base+104(FP), BX
	MOVQ         q_len+112(FP), CX
	MOVQ         r_base+128(FP), R9
	MOVQ         $0x7FF0000000000000, AX
	VMOVQ        AX, X9
	VBROADCASTSD X9, Z9                  // qmin = +Inf
	SHRQ         $3, CX
	JZ           last2
	MOVQ         CX, DX

dist2:
	VSUBPD.BCST (SI), Z0, Z4             // d0 = x0 − z_l0
	VSUBPD.BCST 8(SI), Z1, Z5            // d1
	VMOVUPD     Z4, (DI)
	VMOVUPD     Z5, (R8)
	VMULPD      Z4, Z4, Z4
	VMULPD      Z2, Z4, Z4               // d0²·a0
	VMULPD      Z5, Z5, Z5
	VMULPD      Z3, Z5, Z5               // d1²·a1
	VADDPD      Z5, Z4, Z4               // q
	VMOVUPD     Z4, (BX)
	VMINPD      Z9, Z4, Z9               // a NaN q keeps the old minimum
	ADDQ        $16, SI
	ADDQ        $64, DI
	ADDQ        $64, R8
	ADDQ        $64, BX
	DECQ        DX
	JNZ         dist2

	MOVQ q_base+104(FP), BX

shift2:
	VMOVUPD (BX), Z4
	VSUBPD  Z9, Z4, Z4                   // r = q − qmin
	VMOVUPD Z4, (R9)
	ADDQ    $64, BX
	ADDQ    $64, R9
	DECQ    CX
	JNZ     shift2

last2:
	VMOVUPD Z9, (R9)                     // r_m = qmin
	VZEROUPPER
	RET

// func tileDist1(x *[8]float64, a float64, z, d, q, r []float64)
// tileDist2 for D = 1: d = x − z_l, q = d²·a.
TEXT ·tileDist1(SB), NOSPLIT, $0-112
	MOVQ         x+0(FP), AX
	VMOVUPD      (AX), Z0
	VBROADCASTSD a+8(FP), Z2
	MOVQ         z_base+16(FP), SI
	MOVQ         d_base+40(FP), DI
	MOVQ         q_base+64(FP), BX
	MOVQ         q_len+72(FP), CX
	MOVQ         r_base+88(FP), R9
	MOVQ         $0x7FF0000000000000, AX
	VMOVQ        AX, X9
	VBROADCASTSD X9, Z9
	SHRQ         $3, CX
	JZ           last1
	MOVQ         CX, DX

dist1:
	VSUBPD.BCST (SI), Z0, Z4             // d = x − z_l
	VMOVUPD     Z4, (DI)
	VMULPD      Z4, Z4, Z4
	VMULPD      Z2, Z4, Z4               // q = d²·a
	VMOVUPD     Z4, (BX)
	VMINPD      Z9, Z4, Z9
	ADDQ        $8, SI
	ADDQ        $64, DI
	ADDQ        $64, BX
	DECQ        DX
	JNZ         dist1

	MOVQ q_base+64(FP), BX

shift1:
	VMOVUPD (BX), Z4
	VSUBPD  Z9, Z4, Z4
	VMOVUPD Z4, (R9)
	ADDQ    $64, BX
	ADDQ    $64, R9
	DECQ    CX
	JNZ     shift1

last1:
	VMOVUPD Z9, (R9)
	VZEROUPPER
	RET

// ACCUM adds one landmark's terms of the sums over rows, with u in Z0, q
// in Z1 and cq in Z20: e = cq·u, de = e − c, s1 += de, s2 += de²,
// dy = e·q − cy (fused), sy += dy, sky += de·dy (c and cy broadcast from
// (DX) and (SI); s1, s2, sy, sky at (R8), (R9), (R10), (R11)).
#define ACCUM \
	VMULPD           Z0, Z20, Z2; \
	VSUBPD.BCST      (DX), Z2, Z3; \
	VADDPD           (R8), Z3, Z4; \
	VMOVUPD          Z4, (R8); \
	VMOVUPD          (R9), Z4; \
	VFMADD231PD      Z3, Z3, Z4; \
	VMOVUPD          Z4, (R9); \
	VFMSUB213PD.BCST (SI), Z1, Z2; \
	VADDPD           (R10), Z2, Z4; \
	VMOVUPD          Z4, (R10); \
	VMOVUPD          (R11), Z4; \
	VFMADD231PD      Z2, Z3, Z4; \
	VMOVUPD          Z4, (R11)

// func tileAcc2(u, q, d0, d1, c, cy, s1, s2, sy, sky []float64, acc *[48]float64)
// For the m = len(c) landmarks, with cq = u_m: the sums of ACCUM, and per
// lane, with p00 = (u·d0)², p10 = (u·d0)(u·d1), p11 = (u·d1)²:
// G̃ = Σ_l p (acc[0:24]: p00, p10, p11 by eight lanes) and T̃ = Σ_l p·q
// (acc[24:48]).
TEXT ·tileAcc2(SB), NOSPLIT, $0-248
	MOVQ    u_base+0(FP), AX
	MOVQ    q_base+24(FP), BX
	MOVQ    d0_base+48(FP), R13
	MOVQ    d1_base+72(FP), R14
	MOVQ    c_base+96(FP), DX
	MOVQ    c_len+104(FP), CX
	MOVQ    cy_base+120(FP), SI
	MOVQ    s1_base+144(FP), R8
	MOVQ    s2_base+168(FP), R9
	MOVQ    sy_base+192(FP), R10
	MOVQ    sky_base+216(FP), R11
	MOVQ    acc+240(FP), R12
	MOVQ    CX, DI
	SHLQ    $6, DI
	ADDQ    AX, DI
	VMOVUPD (DI), Z20              // cq
	VXORPD  Z10, Z10, Z10
	VXORPD  Z11, Z11, Z11
	VXORPD  Z12, Z12, Z12
	VXORPD  Z13, Z13, Z13
	VXORPD  Z14, Z14, Z14
	VXORPD  Z15, Z15, Z15
	TESTQ   CX, CX
	JZ      store2

acc2:
	VMOVUPD     (AX), Z0                 // u
	VMOVUPD     (BX), Z1                 // q
	ACCUM
	VMULPD      (R13), Z0, Z7            // u·d0
	VMULPD      (R14), Z0, Z8            // u·d1
	VMULPD      Z7, Z7, Z18              // p00 = (u·d0)²
	VMULPD      Z8, Z7, Z19              // p10
	VMULPD      Z8, Z8, Z21              // p11
	VADDPD      Z18, Z10, Z10
	VADDPD      Z19, Z11, Z11
	VADDPD      Z21, Z12, Z12
	VFMADD231PD Z1, Z18, Z13             // t00 += p00·q
	VFMADD231PD Z1, Z19, Z14
	VFMADD231PD Z1, Z21, Z15
	ADDQ        $64, AX
	ADDQ        $64, BX
	ADDQ        $64, R13
	ADDQ        $64, R14
	ADDQ        $8, DX
	ADDQ        $8, SI
	ADDQ        $64, R8
	ADDQ        $64, R9
	ADDQ        $64, R10
	ADDQ        $64, R11
	DECQ        CX
	JNZ         acc2

store2:
	VMOVUPD Z10, (R12)
	VMOVUPD Z11, 64(R12)
	VMOVUPD Z12, 128(R12)
	VMOVUPD Z13, 192(R12)
	VMOVUPD Z14, 256(R12)
	VMOVUPD Z15, 320(R12)
	VZEROUPPER
	RET

// func tileAcc1(u, q, d, c, cy, s1, s2, sy, sky []float64, acc *[48]float64)
// tileAcc2 for D = 1: with w = (u·d)², G̃ = Σ_l w (acc[0:8]) and
// T̃ = Σ_l w·q (acc[24:32]), where tileAcc2 puts g00 and t00; it leaves
// the rest of acc alone.
TEXT ·tileAcc1(SB), NOSPLIT, $0-224
	MOVQ    u_base+0(FP), AX
	MOVQ    q_base+24(FP), BX
	MOVQ    d_base+48(FP), R13
	MOVQ    c_base+72(FP), DX
	MOVQ    c_len+80(FP), CX
	MOVQ    cy_base+96(FP), SI
	MOVQ    s1_base+120(FP), R8
	MOVQ    s2_base+144(FP), R9
	MOVQ    sy_base+168(FP), R10
	MOVQ    sky_base+192(FP), R11
	MOVQ    acc+216(FP), R12
	MOVQ    CX, DI
	SHLQ    $6, DI
	ADDQ    AX, DI
	VMOVUPD (DI), Z20
	VXORPD  Z10, Z10, Z10
	VXORPD  Z11, Z11, Z11
	TESTQ   CX, CX
	JZ      store1

acc1:
	VMOVUPD     (AX), Z0
	VMOVUPD     (BX), Z1
	ACCUM
	VMULPD      (R13), Z0, Z7            // u·d
	VMULPD      Z7, Z7, Z6               // w = (u·d)²
	VADDPD      Z6, Z10, Z10             // g += w
	VFMADD231PD Z1, Z6, Z11              // t += w·q
	ADDQ        $64, AX
	ADDQ        $64, BX
	ADDQ        $64, R13
	ADDQ        $8, DX
	ADDQ        $8, SI
	ADDQ        $64, R8
	ADDQ        $64, R9
	ADDQ        $64, R10
	ADDQ        $64, R11
	DECQ        CX
	JNZ         acc1

store1:
	VMOVUPD Z10, (R12)
	VMOVUPD Z11, 192(R12)
	VZEROUPPER
	RET

// JACOUT ends tileJac and tileJac1: with det in Z6, tr(G̃⁻¹T̃) in Z7 and
// the fast lanes in K1, it writes out and leaves the lane mask in AX.
#define JACOUT \
	VGETMANTPD   $0, Z6, Z9; \
	VGETEXPPD    Z6, Z10; \
	VBROADCASTSD (CX), Z11; \
	VMOVAPD      Z9, K1, Z11; \
	VXORPD       Z12, Z12, Z12; \
	VMOVAPD      Z10, K1, Z12; \
	VXORPD       Z13, Z13, Z13; \
	VMOVAPD      Z7, K1, Z13; \
	VXORPD       Z14, Z14, Z14; \
	VMOVUPD      (BX), K1, Z14; \
	VMOVUPD      Z11, (DX); \
	VMOVUPD      Z12, 64(DX); \
	VMOVUPD      Z13, 128(DX); \
	VMOVUPD      Z14, 192(DX); \
	KMOVW        K1, AX

// func tileJac(acc *[48]float64, qmin *[8]float64, lim *jacLimits, out *[32]float64) (ok uint64)
// The closing of tileFinish for the eight rows at once, as small2 and
// small2Grad compute it: with G̃ = [a b; b c] and T̃ from acc, lane k is
// fast (bit k of ok) when a, c > tinyDiag, r = 1 − (b/a)(b/c) ≥
// hadamardLimit and det = a·c·r is a normal number. For the fast lanes
// out holds det's mantissa in [1, 2) (out[0:8]) and binary exponent
// (out[8:16]), tr(G̃⁻¹T̃) = (c·t00 − 2b·t10 + a·t11)/det (out[16:24]) and
// qmin (out[24:32]); for the others 1, 0, 0, 0. The constants come from
// lim (1, tinyDiag, hadamardLimit, minNormal, MaxFloat64). Only AVX-512F.
TEXT ·tileJac(SB), NOSPLIT, $0-40
	MOVQ              acc+0(FP), AX
	MOVQ              qmin+8(FP), BX
	MOVQ              lim+16(FP), CX
	MOVQ              out+24(FP), DX
	VMOVUPD           (AX), Z0               // a
	VMOVUPD           64(AX), Z1             // b
	VMOVUPD           128(AX), Z2            // c
	VCMPPD.BCST       $0x1e, 8(CX), Z0, K1 // a > tinyDiag
	VCMPPD.BCST       $0x1e, 8(CX), Z2, K2
	KANDW             K2, K1, K1
	VDIVPD            Z0, Z1, Z3             // ba = b/a
	VDIVPD            Z2, Z1, Z4             // b/c
	VMULPD            Z4, Z3, Z4
	VBROADCASTSD      (CX), Z5
	VSUBPD            Z4, Z5, Z5             // r = 1 − ba·(b/c)
	VCMPPD.BCST       $0x1d, 16(CX), Z5, K2 // r ≥ hadamardLimit
	KANDW             K2, K1, K1
	VMULPD            Z2, Z0, Z6
	VMULPD            Z5, Z6, Z6             // det = a·c·r
	VCMPPD.BCST       $0x1e, 24(CX), Z6, K2 // det > minNormal
	KANDW             K2, K1, K1
	VCMPPD.BCST       $0x12, 32(CX), Z6, K2  // det ≤ MaxFloat64
	KANDW             K2, K1, K1
	VMULPD            192(AX), Z2, Z7        // c·t00
	VADDPD            Z1, Z1, Z8             // 2b
	VMULPD            256(AX), Z8, Z8
	VSUBPD            Z8, Z7, Z7             // − 2b·t10
	VMULPD            320(AX), Z0, Z8
	VADDPD            Z8, Z7, Z7             // + a·t11
	VDIVPD            Z6, Z7, Z7             // tr(G̃⁻¹T̃)
	JACOUT      // det's mantissa in [1, 2) and exponent; slow lanes 1, 0, 0, 0
	MOVQ        AX, ok+32(FP)
	VZEROUPPER
	RET

// func tileJac1(acc *[48]float64, qmin *[8]float64, lim *jacLimits, out *[32]float64) (ok uint64)
// tileJac for D = 1, where G̃ = g (acc[0:8]) and T̃ = t (acc[24:32]): a
// lane is fast when g > tinyDiag and g is a normal number; det = g and
// tr(G̃⁻¹T̃) = t/g, one division (tileJac's three were a tenth of the
// pass at n = 800, m = 20).
TEXT ·tileJac1(SB), NOSPLIT, $0-40
	MOVQ        acc+0(FP), AX
	MOVQ        qmin+8(FP), BX
	MOVQ        lim+16(FP), CX
	MOVQ        out+24(FP), DX
	VMOVUPD     (AX), Z6                     // det = g
	VCMPPD.BCST $0x1e, 8(CX), Z6, K1         // g > tinyDiag
	VCMPPD.BCST $0x1e, 24(CX), Z6, K2        // g > minNormal
	KANDW       K2, K1, K1
	VCMPPD.BCST $0x12, 32(CX), Z6, K2        // g ≤ MaxFloat64
	KANDW       K2, K1, K1
	VMOVUPD     192(AX), Z7
	VDIVPD      Z6, Z7, Z7                   // t/g
	JACOUT
	MOVQ        AX, ok+32(FP)
	VZEROUPPER
	RET
