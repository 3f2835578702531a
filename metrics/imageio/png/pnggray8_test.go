package png

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	stdpng "image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/rexmle/rexmle/metrics/imageio/internal/codec"
	"github.com/rexmle/rexmle/metrics/imageio/internal/imagetest"
)

// filterRow applies PNG filter ft to one row of 1-byte pixels (prev nil
// for the first row) and returns the filter byte followed by the result.
func filterRow(ft byte, cur, prev []byte) []byte { return imagetest.FilterRowBpp(ft, cur, prev, 1) }

// gray8PNG builds an 8-bit grey PNG of pix (w×h) by hand: each row with
// filter filters[y%len], the zlib stream split into IDAT chunks of at most
// split bytes, extra chunks before the first IDAT, ihdrMod applied to the
// IHDR body.
func gray8PNG(t testing.TB, pix []byte, w, h int, filters []byte, split int, extra [][2]string, ihdrMod func([]byte)) []byte {
	var raw []byte
	for y := 0; y < h; y++ {
		var prev []byte
		if y > 0 {
			prev = pix[(y-1)*w : y*w]
		}
		raw = append(raw, filterRow(filters[y%len(filters)], pix[y*w:y*w+w], prev)...)
	}
	z := imagetest.ZlibBytes(t, raw)
	var out bytes.Buffer
	out.WriteString("\x89PNG\r\n\x1a\n")
	chunk := func(typ string, data []byte) {
		binary.Write(&out, binary.BigEndian, uint32(len(data)))
		out.WriteString(typ)
		out.Write(data)
		binary.Write(&out, binary.BigEndian, crc32.ChecksumIEEE(append([]byte(typ), data...)))
	}
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr, uint32(w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(h))
	ihdr[8], ihdr[9] = 8, 0
	if ihdrMod != nil {
		ihdrMod(ihdr)
	}
	chunk("IHDR", ihdr)
	for _, e := range extra {
		chunk(e[0], []byte(e[1]))
	}
	for len(z) > 0 {
		n := min(split, len(z))
		chunk("IDAT", z[:n])
		z = z[n:]
	}
	chunk("IEND", nil)
	return out.Bytes()
}

// checkGray8Fast decodes file with the fast path and with Read: when the
// fast path accepts it, Read must too, with the same samples. It returns
// whether the fast path accepted the file. The fast path decodes into a
// recycled buffer full of stale bytes, as graders give it.
func checkGray8Fast(t *testing.T, name string, file []byte) bool {
	t.Helper()
	pix, w, h, _, ok := decodePNG8(file, png8Caps{gray8: codec.DefaultMaxBytes}, bytes.Repeat([]byte{0xa5}, 1<<16))
	v, err := Read(bytes.NewReader(file))
	if !ok {
		return false
	}
	if err != nil {
		t.Errorf("%s: fast path accepted a file ReadPNG rejects: %v", name, err)
		return true
	}
	if v.Grid.Shape[0] != w || v.Grid.Shape[1] != h || len(v.Data) != len(pix) {
		t.Errorf("%s: fast path %d×%d, ReadPNG %v", name, w, h, v.Grid.Shape)
		return true
	}
	for i, p := range pix {
		if float64(p) != v.Data[i] {
			t.Errorf("%s: sample %d = %d, ReadPNG %v", name, i, p, v.Data[i])
			break
		}
	}
	return true
}

// TestGray8FastPathMatchesReadPNG: every filter type, split IDATs, Go's
// own encoder at every compression level, ancillary chunks; and damaged or
// unusual files are left to Read (never accepted when it fails).
func TestGray8FastPathMatchesReadPNG(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 2))
	for _, s := range [][2]int{{1, 1}, {1, 5}, {5, 1}, {3, 4}, {17, 9}, {64, 33}, {255, 3}} {
		w, h := s[0], s[1]
		pix := make([]byte, w*h)
		for i := range pix {
			pix[i] = byte(rng.IntN(256))
		}
		for _, f := range [][]byte{{0}, {1}, {2}, {3}, {4}, {4, 3, 2, 1, 0}} {
			for _, split := range []int{1 << 20, 7} {
				file := gray8PNG(t, pix, w, h, f, split, nil, nil)
				if !checkGray8Fast(t, "filters", file) {
					t.Errorf("%d×%d filters %v split %d: fast path declined a plain file", w, h, f, split)
				}
			}
		}
		img := &image.Gray{Pix: pix, Stride: w, Rect: image.Rect(0, 0, w, h)}
		for _, lvl := range []stdpng.CompressionLevel{stdpng.DefaultCompression, stdpng.NoCompression, stdpng.BestSpeed, stdpng.BestCompression} {
			var buf bytes.Buffer
			if err := (&stdpng.Encoder{CompressionLevel: lvl}).Encode(&buf, img); err != nil {
				t.Fatal(err)
			}
			if !checkGray8Fast(t, "go encoder", buf.Bytes()) {
				t.Errorf("%d×%d level %d: fast path declined Go's PNG", w, h, lvl)
			}
		}
	}
	w, h := 20, 10
	pix := make([]byte, w*h)
	for i := range pix {
		pix[i] = byte(rng.IntN(256))
	}
	plain := gray8PNG(t, pix, w, h, []byte{4, 1}, 1<<20, nil, nil)
	if !checkGray8Fast(t, "ancillary", gray8PNG(t, pix, w, h, []byte{4}, 1<<20, [][2]string{{"tEXt", "a\x00b"}, {"gAMA", "\x00\x00\xb1\x8f"}}, nil)) {
		t.Error("declined a file with ancillary chunks")
	}
	declined := map[string][]byte{
		"tRNS":       gray8PNG(t, pix, w, h, []byte{0}, 1<<20, [][2]string{{"tRNS", "\x00\x07"}}, nil),
		"PLTE":       gray8PNG(t, pix, w, h, []byte{0}, 1<<20, [][2]string{{"PLTE", "\x00\x00\x00"}}, nil),
		"interlaced": gray8PNG(t, pix, w, h, []byte{0}, 1<<20, nil, func(b []byte) { b[12] = 1 }),
		"16-bit":     imagetest.PngFile(t, 1, 1, 16, 0, [][]byte{{1, 2}}),
		"RGB":        imagetest.PngFile(t, 1, 1, 8, 2, [][]byte{{1, 2, 3}}),
		"filter 5":   gray8PNG(t, pix, w, h, []byte{5}, 1<<20, nil, nil),
		"truncated":  plain[:len(plain)-20],
		"no IEND":    plain[:len(plain)-12],
		"not PNG":    []byte("GIF89a" + string(make([]byte, 40))),
		// Valid CRCs, contents Pillow refuses (Read refuses them too).
		"short gAMA":  gray8PNG(t, pix, w, h, []byte{0}, 1<<20, [][2]string{{"gAMA", "\x00\x01"}}, nil),
		"short pHYs":  gray8PNG(t, pix, w, h, []byte{0}, 1<<20, [][2]string{{"pHYs", "\x00\x00\x00"}}, nil),
		"zTXt method": gray8PNG(t, pix, w, h, []byte{0}, 1<<20, [][2]string{{"zTXt", "k\x00\x01x"}}, nil),
	}
	for _, name := range []string{"short gAMA", "short pHYs", "zTXt method"} {
		if _, err := Read(bytes.NewReader(declined[name])); err == nil {
			t.Errorf("%s: ReadPNG accepted a file Pillow refuses", name)
		}
	}
	// Bad CRC in IDAT; flipped compressed byte with the CRC fixed (zlib
	// or Adler-32 error); too much and too little pixel data.
	badCRC := bytes.Clone(plain)
	badCRC[len(badCRC)-13] ^= 1
	// Pillow loads it (it checks no CRC from the image data on), and so
	// does the fast path, with Read's samples; a bad CRC before the
	// image data is refused by both.
	if !checkGray8Fast(t, "bad IDAT CRC", badCRC) {
		t.Error("bad IDAT CRC: fast path declined it")
	}
	if v, err := Read(bytes.NewReader(badCRC)); err != nil {
		t.Errorf("ReadPNG refused a bad IDAT CRC: %v", err)
	} else {
		for i, p := range pix {
			if v.Data[i] != float64(p) {
				t.Errorf("bad IDAT CRC: sample %d = %v, want %d", i, v.Data[i], p)
				break
			}
		}
	}
	withText := gray8PNG(t, pix, w, h, []byte{4}, 1<<20, [][2]string{{"tEXt", "a\x00b"}}, nil)
	badText := bytes.Clone(withText)
	badText[33+8+3] ^= 1 // the first byte of the tEXt CRC (tEXt comes before IDAT)
	declined["bad CRC before IDAT"] = badText
	if _, err := Read(bytes.NewReader(badText)); err == nil {
		t.Error("ReadPNG accepted a bad CRC before the image data")
	}
	for _, d := range []struct {
		name string
		pix  []byte
		h    int
	}{{"too little data", pix[:w*(h-1)], h - 1}, {"too much data", append(bytes.Clone(pix), pix[:w]...), h + 1}} {
		f := gray8PNG(t, d.pix, w, d.h, []byte{0}, 1<<20, nil, nil)
		binary.BigEndian.PutUint32(f[20:], uint32(h)) // declare h rows
		binary.BigEndian.PutUint32(f[29:], crc32.ChecksumIEEE(f[12:29]))
		declined[d.name] = f
	}
	for i := 0; i < 30; i++ {
		f := bytes.Clone(plain)
		// IDAT body starts after signature (8), IHDR (25) and the IDAT
		// length and type (8).
		pos := 41 + 2 + rng.IntN(int(binary.BigEndian.Uint32(f[33:]))-2)
		f[pos] ^= byte(1 + rng.IntN(255))
		end := 41 + int(binary.BigEndian.Uint32(f[33:]))
		binary.BigEndian.PutUint32(f[end:], crc32.ChecksumIEEE(f[37:end]))
		checkGray8Fast(t, "damaged", f) // either declined or identical
	}
	for name, f := range declined {
		if checkGray8Fast(t, name, f) {
			t.Errorf("%s: fast path accepted it", name)
		}
	}
	// From a file, and a file that is not a regular file or absent.
	dir := t.TempDir()
	p := filepath.Join(dir, "x.png")
	if err := os.WriteFile(p, plain, 0o644); err != nil {
		t.Fatal(err)
	}
	got, gw, gh, ok := ReadGray8FileInto(nil, p)
	if !ok || gw != w || gh != h || !bytes.Equal(got, pix) {
		t.Errorf("ReadGray8PictureFileInto: ok %v %d×%d, samples equal %v", ok, gw, gh, bytes.Equal(got, pix))
	}
	// Into a recycled buffer: reused when large enough, else a new one.
	big := bytes.Repeat([]byte{0x5a}, w*h+7)
	if got, _, _, ok := ReadGray8FileInto(big, p); !ok || !bytes.Equal(got, pix) || &got[0] != &big[0] {
		t.Errorf("ReadGray8PictureFileInto a large buffer: ok %v, samples equal %v, reused %v", ok, bytes.Equal(got, pix), ok && &got[0] == &big[0])
	}
	small := make([]byte, w*h-1)
	if got, _, _, ok := ReadGray8FileInto(small, p); !ok || !bytes.Equal(got, pix) || &got[0] == &small[0] {
		t.Errorf("ReadGray8PictureFileInto a small buffer: ok %v, samples equal %v", ok, bytes.Equal(got, pix))
	}
	if _, _, _, ok := ReadGray8FileInto(nil, dir); ok {
		t.Error("a directory was accepted")
	}
	if _, _, _, ok := ReadGray8FileInto(nil, filepath.Join(dir, "none.png")); ok {
		t.Error("a missing file was accepted")
	}
	if _, _, _, ok := ReadGray8FileInto(nil, p, Options{MaxBytes: 16}); ok {
		t.Error("MaxBytes ignored")
	}
}

// FuzzGray8FastPath damages 8-bit grey PNGs (a byte changed, the file cut,
// and with fixCRC every chunk's CRC recomputed afterwards, so that damage
// inside chunks reaches the content rules) and wants the fast path to
// decline or to agree with Read, sample for sample: it never accepts a
// file Read refuses.
func FuzzGray8FastPath(f *testing.F) {
	rng := rand.New(rand.NewPCG(8, 1))
	w, h := 12, 5
	pix := make([]byte, w*h)
	for i := range pix {
		pix[i] = byte(rng.IntN(256))
	}
	for _, extra := range [][][2]string{
		nil,
		{{"gAMA", "\x00\x00\xb1\x8f"}, {"tEXt", "k\x00v"}},
		{{"pHYs", "\x00\x00\x0b\x13\x00\x00\x0b\x13\x01"}, {"zTXt", "k\x00\x00x"}, {"iCCP", "p\x00\x00x"}},
	} {
		file := gray8PNG(f, pix, w, h, []byte{1, 4}, 20, extra, nil)
		f.Add(file, uint16(50), byte(0x80), uint16(3), false)
		// A byte of each chunk body changed, CRCs fixed: the content rules.
		for pos := 8; len(file)-pos >= 12; {
			n := int(binary.BigEndian.Uint32(file[pos:]))
			f.Add(file, uint16(pos+8+min(n, 2)), byte(1), uint16(0), true)
			pos += 12 + n
		}
	}
	f.Fuzz(func(t *testing.T, file []byte, at uint16, xor byte, cut uint16, fixCRC bool) {
		if len(file) > 1<<16 {
			return
		}
		file = damaged(file, at, xor, cut)
		if fixCRC {
			for pos := 8; len(file)-pos >= 12; {
				n := int(binary.BigEndian.Uint32(file[pos:]))
				if n < 0 || n > len(file)-pos-12 {
					break
				}
				binary.BigEndian.PutUint32(file[pos+8+n:], crc32.ChecksumIEEE(file[pos+4:pos+8+n]))
				pos += 12 + n
			}
		}
		checkGray8Fast(t, "fuzz", file)
	})
}
