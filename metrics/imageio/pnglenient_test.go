package imageio

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// pngChunk is one chunk of a hand-built PNG; badCRC flips its CRC.
type pngChunk struct {
	typ    string
	body   []byte
	badCRC bool
}

func writeChunks(chunks []pngChunk, tail []byte) []byte {
	var out bytes.Buffer
	out.WriteString("\x89PNG\r\n\x1a\n")
	for _, c := range chunks {
		binary.Write(&out, binary.BigEndian, uint32(len(c.body)))
		out.WriteString(c.typ)
		out.Write(c.body)
		crc := crc32.ChecksumIEEE(append([]byte(c.typ), c.body...))
		if c.badCRC {
			crc ^= 0x10000
		}
		binary.Write(&out, binary.BigEndian, crc)
	}
	out.Write(tail)
	return out.Bytes()
}

// pngFormat is a bit depth, colour type and interlace method.
type pngFormat struct {
	depth, ct  int
	interlaced bool
}

func (f pngFormat) String() string {
	s := fmt.Sprintf("d%d_ct%d", f.depth, f.ct)
	if f.interlaced {
		s += "_i"
	}
	return s
}

var pngFormats = []pngFormat{
	{1, 0, false}, {2, 0, false}, {4, 0, false}, {8, 0, false}, {16, 0, false},
	{8, 2, false}, {16, 2, false}, {1, 3, false}, {2, 3, false}, {4, 3, false}, {8, 3, false},
	{8, 4, false}, {16, 4, false}, {8, 6, false}, {16, 6, false},
	{1, 0, true}, {8, 0, true}, {16, 0, true}, {8, 2, true}, {4, 3, true}, {8, 6, true},
}

// randomRaw returns filtered rows (random filter types 0–4 and bytes) for
// a w×h image of format f: any such bytes are a valid image.
func randomRaw(rng *rand.Rand, w, h int, f pngFormat) ([]byte, []int) {
	rows := pngRowLens(w, h, f.depth*pngChannelsOf(f.ct), f.interlaced)
	var raw []byte
	for _, n := range rows {
		raw = append(raw, byte(rng.IntN(5)))
		for i := 0; i < n; i++ {
			raw = append(raw, byte(rng.IntN(256)))
		}
	}
	return raw, rows
}

func zlibLevel(t testing.TB, raw []byte, level int) []byte {
	var b bytes.Buffer
	zw, err := zlib.NewWriterLevel(&b, level)
	if err != nil {
		t.Fatal(err)
	}
	zw.Write(raw)
	zw.Close()
	return b.Bytes()
}

func ihdrBody(w, h int, f pngFormat) []byte {
	b := make([]byte, 13)
	binary.BigEndian.PutUint32(b, uint32(w))
	binary.BigEndian.PutUint32(b[4:], uint32(h))
	b[8], b[9] = byte(f.depth), byte(f.ct)
	if f.interlaced {
		b[12] = 1
	}
	return b
}

// damageCase builds a damaged variant of a file: the header chunks, the
// zlib stream z of the filtered rows raw, and says whether Pillow loads it
// and whether its samples are those of the clean file (zeroRows: all rows
// from that filtered-byte offset on are zero instead).
type damageCase struct {
	name    string
	build   func(head []pngChunk, z, raw []byte) []byte
	loads   bool
	zeroRaw int // >0: rows from this raw offset read as zeros
}

func idats(z []byte, split int) []pngChunk {
	var c []pngChunk
	for len(z) > 0 {
		n := min(split, len(z))
		c = append(c, pngChunk{typ: "IDAT", body: z[:n]})
		z = z[n:]
	}
	return c
}

func cat(parts ...[]pngChunk) []pngChunk {
	var out []pngChunk
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

var iend = []pngChunk{{typ: "IEND"}}

func badAdler(z []byte) []byte {
	b := bytes.Clone(z)
	b[len(b)-1] ^= 0x55
	return b
}

func damageCases(t testing.TB) []damageCase {
	return []damageCase{
		{"clean", func(h []pngChunk, z, _ []byte) []byte { return writeChunks(cat(h, idats(z, 1<<20), iend), nil) }, true, 0},
		{"bad CRC IHDR", func(h []pngChunk, z, _ []byte) []byte {
			h = bytes2chunks(h)
			h[0].badCRC = true
			return writeChunks(cat(h, idats(z, 1<<20), iend), nil)
		}, false, 0},
		{"bad CRC ancillary before IDAT", func(h []pngChunk, z, _ []byte) []byte {
			return writeChunks(cat(h, []pngChunk{{typ: "tEXt", body: []byte("k\x00v"), badCRC: true}}, idats(z, 1<<20), iend), nil)
		}, false, 0},
		{"bad CRC unknown before IDAT", func(h []pngChunk, z, _ []byte) []byte {
			return writeChunks(cat(h, []pngChunk{{typ: "prIv", body: []byte("xyz"), badCRC: true}}, idats(z, 1<<20), iend), nil)
		}, false, 0},
		{"bad CRC only IDAT", func(h []pngChunk, z, _ []byte) []byte {
			c := idats(z, 1<<20)
			c[0].badCRC = true
			return writeChunks(cat(h, c, iend), nil)
		}, true, 0},
		{"bad CRC every IDAT", func(h []pngChunk, z, _ []byte) []byte {
			c := idats(z, 7)
			for i := range c {
				c[i].badCRC = true
			}
			return writeChunks(cat(h, c, iend), nil)
		}, true, 0},
		{"bad CRC after IDAT", func(h []pngChunk, z, _ []byte) []byte {
			return writeChunks(cat(h, idats(z, 1<<20), []pngChunk{{typ: "tEXt", body: []byte("a\x00b"), badCRC: true}, {typ: "IEND", badCRC: true}}), nil)
		}, true, 0},
		{"no IEND", func(h []pngChunk, z, _ []byte) []byte { return writeChunks(cat(h, idats(z, 1<<20)), nil) }, true, 0},
		{"no IEND nor CRC", func(h []pngChunk, z, _ []byte) []byte {
			f := writeChunks(cat(h, idats(z, 1<<20)), nil)
			return f[:len(f)-4]
		}, true, 0},
		{"short garbage after IDAT", func(h []pngChunk, z, _ []byte) []byte {
			return writeChunks(cat(h, idats(z, 1<<20)), []byte("\x00\x01\x02"))
		}, true, 0},
		{"non-word garbage after IDAT", func(h []pngChunk, z, _ []byte) []byte {
			return writeChunks(cat(h, idats(z, 1<<20)), []byte("\xff\xff\xff\xff\x00-+!garbage garbage"))
		}, true, 0},
		{"word garbage after IDAT", func(h []pngChunk, z, _ []byte) []byte {
			return writeChunks(cat(h, idats(z, 1<<20)), []byte("\x00\x00\x10\x00abcdgarbage"))
		}, false, 0},
		{"unknown chunk after IDAT", func(h []pngChunk, z, _ []byte) []byte {
			return writeChunks(cat(h, idats(z, 1<<20), []pngChunk{{typ: "zzZz", body: []byte("hello")}}, iend), nil)
		}, true, 0},
		{"truncated chunk after IDAT", func(h []pngChunk, z, _ []byte) []byte {
			f := writeChunks(cat(h, idats(z, 1<<20), []pngChunk{{typ: "tEXt", body: []byte("key\x00value")}}), nil)
			return f[:len(f)-7]
		}, false, 0},
		{"short gAMA after IDAT", func(h []pngChunk, z, _ []byte) []byte {
			return writeChunks(cat(h, idats(z, 1<<20), []pngChunk{{typ: "gAMA", body: []byte("ab")}}, iend), nil)
		}, false, 0},
		{"short gAMA before IDAT", func(h []pngChunk, z, _ []byte) []byte {
			return writeChunks(cat(h, []pngChunk{{typ: "gAMA", body: []byte("ab")}}, idats(z, 1<<20), iend), nil)
		}, false, 0},
		{"bad Adler-32 same read", func(h []pngChunk, z, _ []byte) []byte {
			return writeChunks(cat(h, idats(badAdler(z), 1<<20), iend), nil)
		}, false, 0},
		{"bad Adler-32 own IDAT", func(h []pngChunk, z, _ []byte) []byte {
			b := badAdler(z)
			return writeChunks(cat(h, idats(b[:len(b)-4], 1<<20), idats(b[len(b)-4:], 4), iend), nil)
		}, true, 0},
		{"no Adler-32", func(h []pngChunk, z, _ []byte) []byte {
			return writeChunks(cat(h, idats(z[:len(z)-4], 1<<20), iend), nil)
		}, true, 0},
		{"cut after last row", func(h []pngChunk, z, _ []byte) []byte {
			f := writeChunks(cat(h, idats(z, 1<<20)), nil)
			return f[:len(f)-4-4]
		}, true, 0},
		{"extra zlib data", func(h []pngChunk, z, raw []byte) []byte {
			return writeChunks(cat(h, idats(zlibLevel(t, append(bytes.Clone(raw), raw...), 6), 1<<20), iend), nil)
		}, true, 0},
		{"no end of stream", func(h []pngChunk, z, raw []byte) []byte {
			// A stored block of the rows, not final, and nothing after.
			b := []byte{0x78, 0x01, 0, byte(len(raw)), byte(len(raw) >> 8), ^byte(len(raw)), ^byte(len(raw) >> 8)}
			return writeChunks(cat(h, idats(append(b, raw...), 1<<20), iend), nil)
		}, true, 0},
		{"stream short of the last row", func(h []pngChunk, z, raw []byte) []byte {
			return writeChunks(cat(h, idats(zlibLevel(t, raw[:len(raw)-1], 6), 1<<20), iend), nil)
		}, false, 0},
		{"many IDATs and empty ones", func(h []pngChunk, z, _ []byte) []byte {
			var c []pngChunk
			for _, p := range idats(z, 3) {
				c = append(c, pngChunk{typ: "IDAT"}, p)
			}
			return writeChunks(cat(h, c, []pngChunk{{typ: "IDAT"}}, iend), nil)
		}, true, 0},
		{"tEXt between IDATs", func(h []pngChunk, z, _ []byte) []byte {
			c := idats(z, (len(z)+1)/2)
			return writeChunks(cat(h, c[:1], []pngChunk{{typ: "tEXt", body: []byte("a\x00b")}}, c[1:], iend), nil)
		}, false, 0},
		{"garbage inside IDAT", func(h []pngChunk, z, _ []byte) []byte {
			b := bytes.Clone(z)
			b[2] = 0xff // block type 3 in the first header byte
			b[2] |= 0x06
			return writeChunks(cat(h, idats(b, 1<<20), iend), nil)
		}, false, 0},
		{"file cut inside the rows", func(h []pngChunk, z, _ []byte) []byte {
			f := writeChunks(cat(h, idats(z, 1<<20)), nil)
			return f[:len(f)-4-len(z)/2]
		}, false, 0},
	}
}

// bytes2chunks copies the chunk list so that a case can damage it.
func bytes2chunks(h []pngChunk) []pngChunk { return append([]pngChunk(nil), h...) }

// headFor is IHDR (and PLTE, tRNS for paletted files).
func headFor(w, h int, f pngFormat) []pngChunk {
	head := []pngChunk{{typ: "IHDR", body: ihdrBody(w, h, f)}}
	if f.ct == 3 {
		pal := make([]byte, 3<<f.depth)
		for i := range pal {
			pal[i] = byte(i * 37)
		}
		head = append(head, pngChunk{typ: "PLTE", body: pal}, pngChunk{typ: "tRNS", body: []byte{0, 128}})
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
			z := zlibLevel(t, raw, 6)
			head := headFor(w, h, f)
			clean, err := ReadPNG(bytes.NewReader(writeChunks(cat(head, idats(z, 1<<20), iend), nil)))
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
		v, err := ReadPNG(bytes.NewReader(c.file))
		if c.loads != (err == nil) {
			t.Errorf("%s: err = %v, want loads = %v", c.name, err, c.loads)
			continue
		}
		if err == nil {
			checkVec(t, c.name, v.Data, c.clean)
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
	for _, f := range []pngFormat{{8, 0, false}, {8, 2, false}, {8, 0, true}, {16, 6, true}} {
		w, h := 11, 10
		raw, rows := randomRaw(rng, w, h, f)
		keep := 0
		for _, n := range rows[:len(rows)/2] {
			keep += n + 1
		}
		short := bytes.Clone(raw)
		clear(short[keep:])
		want, err := ReadPNG(bytes.NewReader(writeChunks(cat(headFor(w, h, f), idats(zlibLevel(t, short, 6), 1<<20), iend), nil)))
		if err != nil {
			t.Fatal(err)
		}
		z := zlibLevel(t, raw[:keep], 6)
		v, err := ReadPNG(bytes.NewReader(writeChunks(cat(headFor(w, h, f), idats(z, 1<<20), iend), nil)))
		if err != nil {
			t.Fatalf("%v: %v", f, err)
		}
		checkVec(t, f.String(), v.Data, want.Data)
		split := writeChunks(cat(headFor(w, h, f), idats(z[:len(z)-4], 1<<20), idats(z[len(z)-4:], 4), iend), nil)
		if _, err := ReadPNG(bytes.NewReader(split)); err == nil {
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
	f := pngFormat{8, 2, false}
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
		file := writeChunks(cat(head, idats(z[:k], 1<<20), idats(z[k:], 1<<20), iend), nil)
		_, err := ReadPNG(bytes.NewReader(file))
		if (err == nil) != tc.loads {
			t.Errorf("second IDAT of %d bytes: err = %v, want loads = %v", tc.tail, err, tc.loads)
		}
	}
}

// TestPNGPillowCrossCheck writes every case and compares Pillow's
// accept/refuse and samples with ours (16-bit colour files: accept/refuse
// only, as Pillow reduces them to 8 bits).
func TestPNGPillowCrossCheck(t *testing.T) {
	py := pillowPython(t)
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
		v, err := ReadPNGFile(paths[i])
		if res[i].OK != (err == nil) {
			t.Errorf("%s: Pillow ok=%v (%s), ours err=%v", c.name, res[i].OK, res[i].Err, err)
			continue
		}
		if err == nil && !strings.Contains(c.name, "d16_ct2") && !strings.Contains(c.name, "d16_ct4") && !strings.Contains(c.name, "d16_ct6") {
			checkVec(t, c.name, v.Data, res[i].Values)
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

// FuzzPNGPillow damages a valid PNG: ReadPNG never panics, and where the
// strict decoder accepts the file the lenient path gives the same samples.
func FuzzPNGPillow(f *testing.F) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, pf := range []pngFormat{{8, 0, false}, {4, 3, false}, {16, 2, true}} {
		raw, _ := randomRaw(rng, 9, 7, pf)
		z := zlibLevel(f, raw, 6)
		f.Add(writeChunks(cat(headFor(9, 7, pf), idats(z, 10), iend), nil), uint16(40), byte(1), uint16(0))
	}
	f.Fuzz(func(t *testing.T, file []byte, at uint16, xor byte, cut uint16) {
		if len(file) > 1<<16 {
			return
		}
		file = damaged(file, at, xor, cut)
		o := pickOptions([]Options{{MaxBytes: 1 << 22}})
		v, err := ReadPNG(bytes.NewReader(file), o)
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
