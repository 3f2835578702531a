package imagetest

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// lzwLiteral encodes b as TIFF LZW using literal codes only (9 bits, MSB
// first, a Clear code before every 200 bytes, so the code width never
// grows): valid input for any TIFF LZW decoder.
func lzwLiteral(b []byte) []byte {
	var out []byte
	var acc uint32
	var nbits uint
	put := func(code uint32) {
		acc = acc<<9 | code
		nbits += 9
		for nbits >= 8 {
			out = append(out, byte(acc>>(nbits-8)))
			nbits -= 8
		}
	}
	for i, c := range b {
		if i%200 == 0 {
			put(256)
		}
		put(uint32(c))
	}
	if len(b) == 0 {
		put(256)
	}
	put(257)
	if nbits > 0 {
		out = append(out, byte(acc<<(8-nbits)))
	}
	return out
}

// packBitsLiteral encodes b as PackBits: runs of repeats where bytes
// repeat, literals otherwise.
func packBitsLiteral(b []byte) []byte {
	var out []byte
	for i := 0; i < len(b); {
		j := i
		for j < len(b) && j-i < 128 && b[j] == b[i] {
			j++
		}
		if j-i >= 2 {
			out = append(out, byte(int8(1-(j-i))), b[i])
			i = j
			continue
		}
		j = i + 1
		for j < len(b) && j-i < 128 && (j+1 >= len(b) || b[j] != b[j+1]) {
			j++
		}
		out = append(out, byte(j-i-1))
		out = append(out, b[i:j]...)
		i = j
	}
	return out
}

// RandomTIFF8 builds an 8-bit TIFF with random size, channels, byte order,
// strips or tiles, compression and predictor, and returns it with its
// samples (row-major, channels interleaved).
func RandomTIFF8(t testing.TB, r *rand.Rand) (file []byte, w, h, spp int, pix []byte) {
	t.Helper()
	return RandomTIFF8Tags(t, r, nil)
}

// RandomTIFF8Tags is RandomTIFF8 with extra tags added to the page.
func RandomTIFF8Tags(t testing.TB, r *rand.Rand, extra map[uint16]TiffEntry) (file []byte, w, h, spp int, pix []byte) {
	t.Helper()
	w, h = 1+r.IntN(40), 1+r.IntN(40)
	spp = []int{1, 1, 1, 2, 3, 4}[r.IntN(6)]
	pix = make([]byte, w*h*spp)
	levels := 1 + r.IntN(256)
	for i := range pix {
		pix[i] = byte(r.IntN(levels))
		if i > 0 && r.IntN(3) == 0 {
			pix[i] = pix[i-1]
		}
	}
	var bo binary.ByteOrder = binary.LittleEndian
	if r.IntN(2) == 0 {
		bo = binary.BigEndian
	}
	bits := make([]uint32, spp)
	for i := range bits {
		bits[i] = 8
	}
	photometric := uint32(1)
	switch {
	case spp >= 3:
		photometric = 2
	case r.IntN(4) == 0:
		photometric = uint32(r.IntN(2)) // WhiteIsZero or BlackIsZero
	}
	e := map[uint16]TiffEntry{256: Long(uint32(w)), 257: Long(uint32(h)), 258: Short(bits...), 262: Short(photometric), 277: Short(uint32(spp))}
	if r.IntN(2) == 0 {
		f := make([]uint32, spp)
		format := []uint32{1, 4}[r.IntN(2)] // unsigned or undefined
		for i := range f {
			f[i] = format
		}
		e[339] = Short(f...)
	}
	if spp == 2 || spp == 4 {
		e[338] = Short(2)
	}
	for k, v := range extra {
		e[k] = v
	}
	compression := []uint32{1, 5, 8, 32946, 32773}[r.IntN(5)]
	e[259] = Short(compression)
	predict := r.IntN(2) == 0
	if predict {
		e[317] = Short(2)
	}
	tiled := r.IntN(3) == 0
	bw, bh := w, 1+r.IntN(h)
	if tiled {
		// Tiles may overhang the right edge; the decoder takes a tile
		// taller than the image as image-high (a PackBits run across that
		// cut is refused), so they stay within the height here.
		bw, bh = 1+r.IntN(w+3), 1+r.IntN(h)
		e[322], e[323] = Long(uint32(bw)), Long(uint32(bh))
	} else if bh < h || r.IntN(2) == 0 {
		e[278] = Long(uint32(bh))
	}
	var blocks [][]byte
	for by := 0; by < h; by += bh {
		for bx := 0; bx < w; bx += bw {
			rows := min(bh, h-by)
			if tiled {
				rows = bh
			}
			blk := make([]byte, 0, rows*bw*spp)
			for y := by; y < by+rows; y++ {
				row := make([]byte, bw*spp)
				if y < h {
					cols := min(bw, w-bx)
					copy(row, pix[(y*w+bx)*spp:][:cols*spp])
				}
				if predict {
					for i := len(row) - 1; i >= spp; i-- {
						row[i] -= row[i-spp]
					}
				}
				blk = append(blk, row...)
			}
			switch compression {
			case 5:
				blk = lzwLiteral(blk)
			case 8, 32946:
				blk = ZlibBytes(t, blk)
			case 32773:
				blk = packBitsLiteral(blk)
			}
			blocks = append(blocks, blk)
		}
	}
	if tiled {
		return TiffFileBytes(bo, e, 324, 325, blocks), w, h, spp, pix
	}
	return TiffFileBytes(bo, e, 273, 279, blocks), w, h, spp, pix
}
