// Package png reads and writes PNG pictures. Read decodes as Pillow 11.1.0
// does (numpy.array(Image.open(f)): its leniency on damaged files — a bad
// IDAT checksum, data after the last row, no IEND — and its modes);
// ReadGrayLibpngFile reproduces OpenCV 4.10's
// cv2.imread(IMREAD_GRAYSCALE) through libpng; ReadGray8FileInto,
// ReadLuma8FileInto and ReadMode8FileInto are fast 8-bit paths that accept
// no file Read would refuse and give the same samples (see
// metrics/REFERENCE-VERSIONS.md).
package png

import "github.com/rexmle/rexmle/metrics/imageio/internal/codec"

// Options tunes the decoders; the zero value is the default (see
// imageio.Options).
type Options = codec.Options
