// Package webp decodes still WebP pictures (VP8, VP8L, VP8X) to the
// samples libwebp gives Pillow 11.1.0: RGB, or RGBA when the picture has
// alpha.
package webp

import "github.com/rexmle/rexmle/metrics/imageio/internal/codec"

// Options tunes the decoders; the zero value is the default (see
// imageio.Options).
type Options = codec.Options
