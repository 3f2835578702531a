package png

import (
	"hash/adler32"

	"github.com/rexmle/rexmle/metrics/internal/inflate"
)

// zlibSim inflates a zlib stream the way zlib's inflate() does when Pillow's
// PNG decoder drives it: input arrives in blocks (one per read), output is
// asked for one filtered row at a time, and each call runs until it needs
// output space it does not have, needs input beyond the current block, hits
// the end of the stream or finds an error. What zlib checks without writing
// output (a block header, the end-of-block code, the Adler-32 trailer, a
// length/distance code) it checks as soon as the bits are there, so an error
// after the image's last row counts only when its bits arrive in the same
// read as that row. It is simple and bitwise (only damaged files reach it),
// and exact in those observable respects; the output is the caller's raw
// buffer, which is also the window.
type zlibSim struct {
	in    []byte // all input delivered so far
	pos   int    // next byte of in to pull into hold
	lim   int    // end of the current block in in
	hold  uint64
	nbits uint

	out       []byte // output buffer (all rows); out[:o] written
	o         int
	callStart int // o when the current call began
	whave     int // bytes in zlib's sliding window before this call
	wsize     int

	mode     int
	last     bool
	lit      huffSim
	dist     huffSim
	length   int // pending match length or stored bytes left
	distance int
	fixed    bool
}

const (
	zsHead = iota
	zsType
	zsStored
	zsCopy
	zsTable
	zsLen
	zsLit
	zsLenExt
	zsDist
	zsDistExt
	zsMatch
	zsCheck
	zsDone
	zsDict
	zsBad
)

type zlibStatus int

const (
	zOK        zlibStatus = iota // needs more input or more output space
	zStreamEnd                   // the trailer was read and matched
	zDataError                   // the stream is broken
)

// huffSim is a canonical Huffman code decoded bit by bit.
type huffSim struct {
	count  [16]int
	symbol []int
	maxLen int
}

// build sets up the code from code lengths; it reports false where zlib's
// inflate_table refuses the set: over-subscribed, or incomplete with a
// longest code other than 1 bit (allowIncomplete1), or incomplete at all
// (for the code-length code). An all-zero set is accepted (any symbol is
// then an error), as zlib does.
func (h *huffSim) build(lens []uint8, codeLengthCode bool) bool {
	h.count = [16]int{}
	h.maxLen = 0
	for _, l := range lens {
		h.count[l]++
		if int(l) > h.maxLen {
			h.maxLen = int(l)
		}
	}
	h.count[0] = 0
	left := 1
	for l := 1; l < 16; l++ {
		left <<= 1
		left -= h.count[l]
		if left < 0 {
			return false
		}
	}
	if h.maxLen == 0 {
		h.symbol = h.symbol[:0]
		return !codeLengthCode
	}
	if left > 0 && (codeLengthCode || h.maxLen != 1) {
		return false
	}
	var offs [16]int
	for l := 1; l < 15; l++ {
		offs[l+1] = offs[l] + h.count[l]
	}
	h.symbol = make([]int, len(lens))
	for s, l := range lens {
		if l != 0 {
			h.symbol[offs[l]] = s
			offs[l]++
		}
	}
	return true
}

// pull moves one byte of the current block into hold.
func (z *zlibSim) pull() bool {
	if z.pos >= z.lim {
		return false
	}
	z.hold |= uint64(z.in[z.pos]) << z.nbits
	z.pos++
	z.nbits += 8
	return true
}

func (z *zlibSim) need(n uint) bool {
	for z.nbits < n {
		if !z.pull() {
			return false
		}
	}
	return true
}

func (z *zlibSim) bits(n uint) int { return int(z.hold & (1<<n - 1)) }

func (z *zlibSim) drop(n uint) { z.hold >>= n; z.nbits -= n }

// peek decodes the next symbol of h without consuming it: sym < 0 with
// ok = true is an invalid code; ok = false means more input is needed.
func (z *zlibSim) peek(h *huffSim) (sym int, n uint, ok bool) {
	code, first, index := 0, 0, 0
	maxLen := max(h.maxLen, 1)
	for l := 1; l <= maxLen; l++ {
		if z.nbits < uint(l) && !z.pull() {
			return 0, 0, false
		}
		code |= int(z.hold>>(l-1)) & 1
		c := h.count[l]
		if code-c < first {
			return h.symbol[index+code-first], uint(l), true
		}
		index += c
		first += c
		first <<= 1
		code <<= 1
	}
	return -1, uint(maxLen), true
}

var (
	lenBase, lenExtra  = inflate.LengthCodes()
	distBase, distExtr = inflate.DistanceCodes()
	clOrder            = inflate.CodeLengthOrder()
)

var fixedLit, fixedDist huffSim

func init() {
	l, d := inflate.FixedCodeLengths()
	fixedLit.build(l[:], false)
	fixedDist.build(d[:], false)
}

// feed appends a block of input and makes it the current one.
func (z *zlibSim) feed(b []byte) {
	z.in = append(z.in, b...)
	z.lim = len(z.in)
}

// call runs inflate with output space up to end (≤ len(z.out)).
func (z *zlibSim) call(end int) zlibStatus {
	z.callStart = z.o
	st := z.run(end)
	z.whave = min(z.o, z.wsize)
	return st
}

func (z *zlibSim) run(end int) zlibStatus {
	for {
		switch z.mode {
		case zsHead:
			if !z.need(16) {
				return zOK
			}
			cmf, flg := z.bits(8), (z.bits(16) >> 8)
			if (cmf<<8+flg)%31 != 0 || cmf&15 != 8 || cmf>>4+8 > 15 {
				z.mode = zsBad
				continue
			}
			if flg&0x20 != 0 {
				// A preset dictionary: zlib asks for it (Z_NEED_DICT)
				// and never produces output.
				z.drop(16)
				z.mode = zsDict
				continue
			}
			z.wsize = 1 << (cmf>>4 + 8)
			z.drop(16)
			z.mode = zsType
		case zsType:
			if z.last {
				z.drop(z.nbits & 7)
				z.mode = zsCheck
				continue
			}
			if !z.need(3) {
				return zOK
			}
			z.last = z.bits(1) == 1
			t := z.bits(3) >> 1
			z.drop(3)
			switch t {
			case 0:
				z.mode = zsStored
			case 1:
				z.lit, z.dist, z.fixed = fixedLit, fixedDist, true
				z.mode = zsLen
			case 2:
				z.fixed = false
				z.mode = zsTable
			default:
				z.mode = zsBad
			}
		case zsStored:
			z.drop(z.nbits & 7)
			if !z.need(32) {
				return zOK
			}
			n, nn := z.bits(16), z.bits(32)>>16
			if n != nn^0xffff {
				z.mode = zsBad
				continue
			}
			z.drop(32)
			z.length = n
			z.mode = zsCopy
		case zsCopy:
			if z.length == 0 {
				z.mode = zsType
				continue
			}
			n := min(z.length, z.lim-z.pos, end-z.o)
			if n == 0 {
				return zOK
			}
			copy(z.out[z.o:], z.in[z.pos:z.pos+n])
			z.o += n
			z.pos += n
			z.length -= n
		case zsTable:
			if !z.readTables() {
				if z.mode == zsBad {
					continue
				}
				return zOK
			}
			z.mode = zsLen
		case zsLen:
			sym, n, ok := z.peek(&z.lit)
			if !ok {
				return zOK
			}
			switch {
			case sym < 0 || sym > 285:
				z.mode = zsBad
				continue
			case sym < 256:
				z.drop(n)
				z.length = sym
				z.mode = zsLit
			case sym == 256:
				z.drop(n)
				z.mode = zsType
			default:
				z.drop(n)
				z.length = sym - 257
				z.mode = zsLenExt
			}
		case zsLit:
			if z.o >= end {
				return zOK
			}
			z.out[z.o] = byte(z.length)
			z.o++
			z.mode = zsLen
		case zsLenExt:
			e := lenExtra[z.length]
			if !z.need(e) {
				return zOK
			}
			z.length = lenBase[z.length] + z.bits(e)
			z.drop(e)
			z.mode = zsDist
		case zsDist:
			sym, n, ok := z.peek(&z.dist)
			if !ok {
				return zOK
			}
			if sym < 0 || sym > 29 {
				z.mode = zsBad
				continue
			}
			z.drop(n)
			z.distance = sym
			z.mode = zsDistExt
		case zsDistExt:
			e := distExtr[z.distance]
			if !z.need(e) {
				return zOK
			}
			z.distance = distBase[z.distance] + z.bits(e)
			z.drop(e)
			z.mode = zsMatch
		case zsMatch:
			if z.o >= end {
				return zOK
			}
			// zlib reaches back through this call's output and its
			// sliding window.
			if z.distance > z.o-z.callStart+z.whave {
				z.mode = zsBad
				continue
			}
			for z.length > 0 && z.o < end {
				z.out[z.o] = z.out[z.o-z.distance]
				z.o++
				z.length--
			}
			if z.length == 0 {
				z.mode = zsLen
			}
		case zsCheck:
			if !z.need(32) {
				return zOK
			}
			v := uint32(z.bits(32))
			want := uint32(v>>24 | (v>>8)&0xff00 | (v<<8)&0xff0000 | v<<24)
			z.drop(32)
			if adler32.Checksum(z.out[:z.o]) != want {
				z.mode = zsBad
				continue
			}
			z.mode = zsDone
		case zsDone:
			return zStreamEnd
		case zsDict:
			return zOK
		default:
			return zDataError
		}
	}
}

// readTables reads a dynamic block's code lengths; it reports false with
// mode zsBad for a broken header, and false with mode unchanged when the
// block's input ends first.
func (z *zlibSim) readTables() bool {
	// On a short read, rewind to the start of the header: the next call
	// re-reads it whole from the same bytes, with the same outcome.
	pos, hold, nbits := z.pos, z.hold, z.nbits
	fail := func() bool {
		z.pos, z.hold, z.nbits = pos, hold, nbits
		return false
	}
	bad := func() bool { z.mode = zsBad; return false }
	if !z.need(14) {
		return fail()
	}
	nlen, ndist, ncode := 257+z.bits(5), 1+(z.bits(10)>>5), 4+(z.bits(14)>>10)
	z.drop(14)
	if nlen > 286 || ndist > 30 {
		return bad()
	}
	var cl [19]uint8
	for i := 0; i < ncode; i++ {
		if !z.need(3) {
			return fail()
		}
		cl[clOrder[i]] = uint8(z.bits(3))
		z.drop(3)
	}
	var clh huffSim
	if !clh.build(cl[:], true) {
		return bad()
	}
	lens := make([]uint8, nlen+ndist)
	for have := 0; have < nlen+ndist; {
		sym, n, ok := z.peek(&clh)
		if !ok {
			return fail()
		}
		if sym < 0 {
			return bad()
		}
		if sym < 16 {
			z.drop(n)
			lens[have] = uint8(sym)
			have++
			continue
		}
		extra, base := uint(2), 3
		switch sym {
		case 17:
			extra, base = 3, 3
		case 18:
			extra, base = 7, 11
		}
		if !z.need(n + extra) {
			return fail()
		}
		z.drop(n)
		rep := base + z.bits(extra)
		z.drop(extra)
		var v uint8
		if sym == 16 {
			if have == 0 {
				return bad()
			}
			v = lens[have-1]
		}
		if have+rep > nlen+ndist {
			return bad()
		}
		for ; rep > 0; rep-- {
			lens[have] = v
			have++
		}
	}
	if lens[256] == 0 {
		return bad()
	}
	if !z.lit.build(lens[:nlen], false) || !z.dist.build(lens[nlen:], false) {
		return bad()
	}
	return true
}
