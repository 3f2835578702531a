package inflate

import "math/bits"

// Decode-table entries are uint32s:
//
//	bits  0..5   bits to consume for this entry: the codeword's length (within
//	             this table level) plus, for lengths and distances, the extra
//	             bits that follow it; for a subtable pointer, the main table's
//	             index width
//	bits  8..11  the codeword's length within this table level (so the extra
//	             bits are the consumed bits above it); for a subtable pointer,
//	             the subtable's index width; for a literal in the main
//	             literal/length table, the number of literals (1 or 2)
//	bit  12      end of block
//	bit  13      subtable pointer
//	bit  14      exceptional: end of block, subtable pointer or invalid symbol
//	bit  15      literal
//	bits 16..31  the literal byte (two in bits 16..23 and 24..31 for a pair
//	             of literals), the length or distance base, or the subtable's
//	             start index
//
// A main literal/length table entry whose bits decode to two literals holds
// both, so that runs of short literal codes take one lookup per pair.
//
// A symbol's template (litlenInfo, distInfo) holds its flags, value and
// extra-bit count; the table builder adds the codeword length.
const (
	fEOB = 1 << 12
	fSub = 1 << 13
	fExc = 1 << 14
	fLit = 1 << 15

	invalid = fExc // a symbol that must not occur (litlen 286/287, distance 30/31, unused codes)
)

const (
	litlenBits  = 12 // index width of the main literal/length table
	distBits    = 8  // index width of the main distance table
	precodeBits = 7  // the code-length code's lengths are at most 7: no subtables

	// Room for a main table and its subtables. Each subtable holds at most
	// 1<<(15-bits) entries, and each serves at least two codewords (the
	// codewords longer than the main table's width that share a prefix must
	// fill its codespace), so there are at most 288/2 of them for the
	// literal/length code. For distances, 402 is what zlib's "enough"
	// program gives for 32 symbols, 8 bits, lengths up to 15. buildTable
	// checks the room anyway.
	litlenEnough = 1<<litlenBits + 288/2<<(maxCodeLen-litlenBits)
	distEnough   = 402

	maxCodeLen = 15
)

var (
	litlenInfo [288]uint32
	distInfo   [32]uint32
	precodeInf [19]uint32

	// Tables of the fixed Huffman code (RFC 1951 3.2.6).
	fixedLitlen [litlenEnough]uint32
	fixedDist   [distEnough]uint32
)

func init() {
	for s := 0; s < 256; s++ {
		litlenInfo[s] = uint32(s)<<16 | fLit | 1<<8 // one literal
	}
	litlenInfo[256] = fEOB | fExc
	// Length symbols 257..285 and distance symbols 0..29: base values and
	// extra-bit counts.
	lbase, lextra := LengthCodes()
	for i := range lbase {
		litlenInfo[257+i] = uint32(lbase[i])<<16 | uint32(lextra[i])
	}
	litlenInfo[286] = invalid
	litlenInfo[287] = invalid

	dbase, dextra := DistanceCodes()
	for s := range dbase {
		distInfo[s] = uint32(dbase[s])<<16 | uint32(dextra[s])
	}
	distInfo[30] = invalid
	distInfo[31] = invalid

	for s := range precodeInf {
		precodeInf[s] = uint32(s) << 16
	}

	lens, dlens := FixedCodeLengths()
	if !buildTable(fixedLitlen[:], litlenBits, lens[:], litlenInfo[:], false) {
		panic("inflate: fixed literal/length table")
	}
	pairLiterals(&fixedLitlen)
	if !buildTable(fixedDist[:], distBits, dlens[:], distInfo[:], false) {
		panic("inflate: fixed distance table")
	}
}

// entry is the table entry for a symbol with template info whose codeword
// has l bits at this table level.
func entry(info uint32, l uint) uint32 {
	if info&fLit != 0 {
		return info + uint32(l) // bits 8..11 hold the literal count
	}
	return info + uint32(l)<<8 + uint32(l)
}

// buildTable fills table, a main table of 1<<tableBits entries followed by
// its subtables, for the canonical Huffman code with the given code lengths
// (0: symbol unused); info holds the symbols' entry templates. It reports
// false for an over-subscribed code and for an incomplete one, except, when
// lenient is set, the two incomplete codes the standard decoders accept: no
// codes at all (every entry invalid) and a single code of length 1 (the
// other 1-bit codeword invalid).
func buildTable(table []uint32, tableBits uint, lens []uint8, info []uint32, lenient bool) bool {
	var count [maxCodeLen + 1]int
	for _, l := range lens {
		count[l]++
	}
	count[0] = 0
	left := 1 // unused codespace, in units of the current length
	codes := 0
	for l := 1; l <= maxCodeLen; l++ {
		left = left<<1 - count[l]
		if left < 0 {
			return false // over-subscribed
		}
		codes += count[l]
	}
	mainSize := 1 << tableBits
	if left > 0 {
		if !lenient || codes > 1 || (codes == 1 && count[1] != 1) {
			return false // incomplete
		}
		fillIncomplete(table[:mainSize], lens, info, codes)
		return true
	}
	sorted := canonicalOrder(lens, &count)

	// Codewords no longer than the main table's width: those of length l
	// are written once each into the first 1<<l entries, and the filled part
	// is doubled before moving to length l+1 (the index bit above a
	// codeword is free), then up to the whole main table.
	mask := mainSize - 1
	next := mainSize // first free entry after the tables built so far
	subPrefix, subStart, subBits := -1, 0, uint(0)
	code, n := 0, 0
	filled := 1 // entries [0, filled) are final for the codewords seen so far
	for l := uint(1); l <= maxCodeLen; l++ {
		if l <= tableBits {
			copy(table[filled:2*filled], table[:filled])
			filled *= 2
		} else if filled < mainSize {
			for ; filled < mainSize; filled *= 2 {
				copy(table[filled:2*filled], table[:filled])
			}
		}
		for c := 0; c < count[l]; c++ {
			s := sorted[n]
			n++
			// The codeword's bits in stream order (least significant first).
			r := int(bits.Reverse16(uint16(code)) >> (16 - l))
			code++
			if l <= tableBits {
				table[r] = entry(info[s], l)
				continue
			}
			if p := r & mask; p != subPrefix {
				// A new prefix: size its subtable to hold exactly the
				// codewords that share it (the remaining ones of this length,
				// then longer ones, until the prefix's codespace is full).
				subPrefix = p
				sb := l - tableBits
				used := count[l] - c
				for used < 1<<sb && tableBits+sb < maxCodeLen {
					sb++
					used = used<<1 + count[tableBits+sb]
				}
				subStart, subBits = next, sb
				next += 1 << sb
				if next > len(table) {
					return false
				}
				table[p] = uint32(subStart)<<16 | fExc | fSub | uint32(sb)<<8 | uint32(tableBits)
			}
			ll := l - tableBits
			e := entry(info[s], ll)
			for i := r >> tableBits; i < 1<<subBits; i += 1 << ll {
				table[subStart+i] = e
			}
		}
		code <<= 1
	}
	return true
}

// fillIncomplete fills a main table for the incomplete codes the lenient
// decoders accept: every entry invalid, and with one code (of length 1)
// its symbol in the even entries.
func fillIncomplete(table []uint32, lens []uint8, info []uint32, codes int) {
	for i := range table {
		table[i] = invalid
	}
	if codes != 1 {
		return
	}
	for s, l := range lens {
		if l != 0 {
			e := entry(info[s], 1)
			for i := 0; i < len(table); i += 2 {
				table[i] = e
			}
			return
		}
	}
}

// canonicalOrder returns the used symbols sorted by (length, symbol), the
// canonical order of their codewords; count holds how many symbols have
// each length.
func canonicalOrder(lens []uint8, count *[maxCodeLen + 1]int) [288]uint16 {
	var offs [maxCodeLen + 2]int
	for l := 1; l <= maxCodeLen; l++ {
		offs[l+1] = offs[l] + count[l]
	}
	var sorted [288]uint16
	for s, l := range lens {
		if l != 0 {
			sorted[offs[l]] = uint16(s)
			offs[l]++
		}
	}
	return sorted
}

// pairLiterals rewrites the literal entries of a main literal/length table
// built by buildTable: where the index bits left after a literal's codeword
// hold a whole second literal codeword, the entry decodes both (count 2).
func pairLiterals(t *[litlenEnough]uint32) {
	// Going down, t[i>>l] (l ≥ 1, so below i unless i is 0) is still the
	// single-symbol entry when t[i] is rewritten. No branches: literal and
	// other entries alternate unpredictably in the table, and a branch on
	// the kind of entry mispredicted often enough to make this pass a
	// third of inflating a 16-bit frame (whose short high-byte codes pair
	// with the long low-byte ones in each of its dozens of blocks).
	for i := 1<<litlenBits - 1; i >= 0; i-- {
		e := t[i]
		l := e & 63
		e2 := t[i>>l]
		l2 := e2 & 63
		if e2&fLit == 0 {
			l2 = litlenBits + 1
		}
		pair := e&^0xff00_0f3f | (e2>>16&0xff)<<24 | 2<<8 | (l + l2)
		if l+l2 > litlenBits {
			pair = e
		}
		if e&fLit == 0 {
			pair = e
		}
		t[i] = pair
	}
}

// FixedCodeLengths returns the code lengths of DEFLATE's fixed Huffman
// codes (RFC 1951 3.2.6): 288 literal/length codes (8, 9, 7 and 8 bits for
// symbols 0–143, 144–255, 256–279 and 280–287) and 32 distance codes of 5
// bits.
func FixedCodeLengths() (litlen [288]uint8, dist [32]uint8) {
	for s := range litlen {
		switch {
		case s < 144:
			litlen[s] = 8
		case s < 256:
			litlen[s] = 9
		case s < 280:
			litlen[s] = 7
		default:
			litlen[s] = 8
		}
	}
	for s := range dist {
		dist[s] = 5
	}
	return litlen, dist
}

// LengthCodes returns DEFLATE's length codes (RFC 1951 3.2.5): for symbols
// 257–285, the base length and the number of extra bits (3…258; symbol 285
// is 258 with none).
func LengthCodes() (base [29]int, extra [29]uint) {
	b := 3
	for i := range base {
		if i >= 8 && i < 28 {
			extra[i] = uint(i-4) / 4
		}
		base[i] = b
		b += 1 << extra[i]
	}
	base[28] = 258
	return base, extra
}

// DistanceCodes returns DEFLATE's distance codes (RFC 1951 3.2.5): for
// symbols 0–29, the base distance and the number of extra bits (1…32768).
func DistanceCodes() (base [30]int, extra [30]uint) {
	b := 1
	for i := range base {
		if i >= 4 {
			extra[i] = uint(i-2) / 2
		}
		base[i] = b
		b += 1 << extra[i]
	}
	return base, extra
}
