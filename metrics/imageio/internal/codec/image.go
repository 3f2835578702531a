package codec

import (
	"fmt"
	"image"
	"image/color"

	"github.com/rexmle/rexmle/metrics/volume"
)

// KeepChannels reduces v to the listed channels (no-op when v already has
// that many).
func KeepChannels(v *volume.Volume, chans ...int) {
	nc := v.NumChannels()
	if nc == len(chans) {
		return
	}
	n := v.Len()
	out := make([]float64, n*len(chans))
	for i := 0; i < n; i++ {
		for k, c := range chans {
			out[i*len(chans)+k] = v.Data[i*nc+c]
		}
	}
	v.Data, v.Channels = out, len(chans)
}

// ImageToVolume converts a decoded image to a volume, keeping the sample
// depth (8 or 16 bits) and every channel of the Go image type.
func ImageToVolume(img image.Image, expand bool) (*volume.Volume, error) {
	b := img.Bounds()
	w, hgt := b.Dx(), b.Dy()
	newVol := func(nc int, dt volume.DType) *volume.Volume {
		return &volume.Volume{Grid: volume.NewGrid(w, hgt), DType: dt, Channels: nc, Data: make([]float64, w*hgt*nc)}
	}
	var v *volume.Volume
	switch m := img.(type) {
	case *image.Gray:
		v = newVol(1, volume.Uint8)
		ParallelFor(hgt, func(lo, hi int) {
			for y := lo; y < hi; y++ {
				row := m.Pix[y*m.Stride : y*m.Stride+w]
				out := v.Data[y*w : (y+1)*w]
				for x, p := range row {
					out[x] = float64(p)
				}
			}
		})
	case *image.Gray16:
		v = newVol(1, volume.Uint16)
		ParallelFor(hgt, func(lo, hi int) {
			for y := lo; y < hi; y++ {
				row := m.Pix[y*m.Stride : y*m.Stride+2*w]
				out := v.Data[y*w : (y+1)*w]
				for x := range out {
					out[x] = float64(uint16(row[2*x])<<8 | uint16(row[2*x+1]))
				}
			}
		})
	case *image.Paletted:
		if !expand {
			v = newVol(1, volume.Uint8)
			for y := 0; y < hgt; y++ {
				for x, p := range m.Pix[y*m.Stride : y*m.Stride+w] {
					v.Data[y*w+x] = float64(p)
				}
			}
			break
		}
		nc := 3
		pal := make([]color.NRGBA, len(m.Palette))
		for i, c := range m.Palette {
			pal[i] = color.NRGBAModel.Convert(c).(color.NRGBA)
			if pal[i].A != 255 {
				nc = 4
			}
		}
		v = newVol(nc, volume.Uint8)
		for y := 0; y < hgt; y++ {
			for x, p := range m.Pix[y*m.Stride : y*m.Stride+w] {
				c := color.NRGBA{A: 255} // past a short palette: opaque black (Pillow ≥ 10.1, Go's decoder)
				if int(p) < len(pal) {
					c = pal[p]
				}
				d := v.Data[(y*w+x)*nc:]
				d[0], d[1], d[2] = float64(c.R), float64(c.G), float64(c.B)
				if nc == 4 {
					d[3] = float64(c.A)
				}
			}
		}
	case *image.RGBA:
		// Opaque RGB (Go decodes colour type 2 to RGBA with A = 255).
		v = newVol(3, volume.Uint8)
		ParallelFor(hgt, func(lo, hi int) {
			for y := lo; y < hi; y++ {
				row := m.Pix[y*m.Stride : y*m.Stride+4*w]
				out := v.Data[y*w*3 : (y+1)*w*3]
				for x := 0; x < w; x++ {
					out[3*x], out[3*x+1], out[3*x+2] = float64(row[4*x]), float64(row[4*x+1]), float64(row[4*x+2])
				}
			}
		})
	case *image.RGBA64:
		v = newVol(3, volume.Uint16)
		for y := 0; y < hgt; y++ {
			row := m.Pix[y*m.Stride : y*m.Stride+8*w]
			for x := 0; x < w; x++ {
				for c := 0; c < 3; c++ {
					v.Data[(y*w+x)*3+c] = float64(uint16(row[8*x+2*c])<<8 | uint16(row[8*x+2*c+1]))
				}
			}
		}
	case *image.NRGBA:
		v = nrgbaVolume(newVol, w, hgt, m.Pix, m.Stride, 1)
	case *image.NRGBA64:
		v = nrgbaVolume(newVol, w, hgt, m.Pix, m.Stride, 2)
	default:
		return nil, fmt.Errorf("png: decoded image type %T not supported", img)
	}
	return v, nil
}

// nrgbaVolume converts non-premultiplied RGBA pixels (1 or 2 bytes per
// sample, big-endian) to a 4-channel volume.
func nrgbaVolume(newVol func(int, volume.DType) *volume.Volume, w, h int, pix []byte, stride, bytesPer int) *volume.Volume {
	get := func(off int) float64 {
		if bytesPer == 1 {
			return float64(pix[off])
		}
		return float64(uint16(pix[off])<<8 | uint16(pix[off+1]))
	}
	dt := volume.Uint8
	if bytesPer == 2 {
		dt = volume.Uint16
	}
	v := newVol(4, dt)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			off := y*stride + 4*bytesPer*x
			for c := 0; c < 4; c++ {
				v.Data[(y*w+x)*4+c] = get(off + c*bytesPer)
			}
		}
	}
	return v
}
