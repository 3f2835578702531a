package inflate

import (
	"encoding/binary"
	"unsafe"
)

// Margins of the fast loop: an iteration refills at most twice, each time
// loading 8 bytes and advancing at most 7, so it can start while fastIn
// bytes of input remain; it writes
// at most fastOut bytes of output from its starting position: four literal
// entries (each stored as 2 bytes even when it holds a single literal), or
// three and a match of 258 bytes copied in 8-byte words (up to 7 bytes past
// its end).
const (
	fastIn  = 16
	fastOut = 3*2 + 258 + 8 // ≥ 4·2
)

// Outcomes of decoder.fast.
const (
	fastMargin      = iota // too close to the end of the input or output: go on carefully
	fastEOB                // end of block
	fastBadSymbol          // invalid literal/length or distance symbol
	fastBadDistance        // distance farther back than the output so far
)

// The fast loop reads input and writes output through unsafe pointers: with
// slices, the bounds checks and the slices' lengths and capacities kept live
// for them cost registers, and the bit buffer was spilled to the stack in the
// middle of the literal chain. Every access stays within the margins the
// loop condition guarantees (see fastIn, fastOut); match sources are checked
// against the output so far.

// load64 is the little-endian uint64 at p.
func load64(p unsafe.Pointer) uint64 {
	return binary.LittleEndian.Uint64((*[8]byte)(p)[:])
}

// store64 writes v little-endian at p.
func store64(p unsafe.Pointer, v uint64) {
	binary.LittleEndian.PutUint64((*[8]byte)(p)[:], v)
}

// store16 writes v little-endian at p.
func store16(p unsafe.Pointer, v uint16) {
	binary.LittleEndian.PutUint16((*[2]byte)(p)[:], v)
}

// fast decodes symbols of a Huffman-coded block into dst from o on while
// the margins hold, and returns the new output position and why it stopped.
// On fastEOB and fastMargin, d's bit reader is left after the last symbol.
func (d *decoder) fast(dst []byte, o int, lt *[litlenEnough]uint32, dt *[distEnough]uint32) (int, int) {
	src := d.src
	if d.in > len(src)-fastIn || o > len(dst)-fastOut {
		return o, fastMargin
	}
	// ip and op point at src[in] and dst[o].
	ip := unsafe.Add(unsafe.Pointer(unsafe.SliceData(src)), d.in)
	op := unsafe.Add(unsafe.Pointer(unsafe.SliceData(dst)), o)
	// The loop runs while ip ≤ ipEnd and op ≤ opEnd (the margins).
	ipEnd := uintptr(unsafe.Pointer(unsafe.SliceData(src))) + uintptr(len(src)-fastIn)
	opEnd := uintptr(unsafe.Pointer(unsafe.SliceData(dst))) + uintptr(len(dst)-fastOut)
	// Only the low 6 bits of nb count: consuming an entry subtracts the
	// whole entry, whose low byte is the number of bits consumed.
	bb, nb := d.bb, d.nb
	var e uint32
	status := fastMargin

	// After a refill, nb ≥ 56: enough for a length (≤ 15+5 bits) and a
	// distance (≤ 15+13 bits), or for four literal entries from the main
	// table (≤ 12 bits each); after one to three of those and a refill, for
	// a length and a distance again.
	//
	// Each iteration starts with the entry for its first symbol already
	// looked up, from the bits left by the previous one: a refill leaves all
	// 64 bits of bb filled with input (the bits above nb are the start of
	// the next bytes), and an iteration consumes at most 48 of them after its
	// last refill, so at least 16 ≥ litlenBits bits are valid. The lookup
	// then does not wait for the refill's load.
	bb |= load64(ip) << (nb & 63)
	ip = unsafe.Add(ip, (^nb&63)>>3)
	nb |= 56
	e = lt[bb&(1<<litlenBits-1)]
	for {
		if uintptr(ip) > ipEnd || uintptr(op) > opEnd {
			break
		}

		bb |= load64(ip) << (nb & 63)
		ip = unsafe.Add(ip, (^nb&63)>>3)
		nb |= 56

		if e&fLit != 0 {
			bb >>= e & 63
			nb -= uint(e)
			store16(op, uint16(e>>16))
			op = unsafe.Add(op, e>>8&3)
			e = lt[bb&(1<<litlenBits-1)]
			if e&fLit != 0 {
				bb >>= e & 63
				nb -= uint(e)
				store16(op, uint16(e>>16))
				op = unsafe.Add(op, e>>8&3)
				e = lt[bb&(1<<litlenBits-1)]
				if e&fLit != 0 {
					bb >>= e & 63
					nb -= uint(e)
					store16(op, uint16(e>>16))
					op = unsafe.Add(op, e>>8&3)
					e = lt[bb&(1<<litlenBits-1)]
					if e&fLit != 0 {
						bb >>= e & 63
						nb -= uint(e)
						store16(op, uint16(e>>16))
						op = unsafe.Add(op, e>>8&3)
						e = lt[bb&(1<<litlenBits-1)]
						continue
					}
				}
			}
			bb |= load64(ip) << (nb & 63)
			ip = unsafe.Add(ip, (^nb&63)>>3)
			nb |= 56
		}
		if e&fExc != 0 {
			if e&fSub != 0 {
				bb >>= e & 63
				nb -= uint(e & 63)
				e = lt[(e>>16)+uint32(bb)&(1<<((e>>8)&15)-1)]
				if e&fLit != 0 {
					bb >>= e & 63
					nb -= uint(e & 63)
					*(*byte)(op) = byte(e >> 16)
					op = unsafe.Add(op, 1)
					e = lt[bb&(1<<litlenBits-1)]
					continue
				}
			}
			if e&fExc != 0 {
				if e&fEOB != 0 {
					bb >>= e & 63
					nb -= uint(e & 63)
					status = fastEOB
				} else {
					status = fastBadSymbol
				}
				break
			}
		}
		saved := bb
		bb >>= e & 63
		nb -= uint(e & 63)
		length := uintptr(e>>16) + uintptr((saved&(1<<(e&63)-1))>>((e>>8)&15))

		e = dt[bb&(1<<distBits-1)]
		if e&fExc != 0 {
			if e&fSub == 0 {
				status = fastBadSymbol
				break
			}
			bb >>= e & 63
			nb -= uint(e & 63)
			e = dt[(e>>16)+uint32(bb)&(1<<((e>>8)&15)-1)]
			if e&fExc != 0 {
				status = fastBadSymbol
				break
			}
		}
		saved = bb
		bb >>= e & 63
		nb -= uint(e & 63)
		dist := uintptr(e>>16) + uintptr((saved&(1<<(e&63)-1))>>((e>>8)&15))
		if dist > uintptr(op)-uintptr(unsafe.Pointer(unsafe.SliceData(dst))) {
			status = fastBadDistance
			break
		}

		end := unsafe.Add(op, length)
		s := unsafe.Add(op, -int(dist))
		switch {
		case dist >= 8:
			for ; uintptr(op) < uintptr(end); op, s = unsafe.Add(op, 8), unsafe.Add(s, 8) {
				store64(op, load64(s))
			}
		case dist == 1:
			v := uint64(*(*byte)(s)) * 0x0101010101010101
			for ; uintptr(op) < uintptr(end); op = unsafe.Add(op, 8) {
				store64(op, v)
			}
		default:
			// Distances 2–7: the dist bytes before op repeated into a
			// word, stored every largest multiple of dist up to 8 bytes,
			// so each store continues the pattern (a byte loop here waits
			// on the store it copies from: 4× slower on masks of int16
			// zeros, whose runs are matches at distance 2).
			pat := load64(s) & (1<<(8*dist) - 1)
			v := pat
			for sh := 8 * dist; sh < 64; sh += 8 * dist {
				v |= pat << sh
			}
			step := 8 / dist * dist
			for ; uintptr(op) < uintptr(end); op = unsafe.Add(op, step) {
				store64(op, v)
			}
		}
		op = end
		e = lt[bb&(1<<litlenBits-1)]
	}
	d.in = int(uintptr(ip) - uintptr(unsafe.Pointer(unsafe.SliceData(src))))
	d.bb, d.nb = bb, nb&63
	return int(uintptr(op) - uintptr(unsafe.Pointer(unsafe.SliceData(dst)))), status
}
