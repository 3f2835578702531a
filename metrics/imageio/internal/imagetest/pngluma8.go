package imagetest

import (
	"testing"
)

// FilterRowBpp applies PNG filter ft to one row of bpp-byte pixels (prev
// nil for the first row) and returns the filter byte followed by the result.
func FilterRowBpp(ft byte, cur, prev []byte, bpp int) []byte {
	out := []byte{ft}
	for i, x := range cur {
		var a, b, c int
		if i >= bpp {
			a = int(cur[i-bpp])
		}
		if prev != nil {
			b = int(prev[i])
			if i >= bpp {
				c = int(prev[i-bpp])
			}
		}
		pred := PngPredictor(ft, a, b, c)
		out = append(out, x-byte(pred))
	}
	return out
}

// LumaPNG builds a PNG by hand of the rows in pix (h rows of w pixels of
// bpp bytes), bit depth depth and colour type ct, row y filtered with
// filters[y%len].
func LumaPNG(t testing.TB, pix []byte, w, h, bpp, depth, ct int, filters []byte, extra ...[2]string) []byte {
	stride := w * bpp
	var raw []byte
	for y := 0; y < h; y++ {
		var prev []byte
		if y > 0 {
			prev = pix[(y-1)*stride : y*stride]
		}
		raw = append(raw, FilterRowBpp(filters[y%len(filters)], pix[y*stride:(y+1)*stride], prev, bpp)...)
	}
	return pngFileRaw(t, uint32(w), uint32(h), byte(depth), byte(ct), raw, extra...)
}
