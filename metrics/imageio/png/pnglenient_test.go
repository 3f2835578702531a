package png

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/metrics/imageio/internal/codec"
	"github.com/rexmle/rexmle/metrics/imageio/internal/imagetest"
)

var pngFormats = []imagetest.PngFormat{
	{Depth: 1, Ct: 0, Interlaced: false}, {Depth: 2, Ct: 0, Interlaced: false}, {Depth: 4, Ct: 0, Interlaced: false}, {Depth: 8, Ct: 0, Interlaced: false}, {Depth: 16, Ct: 0, Interlaced: false},
	{Depth: 8, Ct: 2, Interlaced: false}, {Depth: 16, Ct: 2, Interlaced: false}, {Depth: 1, Ct: 3, Interlaced: false}, {Depth: 2, Ct: 3, Interlaced: false}, {Depth: 4, Ct: 3, Interlaced: false}, {Depth: 8, Ct: 3, Interlaced: false},
	{Depth: 8, Ct: 4, Interlaced: false}, {Depth: 16, Ct: 4, Interlaced: false}, {Depth: 8, Ct: 6, Interlaced: false}, {Depth: 16, Ct: 6, Interlaced: false},
	{Depth: 1, Ct: 0, Interlaced: true}, {Depth: 8, Ct: 0, Interlaced: true}, {Depth: 16, Ct: 0, Interlaced: true}, {Depth: 8, Ct: 2, Interlaced: true}, {Depth: 4, Ct: 3, Interlaced: true}, {Depth: 8, Ct: 6, Interlaced: true},
}

// randomRaw returns filtered rows (random filter types 0–4 and bytes) for
// a w×h image of format f: any such bytes are a valid image.
func randomRaw(rng *rand.Rand, w, h int, f imagetest.PngFormat) ([]byte, []int) {
	rows := pngRowLens(w, h, f.Depth*pngChannelsOf(f.Ct), f.Interlaced)
	var raw []byte
	for _, n := range rows {
		raw = append(raw, byte(rng.IntN(5)))
		for i := 0; i < n; i++ {
			raw = append(raw, byte(rng.IntN(256)))
		}
	}
	return raw, rows
}

// damageCase builds a damaged variant of a file: the header chunks, the
// zlib stream z of the filtered rows raw, and says whether Pillow loads it
// and whether its samples are those of the clean file (zeroRows: all rows
// from that filtered-byte offset on are zero instead).
type damageCase struct {
	name    string
	build   func(head []imagetest.PngChunk, z, raw []byte) []byte
	loads   bool
	zeroRaw int // >0: rows from this raw offset read as zeros
}

func badAdler(z []byte) []byte {
	b := bytes.Clone(z)
	b[len(b)-1] ^= 0x55
	return b
}

func damageCases(t testing.TB) []damageCase {
	return []damageCase{
		{"clean", func(h []imagetest.PngChunk, z, _ []byte) []byte {
			return imagetest.WriteChunks(imagetest.Cat(h, imagetest.Idats(z, 1<<20), imagetest.Iend), nil)
		}, true, 0},
		{"bad CRC IHDR", func(h []imagetest.PngChunk, z, _ []byte) []byte {
			h = bytes2chunks(h)
			h[0].BadCRC = true
			return imagetest.WriteChunks(imagetest.Cat(h, imagetest.Idats(z, 1<<20), imagetest.Iend), nil)
		}, false, 0},
		{"bad CRC ancillary before IDAT", func(h []imagetest.PngChunk, z, _ []byte) []byte {
			return imagetest.WriteChunks(imagetest.Cat(h, []imagetest.PngChunk{{Typ: "tEXt", Body: []byte("k\x00v"), BadCRC: true}}, imagetest.Idats(z, 1<<20), imagetest.Iend), nil)
		}, false, 0},
		{"bad CRC unknown before IDAT", func(h []imagetest.PngChunk, z, _ []byte) []byte {
			return imagetest.WriteChunks(imagetest.Cat(h, []imagetest.PngChunk{{Typ: "prIv", Body: []byte("xyz"), BadCRC: true}}, imagetest.Idats(z, 1<<20), imagetest.Iend), nil)
		}, false, 0},
		{"bad CRC only IDAT", func(h []imagetest.PngChunk, z, _ []byte) []byte {
			c := imagetest.Idats(z, 1<<20)
			c[0].BadCRC = true
			return imagetest.WriteChunks(imagetest.Cat(h, c, imagetest.Iend), nil)
		}, true, 0},
		{"bad CRC every IDAT", func(h []imagetest.PngChunk, z, _ []byte) []byte {
			c := imagetest.Idats(z, 7)
			for i := range c {
				c[i].BadCRC = true
			}
			return imagetest.WriteChunks(imagetest.Cat(h, c, imagetest.Iend), nil)
		}, true, 0},
		{"bad CRC after IDAT", func(h []imagetest.PngChunk, z, _ []byte) []byte {
			return imagetest.WriteChunks(imagetest.Cat(h, imagetest.Idats(z, 1<<20), []imagetest.PngChunk{{Typ: "tEXt", Body: []byte("a\x00b"), BadCRC: true}, {Typ: "IEND", BadCRC: true}}), nil)
		}, true, 0},
		{"no IEND", func(h []imagetest.PngChunk, z, _ []byte) []byte {
			return imagetest.WriteChunks(imagetest.Cat(h, imagetest.Idats(z, 1<<20)), nil)
		}, true, 0},
		{"no IEND nor CRC", func(h []imagetest.PngChunk, z, _ []byte) []byte {
			f := imagetest.WriteChunks(imagetest.Cat(h, imagetest.Idats(z, 1<<20)), nil)
			return f[:len(f)-4]
		}, true, 0},
		{"short garbage after IDAT", func(h []imagetest.PngChunk, z, _ []byte) []byte {
			return imagetest.WriteChunks(imagetest.Cat(h, imagetest.Idats(z, 1<<20)), []byte("\x00\x01\x02"))
		}, true, 0},
		{"non-word garbage after IDAT", func(h []imagetest.PngChunk, z, _ []byte) []byte {
			return imagetest.WriteChunks(imagetest.Cat(h, imagetest.Idats(z, 1<<20)), []byte("\xff\xff\xff\xff\x00-+!garbage garbage"))
		}, true, 0},
		{"word garbage after IDAT", func(h []imagetest.PngChunk, z, _ []byte) []byte {
			return imagetest.WriteChunks(imagetest.Cat(h, imagetest.Idats(z, 1<<20)), []byte("\x00\x00\x10\x00abcdgarbage"))
		}, false, 0},
		{"unknown chunk after IDAT", func(h []imagetest.PngChunk, z, _ []byte) []byte {
			return imagetest.WriteChunks(imagetest.Cat(h, imagetest.Idats(z, 1<<20), []imagetest.PngChunk{{Typ: "zzZz", Body: []byte("hello")}}, imagetest.Iend), nil)
		}, true, 0},
		{"truncated chunk after IDAT", func(h []imagetest.PngChunk, z, _ []byte) []byte {
			f := imagetest.WriteChunks(imagetest.Cat(h, imagetest.Idats(z, 1<<20), []imagetest.PngChunk{{Typ: "tEXt", Body: []byte("key\x00value")}}), nil)
			return f[:len(f)-7]
		}, false, 0},
		{"short gAMA after IDAT", func(h []imagetest.PngChunk, z, _ []byte) []byte {
			return imagetest.WriteChunks(imagetest.Cat(h, imagetest.Idats(z, 1<<20), []imagetest.PngChunk{{Typ: "gAMA", Body: []byte("ab")}}, imagetest.Iend), nil)
		}, false, 0},
		{"short gAMA before IDAT", func(h []imagetest.PngChunk, z, _ []byte) []byte {
			return imagetest.WriteChunks(imagetest.Cat(h, []imagetest.PngChunk{{Typ: "gAMA", Body: []byte("ab")}}, imagetest.Idats(z, 1<<20), imagetest.Iend), nil)
		}, false, 0},
		{"bad Adler-32 same read", func(h []imagetest.PngChunk, z, _ []byte) []byte {
			return imagetest.WriteChunks(imagetest.Cat(h, imagetest.Idats(badAdler(z), 1<<20), imagetest.Iend), nil)
		}, false, 0},
		{"bad Adler-32 own IDAT", func(h []imagetest.PngChunk, z, _ []byte) []byte {
			b := badAdler(z)
			return imagetest.WriteChunks(imagetest.Cat(h, imagetest.Idats(b[:len(b)-4], 1<<20), imagetest.Idats(b[len(b)-4:], 4), imagetest.Iend), nil)
		}, true, 0},
		{"no Adler-32", func(h []imagetest.PngChunk, z, _ []byte) []byte {
			return imagetest.WriteChunks(imagetest.Cat(h, imagetest.Idats(z[:len(z)-4], 1<<20), imagetest.Iend), nil)
		}, true, 0},
		{"cut after last row", func(h []imagetest.PngChunk, z, _ []byte) []byte {
			f := imagetest.WriteChunks(imagetest.Cat(h, imagetest.Idats(z, 1<<20)), nil)
			return f[:len(f)-4-4]
		}, true, 0},
		{"extra zlib data", func(h []imagetest.PngChunk, z, raw []byte) []byte {
			return imagetest.WriteChunks(imagetest.Cat(h, imagetest.Idats(imagetest.ZlibLevel(t, append(bytes.Clone(raw), raw...), 6), 1<<20), imagetest.Iend), nil)
		}, true, 0},
		{"no end of stream", func(h []imagetest.PngChunk, z, raw []byte) []byte {
			// A stored block of the rows, not final, and nothing after.
			b := []byte{0x78, 0x01, 0, byte(len(raw)), byte(len(raw) >> 8), ^byte(len(raw)), ^byte(len(raw) >> 8)}
			return imagetest.WriteChunks(imagetest.Cat(h, imagetest.Idats(append(b, raw...), 1<<20), imagetest.Iend), nil)
		}, true, 0},
		{"stream short of the last row", func(h []imagetest.PngChunk, z, raw []byte) []byte {
			return imagetest.WriteChunks(imagetest.Cat(h, imagetest.Idats(imagetest.ZlibLevel(t, raw[:len(raw)-1], 6), 1<<20), imagetest.Iend), nil)
		}, false, 0},
		{"many IDATs and empty ones", func(h []imagetest.PngChunk, z, _ []byte) []byte {
			var c []imagetest.PngChunk
			for _, p := range imagetest.Idats(z, 3) {
				c = append(c, imagetest.PngChunk{Typ: "IDAT"}, p)
			}
			return imagetest.WriteChunks(imagetest.Cat(h, c, []imagetest.PngChunk{{Typ: "IDAT"}}, imagetest.Iend), nil)
		}, true, 0},
		{"tEXt between IDATs", func(h []imagetest.PngChunk, z, _ []byte) []byte {
			c := imagetest.Idats(z, (len(z)+1)/2)
			return imagetest.WriteChunks(imagetest.Cat(h, c[:1], []imagetest.PngChunk{{Typ: "tEXt", Body: []byte("a\x00b")}}, c[1:], imagetest.Iend), nil)
		}, false, 0},
		{"garbage inside IDAT", func(h []imagetest.PngChunk, z, _ []byte) []byte {
			b := bytes.Clone(z)
			b[2] = 0xff // block type 3 in the first header byte
			b[2] |= 0x06
			return imagetest.WriteChunks(imagetest.Cat(h, imagetest.Idats(b, 1<<20), imagetest.Iend), nil)
		}, false, 0},
		{"file cut inside the rows", func(h []imagetest.PngChunk, z, _ []byte) []byte {
			f := imagetest.WriteChunks(imagetest.Cat(h, imagetest.Idats(z, 1<<20)), nil)
			return f[:len(f)-4-len(z)/2]
		}, false, 0},
	}
}

// bytes2chunks copies the chunk list so that a case can damage it.
func bytes2chunks(h []imagetest.PngChunk) []imagetest.PngChunk {
	return append([]imagetest.PngChunk(nil), h...)
}

// headFor is IHDR (and PLTE, tRNS for paletted files).
func headFor(w, h int, f imagetest.PngFormat) []imagetest.PngChunk {
	head := []imagetest.PngChunk{{Typ: "IHDR", Body: imagetest.IhdrBody(w, h, f)}}
	if f.Ct == 3 {
		pal := make([]byte, 3<<f.Depth)
		for i := range pal {
			pal[i] = byte(i * 37)
		}
		head = append(head, imagetest.PngChunk{Typ: "PLTE", Body: pal}, imagetest.PngChunk{Typ: "tRNS", Body: []byte{0, 128}})
	}
	return head
}

// pillowCaseFile is one generated file and what we expect of it.
type pillowCaseFile struct {
	name  string
	file  []byte
	loads bool
	clean []float64 // samples of the undamaged file
}

func pillowCaseFiles(t testing.TB) []pillowCaseFile {
	rng := rand.New(rand.NewPCG(7, 11))
	var out []pillowCaseFile
	for _, f := range pngFormats {
		for _, size := range [][2]int{{13, 9}, {3, 2}} {
			w, h := size[0], size[1]
			raw, _ := randomRaw(rng, w, h, f)
			z := imagetest.ZlibLevel(t, raw, 6)
			head := headFor(w, h, f)
			clean, err := Read(bytes.NewReader(imagetest.WriteChunks(imagetest.Cat(head, imagetest.Idats(z, 1<<20), imagetest.Iend), nil)))
			if err != nil {
				t.Fatalf("%v: clean file refused: %v", f, err)
			}
			for _, dc := range damageCases(t) {
				out = append(out, pillowCaseFile{
					name:  fmt.Sprintf("%v_%dx%d_%s", f, w, h, strings.ReplaceAll(dc.name, " ", "_")),
					file:  dc.build(head, z, raw),
					loads: dc.loads,
					clean: clean.Data,
				})
			}
		}
	}
	return out
}

// TestPNGPillowRules: every damage case, every format: accepted or refused
// as Pillow does, and when accepted, the clean file's samples.
func TestPNGPillowRules(t *testing.T) {
	for _, c := range pillowCaseFiles(t) {
		if strings.Contains(c.name, "_3x2_") && (strings.HasSuffix(c.name, "between_IDATs") || strings.HasSuffix(c.name, "inside_the_rows")) {
			// The tiny files' rows may all come before the cut or the
			// tEXt: Pillow loads some of them (the cross-check covers it).
			continue
		}
		v, err := Read(bytes.NewReader(c.file))
		if c.loads != (err == nil) {
			t.Errorf("%s: err = %v, want loads = %v", c.name, err, c.loads)
			continue
		}
		if err == nil {
			imagetest.CheckVec(t, c.name, v.Data, c.clean)
		} else if !strings.HasPrefix(err.Error(), "png: ") {
			t.Errorf("%s: error %q lacks the png prefix", c.name, err)
		}
	}
}

// TestPNGPillowShortStream: a stream that ends properly at a row boundary
// in the read that completes the row loads with the missing rows zero; the
// same stream with its Adler-32 in a later IDAT is refused.
func TestPNGPillowShortStream(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, f := range []imagetest.PngFormat{{Depth: 8, Ct: 0, Interlaced: false}, {Depth: 8, Ct: 2, Interlaced: false}, {Depth: 8, Ct: 0, Interlaced: true}, {Depth: 16, Ct: 6, Interlaced: true}} {
		w, h := 11, 10
		raw, rows := randomRaw(rng, w, h, f)
		keep := 0
		for _, n := range rows[:len(rows)/2] {
			keep += n + 1
		}
		short := bytes.Clone(raw)
		clear(short[keep:])
		want, err := Read(bytes.NewReader(imagetest.WriteChunks(imagetest.Cat(headFor(w, h, f), imagetest.Idats(imagetest.ZlibLevel(t, short, 6), 1<<20), imagetest.Iend), nil)))
		if err != nil {
			t.Fatal(err)
		}
		z := imagetest.ZlibLevel(t, raw[:keep], 6)
		v, err := Read(bytes.NewReader(imagetest.WriteChunks(imagetest.Cat(headFor(w, h, f), imagetest.Idats(z, 1<<20), imagetest.Iend), nil)))
		if err != nil {
			t.Fatalf("%v: %v", f, err)
		}
		imagetest.CheckVec(t, f.String(), v.Data, want.Data)
		split := imagetest.WriteChunks(imagetest.Cat(headFor(w, h, f), imagetest.Idats(z[:len(z)-4], 1<<20), imagetest.Idats(z[len(z)-4:], 4), imagetest.Iend), nil)
		if _, err := Read(bytes.NewReader(split)); err == nil {
			t.Errorf("%v: short stream with a separate trailer accepted", f)
		}
	}
}

// storedZlibBad is storedZlib(raw) with the last trailer byte xored with
// adlerXor: the rows end exactly where the Adler-32 trailer begins.
func storedZlibBad(raw []byte, adlerXor byte) []byte {
	z := storedZlib(raw)
	z[len(z)-1] ^= adlerXor
	return z
}

// TestPNGPillowLargeReads: with a bad Adler-32, what counts is whether the
// whole trailer lies in Pillow's 64 KiB read that holds the end of the
// last row (reads restart at each IDAT).
func TestPNGPillowLargeReads(t *testing.T) {
	w, h := 300, 300
	f := imagetest.PngFormat{Depth: 8, Ct: 2, Interlaced: false}
	rng := rand.New(rand.NewPCG(3, 3))
	raw, _ := randomRaw(rng, w, h, f)
	z := storedZlibBad(raw, 0x5a)
	head := headFor(w, h, f)
	for _, tc := range []struct {
		tail  int // bytes of z in the second IDAT
		loads bool
	}{
		{70000, false},              // last read: z[len-4464:], trailer inside
		{pillowReadBlock + 2, true}, // trailer split across two reads
		{pillowReadBlock + 4, true}, // trailer alone in the next read
		{4, true},                   // trailer in its own IDAT
		{len(z), false},             // one IDAT: the last read holds it all
	} {
		k := len(z) - tc.tail
		file := imagetest.WriteChunks(imagetest.Cat(head, imagetest.Idats(z[:k], 1<<20), imagetest.Idats(z[k:], 1<<20), imagetest.Iend), nil)
		_, err := Read(bytes.NewReader(file))
		if (err == nil) != tc.loads {
			t.Errorf("second IDAT of %d bytes: err = %v, want loads = %v", tc.tail, err, tc.loads)
		}
	}
}

// TestPNGPillowCrossCheck writes every case and compares Pillow's
// accept/refuse and samples with ours (16-bit colour files: accept/refuse
// only, as Pillow reduces them to 8 bits).
func TestPNGPillowCrossCheck(t *testing.T) {
	py := imagetest.PillowPython(t)
	dir := t.TempDir()
	cases := pillowCaseFiles(t)
	var paths []string
	for _, c := range cases {
		p := filepath.Join(dir, c.name+".png")
		if err := os.WriteFile(p, c.file, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	script := `
import json, sys
import numpy as np
from PIL import Image
res = []
for p in sys.argv[1:]:
    try:
        a = np.array(Image.open(p))
        res.append({'ok': True, 'values': a.astype(float).flatten().tolist()})
    except Exception as e:
        res.append({'ok': False, 'err': repr(e)})
print(json.dumps(res))
`
	sp := filepath.Join(dir, "read.py")
	os.WriteFile(sp, []byte(script), 0o644)
	out, err := exec.Command(py, append([]string{sp}, paths...)...).Output()
	if err != nil {
		t.Fatalf("python: %v", err)
	}
	var res []struct {
		OK     bool      `json:"ok"`
		Err    string    `json:"err"`
		Values []float64 `json:"values"`
	}
	if err := json.Unmarshal(out, &res); err != nil || len(res) != len(cases) {
		t.Fatalf("python output: %v (%d results)", err, len(res))
	}
	for i, c := range cases {
		v, err := ReadFile(paths[i])
		if res[i].OK != (err == nil) {
			t.Errorf("%s: Pillow ok=%v (%s), ours err=%v", c.name, res[i].OK, res[i].Err, err)
			continue
		}
		if err == nil && !strings.Contains(c.name, "d16_ct2") && !strings.Contains(c.name, "d16_ct4") && !strings.Contains(c.name, "d16_ct6") {
			imagetest.CheckVec(t, c.name, v.Data, res[i].Values)
		}
	}
}

// damaged returns a copy of file with byte at xored with xor (when at lies
// inside it) and then its last cut bytes removed (when fewer than all), the
// fuzz targets' damage.
func damaged(file []byte, at uint16, xor byte, cut uint16) []byte {
	file = bytes.Clone(file)
	if int(at) < len(file) {
		file[at] ^= xor
	}
	if int(cut) < len(file) && cut > 0 {
		file = file[:len(file)-int(cut)]
	}
	return file
}

// FuzzPNGPillow damages a valid PNG: Read never panics, and where the
// strict decoder accepts the file the lenient path gives the same samples.
func FuzzPNGPillow(f *testing.F) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, pf := range []imagetest.PngFormat{{Depth: 8, Ct: 0, Interlaced: false}, {Depth: 4, Ct: 3, Interlaced: false}, {Depth: 16, Ct: 2, Interlaced: true}} {
		raw, _ := randomRaw(rng, 9, 7, pf)
		z := imagetest.ZlibLevel(f, raw, 6)
		f.Add(imagetest.WriteChunks(imagetest.Cat(headFor(9, 7, pf), imagetest.Idats(z, 10), imagetest.Iend), nil), uint16(40), byte(1), uint16(0))
	}
	f.Fuzz(func(t *testing.T, file []byte, at uint16, xor byte, cut uint16) {
		if len(file) > 1<<16 {
			return
		}
		file = damaged(file, at, xor, cut)
		o := codec.PickOptions([]Options{{MaxBytes: 1 << 22}})
		v, err := Read(bytes.NewReader(file), o)
		img, lerr := decodePNGPillow(file, o)
		if err != nil || lerr != nil {
			return
		}
		hd, herr := readPNGHeader(file)
		if herr != nil {
			t.Fatalf("ReadPNG accepted a file with a bad header: %v", herr)
		}
		lv, err := pngVolume(img, hd, false)
		if err != nil {
			t.Fatal(err)
		}
		if v.NumChannels() != lv.NumChannels() || len(v.Data) != len(lv.Data) {
			t.Fatalf("ReadPNG %d channels × %d, lenient %d × %d", v.NumChannels(), len(v.Data), lv.NumChannels(), len(lv.Data))
		}
		for i := range v.Data {
			if v.Data[i] != lv.Data[i] {
				t.Fatalf("sample %d: ReadPNG %v, lenient %v", i, v.Data[i], lv.Data[i])
			}
		}
	})
}
