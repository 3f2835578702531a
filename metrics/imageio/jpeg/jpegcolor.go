package jpeg

import (
	"image"

	"github.com/rexmle/rexmle/metrics/volume"
)

// libjpeg's YCbCr→RGB tables (jdcolor.c, 16-bit fixed point):
// R = Y + round(1.402·(Cr−128)), B = Y + round(1.772·(Cb−128)),
// G = Y + ⌊(−0.34414·2¹⁶·(Cb−128) − 0.71414·2¹⁶·(Cr−128) + 2¹⁵) / 2¹⁶⌋,
// each constant FIX(x) = ⌊x·2¹⁶ + 0.5⌋, clamped to 0..255.
var jpegCrR, jpegCbB, jpegCrG, jpegCbG [256]int32

func init() {
	fix := func(x float64) int32 { return int32(x*65536 + 0.5) }
	const half = 1 << 15
	for i := 0; i < 256; i++ {
		x := int32(i - 128)
		jpegCrR[i] = (fix(1.40200)*x + half) >> 16
		jpegCbB[i] = (fix(1.77200)*x + half) >> 16
		jpegCrG[i] = -fix(0.71414) * x
		jpegCbG[i] = -fix(0.34414)*x + half
	}
}

func clamp255(v int32) float64 {
	if v < 0 {
		return 0
	}
	if v > 255 {
		return 255
	}
	return float64(v)
}

// upsampleFancy is libjpeg's "fancy" (triangle-filter) chroma upsampling of
// a cw×ch plane to w×h for 2:1 horizontal and 1:1 or 2:1 vertical ratios
// (jdsample.c h2v1/h2v2_fancy_upsample; edge samples replicated), and plain
// replication for 1:1. ok is false for other ratios.
func upsampleFancy(c []uint8, stride, cw, ch, w, h, hs, vs int) (out []int32, ok bool) {
	out = make([]int32, w*h)
	at := func(x, y int) int32 { return int32(c[y*stride+x]) }
	switch {
	case hs == 1 && vs == 1:
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				out[y*w+x] = at(x, y)
			}
		}
		return out, true
	case hs == 2 && vs == 1:
		row := make([]int32, 2*cw)
		for y := 0; y < h; y++ {
			for i := 0; i < cw; i++ {
				v := at(i, y) * 3
				if i == 0 {
					row[0] = at(0, y)
				} else {
					row[2*i] = (v + at(i-1, y) + 1) >> 2
				}
				if i == cw-1 {
					row[2*i+1] = at(i, y)
				} else {
					row[2*i+1] = (v + at(i+1, y) + 2) >> 2
				}
			}
			if cw == 1 {
				row[0], row[1] = at(0, y), at(0, y)
			}
			copy(out[y*w:y*w+w], row)
		}
		return out, true
	case hs == 2 && vs == 2:
		row := make([]int32, 2*cw)
		col := make([]int32, cw)
		for y := 0; y < h; y++ {
			near := y / 2
			far := near - 1 // upper output row of the pair looks up
			if y%2 == 1 {
				far = near + 1
			}
			far = min(max(far, 0), ch-1)
			for i := 0; i < cw; i++ {
				col[i] = at(i, near)*3 + at(i, far)
			}
			if cw == 1 {
				row[0] = (col[0]*4 + 8) >> 4
				row[1] = (col[0]*4 + 7) >> 4
			} else {
				row[0] = (col[0]*4 + 8) >> 4
				row[1] = (col[0]*3 + col[1] + 7) >> 4
				for i := 1; i < cw-1; i++ {
					row[2*i] = (col[i]*3 + col[i-1] + 8) >> 4
					row[2*i+1] = (col[i]*3 + col[i+1] + 7) >> 4
				}
				n := cw - 1
				row[2*n] = (col[n]*3 + col[n-1] + 8) >> 4
				row[2*n+1] = (col[n]*4 + 7) >> 4
			}
			copy(out[y*w:y*w+w], row)
		}
		return out, true
	}
	return nil, false
}

// RGBVolume converts a decoded colour JPEG to 3 RGB channels as
// libjpeg does by default: fancy chroma upsampling, then its fixed-point
// YCbCr→RGB tables. Sampling ratios other than 4:4:4, 4:2:2 and 4:2:0 fall
// back to Go's replication and colour rule.
func RGBVolume(m *image.YCbCr) *volume.Volume {
	b := m.Bounds()
	w, h := b.Dx(), b.Dy()
	hs, vs := 1, 1
	switch m.SubsampleRatio {
	case image.YCbCrSubsampleRatio422:
		hs = 2
	case image.YCbCrSubsampleRatio420:
		hs, vs = 2, 2
	case image.YCbCrSubsampleRatio444:
	default:
		return ycbcrVolume(m)
	}
	cw, ch := (w+hs-1)/hs, (h+vs-1)/vs
	cb, ok1 := upsampleFancy(m.Cb, m.CStride, cw, ch, w, h, hs, vs)
	cr, ok2 := upsampleFancy(m.Cr, m.CStride, cw, ch, w, h, hs, vs)
	if !ok1 || !ok2 {
		return ycbcrVolume(m)
	}
	v := &volume.Volume{Grid: volume.NewGrid(w, h), DType: volume.Uint8, Channels: 3, Data: make([]float64, w*h*3)}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			i := y*w + x
			yy := int32(m.Y[y*m.YStride+x])
			cbv, crv := cb[i], cr[i]
			d := v.Data[3*i:]
			d[0] = clamp255(yy + jpegCrR[crv])
			d[1] = clamp255(yy + ((jpegCbG[cbv] + jpegCrG[crv]) >> 16))
			d[2] = clamp255(yy + jpegCbB[cbv])
		}
	}
	return v
}
