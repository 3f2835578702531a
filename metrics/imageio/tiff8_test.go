package imageio

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/rexmle/rexmle/metrics/volume"
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

// randomTIFF8 builds an 8-bit TIFF with random size, channels, byte order,
// strips or tiles, compression and predictor, and returns it with its
// samples (row-major, channels interleaved).
func randomTIFF8(t testing.TB, r *rand.Rand) (file []byte, w, h, spp int, pix []byte) {
	t.Helper()
	return randomTIFF8Tags(t, r, nil)
}

// randomTIFF8Tags is randomTIFF8 with extra tags added to the page.
func randomTIFF8Tags(t testing.TB, r *rand.Rand, extra map[uint16]tiffEntry) (file []byte, w, h, spp int, pix []byte) {
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
	e := map[uint16]tiffEntry{256: long(uint32(w)), 257: long(uint32(h)), 258: short(bits...), 262: short(photometric), 277: short(uint32(spp))}
	if r.IntN(2) == 0 {
		f := make([]uint32, spp)
		format := []uint32{1, 4}[r.IntN(2)] // unsigned or undefined
		for i := range f {
			f[i] = format
		}
		e[339] = short(f...)
	}
	if spp == 2 || spp == 4 {
		e[338] = short(2)
	}
	for k, v := range extra {
		e[k] = v
	}
	compression := []uint32{1, 5, 8, 32946, 32773}[r.IntN(5)]
	e[259] = short(compression)
	predict := r.IntN(2) == 0
	if predict {
		e[317] = short(2)
	}
	tiled := r.IntN(3) == 0
	bw, bh := w, 1+r.IntN(h)
	if tiled {
		// Tiles may overhang the right edge; the decoder takes a tile
		// taller than the image as image-high (a PackBits run across that
		// cut is refused), so they stay within the height here.
		bw, bh = 1+r.IntN(w+3), 1+r.IntN(h)
		e[322], e[323] = long(uint32(bw)), long(uint32(bh))
	} else if bh < h || r.IntN(2) == 0 {
		e[278] = long(uint32(bh))
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
				blk = zlibBytes(t, blk)
			case 32773:
				blk = packBitsLiteral(blk)
			}
			blocks = append(blocks, blk)
		}
	}
	if tiled {
		return tiffFileBytes(bo, e, 324, 325, blocks), w, h, spp, pix
	}
	return tiffFileBytes(bo, e, 273, 279, blocks), w, h, spp, pix
}

// check8 requires the fast decoder, where it answers, to agree with
// decodeTIFF; it returns whether the fast decoder answered.
func check8(t *testing.T, file []byte, o Options) bool {
	t.Helper()
	o = pickOptions([]Options{o})
	dirty := bytes.Repeat([]byte{0xAA}, 4096) // reused when large enough
	p, ok := decodeTIFF8(file, o, dirty)
	if !ok {
		return false
	}
	v, err := decodeTIFF(file, o)
	if err != nil {
		t.Fatalf("decodeTIFF8 decoded a file decodeTIFF refuses: %v", err)
	}
	if v.DType != volume.Uint8 || v.Shape != [3]int{p.W, p.H, 1} || v.NumChannels() != p.C || len(v.Data) != len(p.Pix) {
		t.Fatalf("decodeTIFF8: %d×%d×%d; decodeTIFF: shape %v, %d channels, %s", p.W, p.H, p.C, v.Shape, v.NumChannels(), v.DType)
	}
	for i, x := range v.Data {
		if float64(p.Pix[i]) != x {
			t.Fatalf("sample %d: decodeTIFF8 %d, decodeTIFF %v", i, p.Pix[i], x)
		}
	}
	return true
}

func TestTIFF8MatchesDecodeTIFF(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 1))
	for i := 0; i < 400; i++ {
		file, w, h, spp, pix := randomTIFF8(t, r)
		for _, o := range []Options{{}, {FirstPage: true}} {
			if !check8(t, file, o) {
				t.Fatalf("file %d (%d×%d×%d): the fast path did not take an 8-bit TIFF", i, w, h, spp)
			}
		}
		p, _ := decodeTIFF8(file, pickOptions(nil), nil)
		if !bytes.Equal(p.Pix, pix) {
			t.Fatalf("file %d (%d×%d×%d): samples differ from those written", i, w, h, spp)
		}
	}
}

func TestTIFF8FallsBack(t *testing.T) {
	le := binary.LittleEndian
	gray := func(bits, format uint32) map[uint16]tiffEntry {
		return map[uint16]tiffEntry{256: long(2), 257: long(1), 258: short(bits), 262: short(1), 277: short(1), 339: short(format)}
	}
	palette := gray(8, 1)
	palette[262], palette[320] = short(3), short(make([]uint32, 768)...)
	paletteFile := tiffFileBytes(le, palette, 273, 279, [][]byte{{3, 200}})
	// Two pages: the second IFD is a copy of the first.
	twoPages := func() []byte {
		b := tiffFileBytes(le, gray(8, 1), 273, 279, [][]byte{{5, 6}})
		ifd := le.Uint32(b[4:])
		n := uint32(le.Uint16(b[ifd:]))
		end := ifd + 2 + 12*n
		second := uint32(len(b))
		b = append(b, b[ifd:end+4]...)
		le.PutUint32(b[end:], second)
		return b
	}()
	tests := []struct {
		name string
		file []byte
		o    Options
		fast bool
	}{
		{"int8", tiffFileBytes(le, gray(8, 2), 273, 279, [][]byte{{1, 255}}), Options{}, false},
		{"uint16", tiffFileBytes(le, gray(16, 1), 273, 279, [][]byte{{1, 0, 2, 0}}), Options{}, false},
		{"1-bit", tiffFileBytes(le, gray(1, 1), 273, 279, [][]byte{{0x80}}), Options{}, false},
		{"palette indices", paletteFile, Options{}, true},
		{"palette expanded", paletteFile, Options{ExpandPalette: true}, false},
		{"two pages stacked", twoPages, Options{}, false},
		{"two pages, first only", twoPages, Options{FirstPage: true}, true},
		{"strip truncated", tiffFileBytes(le, gray(8, 1), 273, 279, [][]byte{{1}}), Options{}, false},
		{"over MaxBytes", tiffFileBytes(le, gray(8, 1), 273, 279, [][]byte{{1, 2}}), Options{MaxBytes: 8}, false},
		{"not a TIFF", []byte("P5 2 1 255\n.."), Options{}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := check8(t, tc.file, tc.o); got != tc.fast {
				t.Fatalf("fast path answered %v, want %v", got, tc.fast)
			}
		})
	}
}

func TestReadPicture8File(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(8, 2))
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	le := binary.LittleEndian
	u16 := tiffFileBytes(le, map[uint16]tiffEntry{256: long(2), 257: long(1), 258: short(16), 277: short(1)}, 273, 279, [][]byte{{1, 0, 2, 1}})
	tif, _, _, _, _ := randomTIFF8(t, r)
	files := []string{
		write("a.tif", tif),
		write("u16.tif", u16),
		write("gray.png", pngFile(t, 2, 2, 8, 0, [][]byte{{0, 200}, {17, 255}})),
		write("bad.tif", tif[:len(tif)/2]),
		write("junk.tif", []byte("hello")),
		filepath.Join(dir, "missing.tif"),
	}
	for _, o := range []Options{{FirstPage: true}, {MaxBytes: 16, FirstPage: true}} {
		for _, p := range files {
			v, format, err := ReadPictureFile(p, o)
			p8, v2, format2, err2 := ReadPicture8File(p, nil, o)
			if (err == nil) != (err2 == nil) || (err != nil && err.Error() != err2.Error()) || format != format2 {
				t.Fatalf("%s: ReadPictureFile (%q, %v), ReadPicture8File (%q, %v)", filepath.Base(p), format, err, format2, err2)
			}
			if err != nil {
				continue
			}
			if p8 != nil {
				if v2 != nil {
					t.Fatalf("%s: both results set", filepath.Base(p))
				}
				if v.DType != volume.Uint8 || v.Shape != [3]int{p8.W, p8.H, 1} || v.NumChannels() != p8.C {
					t.Fatalf("%s: shapes differ", filepath.Base(p))
				}
				for i, x := range v.Data {
					if float64(p8.Pix[i]) != x {
						t.Fatalf("%s: sample %d differs", filepath.Base(p), i)
					}
				}
				continue
			}
			if v2 == nil || v2.Shape != v.Shape || v2.DType != v.DType || len(v2.Data) != len(v.Data) {
				t.Fatalf("%s: volumes differ", filepath.Base(p))
			}
			for i := range v.Data {
				if v.Data[i] != v2.Data[i] {
					t.Fatalf("%s: sample %d differs", filepath.Base(p), i)
				}
			}
		}
	}
}

func FuzzTIFF8(f *testing.F) {
	r := rand.New(rand.NewPCG(8, 3))
	for i := 0; i < 8; i++ {
		file, _, _, _, _ := randomTIFF8(f, r)
		f.Add(file, false)
	}
	f.Fuzz(func(t *testing.T, data []byte, firstPage bool) {
		check8(t, data, Options{MaxBytes: 1 << 24, FirstPage: firstPage})
	})
}
