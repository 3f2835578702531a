// Package metaimage reads and writes MetaImage images (.mha, and .mhd
// with its raw data file) as SimpleITK/ITK does (not pinned: see
// metrics/REFERENCE-VERSIONS.md), with the placement in LPS as ITK reports
// it; ReadShapeFile reads the header only, Create streams samples into a
// .mha file. A detached data file is opened only beside its header.
package metaimage

import "github.com/rexmle/rexmle/metrics/imageio/internal/codec"

// Options tunes the decoders; the zero value is the default (see
// imageio.Options).
type Options = codec.Options

// Volume8 is an image whose single-channel 8-bit samples may be kept as
// bytes (see ReadFileBytes).
type Volume8 = codec.Volume8

// SampleWriter writes a file whose samples arrive in pieces (see Create).
type SampleWriter = codec.SampleWriter
