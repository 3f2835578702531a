package codec

import (
	"fmt"
	"os"
	"strings"
)

// DefaultMaxBytes is the default cap on the decoded size of an image:
// samples × channels × 8 bytes (the float64 Data slice), 4 GiB.
const DefaultMaxBytes int64 = 4 << 30

// Options tunes the decoders. The zero value is the default.
type Options struct {
	// MaxBytes caps the in-memory size of the decoded image
	// (samples × channels × 8 bytes); 0 means DefaultMaxBytes.
	MaxBytes int64
	// FirstVolume makes the NIfTI decoder keep only the first 3-D volume of
	// a 4-D (or higher) image instead of failing, as loaders that take
	// img[..., 0] do.
	FirstVolume bool
	// FirstPage makes the TIFF decoder read only the first page (as Pillow
	// does) instead of stacking all pages along axis 2 (as tifffile does).
	FirstPage bool
	// ExpandPalette makes the PNG and TIFF decoders return the colours of a
	// paletted image (3 or 4 channels) instead of its palette indices.
	ExpandPalette bool
	// Buffer, when its capacity holds the samples, is memory the 8-bit
	// readers (metaimage.ReadFileBytes, nrrd.ReadFileBytes,
	// nifti.ReadFileBytes, nifti.ReadMaskBytes) may decode a single-channel
	// 8-bit image into (MetaImage and NRRD always do; a gzipped NIfTI
	// decoded in one piece is decoded into it when its capacity holds the
	// whole decoded file, header included, the samples then starting at
	// vox_offset; otherwise it hands over memory of its own): returned
	// Bytes that share it have every byte written, so a caller can recycle
	// buffers instead of having fresh ones zeroed. Its content is never
	// read.
	Buffer []byte
}

// PickOptions returns the first of opts (the zero Options when there is
// none) with MaxBytes defaulted to DefaultMaxBytes.
func PickOptions(opts []Options) Options {
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	return o
}

// IsGzipPath reports whether the path ends in .gz (case-insensitive).
func IsGzipPath(path string) bool {
	return strings.HasSuffix(strings.ToLower(path), ".gz")
}

// ReadFileWith opens path and runs dec on it, prefixing errors with the path.
func ReadFileWith[T any](path string, dec func(f *os.File) (T, error)) (T, error) {
	var zero T
	f, err := OpenRegular(path)
	if err != nil {
		return zero, err
	}
	defer f.Close()
	v, err := dec(f)
	if err != nil {
		return zero, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}
