//go:build amd64 && !purego

#include "textflag.h"

// Both kernels: for each block of lanes j, acc = 0; for d < len(x):
// acc += (yt[d·stride + j] − x[d])²; dst[j] = acc. Blocks are independent,
// so the processor overlaps one block's chain of d with the next.

// func rowAVX2(dst, yt []float64, stride int, x []float64)
TEXT ·rowAVX2(SB), NOSPLIT, $0-80
	MOVQ dst_base+0(FP), DI
	MOVQ dst_len+8(FP), CX
	SHRQ $2, CX
	JZ   done2
	MOVQ yt_base+24(FP), SI
	MOVQ stride+48(FP), R9
	SHLQ $3, R9
	MOVQ x_base+56(FP), R10
	MOVQ x_len+64(FP), R11

block2:
	VXORPD Y0, Y0, Y0
	MOVQ   SI, AX
	XORQ   BX, BX

coord2:
	VBROADCASTSD (R10)(BX*8), Y2
	VMOVUPD      (AX), Y1
	VSUBPD       Y2, Y1, Y1
	VFMADD231PD  Y1, Y1, Y0
	ADDQ         R9, AX
	INCQ         BX
	CMPQ         BX, R11
	JLT          coord2
	VMOVUPD      Y0, (DI)
	ADDQ         $32, SI
	ADDQ         $32, DI
	DECQ         CX
	JNZ          block2
	VZEROUPPER

done2:
	RET

// func rowAVX512(dst, yt []float64, stride int, x []float64)
TEXT ·rowAVX512(SB), NOSPLIT, $0-80
	MOVQ dst_base+0(FP), DI
	MOVQ dst_len+8(FP), CX
	SHRQ $3, CX
	JZ   done512
	MOVQ yt_base+24(FP), SI
	MOVQ stride+48(FP), R9
	SHLQ $3, R9
	MOVQ x_base+56(FP), R10
	MOVQ x_len+64(FP), R11

block512:
	VPXORQ Z0, Z0, Z0
	MOVQ   SI, AX
	XORQ   BX, BX

coord512:
	VMOVUPD     (AX), Z1
	VSUBPD.BCST (R10)(BX*8), Z1, Z1
	VFMADD231PD Z1, Z1, Z0
	ADDQ        R9, AX
	INCQ        BX
	CMPQ        BX, R11
	JLT         coord512
	VMOVUPD     Z0, (DI)
	ADDQ        $64, SI
	ADDQ        $64, DI
	DECQ        CX
	JNZ         block512
	VZEROUPPER

done512:
	RET

// The Exact kernels: as above with the square and the sum rounded
// separately, as rowGo does.

// func rowExactAVX2(dst, yt []float64, stride int, x []float64)
TEXT ·rowExactAVX2(SB), NOSPLIT, $0-80
	MOVQ dst_base+0(FP), DI
	MOVQ dst_len+8(FP), CX
	SHRQ $2, CX
	JZ   xdone2
	MOVQ yt_base+24(FP), SI
	MOVQ stride+48(FP), R9
	SHLQ $3, R9
	MOVQ x_base+56(FP), R10
	MOVQ x_len+64(FP), R11

xblock2:
	VXORPD Y0, Y0, Y0
	MOVQ   SI, AX
	XORQ   BX, BX

xcoord2:
	VBROADCASTSD (R10)(BX*8), Y2
	VMOVUPD      (AX), Y1
	VSUBPD       Y2, Y1, Y1
	VMULPD       Y1, Y1, Y1
	VADDPD       Y1, Y0, Y0
	ADDQ         R9, AX
	INCQ         BX
	CMPQ         BX, R11
	JLT          xcoord2
	VMOVUPD      Y0, (DI)
	ADDQ         $32, SI
	ADDQ         $32, DI
	DECQ         CX
	JNZ          xblock2
	VZEROUPPER

xdone2:
	RET

// func rowExactAVX512(dst, yt []float64, stride int, x []float64)
TEXT ·rowExactAVX512(SB), NOSPLIT, $0-80
	MOVQ dst_base+0(FP), DI
	MOVQ dst_len+8(FP), CX
	SHRQ $3, CX
	JZ   xdone512
	MOVQ yt_base+24(FP), SI
	MOVQ stride+48(FP), R9
	SHLQ $3, R9
	MOVQ x_base+56(FP), R10
	MOVQ x_len+64(FP), R11

xblock512:
	VPXORQ Z0, Z0, Z0
	MOVQ   SI, AX
	XORQ   BX, BX

xcoord512:
	VMOVUPD     (AX), Z1
	VSUBPD.BCST (R10)(BX*8), Z1, Z1
	VMULPD      Z1, Z1, Z1
	VADDPD      Z1, Z0, Z0
	ADDQ        R9, AX
	INCQ        BX
	CMPQ        BX, R11
	JLT         xcoord512
	VMOVUPD     Z0, (DI)
	ADDQ        $64, SI
	ADDQ        $64, DI
	DECQ        CX
	JNZ         xblock512
	VZEROUPPER

xdone512:
	RET
