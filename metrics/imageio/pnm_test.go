package imageio

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/metrics/imageio/internal/imagetest"
)

// TestPNMHand: hand-computed samples of binary PGM/PPM/PBM files.
func TestPNMHand(t *testing.T) {
	for _, c := range []struct {
		name, file string
		want       []float64
		ch         int
	}{
		{"p5 255", "P5\n3 1\n255\n\x00\x7f\xff", []float64{0, 127, 255}, 1},
		{"p5 comment", "P5 # a comment\n2 # w\n1\n255 \x05\x06", []float64{5, 6}, 1},
		{"p5 maxval 7", "P5\n4 1\n7\n\x00\x01\x07\x09", []float64{0, 36, 255, 255}, 1},    // round(1/7·255) = 36; 9 clipped
		{"p5 maxval 2", "P5\n3 1\n2\n\x00\x01\x02", []float64{0, 128, 255}, 1},            // 127.5 → 128 (half to even)
		{"p5 maxval 6", "P5\n2 1\n6\n\x01\x03", []float64{42, 128}, 1},                    // 42.5 → 42, 127.5 → 128
		{"p5 16-bit", "P5\n2 1\n65535\n\x01\x02\xff\xff", []float64{258, 65535}, 1},       // mode I, as stored
		{"p5 maxval 1000", "P5\n2 1\n1000\n\x01\xf4\x03\xe8", []float64{32768, 65535}, 1}, // round(500/1000·65535) = 32767.5 → 32768
		{"p6", "P6\n1 2\n255\n\x01\x02\x03\x04\x05\x06", []float64{1, 2, 3, 4, 5, 6}, 3},
		{"p6 maxval 1", "P6\n1 1\n1\n\x00\x01\x00", []float64{0, 255, 0}, 3},
		{"p4", "P4\n10 1\n\xa0\x40", []float64{0, 1, 0, 1, 1, 1, 1, 1, 1, 0}, 1},
		{"p5 extra data", "P5\n1 1\n255\n\x09trailing", []float64{9}, 1},
	} {
		v, f, err := ReadPicture(strings.NewReader(c.file))
		if err != nil || f != FormatPNM {
			t.Errorf("%s: %v (%s)", c.name, err, f)
			continue
		}
		if !slices.Equal(v.Data, c.want) || v.NumChannels() != c.ch {
			t.Errorf("%s: %v × %d, want %v × %d", c.name, v.Data, v.NumChannels(), c.want, c.ch)
		}
	}
	for _, bad := range []string{"P5\n2 1\n255\n\x00", "P5\n2 1\n0\n\x00\x00", "P5\n2 1\n65536\n", "P5\n2", "P2\n1 1\n255\n7", "P7\n", "P5\n12345678901 1\n255\n"} {
		if _, _, err := ReadPicture(strings.NewReader(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestPNMPillow: random binary PBM/PGM/PPM files (several maxvals, header
// comments) read as numpy.array(Image.open(f)) reads them.
func TestPNMPillow(t *testing.T) {
	py := imagetest.PillowPython(t)
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(35, 5))
	var paths []string
	for i := 0; i < 60; i++ {
		w, h := 1+rng.IntN(19), 1+rng.IntN(13)
		kind := []string{"P4", "P5", "P6"}[i%3]
		maxval := []int{255, 1, 7, 100, 254, 256, 1000, 65535}[rng.IntN(8)]
		var b strings.Builder
		b.WriteString(kind)
		if i%4 == 0 {
			b.WriteString(" # made by a test\r")
		}
		fmt.Fprintf(&b, "\n%d\t%d\n", w, h)
		n := w * h
		switch kind {
		case "P4":
			n = (w + 7) / 8 * h
			for j := 0; j < n; j++ {
				b.WriteByte(byte(rng.IntN(256)))
			}
		default:
			fmt.Fprintf(&b, "%d\n", maxval)
			if kind == "P6" {
				n *= 3
			}
			for j := 0; j < n; j++ {
				s := rng.IntN(maxval + 1 + maxval/8) // some samples above maxval
				if maxval > 255 {
					b.WriteByte(byte(s >> 8 & 0xff))
				}
				b.WriteByte(byte(s))
			}
		}
		p := filepath.Join(dir, fmt.Sprintf("f%02d.png", i)) // named .png: read by content
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	res := imagetest.RunPillow(t, py, append([]string{"read"}, paths...)...)
	for _, r := range res {
		v, f, err := ReadPictureFile(r.Path)
		if err != nil || f != FormatPNM {
			t.Errorf("%s: Pillow reads mode %s, we: %v (%s)", filepath.Base(r.Path), r.Mode, err, f)
			continue
		}
		if !slices.Equal(v.Data, r.Values) {
			b, _ := json.Marshal(r.Values)
			t.Errorf("%s (mode %s): %v, Pillow %s", filepath.Base(r.Path), r.Mode, v.Data, b)
		}
		if OneBitPictureFile(r.Path) != (r.Mode == "1") {
			t.Errorf("%s: OneBitPictureFile %v, Pillow mode %s", filepath.Base(r.Path), !(r.Mode == "1"), r.Mode)
		}
	}
}
