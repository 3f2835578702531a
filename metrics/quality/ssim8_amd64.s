#include "textflag.h"

// AVX2 kernels of SSIM8 (see gray8.go); every operation is the exact IEEE
// one the Go code performs, lane by lane. Only VEX-encoded instructions
// touch vector registers here: a legacy SSE instruction writing an XMM
// register while upper halves are in use (MOVQ AX, X14 did) cost about
// 450 ns per call on the AMD EPYC this was measured on, more than the row
// kernel's work on a 512-wide row (TestNoLegacySSE keeps them out).

// EMIT turns eight int32 column sums S in Y(src) into float32(S/size)
// (float32 size in Y15), which is float32(float64(S)·inv) (see SSIM8), and
// stores them widened to float64 at addr and addr2 (four each).
#define EMIT(src, addr, addr2) \
	VCVTDQ2PS src, Y8; \
	VDIVPS Y15, Y8, Y8; \
	VCVTPS2PD X8, Y9; \
	VEXTRACTF128 $1, Y8, X8; \
	VCVTPS2PD X8, Y8; \
	VMOVUPD Y9, addr; \
	VMOVUPD Y8, addr2

// func ssimCols8(ia, ib, oa, ob *uint8, sums *int32, n, w int, ext *float64, es int, size float32, emit int)
//
// For the first n columns (n a multiple of 8) of the five column-sum planes
// x, y, x², y², xy (sums, planes w int32 apart): add the entering rows ia
// (x) and ib (y), subtract the leaving rows oa and ob; when emit ≠ 0, write
// float32(S/size) of each new sum, widened to float64, to the five ext
// planes (es float64 apart).
TEXT ·ssimCols8(SB), NOSPLIT, $0-88
	MOVQ ia+0(FP), AX
	MOVQ ib+8(FP), BX
	MOVQ oa+16(FP), DX
	MOVQ ob+24(FP), SI
	MOVQ sums+32(FP), R8
	MOVQ n+40(FP), CX
	MOVQ w+48(FP), R13
	SHLQ $2, R13               // plane stride of sums, bytes
	MOVQ ext+56(FP), DI
	MOVQ es+64(FP), R12
	SHLQ $3, R12               // plane stride of ext, bytes
	VBROADCASTSS size+72(FP), Y15
	MOVQ emit+80(FP), R11
	XORQ R9, R9                // column

	TESTQ R11, R11
	JZ   sumsonly
cols:
	CMPQ R9, CX
	JGE  colsdone
	VPMOVZXBD (AX)(R9*1), Y0   // p
	VPMOVZXBD (BX)(R9*1), Y1   // q
	VPMOVZXBD (DX)(R9*1), Y2   // l
	VPMOVZXBD (SI)(R9*1), Y3   // lq
	LEAQ (R8)(R9*4), R10       // &sums plane 0 [c]
	LEAQ (DI)(R9*8), R14       // &ext plane 0 [c]
	VPSUBD Y2, Y0, Y4
	VPADDD (R10), Y4, Y4
	VMOVDQU Y4, (R10)
	EMIT(Y4, (R14), 32(R14))
	ADDQ R13, R10
	ADDQ R12, R14
	VPSUBD Y3, Y1, Y4
	VPADDD (R10), Y4, Y4
	VMOVDQU Y4, (R10)
	EMIT(Y4, (R14), 32(R14))
	ADDQ R13, R10
	ADDQ R12, R14
	VPMULLD Y0, Y0, Y4
	VPMULLD Y2, Y2, Y5
	VPSUBD Y5, Y4, Y4
	VPADDD (R10), Y4, Y4
	VMOVDQU Y4, (R10)
	EMIT(Y4, (R14), 32(R14))
	ADDQ R13, R10
	ADDQ R12, R14
	VPMULLD Y1, Y1, Y4
	VPMULLD Y3, Y3, Y5
	VPSUBD Y5, Y4, Y4
	VPADDD (R10), Y4, Y4
	VMOVDQU Y4, (R10)
	EMIT(Y4, (R14), 32(R14))
	ADDQ R13, R10
	ADDQ R12, R14
	VPMULLD Y1, Y0, Y4
	VPMULLD Y3, Y2, Y5
	VPSUBD Y5, Y4, Y4
	VPADDD (R10), Y4, Y4
	VMOVDQU Y4, (R10)
	EMIT(Y4, (R14), 32(R14))
	ADDQ $8, R9
	JMP  cols

sumsonly:
	CMPQ R9, CX
	JGE  colsdone
	VPMOVZXBD (AX)(R9*1), Y0   // p
	VPMOVZXBD (BX)(R9*1), Y1   // q
	VPMOVZXBD (DX)(R9*1), Y2   // l
	VPMOVZXBD (SI)(R9*1), Y3   // lq
	LEAQ (R8)(R9*4), R10       // &sums plane 0 [c]
	VPSUBD Y2, Y0, Y4
	VPADDD (R10), Y4, Y4
	VMOVDQU Y4, (R10)
	ADDQ R13, R10
	VPSUBD Y3, Y1, Y4
	VPADDD (R10), Y4, Y4
	VMOVDQU Y4, (R10)
	ADDQ R13, R10
	VPMULLD Y0, Y0, Y4
	VPMULLD Y2, Y2, Y5
	VPSUBD Y5, Y4, Y4
	VPADDD (R10), Y4, Y4
	VMOVDQU Y4, (R10)
	ADDQ R13, R10
	VPMULLD Y1, Y1, Y4
	VPMULLD Y3, Y3, Y5
	VPSUBD Y5, Y4, Y4
	VPADDD (R10), Y4, Y4
	VMOVDQU Y4, (R10)
	ADDQ R13, R10
	VPMULLD Y1, Y0, Y4
	VPMULLD Y3, Y2, Y5
	VPSUBD Y5, Y4, Y4
	VPADDD (R10), Y4, Y4
	VMOVDQU Y4, (R10)
	ADDQ $8, R9
	JMP  sumsonly

colsdone:
	VZEROUPPER
	RET

// QUOT turns the exact float64 sums in Y0 into float32(t/s) (see
// quotient32): the product with inv (Y15), redone as a division by s
// (Y10) when a lane's low 29 bits are within 16 of the half-way pattern
// (Y14 mask, Y13 = 2^28−16, Y12 = −1, Y11 = 33); result in X1.
#define QUOT(t, res, resx, tmp1, tmp2, tmp3, lbl) \
	VMULPD Y15, t, res; \
	VPAND Y14, res, tmp1; \
	VPSUBQ Y13, tmp1, tmp1; \
	VPCMPGTQ Y12, tmp1, tmp2; \
	VPCMPGTQ tmp1, Y11, tmp3; \
	VPAND tmp3, tmp2, tmp2; \
	VPTEST tmp2, tmp2; \
	JZ   lbl; \
	VDIVPD Y10, t, res; \
lbl: \
	VCVTPD2PSY res, resx

// func ssimRows4(ext *float64, es int, outs *float32, w, n, size int, inv, s float64, pr *float64, check, planes int)
//
// For each of the planes (ext planes es float64 apart, each read up to
// entry n+size+3; outs planes w float32 apart) and i in [0, n) (n a
// multiple of 4):
// outs[i] = float32(t/s) with t = Σ_{k<size} f[i+k], f the plane's row,
// exact in any order. For size 7, t = f[i+6] + p[i] + p[i+2] + p[i+4] with
// the pair sums p[j] = f[j]+f[j+1] formed in registers (those of the next
// four outputs give p[i+4…]); other sizes store the pair sums to pr (n +
// size + 3 entries) and add (size−1)/2 of them to f[i+size−1]. With check = 0
// (sizes whose product is always right, see quotient32) the quotient is
// the product.
TEXT ·ssimRows4(SB), NOSPLIT, $0-88
	MOVQ ext+0(FP), SI
	MOVQ es+8(FP), R12
	MOVQ outs+16(FP), DI
	MOVQ w+24(FP), R13
	SHLQ $2, R13
	MOVQ n+32(FP), CX
	MOVQ size+40(FP), R11
	VBROADCASTSD inv+48(FP), Y15
	VBROADCASTSD s+56(FP), Y10
	MOVQ pr+64(FP), DX
	MOVQ $0x1fffffff, AX
	VMOVQ AX, X14
	VPBROADCASTQ X14, Y14
	MOVQ $0x0ffffff0, AX
	VMOVQ AX, X13
	VPBROADCASTQ X13, Y13
	MOVQ $-1, AX
	VMOVQ AX, X12
	VPBROADCASTQ X12, Y12
	MOVQ $33, AX
	VMOVQ AX, X11
	VPBROADCASTQ X11, Y11
	LEAQ (CX)(R11*1), R14      // pairs to form: n + size
	LEAQ -1(R11), R8
	SHRQ $1, R8                // pairs per window: (size−1)/2
	LEAQ -8(SI)(R11*8), AX     // &f[size−1]
	MOVQ planes+80(FP), R11    // planes left

plane:
	XORQ R9, R9
	CMPQ R8, $3
	JNE  pairs
	VMOVUPD (SI), Y1
	VADDPD 8(SI), Y1, Y1       // p[0…3]
	CMPQ check+72(FP), $0
	JNE  outs7

	// Size 7, product quotients: eight outputs a step (Y1 = p[i…i+3] on
	// entry, p[i+8…i+11] on exit), then four.
	LEAQ -8(CX), R10
outs7f:
	CMPQ R9, R10
	JGT  outs7f4
	VMOVUPD 32(SI)(R9*8), Y2
	VADDPD 40(SI)(R9*8), Y2, Y2   // p[i+4…i+7]
	VPERM2F128 $0x21, Y2, Y1, Y3  // p[i+2…i+5]
	VADDPD 48(SI)(R9*8), Y1, Y0   // f[i+6…i+9] + p[i…]
	VADDPD Y3, Y0, Y0
	VADDPD Y2, Y0, Y0
	VMOVUPD 64(SI)(R9*8), Y1
	VADDPD 72(SI)(R9*8), Y1, Y1   // p[i+8…i+11]
	VPERM2F128 $0x21, Y1, Y2, Y3  // p[i+6…i+9]
	VADDPD 80(SI)(R9*8), Y2, Y4   // f[i+10…i+13] + p[i+4…]
	VADDPD Y3, Y4, Y4
	VADDPD Y1, Y4, Y4
	VMULPD Y15, Y0, Y0
	VCVTPD2PSY Y0, X0
	VMOVUPS X0, (DI)(R9*4)
	VMULPD Y15, Y4, Y4
	VCVTPD2PSY Y4, X4
	VMOVUPS X4, 16(DI)(R9*4)
	ADDQ $8, R9
	JMP  outs7f
outs7f4:
	CMPQ R9, CX
	JGE  planedone
	VMOVUPD 32(SI)(R9*8), Y2
	VADDPD 40(SI)(R9*8), Y2, Y2
	VPERM2F128 $0x21, Y2, Y1, Y3
	VADDPD 48(SI)(R9*8), Y1, Y0
	VADDPD Y3, Y0, Y0
	VADDPD Y2, Y0, Y0
	VMULPD Y15, Y0, Y4
	VCVTPD2PSY Y4, X4
	VMOVUPS X4, (DI)(R9*4)
	JMP  planedone

outs7:                         // size 7, checked quotients
	CMPQ R9, CX
	JGE  planedone
	VMOVUPD 32(SI)(R9*8), Y2
	VADDPD 40(SI)(R9*8), Y2, Y2
	VPERM2F128 $0x21, Y2, Y1, Y3
	VMOVUPD 48(SI)(R9*8), Y0
	VADDPD Y1, Y0, Y0
	VADDPD Y3, Y0, Y0
	VADDPD Y2, Y0, Y0
	VMOVAPD Y2, Y1
	QUOT(Y0, Y4, X4, Y8, Y9, Y5, q7)
	VMOVUPS X4, (DI)(R9*4)
	ADDQ $4, R9
	JMP  outs7

pairs:
	VMOVUPD (SI)(R9*8), Y0
	VADDPD 8(SI)(R9*8), Y0, Y0
	VMOVUPD Y0, (DX)(R9*8)
	ADDQ $4, R9
	CMPQ R9, R14
	JLT  pairs
	XORQ R9, R9

outs4:
	CMPQ R9, CX
	JGE  planedone
	VMOVUPD (AX)(R9*8), Y0     // f[i+size−1]
	LEAQ (DX)(R9*8), BX
	MOVQ R8, R10
addp:
	VADDPD (BX), Y0, Y0
	ADDQ $16, BX
	DECQ R10
	JNZ  addp
	QUOT(Y0, Y1, X1, Y8, Y9, Y3, q4)
	VMOVUPS X1, (DI)(R9*4)
	ADDQ $4, R9
	JMP  outs4

planedone:
	LEAQ (SI)(R12*8), SI
	LEAQ (AX)(R12*8), AX
	ADDQ R13, DI
	DECQ R11
	JNZ  plane
	VZEROUPPER
	RET

// func ssimMap8(ux, uy, uxx, uyy, uxy *float32, n int, dst *float32, cov, c1, c2 float32)
//
// For i in [0, n) (n a multiple of 8): the SSIM map value of SSIM8 in
// float32 into dst[i].
TEXT ·ssimMap8(SB), NOSPLIT, $0-68
	MOVQ ux+0(FP), AX
	MOVQ uy+8(FP), BX
	MOVQ uxx+16(FP), DX
	MOVQ uyy+24(FP), SI
	MOVQ uxy+32(FP), R8
	MOVQ n+40(FP), CX
	MOVQ dst+48(FP), DI
	VBROADCASTSS cov+56(FP), Y15
	VBROADCASTSS c1+60(FP), Y14
	VBROADCASTSS c2+64(FP), Y13
	XORQ R9, R9

mapl:
	CMPQ R9, CX
	JGE  mapdone
	VMOVUPS (AX)(R9*4), Y0     // mx
	VMOVUPS (BX)(R9*4), Y1     // my
	VMULPS Y0, Y0, Y2          // mxx
	VMULPS Y1, Y1, Y3          // myy
	VMULPS Y1, Y0, Y4          // mxy
	VMOVUPS (DX)(R9*4), Y5
	VSUBPS Y2, Y5, Y5
	VMULPS Y15, Y5, Y5         // vx
	VMOVUPS (SI)(R9*4), Y6
	VSUBPS Y3, Y6, Y6
	VMULPS Y15, Y6, Y6         // vy
	VMOVUPS (R8)(R9*4), Y7
	VSUBPS Y4, Y7, Y7
	VMULPS Y15, Y7, Y7         // vxy
	VADDPS Y0, Y0, Y8          // 2·mx
	VMULPS Y1, Y8, Y8
	VADDPS Y14, Y8, Y8         // a1
	VADDPS Y7, Y7, Y9          // 2·vxy
	VADDPS Y13, Y9, Y9         // a2
	VADDPS Y3, Y2, Y10
	VADDPS Y14, Y10, Y10       // b1
	VADDPS Y6, Y5, Y11
	VADDPS Y13, Y11, Y11       // b2
	VMULPS Y9, Y8, Y8
	VMULPS Y11, Y10, Y10
	VDIVPS Y10, Y8, Y8         // S = (a1·a2)/(b1·b2)
	VMOVUPS Y8, (DI)(R9*4)
	ADDQ $8, R9
	JMP  mapl

mapdone:
	VZEROUPPER
	RET

// func minMaxBytes(p *uint8, n int) (lo, hi uint8)
//
// The smallest and largest of p[0:n] for n a positive multiple of 32.
TEXT ·minMaxBytes(SB), NOSPLIT, $0-18
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	VMOVDQU (SI), Y0           // running minima
	VMOVDQA Y0, Y1             // running maxima
	MOVQ $32, AX
mm:
	CMPQ AX, CX
	JGE  mmdone
	VMOVDQU (SI)(AX*1), Y2
	VPMINUB Y2, Y0, Y0
	VPMAXUB Y2, Y1, Y1
	ADDQ $32, AX
	JMP  mm
mmdone:
	// Fold 32 lanes to one: halves, then shifts within 128 bits.
	VEXTRACTI128 $1, Y0, X2
	VPMINUB X2, X0, X0
	VEXTRACTI128 $1, Y1, X3
	VPMAXUB X3, X1, X1
	VPSRLDQ $8, X0, X2
	VPMINUB X2, X0, X0
	VPSRLDQ $8, X1, X3
	VPMAXUB X3, X1, X1
	VPSRLDQ $4, X0, X2
	VPMINUB X2, X0, X0
	VPSRLDQ $4, X1, X3
	VPMAXUB X3, X1, X1
	VPSRLDQ $2, X0, X2
	VPMINUB X2, X0, X0
	VPSRLDQ $2, X1, X3
	VPMAXUB X3, X1, X1
	VPSRLDQ $1, X0, X2
	VPMINUB X2, X0, X0
	VPSRLDQ $1, X1, X3
	VPMAXUB X3, X1, X1
	VMOVD X0, AX
	MOVB AX, lo+16(FP)
	VMOVD X1, AX
	MOVB AX, hi+17(FP)
	VZEROUPPER
	RET

// func lnccRowQ(mu1, mu2, m11, m22, m12 *float32, n int, q, scratch *float32, thr float32) int
//
// LNCC8's per-pixel step for i in [0, n) (n a multiple of 8): s1 = m11 −
// mu1², s2 = m22 − mu2², and where s1 > thr and s2 > thr, q = (m12 −
// mu1·mu2) / sqrt(s1·s2), all float32; the q of valid pixels are written
// to q in order and their count returned. scratch holds 8 float32.
TEXT ·lnccRowQ(SB), NOSPLIT, $0-80
	MOVQ mu1+0(FP), AX
	MOVQ mu2+8(FP), BX
	MOVQ m11+16(FP), DX
	MOVQ m22+24(FP), SI
	MOVQ m12+32(FP), R8
	MOVQ n+40(FP), CX
	MOVQ q+48(FP), DI
	MOVQ scratch+56(FP), R11
	VBROADCASTSS thr+64(FP), Y15
	XORQ R9, R9                // i
	XORQ R12, R12              // q written

qloop:
	CMPQ R9, CX
	JGE  qdone
	VMOVUPS (AX)(R9*4), Y0     // mu1
	VMOVUPS (BX)(R9*4), Y1     // mu2
	VMULPS Y0, Y0, Y2
	VMOVUPS (DX)(R9*4), Y3
	VSUBPS Y2, Y3, Y3          // s1
	VMULPS Y1, Y1, Y2
	VMOVUPS (SI)(R9*4), Y4
	VSUBPS Y2, Y4, Y4          // s2
	VCMPPS $0x1e, Y15, Y3, Y5  // s1 > thr (ordered)
	VCMPPS $0x1e, Y15, Y4, Y6  // s2 > thr
	VANDPS Y6, Y5, Y5
	VMOVMSKPS Y5, R10
	TESTL R10, R10
	JZ   qnext
	VMULPS Y1, Y0, Y2
	VMOVUPS (R8)(R9*4), Y6
	VSUBPS Y2, Y6, Y6          // s12
	VMULPS Y4, Y3, Y7
	VSQRTPS Y7, Y7
	VDIVPS Y7, Y6, Y6          // q
	CMPL R10, $0xff
	JNE  qpartial
	VMOVUPS Y6, (DI)(R12*4)
	ADDQ $8, R12
	JMP  qnext

qpartial:
	VMOVUPS Y6, (R11)
qlanes:
	BSFL R10, R13
	MOVL (R11)(R13*4), R14
	MOVL R14, (DI)(R12*4)
	INCQ R12
	LEAL -1(R10), R14
	ANDL R14, R10
	JNZ  qlanes

qnext:
	ADDQ $8, R9
	JMP  qloop

qdone:
	VZEROUPPER
	MOVQ R12, ret+72(FP)
	RET

// laneSums64-style stride-8 partial sums of float32 values, each widened to float64 (exactly) before it
// is added.
TEXT ·laneSums32to64(SB), NOSPLIT, $0-24
	MOVQ x+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ r+16(FP), DI
	VCVTPS2PD (SI), Y0
	VCVTPS2PD 16(SI), Y1
	MOVQ $8, AX
lw:
	CMPQ AX, CX
	JGE  lwdone
	VCVTPS2PD (SI)(AX*4), Y2
	VCVTPS2PD 16(SI)(AX*4), Y3
	VADDPD Y2, Y0, Y0
	VADDPD Y3, Y1, Y1
	ADDQ $8, AX
	JMP  lw
lwdone:
	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	VZEROUPPER
	RET

// func laneSums32(x *float32, n int, r *[8]float32)
//
// The stride-8 partial sums of float32 values, in float32.
TEXT ·laneSums32(SB), NOSPLIT, $0-24
	MOVQ x+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ r+16(FP), DI
	VMOVUPS (SI), Y0
	MOVQ $8, AX
ls32:
	CMPQ AX, CX
	JGE  ls32done
	VADDPS (SI)(AX*4), Y0, Y0
	ADDQ $8, AX
	JMP  ls32
ls32done:
	VMOVUPS Y0, (DI)
	VZEROUPPER
	RET

// func lnccPrep8(a, b *uint8, n int, de, dt, dee, dtt, det *float32, loE, dE, loT, dT float32)
//
// LNCC8's normalised samples for i in [0, n) (n a multiple of 8): e =
// (float32(a[i]) − loE)/dE, t = (float32(b[i]) − loT)/dT, and e·e, t·t,
// e·t, all float32 (the values of normLUT8's tables).
TEXT ·lnccPrep8(SB), NOSPLIT, $0-80
	MOVQ a+0(FP), AX
	MOVQ b+8(FP), BX
	MOVQ n+16(FP), CX
	MOVQ de+24(FP), DX
	MOVQ dt+32(FP), SI
	MOVQ dee+40(FP), DI
	MOVQ dtt+48(FP), R8
	MOVQ det+56(FP), R10
	VBROADCASTSS loE+64(FP), Y15
	VBROADCASTSS dE+68(FP), Y14
	VBROADCASTSS loT+72(FP), Y13
	VBROADCASTSS dT+76(FP), Y12
	XORQ R9, R9
prep:
	CMPQ R9, CX
	JGE  prepdone
	VPMOVZXBD (AX)(R9*1), Y0
	VPMOVZXBD (BX)(R9*1), Y1
	VCVTDQ2PS Y0, Y0
	VCVTDQ2PS Y1, Y1
	VSUBPS Y15, Y0, Y0
	VSUBPS Y13, Y1, Y1
	VDIVPS Y14, Y0, Y0         // e
	VDIVPS Y12, Y1, Y1         // t
	VMULPS Y0, Y0, Y2
	VMULPS Y1, Y1, Y3
	VMULPS Y1, Y0, Y4
	VMOVUPS Y0, (DX)(R9*4)
	VMOVUPS Y1, (SI)(R9*4)
	VMOVUPS Y2, (DI)(R9*4)
	VMOVUPS Y3, (R8)(R9*4)
	VMOVUPS Y4, (R10)(R9*4)
	ADDQ $8, R9
	JMP  prep
prepdone:
	VZEROUPPER
	RET

// func sqDiff8(a, b *uint8, n int) uint64
//
// Σ (a[i] − b[i])² for i in [0, n), n a multiple of 16 and at most 2^18
// (each int32 lane gathers at most 2·(n/16)·255² < 2^31).
TEXT ·sqDiff8(SB), NOSPLIT, $0-32
	MOVQ a+0(FP), AX
	MOVQ b+8(FP), BX
	MOVQ n+16(FP), CX
	VPXOR Y4, Y4, Y4
	VPXOR Y5, Y5, Y5
	XORQ R9, R9
	CMPQ CX, $32
	JLT  sq16
sq32:
	VPMOVZXBW (AX)(R9*1), Y0
	VPMOVZXBW (BX)(R9*1), Y1
	VPMOVZXBW 16(AX)(R9*1), Y2
	VPMOVZXBW 16(BX)(R9*1), Y3
	VPSUBW Y1, Y0, Y0
	VPSUBW Y3, Y2, Y2
	VPMADDWD Y0, Y0, Y0
	VPMADDWD Y2, Y2, Y2
	VPADDD Y0, Y4, Y4
	VPADDD Y2, Y5, Y5
	ADDQ $32, R9
	LEAQ 32(R9), DX
	CMPQ DX, CX
	JLE  sq32
sq16:
	CMPQ R9, CX
	JGE  sqdone
	VPMOVZXBW (AX)(R9*1), Y0
	VPMOVZXBW (BX)(R9*1), Y1
	VPSUBW Y1, Y0, Y0
	VPMADDWD Y0, Y0, Y0
	VPADDD Y0, Y4, Y4
	ADDQ $16, R9
	JMP  sq16
sqdone:
	// Widen the sixteen int32 lane sums (non-negative) to uint64 and add.
	VPMOVZXDQ X4, Y0
	VEXTRACTI128 $1, Y4, X1
	VPMOVZXDQ X1, Y1
	VPMOVZXDQ X5, Y2
	VEXTRACTI128 $1, Y5, X3
	VPMOVZXDQ X3, Y3
	VPADDQ Y1, Y0, Y0
	VPADDQ Y3, Y2, Y2
	VPADDQ Y2, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDQ X1, X0, X0
	VPSRLDQ $8, X0, X1
	VPADDQ X1, X0, X0
	VMOVQ X0, AX
	MOVQ AX, ret+24(FP)
	VZEROUPPER
	RET
