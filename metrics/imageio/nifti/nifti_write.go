package nifti

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/klauspost/compress/gzip"

	"github.com/rexmle/rexmle/metrics/imageio/internal/codec"
	"github.com/rexmle/rexmle/metrics/volume"
)

// WriteFile writes v as a single-file NIfTI-1 image with elements of
// type dt (v.DType when dt is empty), gzip-compressed when path ends in .gz.
// See Write.
func WriteFile(path string, v *volume.Volume, dt volume.DType) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := Write(f, v, dt, codec.IsGzipPath(path)); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// Write encodes v as a little-endian single-file NIfTI-1 image (magic
// "n+1", vox_offset 352, no extensions) with elements of type dt (v.DType
// when dt is empty), gzip-compressed when gz.
//
// dim[0] is v.Dims(), raised to cover a trailing singleton axis whose
// spacing is not 1 (so spacing round-trips); pixdim[1..3] = Spacing; xyzt_units = mm + s; scl_slope 1,
// scl_inter 0. Both sform and qform (codes 1, scanner) encode the affine
// of Affine(v); the qform carries the nearest rotation (pixdim[0] = qfac
// = ±1). Integer types need whole in-range samples; single-channel only.
func Write(w io.Writer, v *volume.Volume, dt volume.DType, gz bool) error {
	if err := codec.CheckVolume(v); err != nil {
		return err
	}
	if dt == "" {
		dt = v.DType
	}
	hdr, err := niftiHeader(v, dt)
	if err != nil {
		return err
	}
	data, err := codec.EncodeSamples(v.Data, dt, binary.LittleEndian)
	if err != nil {
		return fmt.Errorf("nifti: %w", err)
	}
	out := w
	var zw *gzip.Writer
	bw := bufio.NewWriterSize(w, 1<<20)
	out = bw
	if gz {
		zw, _ = gzip.NewWriterLevel(bw, gzip.BestSpeed)
		out = zw
	}
	if _, err := out.Write(hdr); err != nil {
		return err
	}
	if _, err := out.Write(data); err != nil {
		return err
	}
	if zw != nil {
		if err := zw.Close(); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// niftiHeader checks that v's geometry (its samples are not read) and dt
// can be written as NIfTI-1 and returns Write's header bytes.
func niftiHeader(v *volume.Volume, dt volume.DType) ([]byte, error) {
	if v.NumChannels() != 1 {
		return nil, fmt.Errorf("nifti: %d channels, only single-channel volumes can be written", v.NumChannels())
	}
	code, ok := niftiCode(dt)
	if !ok {
		return nil, fmt.Errorf("nifti: element type %q not supported", dt)
	}
	for a := 0; a < 3; a++ {
		if v.Shape[a] > math.MaxInt16 {
			return nil, fmt.Errorf("nifti: axis %d has %d samples, NIfTI-1 allows at most %d", a, v.Shape[a], math.MaxInt16)
		}
	}
	return niftiHeaderBytes(v, code, dt), nil
}

// niftiHeaderBytes builds the 348-byte header plus the 4 extension bytes.
func niftiHeaderBytes(v *volume.Volume, code int16, dt volume.DType) []byte {
	b := make([]byte, nifti1MinOffset)
	le := binary.LittleEndian
	put16 := func(off int, x int16) { le.PutUint16(b[off:], uint16(x)) }
	putF := func(off int, x float64) { le.PutUint32(b[off:], math.Float32bits(float32(x))) }
	le.PutUint32(b[0:], nifti1HeaderSize)
	b[39] = 0 // dim_info
	nd := v.Dims()
	for a := 2; a >= nd; a-- {
		if v.Spacing[a] != 1 {
			nd = a + 1 // keep a non-unit spacing of a singleton axis
			break
		}
	}
	put16(40, int16(nd))
	for i := 1; i <= 7; i++ {
		n := 1
		if i <= 3 {
			n = v.Shape[i-1]
		}
		put16(40+2*i, int16(n))
	}
	size, _ := codec.ElemSize(dt)
	put16(70, code)
	put16(72, int16(size*8))
	aff := volume.Affine(v)
	var rot [3][3]float64
	dir := codec.DirectionOrIdentity(v.Direction)
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			rot[i][j] = dir[j][i]
		}
	}
	qb, qc, qd, qfac := matrixToQuatern(rot)
	putF(76, qfac)
	for i := 1; i <= 7; i++ {
		s := 1.0
		if i <= 3 {
			s = v.Spacing[i-1]
		}
		putF(76+4*i, s)
	}
	putF(108, nifti1MinOffset) // vox_offset
	putF(112, 1)               // scl_slope
	putF(116, 0)               // scl_inter
	b[123] = 2 | 8             // xyzt_units: mm, s
	copy(b[148:228], "rexmle")
	put16(252, 1) // qform_code: scanner
	put16(254, 1) // sform_code: scanner
	putF(256, qb)
	putF(260, qc)
	putF(264, qd)
	for i := 0; i < 3; i++ {
		putF(268+4*i, aff[i][3])
		for j := 0; j < 4; j++ {
			putF(280+16*i+4*j, aff[i][j])
		}
	}
	copy(b[344:348], "n+1\x00")
	return b
}
