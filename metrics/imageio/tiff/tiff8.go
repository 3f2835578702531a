package tiff

import (
	"github.com/rexmle/rexmle/metrics/volume"
)

// DecodePillow8 decodes the TIFF b as ReadPillow does (the first
// page), its 8-bit unsigned samples as bytes when decodeTIFF8 takes the
// page (p8, into buf when it is large enough), any other page as a volume
// (v): exactly one of them is non-nil when err is nil.
func DecodePillow8(b []byte, o Options, buf []byte) (p8 *Picture8, v *volume.Volume, err error) {
	o.FirstPage = true // as ReadPillow, which imageio.ReadPictureFile uses for TIFF
	po := options{Options: o, pillow: true}
	if p, ok := decodeTIFF8(b, po, buf); ok {
		return p, nil, nil
	}
	v, err = decodeTIFF(b, po)
	if err != nil {
		return nil, nil, err
	}
	return nil, v, nil
}

// decodeTIFF8 decodes the first page of an 8-bit unsigned TIFF straight
// into bytes (into buf when it is large enough). ok is false when decodeTIFF must decode the file instead:
// a page of another sample type, a palette to expand, more pages to stack,
// or any error (decodeTIFF then reports it in its words). Validation is
// decodeTIFF's own (readIFD, layout, block), so both accept the same files.
func decodeTIFF8(b []byte, o options, buf []byte) (*Picture8, bool) {
	t, err := openTIFF(b)
	if err != nil {
		return nil, false
	}
	ifd, next, err := t.readIFD(uint64(t.bo.Uint32(b[4:])))
	if err != nil || (next != 0 && !o.FirstPage) {
		return nil, false
	}
	l, err := t.layout(ifd, o)
	if err != nil || l.bits != 8 || l.dt != volume.Uint8 || (l.photometric == 3 && o.ExpandPalette) || l.planar {
		return nil, false
	}
	if pl := l.pillow; pl != nil {
		if pillowOrientation(ifd) != 1 {
			return nil, false // transposed on load: decodeTIFF
		}
		switch {
		case pl.rawmode == "L" && l.spp == 1, pl.rawmode == "P" && l.spp == 1,
			pl.rawmode == pl.mode && (pl.mode == "LA" || pl.mode == "PA" || pl.mode == "RGB" || pl.mode == "RGBA"):
			// stored samples are Pillow's
		default:
			return nil, false // inverted, unpremultiplied or dropped samples: decodeTIFF
		}
	}
	w, h, spp := l.w, l.h, l.spp
	n := w * h * spp
	if uint64(cap(buf)) < n {
		buf = make([]byte, n)
	}
	p := &Picture8{W: int(w), H: int(h), C: int(spp), Pix: buf[:n]}
	stride := w * spp
	var scratch []byte
	for bi := range l.offsets {
		dst := scratch
		if !l.tiled {
			// A strip is whole rows of the image: decode in place.
			by := uint64(bi) / l.across * l.bh
			if by >= h {
				return nil, false
			}
			rows := min(l.bh, h-by)
			dst = p.Pix[by*stride : (by+rows)*stride]
		}
		bx, by, rows, data, err := t.block(l, bi, dst)
		if err != nil {
			return nil, false
		}
		for y := uint64(0); y < rows && by+y < h; y++ {
			row := data[y*l.rowBytes : (y+1)*l.rowBytes]
			if l.predictor == 2 {
				undoHorizontalPredictor(row, int(spp), 1, t.bo)
			}
			if !l.tiled {
				continue
			}
			cols := min(l.bw, w-bx)
			copy(p.Pix[(by+y)*stride+bx*spp:][:cols*spp], row[:cols*spp])
		}
		if l.tiled {
			scratch = data
		}
	}
	return p, true
}
