package metaimage

import (
	"fmt"
	"strings"

	"github.com/rexmle/rexmle/metrics/imageio/internal/codec"
	"github.com/rexmle/rexmle/metrics/volume"
)

// Create starts path, a .mha name, as a MetaImage with its data
// inline, of type dt, zlib-compressed when compressed, for the geometry of
// header (its Data is not read).
func Create(path string, header *volume.Volume, dt volume.DType, compressed bool) (*SampleWriter, error) {
	if !strings.HasSuffix(strings.ToLower(path), ".mha") {
		return nil, fmt.Errorf("write %s: want a .mha name (data inline)", path)
	}
	if err := codec.CheckHeader(header, dt); err != nil {
		return nil, fmt.Errorf("write %s: metaimage: %w", path, err)
	}
	name, ok := metaNames[dt]
	if !ok {
		return nil, fmt.Errorf("write %s: metaimage: element type %q not supported", path, dt)
	}
	if !compressed {
		return codec.NewSampleWriter(path, header, dt, []byte(metaImageHeader(header, name, false, 0, "LOCAL")), false)
	}
	return codec.NewHeldZlibSampleWriter(path, header, dt, func(compressedSize int64) string {
		return metaImageHeader(header, name, true, compressedSize, "LOCAL")
	})
}
