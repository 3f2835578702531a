package webp

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"image"

	stdwebp "golang.org/x/image/webp"

	"github.com/rexmle/rexmle/metrics/imageio/internal/codec"
	"github.com/rexmle/rexmle/metrics/volume"
)

// HasSignature reports whether head starts as Pillow's WebP plugin accepts.
func HasSignature(head []byte) bool {
	if len(head) < 16 || string(head[:4]) != "RIFF" || string(head[8:12]) != "WEBP" {
		return false
	}
	switch string(head[12:16]) {
	case "VP8 ", "VP8L", "VP8X":
		return true
	}
	return false
}

// webpHasAlpha is libwebp's WebPGetFeatures has_alpha, which makes Pillow's
// mode RGBA (else RGB): the VP8X alpha flag or an ALPH chunk, the VP8L
// header's alpha bit, never for a plain VP8 stream.
func webpHasAlpha(data []byte) bool {
	switch string(data[12:16]) {
	case "VP8L":
		return len(data) >= 25 && binary.LittleEndian.Uint32(data[21:25])>>28&1 == 1
	case "VP8X":
		if len(data) >= 21 && data[20]&0x10 != 0 {
			return true
		}
		return bytes.Contains(data[30:], []byte("ALPH"))
	}
	return false
}

// Read decodes a still WebP as Pillow 11.1 does (libwebp through its
// animation decoder, MODE_RGBA): mode RGB without alpha, RGBA with it.
// Lossless (VP8L) samples are the stored ARGB. Lossy (VP8) luma and chroma
// are the normative VP8 decoding (golang.org/x/image/webp), then converted
// as libwebp's default output does: "fancy" chroma upsampling
// (UpsampleRgbaLinePair: each output pixel blends the nearest chroma
// samples 9:3:3:1, first and last rows mirrored) and VP8YuvToRgb's 14-bit
// fixed-point arithmetic. Animated files are refused.
func Read(br *bufio.Reader, o Options) (*volume.Volume, error) {
	data, err := codec.ReadAllMax(br, o, "webp")
	if err != nil {
		return nil, err
	}
	cfg, err := stdwebp.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("webp header: %w", err)
	}
	if _, err := codec.SampleCount("webp header: width × height × channels", o.MaxBytes, int64(cfg.Width), int64(cfg.Height), 4); err != nil {
		return nil, err
	}
	img, err := stdwebp.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("webp: %w", err)
	}
	nc := 3
	if webpHasAlpha(data) {
		nc = 4
	}
	w, h := cfg.Width, cfg.Height
	v := volume.New(volume.NewGrid(w, h), volume.Uint8)
	v.Channels = nc
	v.Data = make([]float64, w*h*nc)
	switch m := img.(type) {
	case *image.NRGBA:
		for y := 0; y < h; y++ {
			row := m.Pix[y*m.Stride:]
			for x := 0; x < w; x++ {
				for c := 0; c < nc; c++ {
					v.Data[(y*w+x)*nc+c] = float64(row[4*x+c])
				}
			}
		}
	case *image.YCbCr:
		webpFancyRGB(m, v.Data, nc)
		if nc == 4 {
			for i := 3; i < len(v.Data); i += 4 {
				v.Data[i] = 255
			}
		}
	case *image.NYCbCrA:
		webpFancyRGB(&m.YCbCr, v.Data, nc)
		if nc == 4 {
			for y := 0; y < h; y++ {
				for x := 0; x < w; x++ {
					v.Data[(y*w+x)*4+3] = float64(m.A[y*m.AStride+x])
				}
			}
		}
	default:
		return nil, fmt.Errorf("webp: unexpected decoded type %T", img)
	}
	return v, nil
}

// webpClip8 is libwebp's VP8Clip8 (YUV_FIX2 = 6).
func webpClip8(v int) float64 {
	const mask = 256<<6 - 1
	switch {
	case v&^mask == 0:
		return float64(v >> 6)
	case v < 0:
		return 0
	}
	return 255
}

func webpMultHi(v, c int) int { return v * c >> 8 }

// webpFancyRGB writes libwebp's fancy-upsampled RGB of a 4:2:0 picture
// into dst (nc samples a pixel, the first three set).
func webpFancyRGB(m *image.YCbCr, dst []float64, nc int) {
	w, h := m.Rect.Dx(), m.Rect.Dy()
	yRow := func(y int) []byte { return m.Y[y*m.YStride:] }
	cRow := func(k int) ([]byte, []byte) { return m.Cb[k*m.CStride:], m.Cr[k*m.CStride:] }
	put := func(y, x int, yy, u, v int) {
		d := dst[(y*w+x)*nc:]
		d[0] = webpClip8(webpMultHi(yy, 19077) + webpMultHi(v, 26149) - 14234)
		d[1] = webpClip8(webpMultHi(yy, 19077) - webpMultHi(u, 6419) - webpMultHi(v, 13320) + 8708)
		d[2] = webpClip8(webpMultHi(yy, 19077) + webpMultHi(u, 33050) - 17685)
	}
	// upsample is UpsampleRgbaLinePair on one or two output rows: row top
	// between chroma rows tu/tv (nearer) and cu/cv, row bottom (if ≥ 0)
	// the other way round.
	upsample := func(top, bottom int, tu, tv, cu, cv []byte) {
		ty := yRow(top)
		var by []byte
		if bottom >= 0 {
			by = yRow(bottom)
		}
		near := func(a, b int) int { return (3*a + b + 2) >> 2 }
		tlu, tlv, lu, lv := int(tu[0]), int(tv[0]), int(cu[0]), int(cv[0])
		put(top, 0, int(ty[0]), near(tlu, lu), near(tlv, lv))
		if by != nil {
			put(bottom, 0, int(by[0]), near(lu, tlu), near(lv, tlv))
		}
		for x := 1; x <= (w-1)>>1; x++ {
			tU, tV, U, V := int(tu[x]), int(tv[x]), int(cu[x]), int(cv[x])
			avgU, avgV := tlu+tU+lu+U+8, tlv+tV+lv+V+8
			d12U, d12V := (avgU+2*(tU+lu))>>3, (avgV+2*(tV+lv))>>3
			d03U, d03V := (avgU+2*(tlu+U))>>3, (avgV+2*(tlv+V))>>3
			put(top, 2*x-1, int(ty[2*x-1]), (d12U+tlu)>>1, (d12V+tlv)>>1)
			put(top, 2*x, int(ty[2*x]), (d03U+tU)>>1, (d03V+tV)>>1)
			if by != nil {
				put(bottom, 2*x-1, int(by[2*x-1]), (d03U+lu)>>1, (d03V+lv)>>1)
				put(bottom, 2*x, int(by[2*x]), (d12U+U)>>1, (d12V+V)>>1)
			}
			tlu, tlv, lu, lv = tU, tV, U, V
		}
		if w&1 == 0 {
			put(top, w-1, int(ty[w-1]), near(tlu, lu), near(tlv, lv))
			if by != nil {
				put(bottom, w-1, int(by[w-1]), near(lu, tlu), near(lv, tlv))
			}
		}
	}
	u0, v0 := cRow(0)
	upsample(0, -1, u0, v0, u0, v0)
	for k := 1; 2*k-1 < h; k++ {
		tu, tv := cRow(k - 1)
		if 2*k < h {
			cu, cv := cRow(k)
			upsample(2*k-1, 2*k, tu, tv, cu, cv)
		} else {
			upsample(2*k-1, -1, tu, tv, tu, tv)
		}
	}
}
