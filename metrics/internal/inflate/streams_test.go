package inflate

import (
	"bytes"
	stdflate "compress/flate"
	"encoding/binary"
	"hash/adler32"
	"io"
	"math/rand/v2"
	"testing"
)

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed+1)) }

// bitWriter writes a DEFLATE bit stream: values least significant bit
// first, Huffman codewords most significant bit first.
type bitWriter struct {
	buf []byte
	acc uint64
	n   uint
}

func (w *bitWriter) bits(v uint64, n uint) {
	w.acc |= v << w.n
	w.n += n
	for w.n >= 8 {
		w.buf = append(w.buf, byte(w.acc))
		w.acc >>= 8
		w.n -= 8
	}
}

func (w *bitWriter) code(c uint32, l uint8) {
	for i := int(l) - 1; i >= 0; i-- {
		w.bits(uint64(c>>uint(i)&1), 1)
	}
}

func (w *bitWriter) align() {
	if w.n > 0 {
		w.bits(0, 8-w.n)
	}
}

func (w *bitWriter) bytes() []byte {
	w.align()
	return w.buf
}

// canonical returns the canonical Huffman codewords for the code lengths
// (RFC 1951 3.2.2).
func canonical(lens []uint8) []uint32 {
	var count, next [17]uint32
	for _, l := range lens {
		count[l]++
	}
	count[0] = 0
	code := uint32(0)
	for l := 1; l <= 16; l++ {
		code = (code + count[l-1]) << 1
		next[l] = code
	}
	codes := make([]uint32, len(lens))
	for s, l := range lens {
		if l != 0 {
			codes[s] = next[l]
			next[l]++
		}
	}
	return codes
}

// The length and distance symbol tables of RFC 1951 3.2.5 (the decoder's
// own; the decoder is checked against compress/flate's streams elsewhere).
var (
	lenBase, lenExtra = LengthCodes()
	dstBase, dstExtra = DistanceCodes()
)

// huff writes symbols with a literal/length and a distance code.
type huff struct {
	w              *bitWriter
	llens, dlens   []uint8
	lcodes, dcodes []uint32
}

func newHuff(w *bitWriter, llens, dlens []uint8) *huff {
	return &huff{w: w, llens: llens, dlens: dlens, lcodes: canonical(llens), dcodes: canonical(dlens)}
}

func fixedLens() (ll, dl []uint8) {
	l, d := FixedCodeLengths()
	return l[:], d[:]
}

func (h *huff) sym(s int) {
	if h.llens[s] == 0 {
		panic("test stream uses a literal/length symbol without a code")
	}
	h.w.code(h.lcodes[s], h.llens[s])
}

func (h *huff) dsym(s int) {
	if h.dlens[s] == 0 {
		panic("test stream uses a distance symbol without a code")
	}
	h.w.code(h.dcodes[s], h.dlens[s])
}

func (h *huff) lit(b ...byte) {
	for _, c := range b {
		h.sym(int(c))
	}
}

func (h *huff) match(length, dist int) {
	i := len(lenBase) - 1
	for lenBase[i] > length {
		i--
	}
	if length == 258 {
		i = 28
	}
	h.sym(257 + i)
	h.w.bits(uint64(length-lenBase[i]), lenExtra[i])
	j := len(dstBase) - 1
	for dstBase[j] > dist {
		j--
	}
	h.dsym(j)
	h.w.bits(uint64(dist-dstBase[j]), dstExtra[j])
}

func (h *huff) eob() { h.sym(256) }

// preOp is one code-length-code symbol of a dynamic header, with its extra
// bits.
type preOp struct {
	sym   int
	extra uint64
}

// dynHeader writes a dynamic block's header (after BFINAL/BTYPE): the
// code lengths are given as code-length-code symbols with the code-length
// code's own lengths pre.
func dynHeader(w *bitWriter, nlit, ndist int, pre [19]uint8, ops []preOp) {
	order := CodeLengthOrder()
	w.bits(uint64(nlit-257), 5)
	w.bits(uint64(ndist-1), 5)
	w.bits(19-4, 4)
	for _, s := range order {
		w.bits(uint64(pre[s]), 3)
	}
	codes := canonical(pre[:])
	for _, op := range ops {
		w.code(codes[op.sym], pre[op.sym])
		switch op.sym {
		case 16:
			w.bits(op.extra, 2)
		case 17:
			w.bits(op.extra, 3)
		case 18:
			w.bits(op.extra, 7)
		}
	}
}

// preAll is a complete code-length code: symbols 0..16 (15 of 4 bits, 0..14,
// and 15, 16 of 5 bits); 17 and 18 are unused.
var preAll = [19]uint8{4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 0, 0}

// lensOps spells code lengths one symbol each.
func lensOps(lens ...[]uint8) []preOp {
	var ops []preOp
	for _, ls := range lens {
		for _, l := range ls {
			ops = append(ops, preOp{sym: int(l)})
		}
	}
	return ops
}

// writeDynamic writes a dynamic block header for the given lengths and
// returns a writer for its symbols.
func writeDynamic(w *bitWriter, final bool, llens, dlens []uint8) *huff {
	w.bits(b2u(final), 1)
	w.bits(2, 2)
	dynHeader(w, len(llens), len(dlens), preAll, lensOps(llens, dlens))
	return newHuff(w, llens, dlens)
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// wrap makes a zlib stream of a raw DEFLATE stream and its decoded bytes.
func wrap(raw, data []byte) []byte {
	out := append([]byte{0x78, 0x01}, raw...)
	return binary.BigEndian.AppendUint32(out, adler32.Checksum(data))
}

// mustDecode checks that the stream is valid for compress/zlib, decodes to
// want, and that Zlib agrees.
func mustDecode(t *testing.T, name string, raw, want []byte) {
	t.Helper()
	src := wrap(raw, want)
	got, err := stdZlib(src)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("%s: the test stream is wrong: compress/zlib gives %d bytes, %v", name, len(got), err)
	}
	dst := make([]byte, len(want))
	if err := Zlib(dst, src); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if !bytes.Equal(dst, want) {
		t.Fatalf("%s: wrong output", name)
	}
	check(t, name, src, len(want))
}

// mustReject checks that Zlib rejects the stream, decoding into n bytes;
// stdAlso says that compress/zlib rejects it too.
func mustReject(t *testing.T, name string, src []byte, n int, stdAlso bool) {
	t.Helper()
	if stdAlso {
		if _, err := stdZlib(src); err == nil {
			t.Fatalf("%s: the test stream is wrong: compress/zlib accepts it", name)
		}
	}
	if err := Zlib(make([]byte, n), src); err == nil {
		t.Fatalf("%s: accepted", name)
	}
}

// TestFixedBlock: literals and matches with the fixed code, distances 1..8
// and longer, lengths up to 258.
func TestFixedBlock(t *testing.T) {
	var w bitWriter
	w.bits(1, 1)
	w.bits(1, 2)
	ll, dl := fixedLens()
	h := newHuff(&w, ll, dl)
	var want []byte
	lit := func(s string) { h.lit([]byte(s)...); want = append(want, s...) }
	match := func(l, d int) {
		h.match(l, d)
		for i := 0; i < l; i++ {
			want = append(want, want[len(want)-d])
		}
	}
	lit("abcdefgh\xff\x00\x90")
	for d := 1; d <= 11; d++ {
		match(3+d, d)
	}
	match(258, 1)
	match(258, 9)
	lit("xyz")
	match(100, len(want))
	match(257, 300)
	h.eob()
	mustDecode(t, "fixed", w.bytes(), want)
}

// TestLongCodes: a dynamic block whose literal/length code has codewords
// of every length up to 15 (subtables), and a single-codeword distance code.
func TestLongCodes(t *testing.T) {
	// Lengths 1..14 once and 15 twice: complete. Two length symbols sit
	// among the literals; 'o' and EOB get 15 bits.
	ll := make([]uint8, 259)
	syms := []int{'a', 'b', 'c', 'd', 257, 'f', 'g', 'h', 258, 'j', 'k', 'l', 'm', 'n', 'o', 256}
	for i, s := range syms {
		ll[s] = uint8(min(i+1, 15))
	}
	dl := []uint8{1} // a single distance codeword: degenerate, accepted
	var w bitWriter
	h := writeDynamic(&w, true, ll, dl)
	var want []byte
	for i := 0; i < 300; i++ {
		for _, s := range syms {
			switch {
			case s < 256:
				h.lit(byte(s))
				want = append(want, byte(s))
			case s == 257:
				h.match(3, 1)
				want = append(want, want[len(want)-1], want[len(want)-1], want[len(want)-1])
			case s == 258:
				h.match(4, 1)
				for k := 0; k < 4; k++ {
					want = append(want, want[len(want)-1])
				}
			}
		}
	}
	h.eob()
	mustDecode(t, "long codes", w.bytes(), want)
}

// TestSingleAndEmptyCodes: a literal/length code with the end-of-block
// codeword only; a distance code with no codewords when no match occurs;
// the same with a match, rejected.
func TestSingleAndEmptyCodes(t *testing.T) {
	// A stored block then a dynamic block holding only EOB (1 bit).
	var w bitWriter
	w.bits(0, 1)
	w.bits(0, 2)
	w.align()
	w.bits(3, 16)
	w.bits(0xffff^3, 16)
	w.buf = append(w.buf, "abc"...)
	ll := make([]uint8, 257)
	ll[256] = 1
	writeDynamic(&w, true, ll, []uint8{0}).eob()
	mustDecode(t, "eob only", w.bytes(), []byte("abc"))

	// Literals only, empty distance code.
	ll = make([]uint8, 257)
	ll['x'], ll['y'], ll[256] = 1, 2, 2
	w = bitWriter{}
	h := writeDynamic(&w, true, ll, []uint8{0})
	h.lit([]byte("xyxxy")...)
	h.eob()
	mustDecode(t, "empty distance code", w.bytes(), []byte("xyxxy"))

	// A match with the empty distance code: rejected.
	ll = make([]uint8, 258)
	ll['x'], ll[257], ll[256] = 1, 2, 2
	w = bitWriter{}
	h = writeDynamic(&w, true, ll, []uint8{0})
	h.lit('x')
	h.sym(257)
	w.bits(0, 8) // where a distance codeword would be
	h.eob()
	mustReject(t, "match, empty distance code", wrap(w.bytes(), []byte("xxxx")), 4, true)

	// The unused half of a single 1-bit distance code: rejected.
	w = bitWriter{}
	h = writeDynamic(&w, true, ll, []uint8{1})
	h.lit('x')
	h.sym(257)
	w.bits(1, 1) // the codeword that does not exist
	h.eob()
	mustReject(t, "unused distance codeword", wrap(w.bytes(), []byte("xxxx")), 4, true)
}

// TestStoredBlocks: stored blocks of length 0 and 65535, mixed with
// compressed blocks whose matches reach back into earlier blocks.
func TestStoredBlocks(t *testing.T) {
	var w bitWriter
	var want []byte
	stored := func(final bool, data []byte) {
		w.bits(b2u(final), 1)
		w.bits(0, 2)
		w.align()
		w.bits(uint64(len(data)), 16)
		w.bits(uint64(len(data))^0xffff, 16)
		w.buf = append(w.buf, data...)
		want = append(want, data...)
	}
	stored(false, nil)
	big := genData(newRand(9), 0, 65535)
	stored(false, big)
	stored(false, nil)
	// A fixed block copying from the stored data, 32768 back at most.
	w.bits(0, 1)
	w.bits(1, 2)
	ll, dl := fixedLens()
	h := newHuff(&w, ll, dl)
	for _, m := range [][2]int{{258, 32768}, {3, 32768}, {100, 40000 - 17000}, {10, 1}} {
		h.match(m[0], m[1])
		for i := 0; i < m[0]; i++ {
			want = append(want, want[len(want)-m[1]])
		}
	}
	h.eob()
	stored(false, []byte("tail"))
	// A dynamic block copying from the fixed and stored blocks: literals
	// 0..252 of 8 bits and literals 253..255, EOB, 257 and 284 of 9 bits
	// (253/256 + 6/512 = 1); distances 0, 1 of 4 bits and 2..29 of 5 bits
	// (2/16 + 28/32 = 1).
	llens := make([]uint8, 285)
	for s := range llens[:253] {
		llens[s] = 8
	}
	for _, s := range []int{253, 254, 255, 256, 257, 284} {
		llens[s] = 9
	}
	dlens := make([]uint8, 30)
	for s := range dlens {
		dlens[s] = 5
	}
	dlens[0], dlens[1] = 4, 4
	h = writeDynamic(&w, true, llens, dlens)
	h.lit('q', 'r', 255)
	want = append(want, 'q', 'r', 255)
	for _, m := range [][2]int{{3, 2}, {227, 32768}, {230, 70000 - 65536}, {3, 1}} {
		h.match(m[0], m[1])
		for i := 0; i < m[0]; i++ {
			want = append(want, want[len(want)-m[1]])
		}
	}
	h.eob()
	mustDecode(t, "stored and matches", w.bytes(), want)
}

// zhdr is a zlib header with the given CMF and FLG bits, FCHECK made valid.
func zhdr(cmf, flg byte) []byte {
	flg &^= 31
	flg += byte(31 - (uint(cmf)<<8|uint(flg))%31)
	if (uint(cmf)<<8|uint(flg))%31 != 0 {
		flg -= 31
	}
	return []byte{cmf, flg}
}

// TestRejections: each malformed stream is rejected, and (where noted)
// compress/zlib rejects it as well, which checks the test stream.
func TestRejections(t *testing.T) {
	// A valid fixed-code stream: "abcabcabc".
	fixedStream := func(body func(h *huff)) []byte {
		var w bitWriter
		w.bits(1, 1)
		w.bits(1, 2)
		ll, dl := fixedLens()
		h := newHuff(&w, ll, dl)
		body(h)
		h.eob()
		return w.bytes()
	}
	data := []byte("abcabcabc")
	raw := fixedStream(func(h *huff) { h.lit('a', 'b', 'c'); h.match(6, 3) })
	valid := wrap(raw, data)
	check(t, "valid", valid, len(data))
	if Zlib(make([]byte, len(data)), valid) != nil {
		t.Fatal("the valid stream is rejected")
	}

	// Header.
	for _, h := range [][]byte{zhdr(0x77, 0), zhdr(0x88, 0), {0x78, 0x02}, zhdr(0x78, 0x20), {0x78}, nil} {
		src := append(append([]byte(nil), h...), valid[2:]...)
		if len(h) < 2 {
			src = h
		}
		mustReject(t, "header "+string(rune('0'+len(h))), src, len(data), true)
	}
	// A valid header with another window size is accepted.
	if err := Zlib(make([]byte, len(data)), append(zhdr(0x18, 0), valid[2:]...)); err != nil {
		t.Fatalf("CINFO 1: %v", err)
	}

	dyn := func(nlit, ndist int, pre [19]uint8, ops []preOp) []byte {
		var w bitWriter
		w.bits(1, 1)
		w.bits(2, 2)
		dynHeader(&w, nlit, ndist, pre, ops)
		w.bits(0b10, 2) // 'a', EOB with the codes below, were they valid
		return w.bytes()
	}
	ll := make([]uint8, 257)
	ll['a'], ll[256] = 1, 1
	okOps := lensOps(ll, []uint8{1})
	if err := Zlib(make([]byte, 1), wrap(func() []byte {
		var w bitWriter
		h := writeDynamic(&w, true, ll, []uint8{1})
		h.lit('a')
		h.eob()
		return w.bytes()
	}(), []byte("a"))); err != nil {
		t.Fatalf("the minimal dynamic stream is rejected: %v", err)
	}
	over := append([]preOp(nil), okOps...)
	over['b'] = preOp{sym: 1} // a third 1-bit codeword
	incomplete := append([]preOp(nil), okOps...)
	incomplete['a'] = preOp{sym: 2} // 'a' 2 bits, EOB 1 bit: 3/4
	noEOB := append([]preOp(nil), okOps...)
	noEOB['b'], noEOB[256] = preOp{sym: 1}, preOp{sym: 0}
	distOver := append(append([]preOp(nil), okOps[:257]...), preOp{sym: 1}, preOp{sym: 1}, preOp{sym: 1})
	distIncomplete := append(append([]preOp(nil), okOps[:257]...), preOp{sym: 2}, preOp{sym: 2})
	var preOver [19]uint8
	for s := range preOver {
		preOver[s] = 4 // 19 codewords of 4 bits
	}
	for _, c := range []struct {
		name string
		raw  []byte
	}{
		{"HLIT 287", dyn(287, 1, preAll, lensOps(append(append([]uint8(nil), ll...), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0), []uint8{1}))},
		{"HDIST 31", dyn(257, 31, preAll, lensOps(ll, make([]uint8, 31)))},
		{"repeat first", dyn(257, 1, preAll, append([]preOp{{sym: 16, extra: 0}}, okOps[3:]...))},
		{"lengths overrun", dyn(257, 1, preAll, append(append([]preOp(nil), okOps[:255]...), preOp{sym: 16, extra: 3}))},
		{"litlen over-subscribed", dyn(257, 1, preAll, over)},
		{"litlen incomplete", dyn(257, 1, preAll, incomplete)},
		{"no end of block", dyn(257, 1, preAll, noEOB)},
		{"distance over-subscribed", dyn(257, 3, preAll, distOver)},
		{"distance incomplete", dyn(257, 2, preAll, distIncomplete)},
		{"code-length code over-subscribed", dyn(257, 1, preOver, okOps)},
		{"block type 3", []byte{0x07, 0, 0, 0}},
		{"stored LEN/NLEN", []byte{0x01, 3, 0, 0xfc, 0xfe, 'a', 'b', 'c'}},
		{"litlen 286", fixedStream(func(h *huff) { h.lit('a'); h.sym(286) })},
		{"litlen 287", fixedStream(func(h *huff) { h.lit('a'); h.sym(287) })},
		{"distance 30", fixedStream(func(h *huff) { h.lit('a'); h.sym(257); h.dsym(30) })},
		{"distance 31", fixedStream(func(h *huff) { h.lit('a'); h.sym(257); h.dsym(31) })},
		{"distance too far", fixedStream(func(h *huff) { h.lit('a', 'b'); h.match(3, 3) })},
		{"distance too far, first", fixedStream(func(h *huff) { h.match(3, 1) })},
	} {
		if _, err := io.ReadAll(stdflate.NewReader(bytes.NewReader(c.raw))); err == nil {
			t.Fatalf("%s: the test stream is wrong: compress/flate accepts it", c.name)
		}
		// Any output size up to 16: all fail, with any trailer, and as a
		// raw stream (where no checksum can catch a lax decoder).
		for n := 0; n <= 16; n++ {
			mustReject(t, c.name, wrap(c.raw, bytes.Repeat([]byte("a"), n)), n, false)
			if _, _, err := Deflate(make([]byte, n), c.raw); err == nil {
				t.Fatalf("%s: Deflate accepted it", c.name)
			}
		}
	}

	// The same defects in the middle of a long block, where the fast loop
	// meets them: 400 literals before, 100 after.
	for _, c := range []struct {
		name string
		bad  func(h *huff)
	}{
		{"litlen 286", func(h *huff) { h.sym(286) }},
		{"litlen 287", func(h *huff) { h.sym(287) }},
		{"distance 30", func(h *huff) { h.sym(257); h.dsym(30) }},
		{"distance 31", func(h *huff) { h.sym(258); h.dsym(31) }},
		{"distance too far", func(h *huff) { h.match(3, 401) }},
		{"distance too far by 32768", func(h *huff) { h.match(258, 32768) }},
		{"early end of block", func(h *huff) { h.eob() }},
	} {
		r := newRand(11)
		lits := func(h *huff, n int) {
			for i := 0; i < n; i++ {
				h.lit(byte(r.Uint32()))
			}
		}
		raw := fixedStream(func(h *huff) { lits(h, 400); c.bad(h); lits(h, 100) })
		if _, err := io.ReadAll(stdflate.NewReader(bytes.NewReader(raw))); err == nil && c.name != "early end of block" {
			t.Fatalf("%s: the test stream is wrong: compress/flate accepts it", c.name)
		}
		for _, n := range []int{400, 500, 503, 1000, 5000} {
			mustReject(t, c.name+" (fast loop)", wrap(raw, make([]byte, n)), n, false)
			if _, _, err := Deflate(make([]byte, n), raw); err == nil && c.name != "early end of block" {
				t.Fatalf("%s (fast loop): Deflate accepted it", c.name)
			}
		}
	}

	// Output sizes, trailer, truncation.
	for _, n := range []int{0, len(data) - 1, len(data) + 1, 100} {
		mustReject(t, "output size", valid, n, false)
	}
	bad := append([]byte(nil), valid...)
	bad[len(bad)-1] ^= 1
	mustReject(t, "Adler-32", bad, len(data), true)
	mustReject(t, "trailing byte", append(append([]byte(nil), valid...), 0), len(data), false)
	for k := 0; k < len(valid); k++ {
		mustReject(t, "truncated", valid[:k], len(data), true)
	}
}
