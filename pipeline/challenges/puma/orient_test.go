package puma

import (
	"context"
	"encoding/binary"
	"os"
	"testing"

	"github.com/rexmle/rexmle/metrics/polygon"
	"github.com/rexmle/rexmle/pipeline/challenge"
)

// orientedTIFF writes m as an 8-bit grey TIFF whose stored rows are m
// turned so that a reader applying Orientation o (3: rotate 180°, 6: the
// picture is stored turned 90° anticlockwise) gets m back.
func orientedTIFF(m *polygon.Mask, o uint16) func(string) error {
	return func(p string) error {
		w, h := m.W, m.H
		sw, sh := w, h
		if o == 6 {
			sw, sh = h, w
		}
		pix := make([]byte, w*h)
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				v := m.Pix[y*w+x]
				switch o {
				case 3: // stored(sx, sy) = m(w-1-sx, h-1-sy)
					pix[(h-1-y)*sw+(w-1-x)] = v
				case 6: // Pillow's ROTATE_270 on load: m(x, y) = stored(y, sh-1-x)
					pix[(sh-1-x)*sw+y] = v
				}
			}
		}
		le := binary.LittleEndian
		var b []byte
		b = append(b, "II*\x00"...)
		b = le.AppendUint32(b, uint32(8+len(pix)))
		b = append(b, pix...)
		tags := [][3]uint32{{256, 4, uint32(sw)}, {257, 4, uint32(sh)}, {258, 3, 8}, {259, 3, 1}, {262, 3, 1}, {273, 4, 8}, {274, 3, uint32(o)}, {277, 3, 1}, {278, 4, uint32(sh)}, {279, 4, uint32(len(pix))}}
		b = le.AppendUint16(b, uint16(len(tags)))
		for _, t := range tags {
			b = le.AppendUint16(b, uint16(t[0]))
			b = le.AppendUint16(b, uint16(t[1]))
			b = le.AppendUint32(b, 1)
			if t[1] == 3 {
				b = le.AppendUint16(b, uint16(t[2]))
				b = le.AppendUint16(b, 0)
			} else {
				b = le.AppendUint32(b, t[2])
			}
		}
		b = le.AppendUint32(b, 0)
		return os.WriteFile(p, b, 0o644)
	}
}

// TestTissueTIFFOrientation: a tissue mask saved as a TIFF with an
// Orientation tag (as Pillow's tiffinfo={274: …} writes it) scores as the
// picture Pillow loads — turned by the tag — so a correct prediction stored
// turned scores the same Dice as the same prediction as a plain PNG.
func TestTissueTIFFOrientation(t *testing.T) {
	N := Size
	truth := maskOf(N, rect{3, 0, 99, 0, 99}, rect{1, 200, 299, 0, 99}, rect{2, 600, 899, 700, 1000})
	pred := maskOf(N, rect{3, 0, 99, 0, 79}, rect{1, 200, 299, 0, 99}, rect{2, 620, 899, 700, 990})
	for _, c := range []Challenge{Track1Task1, Track2Task1} {
		sub, priv := tissueFixture(t, []*polygon.Mask{truth}, []func(string) error{grayPNG(pred)})
		want, err := c.Grade(context.Background(), sub, priv, challenge.Reference)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range []uint16{3, 6} {
			sub, priv := tissueFixture(t, []*polygon.Mask{truth}, []func(string) error{orientedTIFF(pred, o)})
			got, err := c.Grade(context.Background(), sub, priv, challenge.Reference)
			if err != nil {
				t.Fatalf("%s orientation %d: %v", c.ID(), o, err)
			}
			if got.Values["dice"] != want.Values["dice"] {
				t.Errorf("%s orientation %d: dice %v, the same mask as PNG %v", c.ID(), o, got.Values["dice"], want.Values["dice"])
			}
			t.Logf("%s orientation %d: dice %.6f", c.ID(), o, got.Values["dice"])
		}
	}
}
