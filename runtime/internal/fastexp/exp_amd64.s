//go:build amd64 && !purego

#include "textflag.h"

// The method is ExpNeg's (exp.go), lane by lane: t = a·x + b; n = trunc(t·128/ln2);
// r = (t − n·ln2Hi) − n·ln2Lo; p = r(1 + r(1/2 + r(1/6 + r(1/24 + r/120))));
// T = expTable[n & 127] with n >> 7 added to its exponent; e^t = T + T·p.
// Lanes with t < −708 (and −Inf) are set to 0, with t > 709 to +Inf; NaN
// flows through the arithmetic (its table index is in range).

// Each constant is four copies, for AVX2 memory operands; the AVX-512
// kernel broadcasts the first.
#define CONST(name, bits) DATA name<>+0(SB)/8, $bits; DATA name<>+8(SB)/8, $bits; DATA name<>+16(SB)/8, $bits; DATA name<>+24(SB)/8, $bits; GLOBL name<>(SB), RODATA|NOPTR, $32

CONST(invln2, 0x40671547652b82fe) // 128/ln2
CONST(ln2hi, 0x3f762e42fee00000)  // ln2/128, high 32 bits
CONST(ln2lo, 0x3d7a39ef35793c76)  // ln2/128 − ln2hi
CONST(c5, 0x3f81111111111111)     // 1/120
CONST(c4, 0x3fa5555555555555)     // 1/24
CONST(c3, 0x3fc5555555555555)     // 1/6
CONST(c2, 0x3fe0000000000000)     // 1/2
CONST(one, 0x3ff0000000000000)
CONST(minarg, 0xc086200000000000) // −708
CONST(maxarg, 0x4086280000000000) // 709
CONST(inf, 0x7ff0000000000000)
CONST(idxmask, 0x0000007f0000007f) // 127 in each int32

// func expsAVX2(dst, x []float64, a, b float64)
TEXT ·expsAVX2(SB), NOSPLIT, $0-64
	MOVQ dst_base+0(FP), DI
	MOVQ x_base+24(FP), SI
	MOVQ x_len+32(FP), CX
	SHRQ $2, CX
	JZ   done2
	VBROADCASTSD a+48(FP), Y15
	VBROADCASTSD b+56(FP), Y14
	LEAQ ·expTable(SB), R8

loop2:
	VMOVUPD      (SI), Y0
	VFMADD213PD  Y14, Y15, Y0          // t = a·x + b
	VMULPD       invln2<>(SB), Y0, Y1
	VCVTTPD2DQY  Y1, X1                // n
	VCVTDQ2PD    X1, Y2                // float64(n)
	VMOVAPD      Y0, Y3
	VFNMADD231PD ln2hi<>(SB), Y2, Y3   // r = t − n·ln2hi (exact)
	VFNMADD231PD ln2lo<>(SB), Y2, Y3   // r −= n·ln2lo
	VMOVUPD      c5<>(SB), Y4
	VFMADD213PD  c4<>(SB), Y3, Y4
	VFMADD213PD  c3<>(SB), Y3, Y4
	VFMADD213PD  c2<>(SB), Y3, Y4
	VFMADD213PD  one<>(SB), Y3, Y4
	VMULPD       Y3, Y4, Y4            // p ≈ e^r − 1
	VPAND        idxmask<>(SB), X1, X5 // n & 127
	VPCMPEQD     Y6, Y6, Y6            // gather every lane
	VGATHERDPD   Y6, (R8)(X5*8), Y7    // table bits
	VPSRAD       $7, X1, X1            // n >> 7
	VPMOVSXDQ    X1, Y1
	VPSLLQ       $52, Y1, Y1
	VPADDQ       Y1, Y7, Y7            // T = 2^(n/128)
	VFMADD213PD  Y7, Y7, Y4            // T·p + T
	VCMPPD       $0x11, minarg<>(SB), Y0, Y5 // t < −708 (ordered)
	VANDNPD      Y4, Y5, Y4
	VCMPPD       $0x1e, maxarg<>(SB), Y0, Y5 // t > 709 (ordered)
	VBLENDVPD    Y5, inf<>(SB), Y4, Y4
	VMOVUPD      Y4, (DI)
	ADDQ         $32, SI
	ADDQ         $32, DI
	DECQ         CX
	JNZ          loop2
	VZEROUPPER

done2:
	RET

// EXP512 sets Z4 = e^(a·Z0 + b) in all eight lanes, with a in Z15, b in
// Z14 and the table's address in R8 (any lane value gives an index in the
// table, so the gather needs no mask).
#define EXP512 \
	VFMADD213PD       Z14, Z15, Z0; \
	VMULPD.BCST       invln2<>(SB), Z0, Z1; \
	VCVTTPD2DQ        Z1, Y1; \
	VCVTDQ2PD         Y1, Z2; \
	VMOVAPD           Z0, Z3; \
	VFNMADD231PD.BCST ln2hi<>(SB), Z2, Z3; \
	VFNMADD231PD.BCST ln2lo<>(SB), Z2, Z3; \
	VBROADCASTSD      c5<>(SB), Z4; \
	VFMADD213PD.BCST  c4<>(SB), Z3, Z4; \
	VFMADD213PD.BCST  c3<>(SB), Z3, Z4; \
	VFMADD213PD.BCST  c2<>(SB), Z3, Z4; \
	VFMADD213PD.BCST  one<>(SB), Z3, Z4; \
	VMULPD            Z3, Z4, Z4; \
	VPAND             idxmask<>(SB), Y1, Y5; \
	KXNORW            K1, K1, K1; \
	VGATHERDPD        (R8)(Y5*8), K1, Z7; \
	VPSRAD            $7, Y1, Y1; \
	VPMOVSXDQ         Y1, Z1; \
	VPSLLQ            $52, Z1, Z1; \
	VPADDQ            Z1, Z7, Z7; \
	VFMADD213PD       Z7, Z7, Z4; \
	VCMPPD.BCST       $0x11, minarg<>(SB), Z0, K2; \
	VPXORQ            Z4, Z4, K2, Z4; \
	VCMPPD.BCST       $0x1e, maxarg<>(SB), Z0, K3; \
	VBROADCASTSD      inf<>(SB), K3, Z4

// func expsAVX512(dst, x []float64, a, b float64)
TEXT ·expsAVX512(SB), NOSPLIT, $0-64
	MOVQ dst_base+0(FP), DI
	MOVQ x_base+24(FP), SI
	MOVQ x_len+32(FP), CX
	SHRQ $3, CX
	JZ   done512
	VBROADCASTSD a+48(FP), Z15
	VBROADCASTSD b+56(FP), Z14
	LEAQ ·expTable(SB), R8

loop512:
	VMOVUPD (SI), Z0
	EXP512
	VMOVUPD           Z4, (DI)
	ADDQ              $64, SI
	ADDQ              $64, DI
	DECQ              CX
	JNZ               loop512
	VZEROUPPER

done512:
	RET

// func expsAVX512Tail(dst, x []float64, a, b float64)
// The last len(x) < 8 elements, by masked load and store: lanes beyond
// len(x) are neither read nor written (they compute e^(a·0 + b)).
TEXT ·expsAVX512Tail(SB), NOSPLIT, $0-64
	MOVQ         dst_base+0(FP), DI
	MOVQ         x_base+24(FP), SI
	MOVQ         x_len+32(FP), CX
	MOVQ         $1, AX
	SHLQ         CX, AX
	DECQ         AX
	KMOVW        AX, K4
	VBROADCASTSD a+48(FP), Z15
	VBROADCASTSD b+56(FP), Z14
	LEAQ         ·expTable(SB), R8
	VPXORQ       Z0, Z0, Z0
	VMOVUPD      (SI), K4, Z0
	EXP512
	VMOVUPD      Z4, K4, (DI)
	VZEROUPPER
	RET
