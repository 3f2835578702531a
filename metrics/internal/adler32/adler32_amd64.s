#include "textflag.h"

// Byte weights for one 64-byte step: byte i of the step counts 64 − i times
// in s2 (once for each of the 64 − i prefix sums that include it).
DATA weights<>+0(SB)/8, $0x393a3b3c3d3e3f40
DATA weights<>+8(SB)/8, $0x3132333435363738
DATA weights<>+16(SB)/8, $0x292a2b2c2d2e2f30
DATA weights<>+24(SB)/8, $0x2122232425262728
DATA weights<>+32(SB)/8, $0x191a1b1c1d1e1f20
DATA weights<>+40(SB)/8, $0x1112131415161718
DATA weights<>+48(SB)/8, $0x090a0b0c0d0e0f10
DATA weights<>+56(SB)/8, $0x0102030405060708
GLOBL weights<>(SB), RODATA|NOPTR, $64

// func updateAVX2(adler uint32, p *byte, n int) uint32
//
// n is a positive multiple of 64. The bytes go in chunks of at most 5504
// (86 steps of 64), the largest multiple of 64 not above nmax = 5552 (see
// adler32.go): starting from 16-bit s1, s2, the true sums after a chunk fit
// in 32 bits. Every vector operation below is exact mod 2^32 on non-negative
// terms of those sums, so the 32-bit results are exact too; s1 and s2 are
// reduced mod 65521 after each chunk.
//
// Per 64-byte step b[0..63], with s1 the sum at the step's start:
//	s2 += 64·s1 + Σ (64 − i)·b[i],   s1 += Σ b[i].
// Y0 holds s1 as lane partials (VPSADBW against zero: four 8-byte sums into
// the even dwords), Y1 holds s2's weighted sums (VPMADDUBSW of the bytes by
// the weights gives 16-bit pair sums of at most 255·(64 + 63) = 32385 <
// 2^15, then VPMADDWD by ones widens them into dwords), Y2 accumulates s1
// at each step's start, multiplied by 64 after the chunk.
TEXT ·updateAVX2(SB), NOSPLIT, $0-28
	MOVL adler+0(FP), AX
	MOVQ p+8(FP), SI
	MOVQ n+16(FP), CX
	MOVL AX, BX
	ANDL $0xffff, BX           // s1
	SHRL $16, AX               // s2
	MOVL $65521, R9
	VPXOR Y15, Y15, Y15
	VMOVDQU weights<>+0(SB), Y14
	VMOVDQU weights<>+32(SB), Y13
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

step:
	VMOVDQU 0(SI), Y3
	VMOVDQU 32(SI), Y4
	VPADDD Y0, Y2, Y2          // Σ s1 at step starts
	VPSADBW Y15, Y3, Y5
	VPSADBW Y15, Y4, Y6
	VPMADDUBSW Y14, Y3, Y3     // bytes (unsigned) × weights (signed)
	VPMADDUBSW Y13, Y4, Y4
	VPADDD Y5, Y6, Y5
	VPADDD Y5, Y0, Y0
	VPMADDWD Y12, Y3, Y3
	VPMADDWD Y12, Y4, Y4
	VPADDD Y3, Y4, Y3
	VPADDD Y3, Y1, Y1
	ADDQ $64, SI
	DECQ DX
	JNZ  step

	VPSLLD $6, Y2, Y2
	VPADDD Y2, Y1, Y1          // s2 partials + 64 · Σ s1
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
	XORL DX, DX
	DIVL R9
	MOVL DX, R10               // s2 mod 65521
	MOVL BX, AX
	XORL DX, DX
	DIVL R9
	MOVL DX, BX                // s1 mod 65521
	MOVL R10, AX
	TESTQ CX, CX
	JNZ  chunk

	SHLL $16, AX
	ORL  BX, AX
	MOVL AX, ret+24(FP)
	VZEROUPPER
	RET
