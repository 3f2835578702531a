package png

import (
	"encoding/binary"
	"hash/crc32"
	"io"
	"slices"

	"github.com/rexmle/rexmle/metrics/imageio/internal/codec"
	"github.com/rexmle/rexmle/metrics/internal/inflate"
)

// ReadGray8FileInto is a fast path of ReadPictureFile for the
// commonest picture of image-to-image tasks: a non-interlaced 8-bit
// grey-scale PNG (colour type 0, bit depth 8). For such a file it returns
// the samples as bytes, row-major (w columns, h rows), equal to what
// ReadPictureFile decodes, and ok = true. For any other content, and for
// any PNG it does not check as fully as Read (a tRNS or unexpected
// critical chunk, trailing data, a bad checksum or any damage), it returns
// ok = false and the caller should use ReadPictureFile, which reads
// damaged files by Pillow's rules (a bad IDAT CRC, data after the last row,
// no IEND: see pnglenient.go) and reports the errors. It accepts no file
// that ReadPictureFile rejects.
//
// It decodes into dst when its capacity holds the samples (pix is then
// dst[:w*h]; a new slice otherwise; dst may be nil). Graders that read
// many pictures recycle their buffers through it: the samples are most of
// what they allocate, and each garbage collection that allocation causes
// stops every worker. dst's content is unspecified when ok is false.
func ReadGray8FileInto(dst []byte, path string, opts ...Options) (pix []byte, w, h int, ok bool) {
	o := codec.PickOptions(opts)
	pix, w, h, _, ok = readPNG8File(dst, path, png8Caps{gray8: o.MaxBytes})
	return pix, w, h, ok
}

// png8Caps are decodePNG8's caps on the decoded size, counted as
// Options.MaxBytes counts it: gray8 for 8-bit grey PNGs, other for the
// other kinds (0: not read).
type png8Caps struct{ gray8, other int64 }

// readPNG8File reads the file at path whole and decodes it with
// decodePNG8; gray reports an 8-bit grey PNG.
func readPNG8File(dst []byte, path string, caps png8Caps) (pix []byte, w, h int, gray, ok bool) {
	f, st, err := codec.OpenRegularInfo(path)
	if err != nil {
		return nil, 0, 0, false, false
	}
	defer f.Close()
	if st.Size() < 33 || st.Size() > max(caps.gray8, caps.other) {
		return nil, 0, 0, false, false
	}
	bufp := codec.FileBufs.Get().(*[]byte)
	defer codec.FileBufs.Put(bufp)
	if int64(cap(*bufp)) < st.Size()+1 {
		*bufp = make([]byte, st.Size()+1)
	}
	buf := (*bufp)[:st.Size()+1]
	n, err := io.ReadFull(f, buf)
	if err != io.ErrUnexpectedEOF || int64(n) != st.Size() {
		return nil, 0, 0, false, false // changed while read
	}
	return decodePNG8(buf[:n], caps, dst)
}

// decodePNG8 decodes data as described at ReadGray8FileInto (with
// caps.gray8 set) and the other kinds of PNG ReadLuma8FileInto
// reads (with caps.other set), into dst when it is large enough; gray
// reports an 8-bit grey PNG.
func decodePNG8(data []byte, caps png8Caps, dst []byte) (pix []byte, w, h int, gray, ok bool) {
	hd, err := readPNGHeader(data)
	if err != nil || binary.BigEndian.Uint32(data[8:]) != 13 {
		return nil, 0, 0, false, false
	}
	kind, known := lumaKinds[[2]int{int(hd.bitDepth), int(hd.colorType)}]
	maxBytes := caps.other
	if kind.bpp == 1 {
		maxBytes = caps.gray8
	}
	if !known || maxBytes <= 0 {
		return nil, 0, 0, false, false
	}
	// IHDR: compression, filter and interlace methods all 0, and its CRC.
	if data[26] != 0 || data[27] != 0 || data[28] != 0 ||
		crc32.ChecksumIEEE(data[12:29]) != binary.BigEndian.Uint32(data[29:33]) {
		return nil, 0, 0, false, false
	}
	if _, err := codec.SampleCount("png", maxBytes, hd.width, hd.height, int64(kind.channels)); err != nil {
		return nil, 0, 0, false, false
	}
	w, h = int(hd.width), int(hd.height)
	// Chunks up to IEND: consecutive IDATs, ancillary chunks other than
	// tRNS skipped (their CRCs checked, and their contents by Pillow's
	// rules, as Read does).
	st := pillowPNGState{seq: -1, mode: pillowMode(int(hd.bitDepth), int(hd.colorType))}
	var idatArr [64][]byte // on the stack: Go's encoder writes 32 IDATs for a 512² noise frame
	idat := idatArr[:0]
	idatDone := false
	rest := data[33:]
	for {
		if len(rest) < 12 {
			return nil, 0, 0, false, false
		}
		length := binary.BigEndian.Uint32(rest)
		if length > 0x7fffffff || uint64(length)+12 > uint64(len(rest)) {
			return nil, 0, 0, false, false
		}
		// The type as an array, not a string: a string passed to
		// chunkRule escapes, and each chunk (Go's encoder writes an IDAT
		// every 8 KiB) cost an allocation.
		typ := [4]byte(rest[4:8])
		body := rest[8 : 8+length]
		// Pillow checks the CRCs of the chunks before the image data only
		// (see pnglenient.go): a bad one there is left to Read, which
		// refuses it; the image data and what follows load whatever their
		// CRCs, so theirs are not computed.
		if len(idat) == 0 && typ != chunkIDAT && crc32.ChecksumIEEE(rest[4:8+length]) != binary.BigEndian.Uint32(rest[8+length:]) {
			return nil, 0, 0, false, false
		}
		rest = rest[12+length:]
		switch {
		case typ == chunkIDAT:
			if idatDone {
				return nil, 0, 0, false, false // IDAT after another chunk: leave it to Read
			}
			idat = append(idat, body)
			continue
		case typ == chunkIEND:
			if len(idat) == 0 {
				return nil, 0, 0, false, false
			}
		case typ == [4]byte{'t', 'R', 'N', 'S'} || typ[0]&0x20 == 0:
			return nil, 0, 0, false, false // critical (or transparency) chunk
		default:
			if st.chunkRule(string(typ[:]), body, len(idat) > 0) != nil {
				return nil, 0, 0, false, false // Read says what Pillow refuses
			}
		}
		if len(idat) > 0 {
			idatDone = true
		}
		if typ == chunkIEND {
			break
		}
	}
	if cap(dst) >= w*h {
		pix = dst[:w*h]
	} else {
		pix = make([]byte, w*h)
	}
	if kind.bpp == 1 {
		if !inflateGray8(idat, pix, w, h) {
			return nil, 0, 0, false, false
		}
	} else if !inflateLuma8(idat, pix, w, h, kind) {
		return nil, 0, 0, false, false
	}
	return pix, w, h, kind.bpp == 1, true
}

var chunkIDAT, chunkIEND = [4]byte{'I', 'D', 'A', 'T'}, [4]byte{'I', 'E', 'N', 'D'}

// inflateGray8 decompresses the zlib stream of the IDAT bodies and undoes
// the per-row filters into pix (h rows of w bytes). It reports false for a
// damaged stream, a bad filter type, too little or too much data.
func inflateGray8(idat [][]byte, pix []byte, w, h int) bool {
	rawp := codec.FileBufs.Get().(*[]byte)
	defer codec.FileBufs.Put(rawp)
	raw, ok := inflateRows(idat, rawp, w+1, h)
	if !ok {
		return false
	}
	for y := 0; y < h; y++ {
		line := raw[y*(w+1) : (y+1)*(w+1)]
		if !unfilterRow(line[0], pix[y*w:y*w+w], line[1:], prevRow(pix, y, w)) {
			return false
		}
	}
	return true
}

// inflateRows decompresses the zlib stream of the IDAT bodies into *rawp
// (grown as needed), which must hold exactly h filtered rows of stride
// bytes (filter byte included), and returns them.
func inflateRows(idat [][]byte, rawp *[]byte, stride, h int) ([]byte, bool) {
	// One contiguous stream, decoded whole into one buffer by
	// metrics/internal/inflate (2.5–3× klauspost's reader on sector-scan
	// frames); it is strict, and anything it refuses is left to Read.
	stream := idat[0]
	if len(idat) > 1 {
		n := 0
		for _, p := range idat {
			n += len(p)
		}
		bufp := codec.FileBufs.Get().(*[]byte)
		defer codec.FileBufs.Put(bufp)
		joined := slices.Grow((*bufp)[:0], n)
		for _, p := range idat {
			joined = append(joined, p...)
		}
		*bufp = joined
		stream = joined
	}
	n := stride * h
	if cap(*rawp) < n {
		*rawp = make([]byte, n)
	}
	raw := (*rawp)[:n]
	// The stream must decode to exactly the filtered rows, and its
	// Adler-32 trailer must end the IDAT data.
	if inflate.Zlib(raw, stream) != nil {
		return nil, false
	}
	return raw, true
}

func prevRow(pix []byte, y, w int) []byte {
	if y == 0 {
		return nil
	}
	return pix[(y-1)*w : y*w]
}

// unfilterRow reconstructs one row of 1-byte pixels (PNG filter types 0–4)
// from its filtered bytes in into cur, given the previous reconstructed row
// (nil for the first row, read as zeros).
func unfilterRow(ft byte, cur, in, prev []byte) bool {
	return unfilter(ft, cur, in, prev, 1)
}
