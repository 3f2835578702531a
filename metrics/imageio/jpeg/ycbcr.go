package jpeg

import (
	"image"
	"image/color"

	"github.com/rexmle/rexmle/metrics/imageio/internal/codec"
	"github.com/rexmle/rexmle/metrics/volume"
)

// ycbcrVolume converts a decoded colour JPEG to 3 RGB channels with Go's
// YCbCr→RGB rule.
func ycbcrVolume(m *image.YCbCr) *volume.Volume {
	b := m.Bounds()
	w, h := b.Dx(), b.Dy()
	v := &volume.Volume{Grid: volume.NewGrid(w, h), DType: volume.Uint8, Channels: 3, Data: make([]float64, w*h*3)}
	codec.ParallelFor(h, func(lo, hi int) {
		for y := lo; y < hi; y++ {
			for x := 0; x < w; x++ {
				yi := m.YOffset(b.Min.X+x, b.Min.Y+y)
				ci := m.COffset(b.Min.X+x, b.Min.Y+y)
				r, g, bl := color.YCbCrToRGB(m.Y[yi], m.Cb[ci], m.Cr[ci])
				d := v.Data[(y*w+x)*3:]
				d[0], d[1], d[2] = float64(r), float64(g), float64(bl)
			}
		}
	})
	return v
}
