//go:build amd64 && !purego

#include "textflag.h"

// The lane bits of the AVX2 masked sums: lanes 0-3 and 4-7 of a byte.
DATA bitLo<>+0(SB)/8, $1
DATA bitLo<>+8(SB)/8, $2
DATA bitLo<>+16(SB)/8, $4
DATA bitLo<>+24(SB)/8, $8
GLOBL bitLo<>(SB), RODATA|NOPTR, $32

DATA bitHi<>+0(SB)/8, $16
DATA bitHi<>+8(SB)/8, $32
DATA bitHi<>+16(SB)/8, $64
DATA bitHi<>+24(SB)/8, $128
GLOBL bitHi<>(SB), RODATA|NOPTR, $32

// The table kernels: for mask = 1 … 2^nr − 1, row mask of t (wp entries)
// = row (mask with its lowest bit k cleared) + rows[k·stride:], eight
// entries per step (Table's Go loop, entry by entry).

// func tableAVX2(t []float64, wp int, rows []float64, stride, nr int)
TEXT ·tableAVX2(SB), NOSPLIT, $0-72
	MOVQ t_base+0(FP), DI
	MOVQ wp+24(FP), R8
	MOVQ R8, R13
	SHLQ $3, R8               // bytes per table row
	SHRQ $3, R13              // steps per row
	MOVQ rows_base+32(FP), SI
	MOVQ stride+56(FP), R9
	SHLQ $3, R9
	MOVQ nr+64(FP), CX
	MOVQ $1, R10
	SHLQ CX, R10              // 2^nr
	MOVQ $1, BX               // mask
	MOVQ DI, R12
	ADDQ R8, R12              // row mask of t

mask2:
	BSFQ  BX, AX              // k, the lowest row of mask
	IMULQ R9, AX
	ADDQ  SI, AX              // rows[k·stride:]
	LEAQ  -1(BX), DX
	ANDQ  BX, DX              // mask without row k
	IMULQ R8, DX
	ADDQ  DI, DX
	MOVQ  R12, R11
	MOVQ  R13, CX

step2:
	VMOVUPD (DX), Y0
	VMOVUPD 32(DX), Y1
	VADDPD  (AX), Y0, Y0
	VADDPD  32(AX), Y1, Y1
	VMOVUPD Y0, (R11)
	VMOVUPD Y1, 32(R11)
	ADDQ    $64, DX
	ADDQ    $64, AX
	ADDQ    $64, R11
	DECQ    CX
	JNZ     step2
	ADDQ    R8, R12
	INCQ    BX
	CMPQ    BX, R10
	JLT     mask2
	VZEROUPPER
	RET

// func tableAVX512(t []float64, wp int, rows []float64, stride, nr int)
TEXT ·tableAVX512(SB), NOSPLIT, $0-72
	MOVQ t_base+0(FP), DI
	MOVQ wp+24(FP), R8
	MOVQ R8, R13
	SHLQ $3, R8
	SHRQ $3, R13
	MOVQ rows_base+32(FP), SI
	MOVQ stride+56(FP), R9
	SHLQ $3, R9
	MOVQ nr+64(FP), CX
	MOVQ $1, R10
	SHLQ CX, R10
	MOVQ $1, BX
	MOVQ DI, R12
	ADDQ R8, R12

mask512:
	BSFQ  BX, AX
	IMULQ R9, AX
	ADDQ  SI, AX
	LEAQ  -1(BX), DX
	ANDQ  BX, DX
	IMULQ R8, DX
	ADDQ  DI, DX
	MOVQ  R12, R11
	MOVQ  R13, CX

step512:
	VMOVUPD (DX), Z0
	VADDPD  (AX), Z0, Z0
	VMOVUPD Z0, (R11)
	ADDQ    $64, DX
	ADDQ    $64, AX
	ADDQ    $64, R11
	DECQ    CX
	JNZ     step512
	ADDQ    R8, R12
	INCQ    BX
	CMPQ    BX, R10
	JLT     mask512
	VZEROUPPER
	RET

// The masked sums: for each permutation b, the table row
// m = (masks[b] >> shift) & 255 and the bits c = cols[b] >> cshift; the
// eight lanes of acc[8b:] add the row's entries 8q + l whose bit is set,
// step q by step q (MaskedSums' Go loop). AVX2 adds and keeps the sum in
// the lanes whose bit is set (a blend); AVX-512 adds under a mask register.

// func maskedAVX2(acc, t []float64, wp int, masks []uint64, shift uint, cols []uint64, cshift uint)
TEXT ·maskedAVX2(SB), NOSPLIT, $0-120
	MOVQ    acc_base+0(FP), DI
	MOVQ    t_base+24(FP), SI
	MOVQ    wp+48(FP), R8
	MOVQ    R8, R12
	SHLQ    $3, R8            // bytes per table row
	SHRQ    $3, R12           // steps per row
	MOVQ    masks_base+56(FP), R9
	MOVQ    shift+80(FP), BX
	MOVQ    cols_base+88(FP), R10
	MOVQ    cols_len+96(FP), R11
	MOVQ    cshift+112(FP), R13
	VMOVDQU bitLo<>(SB), Y3
	VMOVDQU bitHi<>(SB), Y4

perm2:
	MOVQ         BX, CX
	MOVQ         (R9), AX
	SHRQ         CX, AX
	ANDQ         $255, AX
	IMULQ        R8, AX
	ADDQ         SI, AX       // the table row
	MOVQ         R13, CX
	MOVQ         (R10), DX
	SHRQ         CX, DX       // the column bits
	VMOVQ        DX, X2
	VPBROADCASTQ X2, Y2
	VMOVUPD      (DI), Y0     // lanes 0-3
	VMOVUPD      32(DI), Y1   // lanes 4-7
	MOVQ         R12, CX

mstep2:
	VPAND     Y3, Y2, Y5
	VPCMPEQQ  Y3, Y5, Y5      // all ones where the bit is set
	VADDPD    (AX), Y0, Y7
	VBLENDVPD Y5, Y7, Y0, Y0  // the sum where the bit is set
	VPAND     Y4, Y2, Y6
	VPCMPEQQ  Y4, Y6, Y6
	VADDPD    32(AX), Y1, Y8
	VBLENDVPD Y6, Y8, Y1, Y1
	VPSRLQ   $8, Y2, Y2       // the next step's bits
	ADDQ     $64, AX
	DECQ     CX
	JNZ      mstep2
	VMOVUPD  Y0, (DI)
	VMOVUPD  Y1, 32(DI)
	ADDQ     $64, DI
	ADDQ     $8, R9
	ADDQ     $8, R10
	DECQ     R11
	JNZ      perm2
	VZEROUPPER
	RET

// func maskedAVX512(acc, t []float64, wp int, masks []uint64, shift uint, cols []uint64, cshift uint)
TEXT ·maskedAVX512(SB), NOSPLIT, $0-120
	MOVQ acc_base+0(FP), DI
	MOVQ t_base+24(FP), SI
	MOVQ wp+48(FP), R8
	MOVQ R8, R12
	SHLQ $3, R8
	SHRQ $3, R12
	MOVQ masks_base+56(FP), R9
	MOVQ shift+80(FP), BX
	MOVQ cols_base+88(FP), R10
	MOVQ cols_len+96(FP), R11
	MOVQ cshift+112(FP), R13

perm512:
	MOVQ    BX, CX
	MOVQ    (R9), AX
	SHRQ    CX, AX
	ANDQ    $255, AX
	IMULQ   R8, AX
	ADDQ    SI, AX
	MOVQ    R13, CX
	MOVQ    (R10), DX
	SHRQ    CX, DX
	VMOVUPD (DI), Z0
	MOVQ    R12, CX

mstep512:
	KMOVW   DX, K1            // this step's eight bits
	VADDPD  (AX), Z0, K1, Z0  // merge-masked: unselected lanes unchanged
	SHRQ    $8, DX
	ADDQ    $64, AX
	DECQ    CX
	JNZ     mstep512
	VMOVUPD Z0, (DI)
	ADDQ    $64, DI
	ADDQ    $8, R9
	ADDQ    $8, R10
	DECQ    R11
	JNZ     perm512
	VZEROUPPER
	RET
