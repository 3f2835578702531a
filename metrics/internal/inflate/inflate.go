// Package inflate decodes complete zlib (RFC 1950) and DEFLATE (RFC 1951)
// streams whose whole output fits one caller-supplied buffer.
//
// Because the output buffer is also the window, matches are copied within
// it, eight bytes at a time where the distance allows, with no ring buffer
// and no reader interface. Bits are read through a 64-bit buffer refilled
// with one unaligned 8-byte load, and codewords through lookup tables whose
// entries give the symbol, its extra-bit count and the bits to consume (the
// design of libdeflate's decompressor, written anew in Go).
//
// The decoder is strict: it accepts no stream that compress/flate and
// compress/zlib reject, and rejects some that they accept (incomplete
// Huffman codes other than the empty and single-length-1 codes, an
// incomplete code-length code, a literal/length code without an
// end-of-block codeword, bytes after the stream), so that a caller can fall
// back to a standard decoder on any error.
package inflate

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/rexmle/rexmle/metrics/internal/adler32"
)

var (
	errHeader    = errors.New("inflate: invalid zlib header")
	errDict      = errors.New("inflate: zlib stream needs a preset dictionary")
	errTruncated = errors.New("inflate: truncated stream")
	errCorrupt   = errors.New("inflate: corrupt stream")
	errTooLong   = errors.New("inflate: output longer than the buffer")
	errChecksum  = errors.New("inflate: Adler-32 mismatch")
)

// Zlib decodes the complete zlib stream (RFC 1950 + RFC 1951) in src into
// dst. It succeeds only when the stream decodes without error to exactly
// len(dst) bytes, its Adler-32 trailer matches, and the trailer ends exactly
// at len(src). Anything else is an error (and dst's content is then
// unspecified).
func Zlib(dst, src []byte) error {
	if len(src) < 2 {
		return errTruncated
	}
	cmf, flg := src[0], src[1]
	if cmf&0x0f != 8 || cmf>>4 > 7 || (uint(cmf)<<8|uint(flg))%31 != 0 {
		return errHeader
	}
	if flg&0x20 != 0 {
		return errDict
	}
	nOut, nIn, err := Deflate(dst, src[2:])
	if err != nil {
		return err
	}
	if nOut != len(dst) {
		return fmt.Errorf("inflate: stream holds %d bytes, want %d", nOut, len(dst))
	}
	rest := src[2+nIn:]
	if len(rest) < 4 {
		return errTruncated
	}
	if len(rest) > 4 {
		return fmt.Errorf("inflate: %d bytes after the zlib stream", len(rest)-4)
	}
	if adler32.Checksum(dst) != binary.BigEndian.Uint32(rest) {
		return errChecksum
	}
	return nil
}

// Deflate decodes the raw DEFLATE stream (RFC 1951) at the start of src into
// dst, up to the end of its final block. It returns the number of bytes
// written and the number of bytes of src consumed (the final block's last
// byte included). It fails when the stream is corrupt or truncated or
// decodes to more than len(dst) bytes. Bytes of dst past the output may be
// overwritten.
func Deflate(dst, src []byte) (nOut, nIn int, err error) {
	d := decoder{src: src}
	return d.run(dst)
}

// decoder holds the input side: the bit buffer and the dynamic tables.
type decoder struct {
	src []byte
	in  int    // next byte of src to load; past len(src) for zero bytes read past the end
	bb  uint64 // bit buffer: the next nb bits of the stream in its low bits, possibly followed by some of src[in]
	nb  uint   // valid bits in bb, at most 63

	litlen [litlenEnough]uint32
	dist   [distEnough]uint32
	lens   [286 + 30]uint8
}

// refill makes nb at least 56, loading zero bytes past the end of src; it
// fails once the bits loaded past the end cannot all fit in the buffer, as
// then some of them must have been consumed.
func (d *decoder) refill() error {
	if d.in+8 <= len(d.src) {
		d.bb |= binary.LittleEndian.Uint64(d.src[d.in:]) << (d.nb & 63)
		d.in += int((63 - d.nb) >> 3)
		d.nb |= 56
		return nil
	}
	for d.nb <= 56 {
		if d.in < len(d.src) {
			d.bb |= uint64(d.src[d.in]) << (d.nb & 63)
		} else if d.in >= len(d.src)+8 {
			return errTruncated
		}
		d.in++
		d.nb += 8
	}
	return nil
}

// bits consumes and returns the next n (≤ 32) bits; the caller has made nb ≥ n.
func (d *decoder) bits(n uint) uint32 {
	v := uint32(d.bb & (1<<n - 1))
	d.bb >>= n & 63
	d.nb -= n
	return v
}

// consumed is the number of bytes of src consumed once the bit buffer is
// byte-aligned.
func (d *decoder) consumed() int { return d.in - int(d.nb>>3) }

func (d *decoder) run(dst []byte) (int, int, error) {
	o := 0
	for {
		if err := d.refill(); err != nil {
			return o, 0, err
		}
		final := d.bits(1)
		var err error
		switch d.bits(2) {
		case 0:
			o, err = d.stored(dst, o)
		case 1:
			o, err = d.huffman(dst, o, &fixedLitlen, &fixedDist)
		case 2:
			if err = d.readDynamic(); err == nil {
				o, err = d.huffman(dst, o, &d.litlen, &d.dist)
			}
		default:
			err = fmt.Errorf("inflate: reserved block type 3: %w", errCorrupt)
		}
		if err != nil {
			return o, 0, err
		}
		if final == 1 {
			break
		}
	}
	d.bits(d.nb & 7)
	n := d.consumed()
	if n > len(d.src) {
		return o, 0, errTruncated
	}
	return o, n, nil
}

// stored copies a stored block's bytes; the 3 header bits have been read.
func (d *decoder) stored(dst []byte, o int) (int, error) {
	d.bits(d.nb & 7)
	if d.nb < 32 {
		if err := d.refill(); err != nil {
			return o, err
		}
	}
	n := int(d.bits(16))
	if nn := int(d.bits(16)); n != nn^0xffff {
		return o, fmt.Errorf("inflate: stored block length %#x, complement %#x: %w", n, nn, errCorrupt)
	}
	// Restart byte-wise reading at the first byte the buffer has not consumed.
	in := d.consumed()
	if in > len(d.src) || n > len(d.src)-in {
		return o, errTruncated
	}
	if n > len(dst)-o {
		return o, errTooLong
	}
	copy(dst[o:], d.src[in:in+n])
	d.in, d.bb, d.nb = in+n, 0, 0
	return o + n, nil
}

// CodeLengthOrder returns the order in which a dynamic block's header
// gives the code-length code's 19 lengths (RFC 1951 3.2.7).
func CodeLengthOrder() [19]uint8 {
	return [19]uint8{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}
}

var codeOrder = CodeLengthOrder()

// readDynamic reads a dynamic block's code definitions (the 3 header bits
// have been read) and builds d.litlen and d.dist.
func (d *decoder) readDynamic() error {
	if d.nb < 14 {
		if err := d.refill(); err != nil {
			return err
		}
	}
	nlit := int(d.bits(5)) + 257
	ndist := int(d.bits(5)) + 1
	nclen := int(d.bits(4)) + 4
	if nlit > 286 || ndist > 30 {
		return fmt.Errorf("inflate: %d literal/length or %d distance codes: %w", nlit, ndist, errCorrupt)
	}
	var clens [19]uint8
	for i := 0; i < nclen; i++ {
		if d.nb < 3 {
			if err := d.refill(); err != nil {
				return err
			}
		}
		clens[codeOrder[i]] = uint8(d.bits(3))
	}
	var pre [1 << precodeBits]uint32
	if !buildTable(pre[:], precodeBits, clens[:], precodeInf[:], false) {
		return fmt.Errorf("inflate: bad code-length code: %w", errCorrupt)
	}
	n := nlit + ndist
	lens := d.lens[:n]
	for i := 0; i < n; {
		if d.nb < precodeBits+7 {
			if err := d.refill(); err != nil {
				return err
			}
		}
		e := pre[d.bb&(1<<precodeBits-1)]
		d.bits(uint(e & 63))
		sym := e >> 16
		if sym < 16 {
			lens[i] = uint8(sym)
			i++
			continue
		}
		var rep int
		var v uint8
		switch sym {
		case 16:
			if i == 0 {
				return fmt.Errorf("inflate: code-length repeat with no previous length: %w", errCorrupt)
			}
			v, rep = lens[i-1], 3+int(d.bits(2))
		case 17:
			rep = 3 + int(d.bits(3))
		default:
			rep = 11 + int(d.bits(7))
		}
		if rep > n-i {
			return fmt.Errorf("inflate: code lengths overrun: %w", errCorrupt)
		}
		for j := range lens[i : i+rep] {
			lens[i+j] = v
		}
		i += rep
	}
	if lens[256] == 0 {
		return fmt.Errorf("inflate: no end-of-block code: %w", errCorrupt)
	}
	if !buildTable(d.litlen[:], litlenBits, lens[:nlit], litlenInfo[:], true) {
		return fmt.Errorf("inflate: bad literal/length code: %w", errCorrupt)
	}
	// Pairs need two literal codewords within the main table's width:
	// with no literal shorter than half of it (noise, whose literals are
	// all about 8 bits), there are none, and the pass over the table is
	// skipped (it was a fifth of inflating a noisy frame's 16 blocks).
	if minLit := shortestLiteral(lens[:256]); 2*minLit <= litlenBits {
		pairLiterals(&d.litlen)
	}
	if !buildTable(d.dist[:], distBits, lens[nlit:], distInfo[:], true) {
		return fmt.Errorf("inflate: bad distance code: %w", errCorrupt)
	}
	return nil
}

// shortestLiteral is the shortest nonzero code length in lens (the
// literals' code lengths), or 16 when none is.
func shortestLiteral(lens []uint8) uint {
	m := uint8(16)
	for _, l := range lens {
		if l != 0 && l < m {
			m = l
		}
	}
	return uint(m)
}

var (
	errSymbol   = fmt.Errorf("inflate: invalid literal/length or distance symbol: %w", errCorrupt)
	errDistance = fmt.Errorf("inflate: distance too far back: %w", errCorrupt)
)

// huffman decodes a Huffman-coded block with the given tables into dst from
// o on, and returns the new output position.
func (d *decoder) huffman(dst []byte, o int, lt *[litlenEnough]uint32, dt *[distEnough]uint32) (int, error) {
	var e uint32
	o, status := d.fast(dst, o, lt, dt)
	switch status {
	case fastEOB:
		return o, nil
	case fastBadSymbol:
		return o, errSymbol
	case fastBadDistance:
		return o, errDistance
	}

	// Careful loop: one symbol at a time, with every bound checked.
	for {
		if d.nb < 48 {
			if err := d.refill(); err != nil {
				return o, err
			}
		}
		e = lt[d.bb&(1<<litlenBits-1)]
		if e&fLit != 0 {
			// One or two literals from the main table.
			n := int(e >> 8 & 3)
			if n > len(dst)-o {
				return o, errTooLong
			}
			d.bits(uint(e & 63))
			dst[o] = byte(e >> 16)
			if n == 2 {
				dst[o+1] = byte(e >> 24)
			}
			o += n
			continue
		}
		if e&fSub != 0 {
			d.bits(uint(e & 63))
			e = lt[(e>>16)+uint32(d.bb)&(1<<((e>>8)&15)-1)]
			if e&fLit != 0 {
				if o >= len(dst) {
					return o, errTooLong
				}
				d.bits(uint(e & 63))
				dst[o] = byte(e >> 16)
				o++
				continue
			}
		}
		if e&fExc != 0 {
			if e&fEOB != 0 {
				d.bits(uint(e & 63))
				return o, nil
			}
			return o, errSymbol
		}
		length := int(e>>16) + int(d.bits(uint(e&63))>>((e>>8)&15))
		e = dt[d.bb&(1<<distBits-1)]
		if e&fSub != 0 {
			d.bits(uint(e & 63))
			e = dt[(e>>16)+uint32(d.bb)&(1<<((e>>8)&15)-1)]
		}
		if e&fExc != 0 {
			return o, errSymbol
		}
		dist := int(e>>16) + int(d.bits(uint(e&63))>>((e>>8)&15))
		if dist > o {
			return o, errDistance
		}
		if length > len(dst)-o {
			return o, errTooLong
		}
		for s, end := o-dist, o+length; o < end; o, s = o+1, s+1 {
			dst[o] = dst[s]
		}
	}
}
