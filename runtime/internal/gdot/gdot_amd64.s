//go:build amd64 && !purego

#include "textflag.h"

// Both kernels: for each step of eight terms j, gather y[idx[j]] and add
// x[j]·y[idx[j]] into lane j%8 with one rounding (fused), then store the
// eight lanes in acc. AVX2 holds lanes 0-3 and 4-7 in two registers and
// gathers four at a time; the gathers clear their mask, so it is set
// again each time.

// func dotAVX2(x, y []float64, idx []int, acc *[8]float64)
TEXT ·dotAVX2(SB), NOSPLIT, $0-80
	MOVQ   x_base+0(FP), SI
	MOVQ   x_len+8(FP), CX
	SHRQ   $3, CX
	MOVQ   y_base+24(FP), DI
	MOVQ   idx_base+48(FP), BX
	MOVQ   acc+72(FP), DX
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1

step2:
	VMOVDQU     (BX), Y2
	VMOVDQU     32(BX), Y3
	VPCMPEQQ    Y4, Y4, Y4        // all ones: gather every lane
	VPCMPEQQ    Y5, Y5, Y5
	VGATHERQPD  Y4, (DI)(Y2*8), Y6
	VGATHERQPD  Y5, (DI)(Y3*8), Y7
	VFMADD231PD (SI), Y6, Y0
	VFMADD231PD 32(SI), Y7, Y1
	ADDQ        $64, SI
	ADDQ        $64, BX
	DECQ        CX
	JNZ         step2
	VMOVUPD     Y0, (DX)
	VMOVUPD     Y1, 32(DX)
	VZEROUPPER
	RET

// func dotAVX512(x, y []float64, idx []int, acc *[8]float64)
TEXT ·dotAVX512(SB), NOSPLIT, $0-80
	MOVQ   x_base+0(FP), SI
	MOVQ   x_len+8(FP), CX
	SHRQ   $3, CX
	MOVQ   y_base+24(FP), DI
	MOVQ   idx_base+48(FP), BX
	MOVQ   acc+72(FP), DX
	VPXORQ Z0, Z0, Z0

step512:
	VMOVDQU64   (BX), Z2
	KXNORW      K1, K1, K1        // all ones: gather every lane
	VGATHERQPD  (DI)(Z2*8), K1, Z3
	VFMADD231PD (SI), Z3, Z0
	ADDQ        $64, SI
	ADDQ        $64, BX
	DECQ        CX
	JNZ         step512
	VMOVUPD     Z0, (DX)
	VZEROUPPER
	RET
