package imageio

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
	"github.com/rexmle/rexmle/metrics/internal/inflate"
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

// maxChannels caps ElementNumberOfChannels and NRRD list axes.
const maxChannels = 4096

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

// ReadMetaImageFile decodes a MetaImage file: .mha with the data inline
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
func ReadMetaImageFile(path string, opts ...Options) (*volume.Volume, error) {
	return readFileWith(path, func(f *os.File) (*volume.Volume, error) {
		v, _, err := readMetaImageAs(f, path, pickOptions(opts), false)
		return v, err
	})
}

// Volume8 is an image read by ReadMetaImageFileBytes or ReadNRRDFileBytes.
type Volume8 struct {
	// Volume is the image as ReadMetaImageFile (ReadNRRDFile) returns it,
	// except that Data is nil when Bytes holds the samples.
	*volume.Volume
	// Bytes holds the samples of a single-channel 8-bit unsigned image
	// (nil for any other, whose samples are in Volume.Data).
	Bytes []uint8
}

// ReadMetaImageFileBytes reads a MetaImage file as ReadMetaImageFile does,
// but keeps the samples of a single-channel 8-bit unsigned image as bytes
// (masks and label maps usually are), with no float64 copy: a tenth of the
// memory and of the time on large volumes. Compressed data is inflated
// whole when it is one exact zlib stream (metrics/internal/inflate), else
// streamed as ReadMetaImageFile streams it.
func ReadMetaImageFileBytes(path string, opts ...Options) (*Volume8, error) {
	return readFileWith(path, func(f *os.File) (*Volume8, error) {
		v, raw, err := readMetaImageAs(f, path, pickOptions(opts), true)
		if err != nil {
			return nil, err
		}
		return &Volume8{Volume: v, Bytes: raw}, nil
	})
}

// ReadMetaImageShapeFile reads only the header of a MetaImage file and
// returns the shape ReadMetaImageFile would give its volume with the same
// options (header errors, the MaxBytes cap and the FirstVolume rule
// included), decoding no sample: a caller that must size something by an
// image can do so before, or while, the image is decoded.
func ReadMetaImageShapeFile(path string, opts ...Options) ([3]int, error) {
	return readFileWith(path, func(f *os.File) ([3]int, error) {
		h, err := parseMetaHeader(&headerReader{r: bufio.NewReaderSize(f, 1<<12)})
		if err != nil {
			return [3]int{}, err
		}
		shape, _, _, err := metaShape(h, pickOptions(opts))
		return [3]int{int(shape[0]), int(shape[1]), int(shape[2])}, err
	})
}

// readMetaImageAs reads a MetaImage; with bytes8 a single-channel MET_UCHAR
// image keeps its samples as bytes (raw, Data nil).
func readMetaImageAs(r io.Reader, path string, o Options, bytes8 bool) (*volume.Volume, []uint8, error) {
	hr := &headerReader{r: bufio.NewReaderSize(r, 1<<16)}
	h, err := parseMetaHeader(hr)
	if err != nil {
		return nil, nil, err
	}
	shape, channels, count, err := metaShape(h, o)
	if err != nil {
		return nil, nil, err
	}
	size, _ := elemSize(h.dtype)
	nbytes := count * int64(size)
	var src io.Reader
	known := false // whether the input provably holds the data
	if strings.EqualFold(h.dataFile, "LOCAL") {
		src = hr.r
		if h.headerSize > 0 {
			return nil, nil, fmt.Errorf("metaimage header: HeaderSize = %d with inline data is not supported", h.headerSize)
		}
	} else {
		if path == "" {
			return nil, nil, fmt.Errorf("metaimage header: ElementDataFile = %q needs the header's path (use ReadMetaImageFile)", h.dataFile)
		}
		if strings.HasPrefix(strings.ToUpper(h.dataFile), "LIST") || strings.ContainsAny(h.dataFile, "%") {
			return nil, nil, fmt.Errorf("metaimage header: ElementDataFile = %q: lists and patterns of data files are not supported", h.dataFile)
		}
		f, err := openConfined(path, h.dataFile)
		if err != nil {
			return nil, nil, fmt.Errorf("metaimage header: ElementDataFile: %w", err)
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return nil, nil, err
		}
		if !h.compressed {
			skip := max(h.headerSize, 0)
			if st.Size() < skip+nbytes {
				return nil, nil, fmt.Errorf("metaimage: data file %s holds %d bytes, the header needs %d", h.dataFile, st.Size(), skip+nbytes)
			}
			known = true
		}
		switch {
		case h.headerSize == -1 && !h.compressed:
			if _, err := f.Seek(st.Size()-nbytes, io.SeekStart); err != nil {
				return nil, nil, err
			}
		case h.headerSize > 0:
			if _, err := f.Seek(h.headerSize, io.SeekStart); err != nil {
				return nil, nil, err
			}
		case h.headerSize < 0:
			return nil, nil, fmt.Errorf("metaimage header: HeaderSize = %d, want -1 or a byte count", h.headerSize)
		}
		src = bufio.NewReaderSize(f, 1<<20)
	}
	var compressedSrc *zlibSource
	if h.compressed {
		if h.compressedSize > 0 {
			src = io.LimitReader(src, h.compressedSize)
		}
		compressedSrc = &zlibSource{r: src}
	}
	bo := binary.ByteOrder(binary.LittleEndian)
	if h.msb {
		bo = binary.BigEndian
	}
	var raw []uint8
	var data []float64
	if bytes8 && h.dtype == volume.Uint8 && channels == 1 {
		raw, err = readBytes8(src, compressedSrc, count, known, o.Buffer)
	} else {
		if compressedSrc != nil {
			src, err = compressedSrc.stream()
			if err == nil {
				defer compressedSrc.close()
			}
		}
		if err == nil {
			data, err = readSamples(src, count, h.dtype, bo, known)
		}
	}
	if err != nil {
		return nil, nil, fmt.Errorf("metaimage: %w", err)
	}
	v := &volume.Volume{DType: h.dtype, Channels: int(channels), Data: data}
	v.Direction = identity3()
	for a := 0; a < 3; a++ {
		v.Shape[a] = int(shape[a])
		v.Spacing[a] = 1
		if a < h.ndims {
			switch {
			case len(h.spacing) > 0:
				v.Spacing[a] = spacingOrOne(h.spacing[a])
			case len(h.elementSize) > 0:
				v.Spacing[a] = spacingOrOne(h.elementSize[a])
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
	return v, raw, nil
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

func parseMetaHeader(hr *headerReader) (*metaHeader, error) {
	h := &metaHeader{channels: 1, compressedSize: -1}
	binaryData := true
	seen := map[string]bool{}
	for {
		line, err := hr.line()
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
			return nil, fmt.Errorf("metaimage header: line %q has no \"=\"", truncate(line, 60))
		}
		key = strings.TrimSpace(key)
		val = strings.TrimSpace(val)
		k := strings.ToLower(key)
		if len(seen) == 0 && k != "objecttype" && k != "ndims" && k != "comment" {
			// The first field of a MetaImage header is ObjectType (or NDims).
			return nil, fmt.Errorf("metaimage header: first field is %q, want ObjectType or NDims", truncate(key, 40))
		}
		seen[k] = true
		switch k {
		case "objecttype":
			if !strings.EqualFold(val, "Image") {
				return nil, fmt.Errorf("metaimage header: ObjectType = %q, want Image", val)
			}
		case "ndims":
			n, err := strconv.Atoi(val)
			if err != nil || n < 1 || n > 16 {
				return nil, fmt.Errorf("metaimage header: NDims = %q, want 1..16", val)
			}
			h.ndims = n
		case "dimsize":
			h.dimSize, err = parseInts("metaimage header: DimSize", val)
		case "elementtype":
			t := strings.TrimSuffix(strings.ToUpper(val), "_ARRAY")
			dt, ok := metaTypes[t]
			if !ok {
				return nil, fmt.Errorf("metaimage header: ElementType = %q, want MET_UCHAR, MET_CHAR, MET_USHORT, MET_SHORT, MET_UINT, MET_INT, MET_LONG_LONG, MET_ULONG_LONG, MET_FLOAT or MET_DOUBLE", val)
			}
			h.dtype = dt
		case "elementspacing":
			h.spacing, err = parseFloats("metaimage header: ElementSpacing", val)
		case "elementsize":
			h.elementSize, err = parseFloats("metaimage header: ElementSize", val)
		case "offset", "origin", "position":
			h.offset, err = parseFloats("metaimage header: "+key, val)
		case "transformmatrix", "rotation", "orientation":
			h.transform, err = parseFloats("metaimage header: "+key, val)
		case "binarydatabyteordermsb", "elementbyteordermsb":
			h.msb, err = parseBool(key, val)
		case "binarydata":
			binaryData, err = parseBool(key, val)
		case "compresseddata":
			h.compressed, err = parseBool(key, val)
		case "compresseddatasize":
			h.compressedSize, err = strconv.ParseInt(val, 10, 64)
			if err != nil || h.compressedSize < 0 {
				return nil, fmt.Errorf("metaimage header: CompressedDataSize = %q, want a byte count", val)
			}
		case "elementnumberofchannels":
			h.channels, err = strconv.ParseInt(val, 10, 64)
			if err != nil || h.channels < 1 || h.channels > maxChannels {
				return nil, fmt.Errorf("metaimage header: ElementNumberOfChannels = %q, want 1..%d", val, maxChannels)
			}
		case "headersize":
			h.headerSize, err = strconv.ParseInt(val, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("metaimage header: HeaderSize = %q, want a byte count or -1", val)
			}
		case "elementdatafile":
			h.dataFile = val
		}
		if err != nil {
			return nil, err
		}
		if k == "elementdatafile" {
			break
		}
	}
	if !binaryData {
		return nil, errors.New("metaimage header: BinaryData = False (ASCII data) is not supported")
	}
	if h.ndims == 0 {
		return nil, errors.New("metaimage header: NDims missing")
	}
	if len(h.dimSize) != h.ndims {
		return nil, fmt.Errorf("metaimage header: DimSize has %d values, want NDims = %d", len(h.dimSize), h.ndims)
	}
	if h.dtype == "" {
		return nil, errors.New("metaimage header: ElementType missing")
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
			return nil, fmt.Errorf("metaimage header: %s has %d values, want %d", f.name, len(f.vals), f.want)
		}
	}
	return h, nil
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
	count, err := sampleCount("metaimage header: DimSize", o.MaxBytes, shape[0], shape[1], shape[2], h.channels)
	return shape, h.channels, count, err
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// WriteMetaImageFile writes v with elements of type dt (v.DType when empty).
// A .mha path gets the data inline; a .mhd path gets the data in a file
// beside it with the same base name and extension .raw (.zraw when
// compressed). compressed selects zlib compression. Elements are
// little-endian. The header carries NDims (v.Dims(), at least 2, raised to
// keep a singleton axis with a non-unit spacing), DimSize, ElementSpacing,
// Offset, TransformMatrix (rows = Direction, identity when zero),
// ElementNumberOfChannels and, when compressed, CompressedDataSize.
func WriteMetaImageFile(path string, v *volume.Volume, dt volume.DType, compressed bool) error {
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

// writeDims is the number of axes a writer records for v.
func writeDims(v *volume.Volume) int {
	nd := max(v.Dims(), 2)
	for a := 2; a >= nd; a-- {
		if v.Spacing[a] != 1 {
			return a + 1
		}
	}
	return nd
}

func encodeMetaImage(v *volume.Volume, dt volume.DType, compressed bool, dataName string) ([]byte, []byte, error) {
	if err := checkVolume(v); err != nil {
		return nil, nil, err
	}
	if dt == "" {
		dt = v.DType
	}
	name, ok := metaNames[dt]
	if !ok {
		return nil, nil, fmt.Errorf("metaimage: element type %q not supported", dt)
	}
	data, err := encodeSamples(v.Data, dt, binary.LittleEndian)
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
	nd := writeDims(v)
	dir := directionOrIdentity(v.Direction)
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

// zlibSource is a MetaImage's compressed data: streamed through a zlib
// reader (stream), or inflated whole (readBytes8).
type zlibSource struct {
	r  io.Reader
	zr io.ReadCloser
}

// stream returns a reader of the decompressed data.
func (z *zlibSource) stream() (io.Reader, error) {
	zr, err := zlib.NewReader(z.r)
	if err != nil {
		return nil, fmt.Errorf("compressed data: %w", err)
	}
	z.zr = zr
	return zr, nil
}

func (z *zlibSource) close() {
	if z.zr != nil {
		z.zr.Close()
	}
}

// readBytes8 reads count one-byte samples from src, or from the compressed
// data z when it is not nil: inflated whole when the rest of the input is
// one zlib stream of exactly count bytes, else streamed (the first count
// bytes it decodes, as readSamples reads them). The samples go into buf
// when its capacity holds them (Options.Buffer), else into new memory.
func readBytes8(src io.Reader, z *zlibSource, count int64, known bool, buf []byte) ([]uint8, error) {
	out := func() []uint8 {
		if int64(cap(buf)) >= count {
			return buf[:count]
		}
		return make([]uint8, count)
	}
	if z != nil {
		// A zlib stream of count bytes from any usual encoder is at most
		// count + count/8 + 1024 bytes long (stored blocks cost 5 bytes
		// per 65535); a longer one is streamed below.
		comp, err := io.ReadAll(io.LimitReader(z.r, count+count/8+1024))
		if err != nil {
			return nil, fmt.Errorf("compressed data: %w", err)
		}
		dst := out()
		if inflate.Zlib(dst, comp) == nil {
			return dst, nil
		}
		// Streamed from the bytes read and whatever follows them (a
		// valid stream may be longer than the bound).
		z.r = io.MultiReader(bytes.NewReader(comp), z.r)
		if src, err = z.stream(); err != nil {
			return nil, err
		}
		defer z.close()
		known = false
	}
	// Memory already held, or an input that provably holds the data, is
	// read into in one piece; anything else in growing pieces, so that a
	// truncated file claiming a huge image costs no huge allocation.
	if known || int64(cap(buf)) >= count {
		dst := out()
		if n, err := io.ReadFull(src, dst); err != nil {
			return nil, pixelDataError(err, int64(n), count)
		}
		return dst, nil
	}
	pieces, err := readExact(src, count)
	if err != nil {
		return nil, err
	}
	if len(pieces) == 1 {
		return pieces[0], nil
	}
	return bytes.Join(pieces, nil), nil
}
