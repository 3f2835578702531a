package nifti

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sync"

	"github.com/klauspost/compress/gzip"

	"github.com/rexmle/rexmle/metrics/imageio/internal/codec"
	"github.com/rexmle/rexmle/metrics/volume"
)

// NIfTI header sizes and the minimum data offsets of single-file images.
const (
	nifti1HeaderSize = 348
	nifti2HeaderSize = 540
	nifti1MinOffset  = 352
	nifti2MinOffset  = 544
)

// niftiTypes maps NIfTI datatype codes to element types.
var niftiTypes = map[int16]volume.DType{
	2:    volume.Uint8,
	4:    volume.Int16,
	8:    volume.Int32,
	16:   volume.Float32,
	64:   volume.Float64,
	256:  volume.Int8,
	512:  volume.Uint16,
	768:  volume.Uint32,
	1024: volume.Int64,
	1280: volume.Uint64,
}

// niftiCode is the inverse of niftiTypes.
func niftiCode(dt volume.DType) (int16, bool) {
	for c, t := range niftiTypes {
		if t == dt {
			return c, true
		}
	}
	return 0, false
}

// Header is the part of a NIfTI-1 or NIfTI-2 header the decoder uses,
// widened to the NIfTI-2 field types.
type Header struct {
	Version   int           // 1 or 2
	BigEndian bool          // byte order of the file
	Dim       [8]int64      // dim[0] = number of dimensions, dim[1..] sizes
	Datatype  int16         // NIfTI datatype code
	DType     volume.DType  // element type of Datatype
	Pixdim    [8]float64    // pixdim[0] = qfac, pixdim[1..3] voxel sizes
	VoxOffset int64         // byte offset of the pixel data (after the 0 → minimum fix)
	SclSlope  float64       // scaling slope; 0 or NaN = no scaling
	SclInter  float64       // scaling intercept
	QformCode int32         // qform_code
	SformCode int32         // sform_code
	Quatern   [3]float64    // quatern_b, quatern_c, quatern_d
	QOffset   [3]float64    // qoffset_x, qoffset_y, qoffset_z
	Srow      [3][4]float64 // srow_x, srow_y, srow_z
	Affine    [4][4]float64 // best affine: sform if sform_code > 0, else qform if qform_code > 0, else diag(pixdim)
	Descrip   string        // descrip, trailing NULs removed
	XYZTUnits int32         // xyzt_units
	Magic     string        // "n+1", "ni1" or "n+2"
	Intent    int32         // intent_code
}

// Scaled reports whether the header asks for scaling: slope finite and
// non-zero, and (slope, inter) ≠ (1, 0) — nibabel's rule. (A finite slope
// with a non-finite intercept is rejected when the header is read, as
// nibabel does.)
func (h *Header) Scaled() bool {
	s := h.SclSlope
	if s == 0 || math.IsNaN(s) || math.IsInf(s, 0) {
		return false
	}
	return !(s == 1 && h.SclInter == 0)
}

// ReadFile decodes a .nii or .nii.gz file (gzip when the name ends in
// .gz). See Read.
func ReadFile(path string, opts ...Options) (*volume.Volume, error) {
	return codec.ReadFileWith(path, func(f *os.File) (*volume.Volume, error) {
		return Read(f, codec.IsGzipPath(path), opts...)
	})
}

// Read decodes a single-file NIfTI-1 or NIfTI-2 image (.nii, or .nii.gz
// when gz) from r.
//
// Byte order is detected from sizeof_hdr (348 / 540). Shape comes from
// dim[1..dim[0]]; 1-D and 2-D images get trailing axes of length 1; an image
// with dim[0] > 3 is accepted when every dim above 3 is 1, otherwise it fails
// unless Options.FirstVolume is set (then the first 3-D volume is kept).
// Spacing is |pixdim[1..3]| (1 where that is 0 or not finite, and for unused
// axes). Samples are scaled as v·scl_slope + scl_inter when Scaled() (DType
// then becomes Float64), otherwise kept as stored with DType the stored
// type. Origin and Direction come from the best affine (see Header):
// Origin = its translation, Direction row j = its column j normalised.
func Read(r io.Reader, gz bool, opts ...Options) (*volume.Volume, error) {
	v, _, _, err := readNIfTI(r, gz, niftiSamples, opts)
	return v, err
}

// Mask is a NIfTI image read as a binary mask (ReadMask).
type Mask struct {
	// Volume is the image without its samples: grid, type, Data nil.
	*volume.Volume
	// NonZero tells which samples (after scaling) are not 0; NaN and ±Inf
	// count as non-zero, as numpy's astype(bool) counts them.
	NonZero []bool
	// Bytes, set by ReadMaskBytes instead of NonZero for unscaled
	// one-byte integer samples (uint8, int8), holds them as stored: sample
	// i is non-zero exactly when Bytes[i] != 0.
	Bytes []uint8
	// FirstNonFinite is the index of the first NaN or infinite sample in
	// storage order, −1 when there is none.
	FirstNonFinite int
	// Header is the image's header.
	Header *Header

	// bytesMem is the codec.GunzipBufs entry Bytes lie in (nil when they lie in
	// the caller's Options.Buffer or in memory of their own).
	bytesMem *[]byte
}

// Release hands NonZero, and the memory of Bytes unless it is the
// caller's Options.Buffer, back for the next read to reuse; neither
// m.NonZero, m.Bytes nor any slice of them may be used afterwards.
// Calling it is optional (a mask not released is collected as usual).
func (m *Mask) Release() {
	if m.NonZero != nil {
		buf := m.NonZero[:0]
		maskPool.Put(&buf)
		m.NonZero = nil
	}
	if m.bytesMem != nil {
		codec.GunzipBufs.Put(m.bytesMem)
		m.bytesMem = nil
	}
	m.Bytes = nil
}

// maskPool keeps released masks (see Mask.Release).
var maskPool sync.Pool

// ReadMask reads a NIfTI image as Read does but keeps only which
// samples are non-zero. Unscaled integer samples are tested byte by byte as
// they are read, so no float64 copy of the image is made; other samples are
// decoded as Read decodes them.
func ReadMask(r io.Reader, gz bool, opts ...Options) (*Mask, error) {
	v, m, _, err := readNIfTI(r, gz, niftiMask, opts)
	if err != nil {
		return nil, err
	}
	m.Volume = v
	return m, nil
}

// ReadMaskBytes is ReadMask, except that unscaled one-byte
// integer samples (uint8 or int8) are kept as stored, in Bytes (NonZero
// nil), with no pass that turns them into booleans: sample i is non-zero
// exactly when Bytes[i] != 0. Bytes lie in Options.Buffer when its capacity
// holds them (for a gzipped file decoded whole: holds the whole decoded
// file, Bytes then starting at vox_offset in it); otherwise in memory that
// Release recycles. Errors are ReadMask's.
func ReadMaskBytes(r io.Reader, gz bool, opts ...Options) (*Mask, error) {
	v, m, _, err := readNIfTI(r, gz, niftiMaskBytes, opts)
	if err != nil {
		return nil, err
	}
	m.Volume = v
	return m, nil
}

// ReadMaskBytesFile is ReadMaskBytes of a .nii or .nii.gz file.
func ReadMaskBytesFile(path string, opts ...Options) (*Mask, error) {
	return codec.ReadFileWith(path, func(f *os.File) (*Mask, error) {
		return ReadMaskBytes(f, codec.IsGzipPath(path), opts...)
	})
}

// ReadFileBytes reads a .nii or .nii.gz file as ReadFile does,
// but keeps unscaled 8-bit unsigned samples as bytes (Volume8.Bytes, Data
// nil), with no float64 copy; any other image has its samples in Data.
func ReadFileBytes(path string, opts ...Options) (*Volume8, error) {
	return codec.ReadFileWith(path, func(f *os.File) (*Volume8, error) {
		v, _, raw, err := readNIfTI(f, codec.IsGzipPath(path), niftiBytes8, opts)
		if err != nil {
			return nil, err
		}
		return &Volume8{Volume: v, Bytes: raw}, nil
	})
}

// ReadMaskFile is ReadMask of a .nii or .nii.gz file.
func ReadMaskFile(path string, opts ...Options) (*Mask, error) {
	return codec.ReadFileWith(path, func(f *os.File) (*Mask, error) {
		return ReadMask(f, codec.IsGzipPath(path), opts...)
	})
}

// niftiWant selects what readNIfTI returns besides the volume's geometry.
type niftiWant int

const (
	niftiSamples   niftiWant = iota // Data: float64 samples
	niftiMask                       // a Mask
	niftiBytes8                     // the bytes of unscaled uint8 samples (else Data)
	niftiMaskBytes                  // a Mask, with Bytes for unscaled 1-byte integers
)

func readNIfTI(r io.Reader, gz bool, want niftiWant, opts []Options) (*volume.Volume, *Mask, []uint8, error) {
	o := codec.PickOptions(opts)
	// The whole file holds at most vox_offset and the samples, each within
	// MaxBytes (checked once the header is read), and a header.
	// Only the 8-bit readers decode into the caller's memory.
	var buf []byte
	if want == niftiBytes8 || want == niftiMaskBytes {
		buf = o.Buffer
	}
	br, closeFn, err := niftiStream(r, gz, true, 2*min(o.MaxBytes, 1<<40)+1<<20, buf)
	if err != nil {
		return nil, nil, nil, err
	}
	defer closeFn()
	h, consumed, err := readNIfTIHeader(br)
	if err != nil {
		return nil, nil, nil, err
	}
	return readNIfTIData(br, h, consumed, o, r, gz, want)
}

// ReadHeader decodes only the header of a NIfTI-1/2 stream.
func ReadHeader(r io.Reader, gz bool) (*Header, error) {
	br, closeFn, err := niftiStream(r, gz, false, 0, nil)
	if err != nil {
		return nil, err
	}
	defer closeFn()
	h, _, err := readNIfTIHeader(br)
	return h, err
}

// ReadHeaderFile decodes only the header of a .nii or .nii.gz file.
func ReadHeaderFile(path string) (*Header, error) {
	f, err := codec.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h, err := ReadHeader(f, codec.IsGzipPath(path))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return h, nil
}

// niftiStream returns a reader of the decoded bytes of r and a function
// that releases what it used. whole allows decoding a gzip file of at most
// maxOut decoded bytes in one piece (codec.GunzipFile, into buf when it holds
// them); a reader of the header alone streams.
func niftiStream(r io.Reader, gz, whole bool, maxOut int64, buf []byte) (io.Reader, func(), error) {
	if gz && whole {
		if dec, done, ok := codec.GunzipFile(r, maxOut, buf); ok {
			return dec, done, nil
		}
	}
	br, _ := bufioPool.Get().(*bufio.Reader)
	if br == nil {
		br = bufio.NewReaderSize(r, 1<<16)
	} else {
		br.Reset(r)
	}
	release := func() {
		br.Reset(nil)
		bufioPool.Put(br)
	}
	if !gz {
		return br, release, nil
	}
	zr, _ := gzipPool.Get().(*gzip.Reader)
	var err error
	if zr == nil {
		zr, err = gzip.NewReader(br)
	} else {
		err = zr.Reset(br)
	}
	if err != nil {
		release()
		return nil, nil, fmt.Errorf("nifti: gzip: %w", err)
	}
	return zr, func() {
		zr.Close()
		gzipPool.Put(zr)
		release()
	}, nil
}

// bufioPool and gzipPool keep the 64 KiB read buffers and the gzip readers
// (with their inflate tables and window) of NIfTI streams for the next one:
// a grade reads two volumes per case.
var (
	bufioPool sync.Pool
	gzipPool  sync.Pool
)

// readNIfTIHeader reads and validates the header; it returns the header and
// the number of bytes consumed from r.
func readNIfTIHeader(r io.Reader) (*Header, int64, error) {
	var first [4]byte
	if _, err := io.ReadFull(r, first[:]); err != nil {
		return nil, 0, fmt.Errorf("nifti header: %w", codec.EOFAsTruncated(err))
	}
	var bo binary.ByteOrder
	version := 0
	switch {
	case binary.LittleEndian.Uint32(first[:]) == nifti1HeaderSize:
		bo, version = binary.LittleEndian, 1
	case binary.BigEndian.Uint32(first[:]) == nifti1HeaderSize:
		bo, version = binary.BigEndian, 1
	case binary.LittleEndian.Uint32(first[:]) == nifti2HeaderSize:
		bo, version = binary.LittleEndian, 2
	case binary.BigEndian.Uint32(first[:]) == nifti2HeaderSize:
		bo, version = binary.BigEndian, 2
	default:
		return nil, 0, fmt.Errorf("nifti header: sizeof_hdr = %d (bytes % x), want 348 or 540 in either byte order", binary.LittleEndian.Uint32(first[:]), first)
	}
	size := nifti1HeaderSize
	if version == 2 {
		size = nifti2HeaderSize
	}
	buf := make([]byte, size)
	copy(buf, first[:])
	if _, err := io.ReadFull(r, buf[4:]); err != nil {
		return nil, 0, fmt.Errorf("nifti header: %w", codec.EOFAsTruncated(err))
	}
	var h *Header
	var err error
	if version == 1 {
		h, err = parseNIfTI1(buf, bo)
	} else {
		h, err = parseNIfTI2(buf, bo)
	}
	if err != nil {
		return nil, 0, err
	}
	h.BigEndian = bo == binary.BigEndian
	h.Affine = niftiBestAffine(h)
	return h, int64(size), nil
}

func cString(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

func parseNIfTI1(b []byte, bo binary.ByteOrder) (*Header, error) {
	h := &Header{Version: 1}
	f32 := func(off int) float64 { return float64(math.Float32frombits(bo.Uint32(b[off:]))) }
	i16 := func(off int) int16 { return int16(bo.Uint16(b[off:])) }
	h.Magic = cString(b[344:348])
	if h.Magic != "n+1" && h.Magic != "ni1" {
		return nil, fmt.Errorf("nifti header: magic = %q, want \"n+1\"", h.Magic)
	}
	for i := 0; i < 8; i++ {
		h.Dim[i] = int64(i16(40 + 2*i))
		h.Pixdim[i] = f32(76 + 4*i)
	}
	h.Intent = int32(i16(68))
	h.Datatype = i16(70)
	vox := f32(108)
	if math.IsNaN(vox) || vox < 0 || vox > math.MaxInt32 {
		return nil, fmt.Errorf("nifti header: vox_offset = %v, want a non-negative byte offset", vox)
	}
	h.VoxOffset = int64(vox)
	h.SclSlope = f32(112)
	h.SclInter = f32(116)
	h.XYZTUnits = int32(b[123])
	h.Descrip = cString(b[148:228])
	h.QformCode = int32(i16(252))
	h.SformCode = int32(i16(254))
	for i := 0; i < 3; i++ {
		h.Quatern[i] = f32(256 + 4*i)
		h.QOffset[i] = f32(268 + 4*i)
		for j := 0; j < 4; j++ {
			h.Srow[i][j] = f32(280 + 16*i + 4*j)
		}
	}
	return h, validateNIfTI(h)
}

func parseNIfTI2(b []byte, bo binary.ByteOrder) (*Header, error) {
	h := &Header{Version: 2}
	f64 := func(off int) float64 { return math.Float64frombits(bo.Uint64(b[off:])) }
	i64 := func(off int) int64 { return int64(bo.Uint64(b[off:])) }
	i32 := func(off int) int32 { return int32(bo.Uint32(b[off:])) }
	h.Magic = cString(b[4:12])
	if !bytes.Equal(b[4:12], []byte("n+2\x00\r\n\x1a\n")) {
		if bytes.HasPrefix(b[4:12], []byte("ni2\x00")) {
			return nil, errors.New("nifti header: magic = \"ni2\" (header/image pair), only single-file .nii is supported")
		}
		return nil, fmt.Errorf("nifti header: magic = %q, want \"n+2\\0\\r\\n\\x1a\\n\"", b[4:12])
	}
	h.Datatype = int16(bo.Uint16(b[12:]))
	for i := 0; i < 8; i++ {
		h.Dim[i] = i64(16 + 8*i)
		h.Pixdim[i] = f64(104 + 8*i)
	}
	h.VoxOffset = i64(168)
	if h.VoxOffset < 0 {
		return nil, fmt.Errorf("nifti header: vox_offset = %d, want a non-negative byte offset", h.VoxOffset)
	}
	h.SclSlope = f64(176)
	h.SclInter = f64(184)
	h.Descrip = cString(b[240:320])
	h.QformCode = i32(344)
	h.SformCode = i32(348)
	for i := 0; i < 3; i++ {
		h.Quatern[i] = f64(352 + 8*i)
		h.QOffset[i] = f64(376 + 8*i)
		for j := 0; j < 4; j++ {
			h.Srow[i][j] = f64(400 + 32*i + 8*j)
		}
	}
	h.XYZTUnits = i32(500)
	h.Intent = i32(504)
	return h, validateNIfTI(h)
}

// validateNIfTI checks the fields the decoder relies on.
func validateNIfTI(h *Header) error {
	if h.Magic == "ni1" {
		return errors.New("nifti header: magic = \"ni1\" (.hdr/.img pair), only single-file .nii is supported")
	}
	if h.Dim[0] < 1 || h.Dim[0] > 7 {
		return fmt.Errorf("nifti header: dim[0] = %d, want 1..7", h.Dim[0])
	}
	maxDim := int64(math.MaxInt16)
	if h.Version == 2 {
		maxDim = math.MaxInt64
	}
	for i := 1; i <= int(h.Dim[0]); i++ {
		if h.Dim[i] < 1 || h.Dim[i] > maxDim {
			return fmt.Errorf("nifti header: dim[%d] = %d, want 1..%d", i, h.Dim[i], maxDim)
		}
	}
	if s := h.SclSlope; s != 0 && !math.IsNaN(s) && !math.IsInf(s, 0) && (math.IsNaN(h.SclInter) || math.IsInf(h.SclInter, 0)) {
		return fmt.Errorf("nifti header: scl_inter = %v with scl_slope = %v, want a finite intercept", h.SclInter, s)
	}
	dt, ok := niftiTypes[h.Datatype]
	if !ok {
		return fmt.Errorf("nifti header: datatype = %d, want one of 2, 4, 8, 16, 64, 256, 512, 768, 1024, 1280 (integer or real scalar types)", h.Datatype)
	}
	h.DType = dt
	minOff := int64(nifti1MinOffset)
	if h.Version == 2 {
		minOff = nifti2MinOffset
	}
	if h.VoxOffset == 0 {
		h.VoxOffset = minOff // nibabel fixes 0 to the minimum for single files
	}
	if h.VoxOffset < minOff {
		return fmt.Errorf("nifti header: vox_offset = %d, want at least %d for a single-file image", h.VoxOffset, minOff)
	}
	return nil
}

// niftiBestAffine returns the sform when sform_code > 0, else the qform when
// qform_code > 0 (rotation from the quaternion, zooms |pixdim[1..3]|, the
// third column times qfac = pixdim[0] when that is −1, else 1), else
// diag(pixdim[1..3]) with zero translation. nibabel's base affine for codes 0
// differs (it centres the volume and flips x); ITK's is the same as this one.
func niftiBestAffine(h *Header) [4][4]float64 {
	var a [4][4]float64
	a[3][3] = 1
	switch {
	case h.SformCode > 0:
		for i := 0; i < 3; i++ {
			a[i] = h.Srow[i]
		}
	case h.QformCode > 0:
		qfac := h.Pixdim[0]
		if qfac != -1 {
			qfac = 1
		}
		r := quaternToMatrix(h.Quatern[0], h.Quatern[1], h.Quatern[2], qfac)
		for i := 0; i < 3; i++ {
			for j := 0; j < 3; j++ {
				a[i][j] = r[i][j] * math.Abs(h.Pixdim[j+1]) // nibabel fixes negative pixdims to |pixdim| on load
			}
			a[i][3] = h.QOffset[i]
		}
	default:
		for i := 0; i < 3; i++ {
			a[i][i] = h.Pixdim[i+1]
		}
	}
	return a
}

// readNIfTIData skips to vox_offset and decodes the samples.
// orig is the caller's reader, probed for its size to decide whether the
// output can be allocated before the data is read.
// With maskOnly it returns the non-zero mask of the samples instead of
// the samples (see ReadMask).
func readNIfTIData(r io.Reader, h *Header, consumed int64, o Options, orig io.Reader, gz bool, want niftiWant) (*volume.Volume, *Mask, []uint8, error) {
	maskOnly := want == niftiMask || want == niftiMaskBytes
	ext, err := niftiExtent(r, h, consumed, o, orig, gz)
	if err != nil {
		return nil, nil, nil, err
	}
	shape, count, size, known := ext.shape, ext.count, ext.size, ext.known
	bo := binary.ByteOrder(binary.LittleEndian)
	if h.BigEndian {
		bo = binary.BigEndian
	}
	if want == niftiBytes8 && !h.Scaled() && h.DType == volume.Uint8 {
		// A file decoded whole hands its bytes over; others are read.
		raw, ok := []byte(nil), false
		if ws, isWhole := r.(*codec.WholeStream); isWhole {
			raw, _, ok = ws.Take(count)
		}
		if !ok {
			if raw, err = codec.ReadBytes8(r, nil, count, known, o.Buffer); err != nil {
				return nil, nil, nil, fmt.Errorf("nifti: %w", err)
			}
		}
		v := &volume.Volume{DType: h.DType, Channels: 1}
		niftiGeometry(v, h, shape)
		return v, nil, raw, nil
	}
	if want == niftiMaskBytes && !h.Scaled() && size == 1 && h.DType.IsInteger() {
		raw, mem, err := readMaskBytes(r, count, known, o.Buffer)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("nifti: %w", err)
		}
		v := &volume.Volume{DType: h.DType, Channels: 1}
		niftiGeometry(v, h, shape)
		return v, &Mask{Bytes: raw, bytesMem: mem, FirstNonFinite: -1, Header: h}, nil, nil
	}
	if maskOnly && !h.Scaled() && h.DType.IsInteger() {
		mask, err := readNonZero(r, count, size, known)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("nifti: %w", err)
		}
		v := &volume.Volume{DType: h.DType, Channels: 1}
		niftiGeometry(v, h, shape)
		return v, &Mask{NonZero: mask, FirstNonFinite: -1, Header: h}, nil, nil
	}
	data, err := codec.ReadSamples(r, count, h.DType, bo, known)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("nifti: %w", err)
	}
	v := &volume.Volume{DType: h.DType, Channels: 1, Data: data}
	niftiGeometry(v, h, shape)
	if h.Scaled() {
		slope, inter := h.SclSlope, h.SclInter
		codec.ParallelFor(len(v.Data), func(lo, hi int) {
			d := v.Data[lo:hi]
			for i := range d {
				d[i] = d[i]*slope + inter
			}
		})
		v.DType = volume.Float64
	}
	if !maskOnly {
		return v, nil, nil, nil
	}
	m := &Mask{NonZero: make([]bool, len(v.Data)), FirstNonFinite: -1, Header: h}
	for i, x := range v.Data {
		if m.FirstNonFinite < 0 && (math.IsNaN(x) || math.IsInf(x, 0)) {
			m.FirstNonFinite = i
		}
		m.NonZero[i] = x != 0
	}
	v.Data = nil
	return v, m, nil, nil
}

// niftiDataExtent is what readNIfTIData needs to know before it reads the
// samples: the first three dimensions, the sample count and size, and
// whether the file is known to hold all of them.
type niftiDataExtent struct {
	shape [3]int64
	count int64
	size  int
	known bool
}

// niftiExtent checks the header's dimensions against o, skips r to
// vox_offset (consumed bytes already read) and finds out from orig
// whether the file can hold the samples, failing early where its size
// says it cannot.
func niftiExtent(r io.Reader, h *Header, consumed int64, o Options, orig io.Reader, gz bool) (niftiDataExtent, error) {
	nd := int(h.Dim[0])
	shape := [3]int64{1, 1, 1}
	for i := 0; i < nd && i < 3; i++ {
		shape[i] = h.Dim[i+1]
	}
	for i := 4; i <= nd; i++ {
		if h.Dim[i] != 1 && !o.FirstVolume {
			return niftiDataExtent{}, fmt.Errorf("nifti header: dim[%d] = %d: a %d-D image with more than one volume is not supported (Options.FirstVolume keeps the first)", i, h.Dim[i], nd)
		}
	}
	count, err := codec.SampleCount("nifti header: dim", o.MaxBytes, shape[0], shape[1], shape[2])
	if err != nil {
		return niftiDataExtent{}, err
	}
	size, _ := codec.ElemSize(h.DType)
	skip := h.VoxOffset - consumed
	if skip > o.MaxBytes {
		return niftiDataExtent{}, fmt.Errorf("nifti header: vox_offset = %d is beyond the %d-byte limit", h.VoxOffset, o.MaxBytes)
	}
	if n, err := io.CopyN(io.Discard, r, skip); err != nil {
		return niftiDataExtent{}, fmt.Errorf("nifti: skipping to vox_offset %d: %w (got %d bytes)", h.VoxOffset, codec.EOFAsTruncated(err), consumed+n)
	}
	nbytes := count * int64(size)
	var known bool
	if gz {
		known = codec.HoldsGzip(orig, h.VoxOffset+nbytes)
	} else {
		var fileSize int64
		var sized bool
		fileSize, known, sized = codec.HoldsPlain(orig, h.VoxOffset+nbytes)
		if sized && !known {
			return niftiDataExtent{}, fmt.Errorf("nifti: file truncated: %d bytes, the header needs %d (vox_offset %d + %d bytes of pixel data)", fileSize, h.VoxOffset+nbytes, h.VoxOffset, nbytes)
		}
	}
	return niftiDataExtent{shape: shape, count: count, size: size, known: known}, nil
}

// readMaskBytes reads count one-byte samples for ReadMaskBytes: those
// of a file decoded whole where they lie, else into buf when it holds them,
// else into recycled memory (mem, its codec.GunzipBufs entry) when that holds them
// or the input is known to hold them, else as codec.ReadBytes8 reads them.
func readMaskBytes(r io.Reader, count int64, known bool, buf []byte) (raw []byte, mem *[]byte, err error) {
	if ws, isWhole := r.(*codec.WholeStream); isWhole {
		if raw, mem, ok := ws.Take(count); ok {
			return raw, mem, nil
		}
	}
	if int64(cap(buf)) < count {
		p := codec.GunzipBufs.Get().(*[]byte)
		switch {
		case int64(cap(*p)) >= count:
		case known:
			*p = make([]byte, count)
		default:
			codec.GunzipBufs.Put(p)
			p = nil
		}
		if p != nil {
			buf, mem = *p, p
		}
	}
	if raw, err = codec.ReadBytes8(r, nil, count, known, buf); err != nil {
		if mem != nil {
			codec.GunzipBufs.Put(mem)
		}
		return nil, nil, err
	}
	return raw, mem, nil
}

// niftiGeometry sets v's grid from the header: shape, spacing |pixdim|
// (1 where 0, non-finite or unused), origin and direction from the best
// affine.
func niftiGeometry(v *volume.Volume, h *Header, shape [3]int64) {
	nd := int(h.Dim[0])
	for a := 0; a < 3; a++ {
		v.Shape[a] = int(shape[a])
		v.Spacing[a] = 1
		if a < nd {
			if s := math.Abs(h.Pixdim[a+1]); s > 0 && !math.IsInf(s, 0) {
				v.Spacing[a] = s
			}
		}
	}
	var m [3][3]float64
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			m[i][j] = h.Affine[i][j]
		}
		v.Origin[i] = h.Affine[i][3]
	}
	v.Direction = codec.DirectionFromColumns(m)
}
