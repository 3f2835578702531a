package puma

import (
	"fmt"

	"github.com/rexmle/rexmle/metrics/imageio"
	"github.com/rexmle/rexmle/metrics/resample"
	"github.com/rexmle/rexmle/metrics/volume"
)

// maxImageBytes bounds the decoded size of a submitted mask (samples ×
// channels × 8 bytes), checked from the header before pixels are allocated.
const maxImageBytes = 1 << 30

// rawImage is a decoded 2-D image: samples per pixel interleaved, row-major.
type rawImage struct {
	W, H, C int
	Pix     []float64
	U16     bool // uint16 samples: numpy gives Pillow's fromarray a 16-bit (I;16) image
}

// readImageFile decodes a picture by its content, as Pillow's Image.open
// does (PNG, TIFF first page, BMP, JPEG, GIF first frame, binary PBM/PGM/PPM, still WebP, whatever the
// name), palette images as their indices (numpy.array of a "P" image).
func readImageFile(path string) (*rawImage, error) {
	v, _, err := imageio.ReadPictureFile(path, imageio.Options{MaxBytes: maxImageBytes, FirstPage: true})
	if err != nil {
		return nil, err
	}
	if v.Shape[2] != 1 {
		return nil, fmt.Errorf("%s: %d pages, want a 2-D image", path, v.Shape[2])
	}
	return &rawImage{W: v.Shape[0], H: v.Shape[1], C: v.NumChannels(), Pix: v.Data}, nil
}

// readMaskFile decodes a mask as readImageFile does; a TIFF of 8-bit
// unsigned samples comes back as bytes (p8, in buf when it is large
// enough), anything else as float64 samples (f). Exactly one of the two is
// non-nil.
func readMaskFile(path string, buf []byte) (p8 *imageio.Picture8, f *rawImage, err error) {
	return readMaskFileMax(path, buf, maxImageBytes)
}

// predictionMaxBytes caps a submitted mask's decoded size (samples ×
// channels × 8 bytes; the decoders check it from the header, before they
// allocate): 4 times the pixels of the Size × Size mask it is resized to,
// in up to 4 channels. A larger image is a decompression bomb, not a mask.
const predictionMaxBytes = 4 * Size * Size * 4 * 8

// readMaskFileMax is readMaskFile with the decoded-size cap maxBytes.
func readMaskFileMax(path string, buf []byte, maxBytes int64) (p8 *imageio.Picture8, f *rawImage, err error) {
	p8, v, _, err := imageio.ReadPicture8File(path, buf, imageio.Options{MaxBytes: maxBytes, FirstPage: true})
	if err != nil {
		return nil, nil, err
	}
	if p8 != nil {
		return p8, nil, nil
	}
	if v.Shape[2] != 1 {
		return nil, nil, fmt.Errorf("%s: %d pages, want a 2-D image", path, v.Shape[2])
	}
	if v.DType == volume.Uint32 {
		// Pillow opens an unsigned 32-bit TIFF as mode "I" (I;32N: the
		// bits stored as int32), so numpy sees 2³²−1 as −1.
		for i, x := range v.Data {
			if x >= 1<<31 {
				v.Data[i] = x - 1<<32
			}
		}
	}
	return nil, &rawImage{W: v.Shape[0], H: v.Shape[1], C: v.NumChannels(), Pix: v.Data, U16: v.DType == volume.Uint16}, nil
}

// resizeNearest resizes a single-channel w×h plane to ow×oh as the
// reference's Image.fromarray(plane).resize((ow, oh), NEAREST) does: the
// source indices of Pillow's 8-bit modes, or of its 16-bit modes when u16
// (resample.PillowNearestIndex, PillowNearestIndex16).
func resizeNearest[T any](pix []T, w, h, ow, oh int, u16 bool) []T {
	index := resample.PillowNearestIndex
	if u16 {
		index = resample.PillowNearestIndex16
	}
	return resample.Resize2D(pix, w, h, ow, oh, index(w, ow), index(h, oh))
}
