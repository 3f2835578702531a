// Package nrrd reads and writes NRRD images (.nrrd, .seg.nrrd: attached
// or detached data, raw, gzip or ASCII encoding) with the placement in the
// NRRD "space" the header declares, as pynrrd and Slicer read them; Create
// streams samples into a file.
package nrrd

import "github.com/rexmle/rexmle/metrics/imageio/internal/codec"

// Options tunes the decoders; the zero value is the default (see
// imageio.Options).
type Options = codec.Options

// Volume8 is an image whose single-channel 8-bit samples may be kept as
// bytes (see ReadFileBytes).
type Volume8 = codec.Volume8

// SampleWriter writes a file whose samples arrive in pieces (see Create).
type SampleWriter = codec.SampleWriter
