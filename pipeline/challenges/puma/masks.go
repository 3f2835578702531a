package puma

import (
	"bufio"
	"fmt"
	"image"
	"image/png"
	"io"
	"os"
	"strings"

	"golang.org/x/image/tiff"
)

// maxMaskPixels bounds the size of a submitted mask before it is decoded.
const maxMaskPixels = 64 << 20

// rawImage is a decoded 2-D image: samples per pixel interleaved, row-major.
type rawImage struct {
	W, H, C int
	Pix     []int32
}

// decodeImage reads a PNG or TIFF (chosen by content) and returns its raw
// sample values as Pillow's numpy conversion would: grey and 16-bit grey
// one channel, palette images their indices, colour images R, G, B (and A
// when present). The header is checked against maxPixels before any pixel
// memory is allocated.
func decodeImage(r io.ReadSeeker, maxPixels int) (*rawImage, error) {
	br := bufio.NewReader(r)
	head, _ := br.Peek(8)
	var decodeCfg func(io.Reader) (image.Config, error)
	var decode func(io.Reader) (image.Image, error)
	switch {
	case len(head) >= 8 && string(head[:8]) == "\x89PNG\r\n\x1a\n":
		decodeCfg, decode = png.DecodeConfig, png.Decode
	case len(head) >= 4 && (string(head[:4]) == "II*\x00" || string(head[:4]) == "MM\x00*"):
		decodeCfg, decode = tiff.DecodeConfig, tiff.Decode
	default:
		return nil, fmt.Errorf("not a PNG or TIFF file")
	}
	cfg, err := decodeCfg(br)
	if err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || int64(cfg.Width)*int64(cfg.Height) > int64(maxPixels) {
		return nil, fmt.Errorf("image is %d×%d pixels, more than the %d allowed", cfg.Width, cfg.Height, maxPixels)
	}
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	img, err := decode(bufio.NewReader(r))
	if err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	out := &rawImage{W: w, H: h}
	switch m := img.(type) {
	case *image.Gray:
		out.C, out.Pix = 1, make([]int32, w*h)
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				out.Pix[y*w+x] = int32(m.Pix[y*m.Stride+x])
			}
		}
	case *image.Gray16:
		out.C, out.Pix = 1, make([]int32, w*h)
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				o := y*m.Stride + 2*x
				out.Pix[y*w+x] = int32(m.Pix[o])<<8 | int32(m.Pix[o+1])
			}
		}
	case *image.Paletted:
		out.C, out.Pix = 1, make([]int32, w*h)
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				out.Pix[y*w+x] = int32(m.Pix[y*m.Stride+x])
			}
		}
	case *image.NRGBA:
		out.C, out.Pix = 4, make([]int32, 4*w*h)
		for y := 0; y < h; y++ {
			for x := 0; x < 4*w; x++ {
				out.Pix[y*4*w+x] = int32(m.Pix[y*m.Stride+x])
			}
		}
	case *image.RGBA:
		out.C, out.Pix = 4, make([]int32, 4*w*h)
		for y := 0; y < h; y++ {
			for x := 0; x < 4*w; x++ {
				out.Pix[y*4*w+x] = int32(m.Pix[y*m.Stride+x])
			}
		}
	default:
		// 16-bit colour and other layouts: go through the colour model.
		out.C, out.Pix = 4, make([]int32, 4*w*h)
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				r, g, bb, a := img.At(b.Min.X+x, b.Min.Y+y).RGBA()
				o := 4 * (y*w + x)
				out.Pix[o], out.Pix[o+1], out.Pix[o+2], out.Pix[o+3] = int32(r>>8), int32(g>>8), int32(bb>>8), int32(a>>8)
			}
		}
	}
	return out, nil
}

// readImageFile opens and decodes an image file.
func readImageFile(path string) (*rawImage, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	im, err := decodeImage(f, maxMaskPixels)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return im, nil
}

// resizeNearest resizes a single-channel w×h plane to size×size with
// Pillow's nearest-neighbour rule: output (y, x) takes input
// (⌊(y+0.5)·h/size⌋, ⌊(x+0.5)·w/size⌋).
func resizeNearest(pix []int32, w, h, ow, oh int) []int32 {
	if w == ow && h == oh {
		return pix
	}
	out := make([]int32, ow*oh)
	xs := make([]int, ow)
	for x := range xs {
		xs[x] = min(int((float64(x)+0.5)*float64(w)/float64(ow)), w-1)
	}
	for y := 0; y < oh; y++ {
		sy := min(int((float64(y)+0.5)*float64(h)/float64(oh)), h-1)
		row := pix[sy*w : (sy+1)*w]
		for x := 0; x < ow; x++ {
			out[y*ow+x] = row[xs[x]]
		}
	}
	return out
}

func isImageName(p string) bool {
	l := strings.ToLower(p)
	return strings.HasSuffix(l, ".png") || strings.HasSuffix(l, ".tif") || strings.HasSuffix(l, ".tiff")
}
