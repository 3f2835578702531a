package nifti

import (
	"fmt"

	"github.com/rexmle/rexmle/metrics/imageio/internal/codec"
	"github.com/rexmle/rexmle/metrics/volume"
)

// Create starts path as a single-file NIfTI-1 image with elements of
// type dt, gzip-compressed when path ends in .gz, for the geometry of
// header (its Data is not read).
func Create(path string, header *volume.Volume, dt volume.DType) (*SampleWriter, error) {
	if err := codec.CheckHeader(header, dt); err != nil {
		return nil, fmt.Errorf("write %s: nifti: %w", path, err)
	}
	hdr, err := niftiHeader(header, dt)
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	if codec.IsGzipPath(path) {
		return codec.NewGzipSampleWriter(path, header, dt, hdr)
	}
	return codec.NewSampleWriter(path, header, dt, hdr, false)
}
