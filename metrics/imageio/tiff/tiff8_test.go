package tiff

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/rexmle/rexmle/metrics/imageio/internal/codec"
	"github.com/rexmle/rexmle/metrics/imageio/internal/imagetest"
	"github.com/rexmle/rexmle/metrics/volume"
)

// check8 requires the fast decoder, where it answers, to agree with
// decodeTIFF; it returns whether the fast decoder answered.
func check8(t *testing.T, file []byte, o Options) bool {
	t.Helper()
	o = codec.PickOptions([]Options{o})
	dirty := bytes.Repeat([]byte{0xAA}, 4096) // reused when large enough
	p, ok := decodeTIFF8(file, options{Options: o}, dirty)
	if !ok {
		return false
	}
	v, err := decodeTIFF(file, options{Options: o})
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
		file, w, h, spp, pix := imagetest.RandomTIFF8(t, r)
		for _, o := range []Options{{}, {FirstPage: true}} {
			if !check8(t, file, o) {
				t.Fatalf("file %d (%d×%d×%d): the fast path did not take an 8-bit TIFF", i, w, h, spp)
			}
		}
		p, _ := decodeTIFF8(file, options{Options: codec.PickOptions(nil)}, nil)
		if !bytes.Equal(p.Pix, pix) {
			t.Fatalf("file %d (%d×%d×%d): samples differ from those written", i, w, h, spp)
		}
	}
}

func TestTIFF8FallsBack(t *testing.T) {
	le := binary.LittleEndian
	gray := func(bits, format uint32) map[uint16]imagetest.TiffEntry {
		return map[uint16]imagetest.TiffEntry{256: imagetest.Long(2), 257: imagetest.Long(1), 258: imagetest.Short(bits), 262: imagetest.Short(1), 277: imagetest.Short(1), 339: imagetest.Short(format)}
	}
	palette := gray(8, 1)
	palette[262], palette[320] = imagetest.Short(3), imagetest.Short(make([]uint32, 768)...)
	paletteFile := imagetest.TiffFileBytes(le, palette, 273, 279, [][]byte{{3, 200}})
	// Two pages: the second IFD is a copy of the first.
	twoPages := func() []byte {
		b := imagetest.TiffFileBytes(le, gray(8, 1), 273, 279, [][]byte{{5, 6}})
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
		{"int8", imagetest.TiffFileBytes(le, gray(8, 2), 273, 279, [][]byte{{1, 255}}), Options{}, false},
		{"uint16", imagetest.TiffFileBytes(le, gray(16, 1), 273, 279, [][]byte{{1, 0, 2, 0}}), Options{}, false},
		{"1-bit", imagetest.TiffFileBytes(le, gray(1, 1), 273, 279, [][]byte{{0x80}}), Options{}, false},
		{"palette indices", paletteFile, Options{}, true},
		{"palette expanded", paletteFile, Options{ExpandPalette: true}, false},
		{"two pages stacked", twoPages, Options{}, false},
		{"two pages, first only", twoPages, Options{FirstPage: true}, true},
		{"strip truncated", imagetest.TiffFileBytes(le, gray(8, 1), 273, 279, [][]byte{{1}}), Options{}, false},
		{"over MaxBytes", imagetest.TiffFileBytes(le, gray(8, 1), 273, 279, [][]byte{{1, 2}}), Options{MaxBytes: 8}, false},
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

func FuzzTIFF8(f *testing.F) {
	r := rand.New(rand.NewPCG(8, 3))
	for i := 0; i < 8; i++ {
		file, _, _, _, _ := imagetest.RandomTIFF8(f, r)
		f.Add(file, false)
	}
	f.Fuzz(func(t *testing.T, data []byte, firstPage bool) {
		check8(t, data, Options{MaxBytes: 1 << 24, FirstPage: firstPage})
	})
}
