package tiff

import (
	"github.com/rexmle/rexmle/metrics/volume"
)

// TagOrientation is the TIFF Orientation tag (EXIF 0x0112).
const TagOrientation = 274

// pillowOrientation is the Orientation value Pillow acts on for a page: the
// tag's single value when it is 2…8 (Pillow's exif_transpose table), else 1
// (absent, 1, out of range, or more than one value, which Pillow reads as a
// tuple that matches no entry).
func pillowOrientation(ifd tiffIFD) uint64 {
	v := ifd[TagOrientation]
	if len(v) != 1 || v[0] < 2 || v[0] > 8 {
		return 1
	}
	return v[0]
}

// orientPillow transposes a decoded page as Pillow ≥ 10 does when it loads
// a TIFF (TiffImageFile.load_end → ImageOps.exif_transpose, in place):
// 2 FLIP_LEFT_RIGHT, 3 ROTATE_180, 4 FLIP_TOP_BOTTOM, 5 TRANSPOSE,
// 6 ROTATE_270, 7 TRANSVERSE, 8 ROTATE_90; 5–8 swap width and height. Every
// channel of a pixel moves together.
func orientPillow(v *volume.Volume, orientation uint64) {
	if orientation < 2 || orientation > 8 {
		return
	}
	w, h, nc := v.Shape[0], v.Shape[1], v.NumChannels()
	ow, oh := w, h
	if orientation >= 5 {
		ow, oh = h, w
	}
	// src gives the source pixel (x, y) of output pixel (ox, oy).
	src := func(ox, oy int) (int, int) {
		switch orientation {
		case 2:
			return w - 1 - ox, oy
		case 3:
			return w - 1 - ox, h - 1 - oy
		case 4:
			return ox, h - 1 - oy
		case 5:
			return oy, ox
		case 6:
			return oy, h - 1 - ox
		case 7:
			return w - 1 - oy, h - 1 - ox
		default: // 8
			return w - 1 - oy, ox
		}
	}
	out := make([]float64, len(v.Data))
	for oy := 0; oy < oh; oy++ {
		for ox := 0; ox < ow; ox++ {
			x, y := src(ox, oy)
			copy(out[(oy*ow+ox)*nc:(oy*ow+ox+1)*nc], v.Data[(y*w+x)*nc:(y*w+x+1)*nc])
		}
	}
	v.Data = out
	v.Shape[0], v.Shape[1] = ow, oh
}
