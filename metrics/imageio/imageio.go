package imageio

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/rexmle/rexmle/metrics/volume"
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
	// readers (ReadMetaImageFileBytes, ReadNRRDFileBytes,
	// ReadNIfTIFileBytes, ReadNIfTIMaskBytes) may decode a single-channel
	// 8-bit image into (MetaImage and NRRD always do; a gzipped NIfTI
	// decoded in one piece is decoded into it when its capacity holds the
	// whole decoded file, header included, the samples then starting at
	// vox_offset; otherwise it hands over memory of its own): returned
	// Bytes that share it have every byte written, so a caller can recycle
	// buffers instead of having fresh ones zeroed. Its content is never
	// read.
	Buffer []byte

	// pillow makes the TIFF decoder read a page as Pillow does (see
	// ReadTIFFPillow); set by ReadPicture and ReadTIFFPillow.
	pillow bool
}

func pickOptions(opts []Options) Options {
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	return o
}

// ErrUnknownFormat is returned (wrapped) by Read for a file name whose
// extension names no supported format.
var ErrUnknownFormat = errors.New("unknown image format")

// Format names a file format by the extension that selects it.
type Format string

// The formats Read knows.
const (
	FormatNIfTI     Format = "nifti"
	FormatMetaImage Format = "metaimage"
	FormatNRRD      Format = "nrrd"
	FormatPNG       Format = "png"
	FormatTIFF      Format = "tiff"
)

// FormatOf returns the format selected by the file name's extension
// (case-insensitive): .nii and .nii.gz → NIfTI; .mha, .mhd → MetaImage;
// .nrrd (including .seg.nrrd) → NRRD; .png → PNG; .tif, .tiff → TIFF.
// It fails with ErrUnknownFormat for anything else.
func FormatOf(path string) (Format, error) {
	name := strings.ToLower(filepath.Base(path))
	switch {
	case strings.HasSuffix(name, ".nii"), strings.HasSuffix(name, ".nii.gz"):
		return FormatNIfTI, nil
	case strings.HasSuffix(name, ".mha"), strings.HasSuffix(name, ".mhd"):
		return FormatMetaImage, nil
	case strings.HasSuffix(name, ".nrrd"):
		return FormatNRRD, nil
	case strings.HasSuffix(name, ".png"):
		return FormatPNG, nil
	case strings.HasSuffix(name, ".tif"), strings.HasSuffix(name, ".tiff"):
		return FormatTIFF, nil
	}
	return "", fmt.Errorf("%s: %w (want .nii, .nii.gz, .mha, .mhd, .nrrd, .png, .tif or .tiff)", path, ErrUnknownFormat)
}

// Read decodes the image at path, choosing the decoder by extension (see
// FormatOf). Options, if given, tune the decoder (only the first is used).
func Read(path string, opts ...Options) (*volume.Volume, error) {
	f, err := FormatOf(path)
	if err != nil {
		return nil, err
	}
	switch f {
	case FormatNIfTI:
		return ReadNIfTIFile(path, opts...)
	case FormatMetaImage:
		return ReadMetaImageFile(path, opts...)
	case FormatNRRD:
		return ReadNRRDFile(path, opts...)
	case FormatPNG:
		return ReadPNGFile(path, opts...)
	default:
		return ReadTIFFFile(path, opts...)
	}
}

// ReadBytes is Read, except that a NIfTI, MetaImage or NRRD image of
// single-channel 8-bit unsigned samples (unscaled) keeps them as bytes
// (Volume8.Bytes, Data nil): label maps and masks usually are, and their
// float64 copy is eight times their size. Other images have Data as Read
// gives it.
func ReadBytes(path string, opts ...Options) (*Volume8, error) {
	f, err := FormatOf(path)
	if err != nil {
		return nil, err
	}
	switch f {
	case FormatNIfTI:
		return ReadNIfTIFileBytes(path, opts...)
	case FormatMetaImage:
		return ReadMetaImageFileBytes(path, opts...)
	case FormatNRRD:
		return ReadNRRDFileBytes(path, opts...)
	}
	v, err := Read(path, opts...)
	if err != nil {
		return nil, err
	}
	return &Volume8{Volume: v}, nil
}

// isGzipPath reports whether the path ends in .gz (case-insensitive).
func isGzipPath(path string) bool {
	return strings.HasSuffix(strings.ToLower(path), ".gz")
}

// readFileWith opens path and runs dec on it, prefixing errors with the path.
func readFileWith[T any](path string, dec func(f *os.File) (T, error)) (T, error) {
	var zero T
	f, err := openRegular(path)
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
