package imageio

import (
	"errors"

	"github.com/rexmle/rexmle/metrics/volume"
)

// ReadPNGFile decodes a PNG file (not implemented yet).
func ReadPNGFile(path string, opts ...Options) (*volume.Volume, error) {
	return nil, errors.New("png: not implemented yet")
}

// ReadTIFFFile decodes a TIFF file (not implemented yet).
func ReadTIFFFile(path string, opts ...Options) (*volume.Volume, error) {
	return nil, errors.New("tiff: not implemented yet")
}
