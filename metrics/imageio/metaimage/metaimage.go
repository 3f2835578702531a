package metaimage

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/klauspost/compress/zlib"

	"github.com/rexmle/rexmle/metrics/imageio/internal/codec"
	"github.com/rexmle/rexmle/metrics/volume"
)

// metaTypes maps MetaImage element types to element types. MET_LONG and
// MET_ULONG are 4 bytes in MetaIO.
var metaTypes = map[string]volume.DType{
	"MET_UCHAR":      volume.Uint8,
	"MET_CHAR":       volume.Int8,
	"MET_USHORT":     volume.Uint16,
	"MET_SHORT":      volume.Int16,
	"MET_UINT":       volume.Uint32,
	"MET_INT":        volume.Int32,
	"MET_ULONG":      volume.Uint32,
	"MET_LONG":       volume.Int32,
	"MET_ULONG_LONG": volume.Uint64,
	"MET_LONG_LONG":  volume.Int64,
	"MET_FLOAT":      volume.Float32,
	"MET_DOUBLE":     volume.Float64,
}

var metaNames = map[volume.DType]string{
	volume.Uint8: "MET_UCHAR", volume.Int8: "MET_CHAR", volume.Uint16: "MET_USHORT", volume.Int16: "MET_SHORT",
	volume.Uint32: "MET_UINT", volume.Int32: "MET_INT", volume.Uint64: "MET_ULONG_LONG", volume.Int64: "MET_LONG_LONG",
	volume.Float32: "MET_FLOAT", volume.Float64: "MET_DOUBLE",
}

type metaHeader struct {
	ndims          int
	dimSize        []int64
	dtype          volume.DType
	spacing        []float64
	elementSize    []float64
	offset         []float64
	transform      []float64
	msb            bool
	compressed     bool
	compressedSize int64
	channels       int64
	dataFile       string
	headerSize     int64
}

// ReadFile decodes a MetaImage file: .mha with the data inline
// (ElementDataFile = LOCAL) or .mhd whose ElementDataFile names a file in the
// same folder (an absolute name, a ".." component or a link leading outside
// is refused).
//
// Supported: NDims 1 to 3 (more when the extra DimSize entries are 1, or
// with Options.FirstVolume), ElementType MET_UCHAR, MET_CHAR, MET_USHORT,
// MET_SHORT, MET_UINT, MET_INT, MET_ULONG, MET_LONG (4 bytes), MET_ULONG_LONG,
// MET_LONG_LONG, MET_FLOAT, MET_DOUBLE (with or without the _ARRAY suffix),
// BinaryDataByteOrderMSB (or ElementByteOrderMSB), CompressedData (zlib),
// ElementNumberOfChannels (interleaved per voxel, as Volume.Data),
// ElementSpacing (else ElementSize, else 1), Offset (or Origin, Position)
// and TransformMatrix (or Rotation, Orientation): row j of the NDims×NDims
// matrix as written is the direction of axis j, as ITK reads it. Direction
// is the identity when no matrix is given. ASCII data (BinaryData = False)
// and lists of data files are refused.
func ReadFile(path string, opts ...Options) (*volume.Volume, error) {
	return codec.ReadFileWith(path, func(f *os.File) (*volume.Volume, error) {
		v, _, err := readMetaImageAs(f, path, codec.PickOptions(opts), false)
		return v, err
	})
}

// ReadFileBytes reads a MetaImage file as ReadFile does,
// but keeps the samples of a single-channel 8-bit unsigned image as bytes
// (masks and label maps usually are), with no float64 copy: a tenth of the
// memory and of the time on large volumes. Compressed data is inflated
// whole when it is one exact zlib stream (metrics/internal/inflate), else
// streamed as ReadFile streams it.
func ReadFileBytes(path string, opts ...Options) (*Volume8, error) {
	return codec.ReadFileWith(path, func(f *os.File) (*Volume8, error) {
		v, raw, err := readMetaImageAs(f, path, codec.PickOptions(opts), true)
		if err != nil {
			return nil, err
		}
		return &Volume8{Volume: v, Bytes: raw}, nil
	})
}

// ReadShapeFile reads only the header of a MetaImage file and
// returns the shape ReadFile would give its volume with the same
// options (header errors, the MaxBytes cap and the FirstVolume rule
// included), decoding no sample: a caller that must size something by an
// image can do so before, or while, the image is decoded.
func ReadShapeFile(path string, opts ...Options) ([3]int, error) {
	return codec.ReadFileWith(path, func(f *os.File) ([3]int, error) {
		h, err := parseMetaHeader(&codec.HeaderReader{R: bufio.NewReaderSize(f, 1<<12)})
		if err != nil {
			return [3]int{}, err
		}
		shape, _, _, err := metaShape(h, codec.PickOptions(opts))
		return [3]int{int(shape[0]), int(shape[1]), int(shape[2])}, err
	})
}

// readMetaImageAs reads a MetaImage; with bytes8 a single-channel MET_UCHAR
// image keeps its samples as bytes (raw, Data nil).
func readMetaImageAs(r io.Reader, path string, o Options, bytes8 bool) (*volume.Volume, []uint8, error) {
	hr := &codec.HeaderReader{R: bufio.NewReaderSize(r, 1<<16)}
	h, err := parseMetaHeader(hr)
	if err != nil {
		return nil, nil, err
	}
	shape, channels, count, err := metaShape(h, o)
	if err != nil {
		return nil, nil, err
	}
	size, _ := codec.ElemSize(h.dtype)
	nbytes := count * int64(size)
	var src io.Reader
	known := false // whether the input provably holds the data
	if strings.EqualFold(h.dataFile, "LOCAL") {
		src = hr.R
		if h.headerSize > 0 {
			return nil, nil, fmt.Errorf("metaimage header: HeaderSize = %d with inline data is not supported", h.headerSize)
		}
	} else {
		var f *os.File
		if src, f, known, err = openDetachedData(h, path, nbytes); err != nil {
			return nil, nil, err
		}
		defer f.Close()
	}
	var compressedSrc *codec.ZlibSource
	if h.compressed {
		if h.compressedSize > 0 {
			src = io.LimitReader(src, h.compressedSize)
		}
		compressedSrc = &codec.ZlibSource{R: src}
	}
	bo := binary.ByteOrder(binary.LittleEndian)
	if h.msb {
		bo = binary.BigEndian
	}
	var raw []uint8
	var data []float64
	if bytes8 && h.dtype == volume.Uint8 && channels == 1 {
		raw, err = codec.ReadBytes8(src, compressedSrc, count, known, o.Buffer)
	} else {
		if compressedSrc != nil {
			src, err = compressedSrc.Stream()
			if err == nil {
				defer compressedSrc.Close()
			}
		}
		if err == nil {
			data, err = codec.ReadSamples(src, count, h.dtype, bo, known)
		}
	}
	if err != nil {
		return nil, nil, fmt.Errorf("metaimage: %w", err)
	}
	v := &volume.Volume{DType: h.dtype, Channels: int(channels), Data: data}
	metaGeometry(v, h, shape)
	return v, raw, nil
}

// openDetachedData opens the data file a detached header names (confined
// to the header's folder, path), positioned at its first sample, and says
// whether its size is known to hold the nbytes of uncompressed samples;
// the caller closes the file.
func openDetachedData(h *metaHeader, path string, nbytes int64) (io.Reader, *os.File, bool, error) {
	if path == "" {
		return nil, nil, false, fmt.Errorf("metaimage header: ElementDataFile = %q needs the header's path (use metaimage.ReadFile)", h.dataFile)
	}
	if strings.HasPrefix(strings.ToUpper(h.dataFile), "LIST") || strings.ContainsAny(h.dataFile, "%") {
		return nil, nil, false, fmt.Errorf("metaimage header: ElementDataFile = %q: lists and patterns of data files are not supported", h.dataFile)
	}
	f, err := codec.OpenConfined(path, h.dataFile)
	if err != nil {
		return nil, nil, false, fmt.Errorf("metaimage header: ElementDataFile: %w", err)
	}
	known, err := seekDetachedData(f, h, nbytes)
	if err != nil {
		f.Close()
		return nil, nil, false, err
	}
	return bufio.NewReaderSize(f, 1<<20), f, known, nil
}

// seekDetachedData moves f to the first sample (HeaderSize bytes in, or
// the last nbytes for −1) and says whether f is known to hold the nbytes
// of uncompressed samples.
func seekDetachedData(f *os.File, h *metaHeader, nbytes int64) (known bool, err error) {
	st, err := f.Stat()
	if err != nil {
		return false, err
	}
	if !h.compressed {
		skip := max(h.headerSize, 0)
		if st.Size() < skip+nbytes {
			return false, fmt.Errorf("metaimage: data file %s holds %d bytes, the header needs %d", h.dataFile, st.Size(), skip+nbytes)
		}
		known = true
	}
	switch {
	case h.headerSize == -1 && !h.compressed:
		if _, err := f.Seek(st.Size()-nbytes, io.SeekStart); err != nil {
			return false, err
		}
	case h.headerSize > 0:
		if _, err := f.Seek(h.headerSize, io.SeekStart); err != nil {
			return false, err
		}
	case h.headerSize < 0:
		return false, fmt.Errorf("metaimage header: HeaderSize = %d, want -1 or a byte count", h.headerSize)
	}
	return known, nil
}

// metaGeometry sets v's shape, spacing (ElementSpacing, else
// ElementSize, else 1), origin (Offset) and direction (TransformMatrix,
// else the identity) from h.
func metaGeometry(v *volume.Volume, h *metaHeader, shape [3]int64) {
	v.Direction = codec.Identity3()
	for a := 0; a < 3; a++ {
		v.Shape[a] = int(shape[a])
		v.Spacing[a] = 1
		if a < h.ndims {
			switch {
			case len(h.spacing) > 0:
				v.Spacing[a] = codec.SpacingOrOne(h.spacing[a])
			case len(h.elementSize) > 0:
				v.Spacing[a] = codec.SpacingOrOne(h.elementSize[a])
			}
			if len(h.offset) > 0 {
				v.Origin[a] = h.offset[a]
			}
		}
	}
	if len(h.transform) > 0 {
		n := h.ndims
		for i := 0; i < 3 && i < n; i++ {
			for j := 0; j < 3; j++ {
				v.Direction[i][j] = 0
				if j < n {
					v.Direction[i][j] = h.transform[i*n+j]
				}
			}
		}
	}
}

func parseBool(field, s string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "1", "yes":
		return true, nil
	case "false", "0", "no":
		return false, nil
	}
	return false, fmt.Errorf("metaimage header: %s = %q, want True or False", field, s)
}

func parseMetaHeader(hr *codec.HeaderReader) (*metaHeader, error) {
	h := &metaHeader{channels: 1, compressedSize: -1}
	binaryData := true
	seen := map[string]bool{}
	for {
		line, err := hr.Line()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil, errors.New("metaimage header: no ElementDataFile line (file truncated or not MetaImage)")
			}
			return nil, fmt.Errorf("metaimage header: %w", err)
		}
		if strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		key, val, ok := strings.Cut(line, "=")
		if !ok {
			return nil, fmt.Errorf("metaimage header: line %q has no \"=\"", codec.Truncate(line, 60))
		}
		key = strings.TrimSpace(key)
		val = strings.TrimSpace(val)
		k := strings.ToLower(key)
		if len(seen) == 0 && k != "objecttype" && k != "ndims" && k != "comment" {
			// The first field of a MetaImage header is ObjectType (or NDims).
			return nil, fmt.Errorf("metaimage header: first field is %q, want ObjectType or NDims", codec.Truncate(key, 40))
		}
		seen[k] = true
		if err := h.set(key, k, val, &binaryData); err != nil {
			return nil, err
		}
		if k == "elementdatafile" {
			break
		}
	}
	if err := h.check(binaryData); err != nil {
		return nil, err
	}
	return h, nil
}

// set records one header field: key as written, k lower-cased, val
// trimmed; BinaryData goes to *binaryData.
func (h *metaHeader) set(key, k, val string, binaryData *bool) error {
	var err error
	switch k {
	case "objecttype":
		if !strings.EqualFold(val, "Image") {
			return fmt.Errorf("metaimage header: ObjectType = %q, want Image", val)
		}
	case "ndims":
		n, err := strconv.Atoi(val)
		if err != nil || n < 1 || n > 16 {
			return fmt.Errorf("metaimage header: NDims = %q, want 1..16", val)
		}
		h.ndims = n
	case "dimsize":
		h.dimSize, err = codec.ParseInts("metaimage header: DimSize", val)
	case "elementtype":
		t := strings.TrimSuffix(strings.ToUpper(val), "_ARRAY")
		dt, ok := metaTypes[t]
		if !ok {
			return fmt.Errorf("metaimage header: ElementType = %q, want MET_UCHAR, MET_CHAR, MET_USHORT, MET_SHORT, MET_UINT, MET_INT, MET_LONG_LONG, MET_ULONG_LONG, MET_FLOAT or MET_DOUBLE", val)
		}
		h.dtype = dt
	case "elementspacing":
		h.spacing, err = codec.ParseFloats("metaimage header: ElementSpacing", val)
	case "elementsize":
		h.elementSize, err = codec.ParseFloats("metaimage header: ElementSize", val)
	case "offset", "origin", "position":
		h.offset, err = codec.ParseFloats("metaimage header: "+key, val)
	case "transformmatrix", "rotation", "orientation":
		h.transform, err = codec.ParseFloats("metaimage header: "+key, val)
	case "binarydatabyteordermsb", "elementbyteordermsb":
		h.msb, err = parseBool(key, val)
	case "binarydata":
		*binaryData, err = parseBool(key, val)
	case "compresseddata":
		h.compressed, err = parseBool(key, val)
	case "compresseddatasize":
		h.compressedSize, err = strconv.ParseInt(val, 10, 64)
		if err != nil || h.compressedSize < 0 {
			return fmt.Errorf("metaimage header: CompressedDataSize = %q, want a byte count", val)
		}
	case "elementnumberofchannels":
		h.channels, err = strconv.ParseInt(val, 10, 64)
		if err != nil || h.channels < 1 || h.channels > codec.MaxChannels {
			return fmt.Errorf("metaimage header: ElementNumberOfChannels = %q, want 1..%d", val, codec.MaxChannels)
		}
	case "headersize":
		h.headerSize, err = strconv.ParseInt(val, 10, 64)
		if err != nil {
			return fmt.Errorf("metaimage header: HeaderSize = %q, want a byte count or -1", val)
		}
	case "elementdatafile":
		h.dataFile = val
	}
	return err
}

// check reports a header that lacks a field the reader needs or whose
// fields disagree with NDims.
func (h *metaHeader) check(binaryData bool) error {
	if !binaryData {
		return errors.New("metaimage header: BinaryData = False (ASCII data) is not supported")
	}
	if h.ndims == 0 {
		return errors.New("metaimage header: NDims missing")
	}
	if len(h.dimSize) != h.ndims {
		return fmt.Errorf("metaimage header: DimSize has %d values, want NDims = %d", len(h.dimSize), h.ndims)
	}
	if h.dtype == "" {
		return errors.New("metaimage header: ElementType missing")
	}
	for _, f := range []struct {
		name string
		vals []float64
		want int
	}{
		{"ElementSpacing", h.spacing, h.ndims},
		{"ElementSize", h.elementSize, h.ndims},
		{"Offset", h.offset, h.ndims},
		{"TransformMatrix", h.transform, h.ndims * h.ndims},
	} {
		if len(f.vals) != 0 && len(f.vals) != f.want {
			return fmt.Errorf("metaimage header: %s has %d values, want %d", f.name, len(f.vals), f.want)
		}
	}
	return nil
}

// metaShape validates DimSize and returns the 3-D shape, channels and the
// total number of samples.
func metaShape(h *metaHeader, o Options) ([3]int64, int64, int64, error) {
	shape := [3]int64{1, 1, 1}
	for i, d := range h.dimSize {
		if d < 1 {
			return shape, 0, 0, fmt.Errorf("metaimage header: DimSize[%d] = %d, want at least 1", i, d)
		}
		if i < 3 {
			shape[i] = d
		} else if d != 1 && !o.FirstVolume {
			return shape, 0, 0, fmt.Errorf("metaimage header: DimSize[%d] = %d: a %d-D image with more than one volume is not supported (Options.FirstVolume keeps the first)", i, d, h.ndims)
		}
	}
	count, err := codec.SampleCount("metaimage header: DimSize", o.MaxBytes, shape[0], shape[1], shape[2], h.channels)
	return shape, h.channels, count, err
}

// WriteFile writes v with elements of type dt (v.DType when empty).
// A .mha path gets the data inline; a .mhd path gets the data in a file
// beside it with the same base name and extension .raw (.zraw when
// compressed). compressed selects zlib compression. Elements are
// little-endian. The header carries NDims (v.Dims(), at least 2, raised to
// keep a singleton axis with a non-unit spacing), DimSize, ElementSpacing,
// Offset, TransformMatrix (rows = Direction, identity when zero),
// ElementNumberOfChannels and, when compressed, CompressedDataSize.
func WriteFile(path string, v *volume.Volume, dt volume.DType, compressed bool) error {
	lower := strings.ToLower(path)
	if !strings.HasSuffix(lower, ".mha") && !strings.HasSuffix(lower, ".mhd") {
		return fmt.Errorf("write %s: want a .mha or .mhd name", path)
	}
	var buf bytes.Buffer
	dataName := "LOCAL"
	if strings.HasSuffix(lower, ".mhd") {
		dataName = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)) + ".raw"
		if compressed {
			dataName = strings.TrimSuffix(dataName, ".raw") + ".zraw"
		}
	}
	header, data, err := encodeMetaImage(v, dt, compressed, dataName)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	buf.Write(header)
	if dataName == "LOCAL" {
		buf.Write(data)
	} else if err := os.WriteFile(filepath.Join(filepath.Dir(path), dataName), data, 0o644); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

func encodeMetaImage(v *volume.Volume, dt volume.DType, compressed bool, dataName string) ([]byte, []byte, error) {
	if err := codec.CheckVolume(v); err != nil {
		return nil, nil, err
	}
	if dt == "" {
		dt = v.DType
	}
	name, ok := metaNames[dt]
	if !ok {
		return nil, nil, fmt.Errorf("metaimage: element type %q not supported", dt)
	}
	data, err := codec.EncodeSamples(v.Data, dt, binary.LittleEndian)
	if err != nil {
		return nil, nil, fmt.Errorf("metaimage: %w", err)
	}
	if compressed {
		var zb bytes.Buffer
		zw, _ := zlib.NewWriterLevel(&zb, zlib.BestSpeed)
		zw.Write(data)
		if err := zw.Close(); err != nil {
			return nil, nil, err
		}
		data = zb.Bytes()
	}
	return []byte(metaImageHeader(v, name, compressed, int64(len(data)), dataName)), data, nil
}

// metaImageHeader is the header encodeMetaImage writes for v's geometry
// (its samples are not read), element type name and data file.
func metaImageHeader(v *volume.Volume, name string, compressed bool, compressedSize int64, dataName string) string {
	nd := codec.WriteDims(v)
	dir := codec.DirectionOrIdentity(v.Direction)
	var sb strings.Builder
	join := func(n int, f func(i int) float64) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = strconv.FormatFloat(f(i), 'g', -1, 64)
		}
		return strings.Join(parts, " ")
	}
	fmt.Fprintf(&sb, "ObjectType = Image\nNDims = %d\nBinaryData = True\nBinaryDataByteOrderMSB = False\n", nd)
	fmt.Fprintf(&sb, "CompressedData = %s\n", map[bool]string{true: "True", false: "False"}[compressed])
	if compressed {
		fmt.Fprintf(&sb, "CompressedDataSize = %d\n", compressedSize)
	}
	fmt.Fprintf(&sb, "TransformMatrix = %s\n", join(nd*nd, func(i int) float64 { return dir[i/nd][i%nd] }))
	fmt.Fprintf(&sb, "Offset = %s\n", join(nd, func(i int) float64 { return v.Origin[i] }))
	fmt.Fprintf(&sb, "ElementSpacing = %s\n", join(nd, func(i int) float64 { return v.Spacing[i] }))
	fmt.Fprintf(&sb, "DimSize = %s\n", join(nd, func(i int) float64 { return float64(v.Shape[i]) }))
	if v.NumChannels() > 1 {
		fmt.Fprintf(&sb, "ElementNumberOfChannels = %d\n", v.NumChannels())
	}
	fmt.Fprintf(&sb, "ElementType = %s\nElementDataFile = %s\n", name, dataName)
	return sb.String()
}
