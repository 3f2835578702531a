package codec

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zlib"

	"github.com/rexmle/rexmle/metrics/volume"
)

// SampleWriter writes an NRRD, NIfTI-1 or MetaImage (.mha) file whose
// samples arrive in pieces: the header is nrrd.Write's, nifti.Write's or
// metaimage.WriteFile's for the geometry given at creation, and Write takes the samples in storage order as
// little-endian bytes of the element type, so a volume too large to hold
// as float64 samples can be written a slice at a time. The bytes of the
// file are those nrrd.WriteFile or nifti.WriteFile writes for the same
// samples (nrrd.WriteFile, nifti.WriteFile or metaimage.WriteFile). A
// compressed MetaImage header gives the compressed size, so its compressed
// samples are held in memory until Close writes the file. The file appears
// at its path only when Close succeeds with every
// sample written (a temporary file in the same folder is renamed); Abort,
// or a failed Close, removes the temporary file.
type SampleWriter struct {
	path string
	f    *os.File
	bw   *bufio.Writer
	out  io.Writer
	// finish, when set, ends the encoding before the buffer is flushed.
	finish func() error
	left   int64 // sample bytes still expected
	err    error
}

// gzipTo makes the samples go gzip-encoded (best speed) to w.
func (s *SampleWriter) gzipTo(w io.Writer) {
	zw, _ := gzip.NewWriterLevel(w, gzip.BestSpeed)
	s.out, s.finish = zw, zw.Close
}

// NewSampleWriter starts path with head, then the samples, gzip-encoded
// (best speed) when gz.
func NewSampleWriter(path string, v *volume.Volume, dt volume.DType, head []byte, gz bool) (*SampleWriter, error) {
	s, err := createSampleWriter(path, v, dt)
	if err != nil {
		return nil, err
	}
	s.bw.Write(head)
	if gz {
		s.gzipTo(s.bw)
	}
	return s, nil
}

// NewGzipSampleWriter starts path as one gzip stream (best speed) of head
// and the samples.
func NewGzipSampleWriter(path string, v *volume.Volume, dt volume.DType, head []byte) (*SampleWriter, error) {
	s, err := createSampleWriter(path, v, dt)
	if err != nil {
		return nil, err
	}
	s.gzipTo(s.bw)
	s.out.Write(head)
	return s, nil
}

// NewHeldZlibSampleWriter starts path for a header that gives the size of
// the zlib-compressed (best speed) samples: they are held in memory until
// Close writes head(their size), then them.
func NewHeldZlibSampleWriter(path string, v *volume.Volume, dt volume.DType, head func(compressedSize int64) string) (*SampleWriter, error) {
	s, err := createSampleWriter(path, v, dt)
	if err != nil {
		return nil, err
	}
	var zb bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&zb, zlib.BestSpeed)
	s.out = zw
	s.finish = func() error {
		if err := zw.Close(); err != nil {
			return err
		}
		s.bw.WriteString(head(int64(zb.Len())))
		_, err := s.bw.Write(zb.Bytes())
		return err
	}
	return s, nil
}

// CheckHeader validates the geometry and the element type of a streamed
// volume.
func CheckHeader(v *volume.Volume, dt volume.DType) error {
	if v == nil {
		return errors.New("nil volume")
	}
	if err := v.Grid.Validate(); err != nil {
		return err
	}
	_, err := ElemSize(dt)
	return err
}

func createSampleWriter(path string, v *volume.Volume, dt volume.DType) (*SampleWriter, error) {
	size, _ := ElemSize(dt)
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
	if s.err == nil && s.finish != nil {
		if err := s.finish(); err != nil {
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
