package imageio

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/klauspost/compress/gzip"
	"github.com/rexmle/rexmle/metrics/volume"
)

// SampleWriter writes an NRRD or NIfTI-1 file whose samples arrive in
// pieces: the header is WriteNRRD's or WriteNIfTI's for the geometry given
// at creation, and Write takes the samples in storage order as
// little-endian bytes of the element type, so a volume too large to hold
// as float64 samples can be written a slice at a time. The bytes of the
// file are those WriteNRRDFile or WriteNIfTIFile writes for the same
// samples. The file appears at its path only when Close succeeds with every
// sample written (a temporary file in the same folder is renamed); Abort,
// or a failed Close, removes the temporary file.
type SampleWriter struct {
	path string
	f    *os.File
	bw   *bufio.Writer
	zw   *gzip.Writer
	out  io.Writer
	left int64 // sample bytes still expected
	err  error
}

// CreateNRRD starts path as an NRRD with attached data of type dt,
// gzip-encoded when gz, for the geometry of header (Grid, Origin,
// Direction, Channels; its Data is not read).
func CreateNRRD(path string, header *volume.Volume, dt volume.DType, gz bool) (*SampleWriter, error) {
	if err := checkHeader(header, dt); err != nil {
		return nil, fmt.Errorf("write %s: nrrd: %w", path, err)
	}
	hdr, err := nrrdHeaderText(header, dt, gz)
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	s, err := createSampleWriter(path, header, dt)
	if err != nil {
		return nil, err
	}
	s.bw.WriteString(hdr)
	if gz {
		s.zw, _ = gzip.NewWriterLevel(s.bw, gzip.BestSpeed)
		s.out = s.zw
	}
	return s, nil
}

// CreateNIfTI starts path as a single-file NIfTI-1 image with elements of
// type dt, gzip-compressed when path ends in .gz, for the geometry of
// header (its Data is not read).
func CreateNIfTI(path string, header *volume.Volume, dt volume.DType) (*SampleWriter, error) {
	if err := checkHeader(header, dt); err != nil {
		return nil, fmt.Errorf("write %s: nifti: %w", path, err)
	}
	hdr, err := niftiHeader(header, dt)
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	s, err := createSampleWriter(path, header, dt)
	if err != nil {
		return nil, err
	}
	if isGzipPath(path) {
		s.zw, _ = gzip.NewWriterLevel(s.bw, gzip.BestSpeed)
		s.out = s.zw
	}
	s.out.Write(hdr)
	return s, nil
}

// checkHeader validates the geometry and the element type of a streamed
// volume.
func checkHeader(v *volume.Volume, dt volume.DType) error {
	if v == nil {
		return errors.New("nil volume")
	}
	if err := v.Grid.Validate(); err != nil {
		return err
	}
	_, err := elemSize(dt)
	return err
}

func createSampleWriter(path string, v *volume.Volume, dt volume.DType) (*SampleWriter, error) {
	size, _ := elemSize(dt)
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	s := &SampleWriter{path: path, f: f, bw: bufio.NewWriterSize(f, 1<<20), left: int64(v.Len()) * int64(v.NumChannels()) * int64(size)}
	s.out = s.bw
	return s, nil
}

// Write adds samples: little-endian bytes of the element type, in storage
// order. More bytes than the header's samples hold are an error.
func (s *SampleWriter) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	if int64(len(p)) > s.left {
		s.err = fmt.Errorf("write %s: %d sample bytes past the %d the header declares", s.path, int64(len(p))-s.left, s.left)
		return 0, s.err
	}
	n, err := s.out.Write(p)
	s.left -= int64(n)
	if err != nil {
		s.err = fmt.Errorf("write %s: %w", s.path, err)
	}
	return n, s.err
}

// Close finishes the file and moves it to its path. It fails, leaving
// nothing at the path, when a write failed or samples are missing.
func (s *SampleWriter) Close() error {
	if s.f == nil {
		return s.err
	}
	if s.err == nil && s.left > 0 {
		s.err = fmt.Errorf("write %s: %d sample bytes missing", s.path, s.left)
	}
	if s.err == nil && s.zw != nil {
		if err := s.zw.Close(); err != nil {
			s.err = fmt.Errorf("write %s: %w", s.path, err)
		}
	}
	if s.err == nil {
		if err := s.bw.Flush(); err != nil {
			s.err = fmt.Errorf("write %s: %w", s.path, err)
		}
	}
	tmp := s.f.Name()
	if err := s.f.Close(); err != nil && s.err == nil {
		s.err = fmt.Errorf("write %s: %w", s.path, err)
	}
	s.f = nil
	if s.err == nil {
		if err := os.Chmod(tmp, 0o644); err != nil {
			s.err = fmt.Errorf("write %s: %w", s.path, err)
		} else if err := os.Rename(tmp, s.path); err != nil {
			s.err = fmt.Errorf("write %s: %w", s.path, err)
		}
	}
	if s.err != nil {
		os.Remove(tmp)
	}
	return s.err
}

// Abort drops the file: nothing is left at its path or beside it. Calling
// it after Close does nothing.
func (s *SampleWriter) Abort() {
	if s.f == nil {
		return
	}
	if s.err == nil {
		s.err = fmt.Errorf("write %s: aborted", s.path)
	}
	tmp := s.f.Name()
	s.f.Close()
	s.f = nil
	os.Remove(tmp)
}
