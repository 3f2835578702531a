package png

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/adler32"
	"hash/crc32"
	"image"
	stdpng "image/png"

	"github.com/rexmle/rexmle/metrics/imageio/internal/codec"
)

// PNG files as Pillow accepts them.
//
// The reference graders open predictions with PIL.Image.open and
// numpy.array. Pillow (PngImagePlugin, ImageFile.load and libImaging's
// ZipDecode, unchanged in these respects from 9.4 to 13.0.dev; the table was
// checked on Pillow 9.4 by experiment) reads a PNG in three phases:
//
//  1. Opening: chunks are read up to the first IDAT. Every chunk type must
//     be four ASCII letters, digits or underscores; each chunk's body must
//     be complete and its CRC must match (IHDR, PLTE, tRNS and any ancillary
//     or unknown chunk), and the known chunks' contents are checked (IHDR at
//     least 13 bytes with filter method 0; tRNS long enough for a grey or RGB
//     key; gAMA ≥ 4, cHRM ≥ 32, sRGB ≥ 1, pHYs ≥ 9 bytes; iCCP and zTXt with
//     compression method 0). Any failure: Pillow raises. IEND before any IDAT:
//     raises. The first IDAT's CRC is not read.
//  2. Decoding: the IDAT bodies are read in blocks of at most 64 KiB, never
//     across a chunk; between IDATs the CRC is skipped unchecked and
//     zero-length IDATs are passed over. A chunk other than IDAT, a chunk
//     header cut short or garbage where the next header should be ends the
//     data: if rows are still missing, Pillow raises ("image file is
//     truncated", or "broken PNG file" for a garbage header). zlib inflates
//     one filtered row at a time and decoding stops as soon as the last row
//     (of the last Adam7 pass) is complete: extra compressed data, a missing
//     end-of-stream, a missing or wrong Adler-32 are then never looked at —
//     unless they sit in the same 64 KiB read as the end of the last row, in
//     which case zlib goes on through what needs no output (end-of-block code,
//     next block header, the Adler-32 trailer) and an error there (a wrong
//     Adler-32 included) makes Pillow raise. A stream that ends properly
//     (matching Adler-32) exactly at a row boundary, in the same call that
//     completed that row, stops decoding too: the missing rows stay 0.
//     A stream that ends before the last row otherwise, a zlib data error
//     before it, or a filter type above 4 in a decoded row: raises.
//  3. Closing: after the rows, the rest of the current IDAT is skipped and
//     chunks are read until IEND without CRC checks; reading stops quietly
//     (the image loads) at the end of the file, a chunk header cut short, or
//     a header whose type is not four word characters. A chunk whose body is
//     cut short, or a known chunk with bad contents (the checks of phase 1),
//     makes Pillow raise.
//
// So, by case: a wrong CRC on IHDR, PLTE, tRNS or any chunk before the
// first IDAT → raises; on the first, a middle or the last IDAT → loads;
// on a chunk after the IDATs → loads; IEND missing → loads; garbage after
// the last IDAT → loads if it does not parse as a word-character chunk
// header with a body longer than the rest of the file; a file cut inside the
// last IDAT after the last row → loads, cut inside a later chunk's body →
// raises; an unknown chunk after the IDATs → loads; wrong Adler-32 → loads
// if the trailer is not in the read holding the end of the last row
// (for example in its own IDAT), else raises; extra zlib data after the last
// row → loads; end-of-stream marker missing but all rows there → loads; a
// stream short of the last row → raises (but see the row-boundary case
// above); IDAT split in many chunks or zero-length IDATs → loads; a chunk
// other than IDAT between IDATs → raises unless the rows before it are
// complete. Interlaced (Adam7) files follow the same rules, with rows in
// pass order; all bit depths and colour types alike.
//
// Read tries Go's strict decoder first; when it refuses the file,
// decodePNGPillow replays these rules on the bytes, and, when Pillow would
// load the file, hands Go's decoder a rebuilt stream: the same header and
// palette, one IDAT holding the filtered rows Pillow decoded (missing rows
// as zeros) in stored zlib blocks with a correct Adler-32, IEND.
//
// Not replayed (such files are refused here): APNG chunks (acTL, fcTL or
// fdAT) before the image data, fdAT/DDAT as image data; Pillow's limits on
// decompressed text and ICC profiles; an IHDR other than the first chunk.

// pillowReadBlock is ImageFile.MAXBLOCK, the most Pillow reads at once.
const pillowReadBlock = 65536

// isChunkID reports whether b matches Python's rb"\w\w\w\w".
func isChunkID(b []byte) bool {
	if len(b) < 4 {
		return false
	}
	for _, c := range b[:4] {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// pillowPNGState is what Pillow keeps from the chunks it has read.
type pillowPNGState struct {
	w, h       int
	depth, ct  int
	mode       string
	interlaced bool
	plte, trns []byte
	seq        int // last APNG sequence number; -1 for none
}

// pillowModes maps (bit depth, colour type) to Pillow's mode.
func pillowMode(depth, ct int) string {
	switch [2]int{depth, ct} {
	case [2]int{1, 0}:
		return "1"
	case [2]int{2, 0}, [2]int{4, 0}, [2]int{8, 0}:
		return "L"
	case [2]int{16, 0}:
		return "I;16"
	case [2]int{8, 2}, [2]int{16, 2}:
		return "RGB"
	case [2]int{1, 3}, [2]int{2, 3}, [2]int{4, 3}, [2]int{8, 3}:
		return "P"
	case [2]int{8, 4}:
		return "LA"
	case [2]int{16, 4}, [2]int{8, 6}, [2]int{16, 6}:
		return "RGBA"
	}
	return ""
}

// chunkRule applies the checks of Pillow's handler for a chunk whose body
// is complete, and records what later phases need (only before the image
// data: afterImage false).
func (s *pillowPNGState) chunkRule(typ string, body []byte, afterImage bool) error {
	bad := func(what string) error { return fmt.Errorf("%s chunk: %s (Pillow refuses it)", typ, what) }
	switch typ {
	case "IHDR":
		if len(body) < 13 {
			return bad("shorter than 13 bytes")
		}
		if body[11] != 0 {
			return bad("unknown filter method")
		}
		if afterImage {
			return nil
		}
		s.w, s.h = int(binary.BigEndian.Uint32(body)), int(binary.BigEndian.Uint32(body[4:]))
		if m := pillowMode(int(body[8]), int(body[9])); m != "" {
			s.depth, s.ct, s.mode = int(body[8]), int(body[9]), m
		}
		if body[12] != 0 {
			s.interlaced = true
		}
	case "PLTE":
		if !afterImage && s.mode == "P" {
			s.plte = body
		}
	case "tRNS":
		switch s.mode {
		case "1", "L", "I;16":
			if len(body) < 2 {
				return bad("too short for a grey key")
			}
		case "RGB":
			if len(body) < 6 {
				return bad("too short for an RGB key")
			}
		case "P":
			if !afterImage {
				s.trns = body
			}
		}
	case "gAMA", "cHRM", "sRGB", "pHYs":
		need := map[string]int{"gAMA": 4, "cHRM": 32, "sRGB": 1, "pHYs": 9}[typ]
		if len(body) < need {
			return bad(fmt.Sprintf("shorter than %d bytes", need))
		}
	case "iCCP":
		i := bytes.IndexByte(body, 0)
		if i+1 >= len(body) {
			return bad("no compression method")
		}
		if body[i+1] != 0 {
			return bad("unknown compression method")
		}
	case "zTXt":
		if i := bytes.IndexByte(body, 0); i >= 0 && i+1 < len(body) && body[i+1] != 0 {
			return bad("unknown compression method")
		}
	case "acTL":
		if len(body) < 8 {
			return bad("truncated")
		}
		if !afterImage {
			return bad("animated PNG, not supported by this reader's Pillow rules")
		}
	case "fcTL":
		if len(body) < 26 {
			return bad("truncated")
		}
		if !afterImage {
			return bad("animated PNG, not supported by this reader's Pillow rules")
		}
		seq := int(binary.BigEndian.Uint32(body))
		if s.seq < 0 && seq != 0 || s.seq >= 0 && s.seq != seq-1 {
			return bad("frame sequence error")
		}
		s.seq = seq
		fw, fh := int64(binary.BigEndian.Uint32(body[4:])), int64(binary.BigEndian.Uint32(body[8:]))
		px, py := int64(binary.BigEndian.Uint32(body[12:])), int64(binary.BigEndian.Uint32(body[16:]))
		if px+fw > int64(s.w) || py+fh > int64(s.h) {
			return bad("frame outside the image")
		}
	case "fdAT":
		if len(body) < 4 {
			return bad("truncated")
		}
		if !afterImage {
			return bad("animated PNG, not supported by this reader's Pillow rules")
		}
		seq := int(binary.BigEndian.Uint32(body))
		if s.seq < 0 || s.seq != seq-1 {
			return bad("frame sequence error")
		}
		s.seq = seq
	}
	return nil
}

// pngChannelsOf is the number of samples per pixel of colour type ct.
func pngChannelsOf(ct int) int {
	return map[int]int{0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[ct]
}

// pngRowLens lists the lengths (without the filter byte) of the filtered
// rows in stream order: h rows, or the rows of the non-empty Adam7 passes.
func pngRowLens(w, h, bpp int, interlaced bool) []int {
	rowLen := func(n int) int { return (n*bpp + 7) / 8 }
	if !interlaced {
		rows := make([]int, h)
		for i := range rows {
			rows[i] = rowLen(w)
		}
		return rows
	}
	var rows []int
	for _, p := range [7][4]int{{0, 0, 8, 8}, {4, 0, 8, 8}, {0, 4, 4, 8}, {2, 0, 4, 4}, {0, 2, 2, 4}, {1, 0, 2, 2}, {0, 1, 1, 2}} {
		pw := (w - p[0] + p[2] - 1) / p[2]
		ph := (h - p[1] + p[3] - 1) / p[3]
		if pw <= 0 || ph <= 0 {
			continue
		}
		for i := 0; i < ph; i++ {
			rows = append(rows, rowLen(pw))
		}
	}
	return rows
}

// decodePNGPillow decodes data by Pillow's rules (see above) and returns
// the image Go's decoder gives for the rebuilt stream, or an error saying
// why Pillow refuses the file.
func decodePNGPillow(data []byte, o Options) (image.Image, error) {
	if len(data) < 8 || string(data[:8]) != "\x89PNG\r\n\x1a\n" {
		return nil, fmt.Errorf("bad signature, not a PNG file")
	}
	st := pillowPNGState{seq: -1}
	pos, idatLen, err := st.headerChunks(data)
	if err != nil {
		return nil, err
	}
	if st.mode == "" {
		return nil, fmt.Errorf("unsupported bit depth %d and colour type %d", st.depth, st.ct)
	}
	if st.w < 1 || st.h < 1 {
		return nil, fmt.Errorf("image size %d × %d", st.w, st.h)
	}
	if _, err := codec.SampleCount("png header: width × height × channels", o.MaxBytes, int64(st.w), int64(st.h), int64(pngChannelsOf(st.ct))); err != nil {
		return nil, err
	}
	rows := pngRowLens(st.w, st.h, st.depth*pngChannelsOf(st.ct), st.interlaced)
	total := 0
	for _, n := range rows {
		total += n + 1
	}
	if int64(total) > o.MaxBytes {
		return nil, fmt.Errorf("filtered image data of %d bytes exceeds the %d-byte limit (Options.MaxBytes)", total, o.MaxBytes)
	}
	idat := &idatReader{data: data, pos: pos, rem: idatLen, chunkEnd: pos + idatLen}
	raw, err := inflateRowsPillow(idat, rows, total)
	if err != nil {
		return nil, err
	}
	if err := st.trailingChunks(data, idat.chunkEnd); err != nil {
		return nil, err
	}
	img, err := stdpng.Decode(bytes.NewReader(rebuildPNG(&st, raw)))
	if err != nil {
		return nil, fmt.Errorf("rebuilt stream: %w", err)
	}
	return img, nil
}

// headerChunks reads the chunks before the first IDAT into st, as Pillow
// does (IHDR first, every CRC checked), and returns the position of the
// first IDAT's data and its length.
func (st *pillowPNGState) headerChunks(data []byte) (pos, idatLen int, err error) {
	pos = 8
	first := true
	for {
		if len(data)-pos < 8 {
			return 0, 0, fmt.Errorf("file truncated in a chunk header before the image data")
		}
		length := int64(binary.BigEndian.Uint32(data[pos:]))
		typ := data[pos+4 : pos+8]
		if !isChunkID(typ) {
			return 0, 0, fmt.Errorf("broken chunk header %q before the image data", typ)
		}
		if first && string(typ) != "IHDR" {
			return 0, 0, fmt.Errorf("first chunk is %q, not IHDR", typ)
		}
		first = false
		pos += 8
		if string(typ) == "IDAT" {
			return pos, int(length), nil
		}
		if string(typ) == "IEND" {
			return 0, 0, fmt.Errorf("IEND before any image data")
		}
		if int64(len(data)-pos) < length {
			return 0, 0, fmt.Errorf("%s chunk truncated", typ)
		}
		body := data[pos : pos+int(length)]
		if err := st.chunkRule(string(typ), body, false); err != nil {
			return 0, 0, err
		}
		pos += int(length)
		if len(data)-pos < 4 {
			return 0, 0, fmt.Errorf("%s chunk: CRC truncated", typ)
		}
		if crc32.ChecksumIEEE(data[pos-int(length)-4:pos]) != binary.BigEndian.Uint32(data[pos:]) {
			return 0, 0, fmt.Errorf("%s chunk: bad CRC (Pillow checks the CRC of every chunk before the image data)", typ)
		}
		pos += 4
	}
}

// idatReader hands out the image data as Pillow reads it: blocks of at
// most pillowReadBlock bytes, chunk after consecutive IDAT chunk (their
// CRCs unchecked). pos is the next byte, rem the unread bytes of the
// current IDAT, chunkEnd where it ends.
type idatReader struct {
	data               []byte
	pos, rem, chunkEnd int
}

func (r *idatReader) next() ([]byte, error) {
	data := r.data
	for r.rem == 0 {
		r.pos = min(r.pos+4, len(data)) // CRC, unchecked
		if len(data)-r.pos < 4 {
			return nil, fmt.Errorf("image data truncated (file ends after an IDAT)")
		}
		if len(data)-r.pos < 8 || !isChunkID(data[r.pos+4:r.pos+8]) {
			return nil, fmt.Errorf("broken chunk header %q inside the image data", data[r.pos+4:min(r.pos+8, len(data))])
		}
		if typ := string(data[r.pos+4 : r.pos+8]); typ != "IDAT" {
			return nil, fmt.Errorf("image data truncated: %s chunk before the last row", typ)
		}
		r.rem = int(binary.BigEndian.Uint32(data[r.pos:]))
		r.pos += 8
		r.chunkEnd = r.pos + r.rem
	}
	n := min(pillowReadBlock, r.rem)
	r.rem -= n
	got := min(n, len(data)-r.pos)
	if got <= 0 {
		return nil, fmt.Errorf("image data truncated (file ends inside an IDAT)")
	}
	b := data[r.pos : r.pos+got]
	r.pos += got
	return b, nil
}

// inflateRowsPillow inflates the filtered rows (lengths rows, each with
// its filter byte: total bytes) row by row as Pillow's decoder does,
// stopping at the last row or the stream's end; a broken stream or an
// unknown filter type before the last row is an error.
func inflateRowsPillow(idat *idatReader, rows []int, total int) ([]byte, error) {
	z := &zlibSim{out: make([]byte, total)}
	row, rowEnd := 0, rows[0]+1
	for {
		b, err := idat.next()
		if err != nil {
			return nil, err
		}
		z.feed(b)
		for z.pos < z.lim {
			status := z.call(rowEnd)
			if status == zDataError {
				return nil, fmt.Errorf("image data: broken zlib stream before the last row (Pillow: broken data stream)")
			}
			if z.o < rowEnd {
				break
			}
			if ft := z.out[rowEnd-rows[row]-1]; ft > 4 {
				return nil, fmt.Errorf("image data: unknown filter type %d", ft)
			}
			row++
			if row == len(rows) || status == zStreamEnd {
				return z.out, nil
			}
			rowEnd += rows[row] + 1
		}
	}
}

// trailingChunks applies Pillow's rules to the chunks after the image
// data, from the end of the last IDAT read (chunkEnd) to IEND or the
// first broken chunk header.
func (st *pillowPNGState) trailingChunks(data []byte, chunkEnd int) error {
	pos := min(chunkEnd, len(data))
	for {
		pos = min(pos+4, len(data)) // CRC, unchecked
		if len(data)-pos < 8 || !isChunkID(data[pos+4:pos+8]) {
			return nil
		}
		length := int64(binary.BigEndian.Uint32(data[pos:]))
		typ := string(data[pos+4 : pos+8])
		pos += 8
		if typ == "IEND" {
			return nil
		}
		if int64(len(data)-pos) < length {
			return fmt.Errorf("%s chunk after the image data truncated", typ)
		}
		if err := st.chunkRule(typ, data[pos:pos+int(length)], true); err != nil {
			return err
		}
		pos += int(length)
	}
}

// rebuildPNG writes a valid PNG of the filtered rows raw with st's header
// and palette.
func rebuildPNG(st *pillowPNGState, raw []byte) []byte {
	var out bytes.Buffer
	out.Grow(len(raw) + len(raw)/65535*5 + 1024)
	out.WriteString("\x89PNG\r\n\x1a\n")
	var n [4]byte
	chunk := func(typ string, body []byte) {
		binary.BigEndian.PutUint32(n[:], uint32(len(body)))
		out.Write(n[:])
		start := out.Len()
		out.WriteString(typ)
		out.Write(body)
		binary.BigEndian.PutUint32(n[:], crc32.ChecksumIEEE(out.Bytes()[start:]))
		out.Write(n[:])
	}
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr, uint32(st.w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(st.h))
	ihdr[8], ihdr[9] = byte(st.depth), byte(st.ct)
	if st.interlaced {
		ihdr[12] = 1
	}
	chunk("IHDR", ihdr)
	if st.ct == 3 {
		// Go wants 1–256 whole entries; without any, a grey ramp (the
		// indices are what numpy.array gives).
		entries := min(len(st.plte)/3, 256)
		plte := st.plte[:3*entries]
		if entries == 0 {
			plte = make([]byte, 768)
			for i := range plte {
				plte[i] = byte(i / 3)
			}
			entries = 256
		}
		chunk("PLTE", plte)
		if len(st.trns) > 0 {
			chunk("tRNS", st.trns[:min(len(st.trns), entries)])
		}
	}
	chunk("IDAT", storedZlib(raw))
	chunk("IEND", nil)
	return out.Bytes()
}

// storedZlib is raw as one zlib stream of stored blocks with its Adler-32.
func storedZlib(raw []byte) []byte {
	z := make([]byte, 0, len(raw)+len(raw)/65535*5+16)
	z = append(z, 0x78, 0x01)
	for rest := raw; ; {
		k := min(len(rest), 65535)
		final := byte(0)
		if k == len(rest) {
			final = 1
		}
		z = append(z, final, byte(k), byte(k>>8), ^byte(k), ^byte(k>>8))
		z = append(z, rest[:k]...)
		rest = rest[k:]
		if final == 1 {
			break
		}
	}
	return binary.BigEndian.AppendUint32(z, adler32.Checksum(raw))
}

// pillowCheckChunks applies Pillow's per-chunk content checks to a file Go's
// decoder accepted (so its chunks are whole, with good CRCs, up to IEND):
// the checks Go does not make.
func pillowCheckChunks(data []byte) error {
	st := pillowPNGState{seq: -1}
	afterImage := false
	for pos := 8; len(data)-pos >= 12; {
		length := int(binary.BigEndian.Uint32(data[pos:]))
		typ := string(data[pos+4 : pos+8])
		if typ == "IEND" || len(data)-pos-12 < length {
			return nil
		}
		body := data[pos+8 : pos+8+length]
		pos += 12 + length
		switch typ {
		case "IDAT":
			afterImage = true
			continue
		case "acTL", "fcTL", "fdAT":
			continue // APNG: Go shows the default image, as Pillow does
		}
		if err := st.chunkRule(typ, body, afterImage); err != nil {
			return err
		}
	}
	return nil
}
