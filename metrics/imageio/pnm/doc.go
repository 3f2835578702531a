// Package pnm decodes binary Netpbm pictures (P4, P5, P6) as Pillow
// 11.1.0's PPM plugin does.
package pnm

import "github.com/rexmle/rexmle/metrics/imageio/internal/codec"

// Options tunes the decoders; the zero value is the default (see
// imageio.Options).
type Options = codec.Options
