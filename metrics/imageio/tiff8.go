package imageio

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/rexmle/rexmle/metrics/volume"
)

// Picture8 is a 2-D picture whose samples are 8-bit unsigned integers,
// kept as bytes: C samples per pixel interleaved, rows top to bottom, so
// that sample c of pixel (x, y) is Pix[(y*W+x)*C+c].
type Picture8 struct {
	W, H, C int
	Pix     []uint8
}

// ReadPicture8File reads the picture at path as ReadPictureFile does, the
// same files accepted and the same samples and errors, but hands back a
// TIFF whose (first) page holds 8-bit unsigned samples as bytes instead of
// float64: exactly one of p8 and v is non-nil. Every other picture (other
// formats, other sample types, a paletted page with Options.ExpandPalette,
// several pages without Options.FirstPage) comes back as the volume
// ReadPictureFile gives. p8.Pix reuses buf when it is large enough (its
// contents are overwritten), so that a caller can recycle buffers.
func ReadPicture8File(path string, buf []byte, opts ...Options) (p8 *Picture8, v *volume.Volume, format Format, err error) {
	f, err := openRegular(path)
	if err != nil {
		return nil, nil, "", err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<16)
	head, _ := br.Peek(8)
	if SniffPicture(head) != FormatTIFF {
		v, format, err := ReadPicture(br, opts...)
		if err != nil {
			return nil, nil, format, fmt.Errorf("%s: %w", path, err)
		}
		return nil, v, format, nil
	}
	o := pickOptions(opts)
	o.pillow, o.FirstPage = true, true // ReadPictureFile reads TIFF as ReadTIFFPillow
	size := int64(0)
	if st, err := f.Stat(); err == nil {
		size = st.Size()
	}
	fileBuf, _ := fileBufs.Get().(*[]byte)
	if fileBuf == nil {
		fileBuf = new([]byte)
	}
	defer fileBufs.Put(fileBuf)
	if want := int(min(max(size, 0), o.MaxBytes) + 1); cap(*fileBuf) < want {
		*fileBuf = make([]byte, 0, want)
	}
	b, err := ReadAllInto((*fileBuf)[:0], io.LimitReader(br, o.MaxBytes+1))
	*fileBuf = b
	if err == nil && int64(len(b)) > o.MaxBytes {
		err = fmt.Errorf("tiff: file larger than the %d-byte limit (Options.MaxBytes)", o.MaxBytes)
	} else if err != nil {
		err = fmt.Errorf("tiff: %w", err)
	}
	if err != nil {
		return nil, nil, FormatTIFF, fmt.Errorf("%s: %w", path, err)
	}
	if p, ok := decodeTIFF8(b, o, buf); ok {
		return p, nil, FormatTIFF, nil
	}
	v, err = decodeTIFF(b, o)
	if err != nil {
		return nil, nil, FormatTIFF, fmt.Errorf("%s: %w", path, err)
	}
	return nil, v, FormatTIFF, nil
}

// ReadAllInto is io.ReadAll appending to buf: it reuses buf's capacity, so
// a caller that sizes buf from the file (Stat) and recycles it reads each
// file without allocating.
func ReadAllInto(buf []byte, r io.Reader) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			return buf, err
		}
	}
}

// decodeTIFF8 decodes the first page of an 8-bit unsigned TIFF straight
// into bytes (into buf when it is large enough). ok is false when decodeTIFF must decode the file instead:
// a page of another sample type, a palette to expand, more pages to stack,
// or any error (decodeTIFF then reports it in its words). Validation is
// decodeTIFF's own (readIFD, layout, block), so both accept the same files.
func decodeTIFF8(b []byte, o Options, buf []byte) (*Picture8, bool) {
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
