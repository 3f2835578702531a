#include "textflag.h"

// func boxRows8(dst *float32, n int, src *float32, stride, win int, k float32) int
//
// For i in [0, n) (n a multiple of 8): dst[i] = 0, then for dy in [0, win),
// dx in [0, win): dst[i] = fma(k, src[dy*stride + i + dx], dst[i]), each a
// single-rounding float32 FMA. 64 pixels at a time (eight independent
// accumulators hide the FMA latency), then 8 at a time.
TEXT ·boxRows8(SB), NOSPLIT, $0-56
	MOVQ dst+0(FP), DI
	MOVQ n+8(FP), CX
	MOVQ src+16(FP), R8
	MOVQ stride+24(FP), R9
	SHLQ $2, R9                // row stride in bytes
	MOVQ win+32(FP), R10
	VBROADCASTSS k+40(FP), Y15
	XORQ AX, AX                // pixel index i

block64:
	MOVQ CX, DX
	SUBQ AX, DX
	CMPQ DX, $64
	JLT  block8
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	LEAQ (R8)(AX*4), BX        // &src[i]
	MOVQ R10, R11              // rows left

row64:
	MOVQ BX, SI
	MOVQ R10, R12              // taps left in this row

tap64:
	VFMADD231PS 0(SI), Y15, Y0
	VFMADD231PS 32(SI), Y15, Y1
	VFMADD231PS 64(SI), Y15, Y2
	VFMADD231PS 96(SI), Y15, Y3
	VFMADD231PS 128(SI), Y15, Y4
	VFMADD231PS 160(SI), Y15, Y5
	VFMADD231PS 192(SI), Y15, Y6
	VFMADD231PS 224(SI), Y15, Y7
	ADDQ $4, SI
	DECQ R12
	JNZ  tap64
	ADDQ R9, BX
	DECQ R11
	JNZ  row64

	LEAQ (DI)(AX*4), SI
	VMOVUPS Y0, 0(SI)
	VMOVUPS Y1, 32(SI)
	VMOVUPS Y2, 64(SI)
	VMOVUPS Y3, 96(SI)
	VMOVUPS Y4, 128(SI)
	VMOVUPS Y5, 160(SI)
	VMOVUPS Y6, 192(SI)
	VMOVUPS Y7, 224(SI)
	ADDQ $64, AX
	JMP  block64

block8:
	MOVQ CX, DX
	SUBQ AX, DX
	CMPQ DX, $8
	JLT  done
	VXORPS Y0, Y0, Y0
	LEAQ (R8)(AX*4), BX
	MOVQ R10, R11

row8:
	MOVQ BX, SI
	MOVQ R10, R12

tap8:
	VFMADD231PS 0(SI), Y15, Y0
	ADDQ $4, SI
	DECQ R12
	JNZ  tap8
	ADDQ R9, BX
	DECQ R11
	JNZ  row8

	VMOVUPS Y0, (DI)(AX*4)
	ADDQ $8, AX
	JMP  block8

done:
	VZEROUPPER
	MOVQ AX, ret+48(FP)
	RET
