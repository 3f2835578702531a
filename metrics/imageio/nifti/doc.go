// Package nifti reads and writes NIfTI-1 and NIfTI-2 images (.nii,
// .nii.gz) as nibabel 5.3.2 does (metrics/REFERENCE-VERSIONS.md): the
// header fields, the affine nibabel reports (sform, else qform, else
// pixdim; RAS+), and the scaling v·scl_slope + scl_inter when the slope is
// non-zero and finite and the pair is not the identity (DType then
// float64). ReadHeader, ReadMask and ReadMaskBytes read only what a grader
// needs; Create streams samples into a file. The package's cross-check
// tests run nibabel where it is installed.
package nifti

import "github.com/rexmle/rexmle/metrics/imageio/internal/codec"

// Options tunes the decoders; the zero value is the default (see
// imageio.Options).
type Options = codec.Options

// Volume8 is an image whose single-channel 8-bit samples may be kept as
// bytes (see ReadFileBytes).
type Volume8 = codec.Volume8

// SampleWriter writes a file whose samples arrive in pieces (see Create).
type SampleWriter = codec.SampleWriter
