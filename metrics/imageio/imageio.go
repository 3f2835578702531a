package imageio

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/rexmle/rexmle/metrics/imageio/internal/codec"
	"github.com/rexmle/rexmle/metrics/imageio/metaimage"
	"github.com/rexmle/rexmle/metrics/imageio/nifti"
	"github.com/rexmle/rexmle/metrics/imageio/nrrd"
	"github.com/rexmle/rexmle/metrics/imageio/png"
	"github.com/rexmle/rexmle/metrics/imageio/tiff"
	"github.com/rexmle/rexmle/metrics/volume"
)

// Options tunes the decoders; the zero value is the default. Every format
// package declares the same type (nifti.Options, png.Options, …).
type Options = codec.Options

// DefaultMaxBytes is the default cap on the decoded size of an image
// (Options.MaxBytes).
const DefaultMaxBytes = codec.DefaultMaxBytes

// Volume8 is an image whose single-channel 8-bit samples may be kept as
// bytes (see ReadBytes).
type Volume8 = codec.Volume8

// Picture8 is a 2-D picture of 8-bit samples kept as bytes (see
// ReadPicture8File).
type Picture8 = codec.Picture8

// SampleWriter writes a volume file whose samples arrive in pieces (see
// nifti.Create, nrrd.Create, metaimage.Create).
type SampleWriter = codec.SampleWriter

// ReadAllInto is io.ReadAll appending to buf: it reuses buf's capacity, so
// a caller that sizes buf from the file (Stat) and recycles it reads each
// file without allocating.
func ReadAllInto(buf []byte, r io.Reader) ([]byte, error) { return codec.ReadAllInto(buf, r) }

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
		return nifti.ReadFile(path, opts...)
	case FormatMetaImage:
		return metaimage.ReadFile(path, opts...)
	case FormatNRRD:
		return nrrd.ReadFile(path, opts...)
	case FormatPNG:
		return png.ReadFile(path, opts...)
	default:
		return tiff.ReadFile(path, opts...)
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
		return nifti.ReadFileBytes(path, opts...)
	case FormatMetaImage:
		return metaimage.ReadFileBytes(path, opts...)
	case FormatNRRD:
		return nrrd.ReadFileBytes(path, opts...)
	}
	v, err := Read(path, opts...)
	if err != nil {
		return nil, err
	}
	return &Volume8{Volume: v}, nil
}
