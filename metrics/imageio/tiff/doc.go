// Package tiff reads and writes TIFF images. Read gives shapes and
// samples as tifffile 2025.3.13 (all pages stacked along axis 2;
// ReadTifffileFile also reports tifffile's shape), ReadPillow and
// ReadPillowFile as Pillow 11.1.0 opens the first page
// (numpy.array(Image.open(f)): the layouts of its OPEN_INFO table, its
// Orientation handling, its refusals); see metrics/REFERENCE-VERSIONS.md.
// The cross-check tests in metrics/imageio run tifffile and Pillow where
// they are installed.
package tiff

import "github.com/rexmle/rexmle/metrics/imageio/internal/codec"

// Options tunes the decoders; the zero value is the default (see
// imageio.Options).
type Options = codec.Options

// Picture8 is a 2-D picture of 8-bit samples kept as bytes (see
// DecodePillow8).
type Picture8 = codec.Picture8
