#include "textflag.h"

// Byte weights 32, 31, …, 1: byte i of a 32-byte block counts 32 − i times
// in s2 (once for each of the block's 32 − i prefix sums that include it).
DATA weights<>+0(SB)/8, $0x191a1b1c1d1e1f20
DATA weights<>+8(SB)/8, $0x1112131415161718
DATA weights<>+16(SB)/8, $0x090a0b0c0d0e0f10
DATA weights<>+24(SB)/8, $0x0102030405060708
GLOBL weights<>(SB), RODATA|NOPTR, $32

// func updateAVX2(adler uint32, p *byte, n int) uint32
//
// n is a positive multiple of 64. The bytes go in chunks of at most 5504
// (86 steps of 64), the largest multiple of 64 not above nmax = 5552 (see
// adler32.go): starting from 16-bit s1, s2, the true sums after a chunk fit
// in 32 bits. Every vector operation below adds non-negative terms of those
// sums mod 2^32, so the 32-bit results are exact; s1 and s2 are reduced mod
// 65521 after each chunk.
//
// A step takes 64 bytes, a[0..31] then b[0..31]; with s1 the sum at the
// step's start it adds
//
//	s2 += 64·s1 + 32·Σa + Σ (32 − i)·(a[i] + b[i]),   s1 += Σa + Σb.
//
// Y0 holds s1 as lane partials (VPSADBW against zero: four 8-byte sums into
// the even dwords). Y2 sums s1 at the steps' starts and Y11 the Σa, both
// multiplied out after the chunk. Y1 holds the weighted sums: VPMADDUBSW of
// a and of b by the weights gives 16-bit pair sums of at most
// 255·(32 + 31) = 16065 each, so their VPADDW is at most 32130 < 2^15, and
// VPMADDWD by ones widens the result into dwords.
TEXT ·updateAVX2(SB), NOSPLIT, $0-28
	MOVL adler+0(FP), AX
	MOVQ p+8(FP), SI
	MOVQ n+16(FP), CX
	MOVL AX, BX
	ANDL $0xffff, BX           // s1
	SHRL $16, AX               // s2
	// R8 = ⌈2^47 / 65521⌉; x / 65521 = x·R8 >> 47 for every x < 2^32
	// because the rounding error R8·65521 − 2^47 = 31073 is below 2^15.
	MOVL $0x80078071, R8
	MOVL $65521, R9
	VPXOR Y15, Y15, Y15
	VMOVDQU weights<>(SB), Y13
	VPCMPEQW Y12, Y12, Y12
	VPSRLW $15, Y12, Y12       // sixteen 16-bit ones

chunk:
	MOVQ $5504, DX
	CMPQ CX, DX
	CMOVQLT CX, DX             // bytes in this chunk
	SUBQ DX, CX
	SHRQ $6, DX                // steps in this chunk
	VMOVD BX, X0               // zeroes the rest of Y0
	VMOVD AX, X1
	VPXOR Y2, Y2, Y2
	VPXOR Y11, Y11, Y11

step:
	VMOVDQU 0(SI), Y3
	VMOVDQU 32(SI), Y4
	VPADDD Y0, Y2, Y2          // Σ s1 at step starts
	VPSADBW Y15, Y3, Y5
	VPSADBW Y15, Y4, Y6
	VPMADDUBSW Y13, Y3, Y3     // bytes (unsigned) × weights (signed)
	VPMADDUBSW Y13, Y4, Y4
	VPADDD Y5, Y11, Y11        // Σa
	VPADDD Y5, Y6, Y5
	VPADDD Y5, Y0, Y0
	VPADDW Y3, Y4, Y3
	VPMADDWD Y12, Y3, Y3
	VPADDD Y3, Y1, Y1
	ADDQ $64, SI
	DECQ DX
	JNZ  step

	VPSLLD $6, Y2, Y2
	VPSLLD $5, Y11, Y11
	VPADDD Y2, Y1, Y1
	VPADDD Y11, Y1, Y1         // Y1: s2 partials + 64·Σ s1 + 32·Σa
	VEXTRACTI128 $1, Y0, X2
	VEXTRACTI128 $1, Y1, X3
	VPADDD X2, X0, X0
	VPADDD X3, X1, X1
	VPSHUFD $0x4e, X0, X2
	VPSHUFD $0x4e, X1, X3
	VPADDD X2, X0, X0
	VPADDD X3, X1, X1
	VPSHUFD $0xb1, X0, X2
	VPSHUFD $0xb1, X1, X3
	VPADDD X2, X0, X0
	VPADDD X3, X1, X1
	VMOVD X0, BX
	VMOVD X1, AX
	MOVQ BX, R10               // s1 %= 65521
	IMULQ R8, R10
	SHRQ $47, R10
	IMULL R9, R10
	SUBL R10, BX
	MOVQ AX, R10               // s2 %= 65521
	IMULQ R8, R10
	SHRQ $47, R10
	IMULL R9, R10
	SUBL R10, AX
	TESTQ CX, CX
	JNZ  chunk

	SHLL $16, AX
	ORL  BX, AX
	MOVL AX, ret+24(FP)
	VZEROUPPER
	RET
