package nrrd

import (
	"fmt"

	"github.com/rexmle/rexmle/metrics/imageio/internal/codec"
	"github.com/rexmle/rexmle/metrics/volume"
)

// Create starts path as an NRRD with attached data of type dt,
// gzip-encoded when gz, for the geometry of header (Grid, Origin,
// Direction, Channels; its Data is not read).
func Create(path string, header *volume.Volume, dt volume.DType, gz bool) (*SampleWriter, error) {
	if err := codec.CheckHeader(header, dt); err != nil {
		return nil, fmt.Errorf("write %s: nrrd: %w", path, err)
	}
	hdr, err := nrrdHeaderText(header, dt, gz)
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	return codec.NewSampleWriter(path, header, dt, []byte(hdr), gz)
}
