package nrrd

import (
	"bufio"
	"bytes"
	"compress/bzip2"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/klauspost/compress/gzip"

	"github.com/rexmle/rexmle/metrics/imageio/internal/codec"
	"github.com/rexmle/rexmle/metrics/volume"
)

// nrrdTypes maps every NRRD type spelling to an element type.
var nrrdTypes = map[string]volume.DType{}

func init() {
	add := func(dt volume.DType, names ...string) {
		for _, n := range names {
			nrrdTypes[n] = dt
		}
	}
	add(volume.Int8, "signed char", "int8", "int8_t")
	add(volume.Uint8, "uchar", "unsigned char", "uint8", "uint8_t")
	add(volume.Int16, "short", "short int", "signed short", "signed short int", "int16", "int16_t")
	add(volume.Uint16, "ushort", "unsigned short", "unsigned short int", "uint16", "uint16_t")
	add(volume.Int32, "int", "signed int", "int32", "int32_t")
	add(volume.Uint32, "uint", "unsigned int", "uint32", "uint32_t")
	add(volume.Int64, "longlong", "long long", "long long int", "signed long long", "signed long long int", "int64", "int64_t")
	add(volume.Uint64, "ulonglong", "unsigned long long", "unsigned long long int", "uint64", "uint64_t")
	add(volume.Float32, "float")
	add(volume.Float64, "double")
}

// nrrdChannelKinds are axis kinds that hold the components of one sample.
var nrrdChannelKinds = map[string]bool{
	"list": true, "point": true, "vector": true, "covariant-vector": true, "normal": true,
	"stub": true, "scalar": true, "complex": true, "2-vector": true, "3-color": true,
	"rgb-color": true, "hsv-color": true, "xyz-color": true, "4-color": true, "rgba-color": true,
	"3-vector": true, "3-gradient": true, "3-normal": true, "4-vector": true, "quaternion": true,
	"2d-symmetric-matrix": true, "2d-masked-symmetric-matrix": true, "2d-matrix": true,
	"2d-masked-matrix": true, "3d-symmetric-matrix": true, "3d-masked-symmetric-matrix": true,
	"3d-matrix": true, "3d-masked-matrix": true,
}

type nrrdHeader struct {
	fields     map[string]string // normalised field name → value
	dtype      volume.DType
	dim        int
	sizes      []int64
	bigEndian  bool
	encoding   string
	spaceDim   int
	directions [][]float64 // nil entry = "none"
	origin     []float64
	spacings   []float64
	kinds      []string
	byteSkip   int64
	lineSkip   int64
}

// ReadFile decodes a .nrrd (or .seg.nrrd) file with attached data.
// See Read.
func ReadFile(path string, opts ...Options) (*volume.Volume, error) {
	return codec.ReadFileWith(path, func(f *os.File) (*volume.Volume, error) {
		return Read(f, opts...)
	})
}

// ReadFileBytes reads an NRRD file as ReadFile does, but keeps the
// samples of a single-channel 8-bit unsigned image stored in binary (raw,
// gzip or bzip2) as bytes, with no float64 copy.
func ReadFileBytes(path string, opts ...Options) (*Volume8, error) {
	return codec.ReadFileWith(path, func(f *os.File) (*Volume8, error) {
		br := bufio.NewReaderSize(f, 1<<16)
		h, err := parseNRRDHeader(br)
		if err != nil {
			return nil, err
		}
		v, raw, err := readNRRDData(br, h, codec.PickOptions(opts), f, true)
		if err != nil {
			return nil, err
		}
		return &Volume8{Volume: v, Bytes: raw}, nil
	})
}

// Read decodes an NRRD stream with attached data.
//
// Supported: encodings raw, gzip (gz), bzip2 (bz2) and ascii (text, txt);
// every NRRD spelling of the 8- to 64-bit integer types, float and double;
// endian; byte skip (≥ 0, counted in decoded bytes) and line skip. Spatial
// axes are those with a "space directions" vector (all axes when the field
// is absent): Spacing = the vector's length, Direction = the vector
// normalised, Origin = "space origin". Without space directions, "spacings"
// gives Spacing (1 where missing or NaN) and Direction is the identity.
// A non-spatial first axis (direction "none", or a kind such as vector,
// RGB-color or list) becomes Channels. Other non-spatial axes must have
// size 1, except a last axis when Options.FirstVolume is set (the first
// volume is kept). At most 3 spatial axes. Detached data ("data file") is
// refused.
//
// A header whose blank separator line is missing is accepted: the header
// ends at the first line that is neither a comment, a "field: value" nor a
// "key:=value" line, as the reference loader's repair step does.
func Read(r io.Reader, opts ...Options) (*volume.Volume, error) {
	o := codec.PickOptions(opts)
	br := bufio.NewReaderSize(r, 1<<16)
	h, err := parseNRRDHeader(br)
	if err != nil {
		return nil, err
	}
	v, _, err := readNRRDData(br, h, o, r, false)
	return v, err
}

func parseNRRDHeader(br *bufio.Reader) (*nrrdHeader, error) {
	magic, err := br.ReadString('\n')
	if len(magic) > 64 || !strings.HasPrefix(magic, "NRRD000") {
		return nil, fmt.Errorf("nrrd header: magic = %q, want NRRD0001..NRRD0005", codec.Truncate(strings.TrimSpace(magic), 16))
	}
	if err != nil {
		return nil, errors.New("nrrd header: file truncated after the magic line")
	}
	h := &nrrdHeader{fields: map[string]string{}}
	total := len(magic)
	for {
		peek, perr := br.Peek(br.Size())
		if len(peek) == 0 {
			if perr != nil && !errors.Is(perr, io.EOF) {
				return nil, fmt.Errorf("nrrd header: %w", perr)
			}
			break // header without data; caught by the data reader
		}
		nl := bytes.IndexByte(peek, '\n')
		line := peek
		if nl >= 0 {
			line = peek[:nl]
		}
		text := strings.TrimSuffix(string(line), "\r")
		isHeader := strings.HasPrefix(text, "#") || strings.Contains(text, ": ") || strings.Contains(text, ":=")
		if text == "" && nl >= 0 {
			br.Discard(nl + 1) // the blank separator line
			break
		}
		if !isHeader {
			break // data starts here (missing blank line)
		}
		if nl < 0 {
			if perr == nil {
				return nil, fmt.Errorf("nrrd header: line longer than %d bytes", br.Size())
			}
			// the last line of a data-less file
		}
		total += len(line) + 1
		if total > codec.MaxHeaderBytes {
			return nil, fmt.Errorf("nrrd header: longer than %d bytes", codec.MaxHeaderBytes)
		}
		if nl >= 0 {
			br.Discard(nl + 1)
		} else {
			br.Discard(len(line))
		}
		if strings.HasPrefix(text, "#") {
			continue
		}
		if i := strings.Index(text, ":="); i >= 0 && (!strings.Contains(text, ": ") || i < strings.Index(text, ": ")) {
			continue // key/value pair
		}
		key, val, _ := strings.Cut(text, ": ")
		k := strings.ToLower(strings.ReplaceAll(strings.TrimSpace(key), " ", ""))
		if _, dup := h.fields[k]; dup {
			return nil, fmt.Errorf("nrrd header: field %q given twice", key)
		}
		h.fields[k] = strings.TrimSpace(val)
	}
	return h, h.interpret()
}

// interpret checks and decodes the fields.
func (h *nrrdHeader) interpret() error {
	if err := h.interpretSamples(); err != nil {
		return err
	}
	if err := h.interpretSpace(); err != nil {
		return err
	}
	return h.interpretSkips()
}

// interpretSamples reads the fields that say how the samples are stored:
// type, dimension, sizes, encoding and endian (detached data refused).
func (h *nrrdHeader) interpretSamples() error {
	f := h.fields
	if _, ok := f["datafile"]; ok {
		return errors.New("nrrd header: \"data file\" (detached data) is not supported; attach the data to the header")
	}
	t, ok := f["type"]
	if !ok {
		return errors.New("nrrd header: type missing")
	}
	h.dtype, ok = nrrdTypes[strings.ToLower(strings.Join(strings.Fields(t), " "))]
	if !ok {
		return fmt.Errorf("nrrd header: type = %q, want an integer type, float or double", t)
	}
	d, ok := f["dimension"]
	if !ok {
		return errors.New("nrrd header: dimension missing")
	}
	dim, err := strconv.Atoi(d)
	if err != nil || dim < 1 || dim > 16 {
		return fmt.Errorf("nrrd header: dimension = %q, want 1..16", d)
	}
	h.dim = dim
	s, ok := f["sizes"]
	if !ok {
		return errors.New("nrrd header: sizes missing")
	}
	if h.sizes, err = codec.ParseInts("nrrd header: sizes", s); err != nil {
		return err
	}
	if len(h.sizes) != dim {
		return fmt.Errorf("nrrd header: sizes has %d values, want dimension = %d", len(h.sizes), dim)
	}
	for i, n := range h.sizes {
		if n < 1 {
			return fmt.Errorf("nrrd header: sizes[%d] = %d, want at least 1", i, n)
		}
	}
	h.encoding = strings.ToLower(f["encoding"])
	switch h.encoding {
	case "raw", "gzip", "gz", "bzip2", "bz2", "ascii", "text", "txt":
	case "":
		return errors.New("nrrd header: encoding missing")
	default:
		return fmt.Errorf("nrrd header: encoding = %q, want raw, gzip, bzip2 or ascii", f["encoding"])
	}
	size, _ := codec.ElemSize(h.dtype)
	switch e := strings.ToLower(f["endian"]); e {
	case "little":
	case "big":
		h.bigEndian = true
	case "":
		if size > 1 && h.encoding != "ascii" && h.encoding != "text" && h.encoding != "txt" {
			return errors.New("nrrd header: endian missing for a multi-byte type")
		}
	default:
		return fmt.Errorf("nrrd header: endian = %q, want little or big", f["endian"])
	}
	return nil
}

// interpretSpace reads the fields that place the samples: space or space
// dimension, space directions, space origin, spacings and kinds.
func (h *nrrdHeader) interpretSpace() error {
	f, dim := h.fields, h.dim
	var err error
	if sp, ok := f["space"]; ok {
		h.spaceDim = nrrdSpaceDim(sp)
		if h.spaceDim == 0 {
			return fmt.Errorf("nrrd header: space = %q is not a known NRRD space", sp)
		}
	}
	if sd, ok := f["spacedimension"]; ok {
		if h.spaceDim != 0 {
			return errors.New("nrrd header: both space and space dimension given")
		}
		h.spaceDim, err = strconv.Atoi(sd)
		if err != nil || h.spaceDim < 1 {
			return fmt.Errorf("nrrd header: space dimension = %q, want a positive integer", sd)
		}
	}
	if h.spaceDim > 3 {
		return fmt.Errorf("nrrd header: space dimension %d, at most 3 is supported", h.spaceDim)
	}
	if sd, ok := f["spacedirections"]; ok {
		if h.spaceDim == 0 {
			return errors.New("nrrd header: space directions without space or space dimension")
		}
		if h.directions, err = parseNRRDVectors("space directions", sd, h.spaceDim); err != nil {
			return err
		}
		if len(h.directions) != dim {
			return fmt.Errorf("nrrd header: space directions has %d entries, want dimension = %d", len(h.directions), dim)
		}
	}
	if so, ok := f["spaceorigin"]; ok {
		if h.spaceDim == 0 {
			return errors.New("nrrd header: space origin without space or space dimension")
		}
		vs, err := parseNRRDVectors("space origin", so, h.spaceDim)
		if err != nil {
			return err
		}
		if len(vs) != 1 || vs[0] == nil {
			return fmt.Errorf("nrrd header: space origin = %q, want one vector", so)
		}
		h.origin = vs[0]
	}
	if sp, ok := f["spacings"]; ok {
		if h.spacings, err = codec.ParseFloats("nrrd header: spacings", sp); err != nil {
			return err
		}
		if len(h.spacings) != dim {
			return fmt.Errorf("nrrd header: spacings has %d values, want dimension = %d", len(h.spacings), dim)
		}
	}
	if k, ok := f["kinds"]; ok {
		h.kinds = nrrdKinds(k)
		if len(h.kinds) != dim {
			return fmt.Errorf("nrrd header: kinds has %d values, want dimension = %d", len(h.kinds), dim)
		}
	}
	return nil
}

// interpretSkips reads byte skip and line skip.
func (h *nrrdHeader) interpretSkips() error {
	f := h.fields
	for _, fld := range []struct {
		name string
		dst  *int64
	}{{"byteskip", &h.byteSkip}, {"lineskip", &h.lineSkip}} {
		if v, ok := f[fld.name]; ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 || n > codec.MaxHeaderBytes*64 {
				return fmt.Errorf("nrrd header: %s = %q, want a non-negative count (-1 is not supported)", fld.name, v)
			}
			*fld.dst = n
		}
	}
	return nil
}

// nrrdKinds splits a kinds value; multi-word kinds do not exist, but
// quoted or not, each whitespace-separated token is one kind.
func nrrdKinds(s string) []string {
	out := strings.Fields(strings.ToLower(s))
	return out
}

// nrrdSpaceDim returns the dimension of a named NRRD space, 0 if unknown.
func nrrdSpaceDim(s string) int {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "right-anterior-superior", "ras", "left-anterior-superior", "las", "left-posterior-superior", "lps",
		"scanner-xyz", "3d-right-handed", "3d-left-handed":
		return 3
	case "right-anterior-superior-time", "rast", "left-anterior-superior-time", "last",
		"left-posterior-superior-time", "lpst", "scanner-xyz-time", "3d-right-handed-time", "3d-left-handed-time":
		return 4
	}
	return 0
}

// parseNRRDVectors parses "(a,b,c) none (d,e,f)" into vectors of length n
// (nil for "none").
func parseNRRDVectors(field, s string, n int) ([][]float64, error) {
	var out [][]float64
	rest := strings.TrimSpace(s)
	for rest != "" {
		switch {
		case strings.HasPrefix(rest, "("):
			end := strings.IndexByte(rest, ')')
			if end < 0 {
				return nil, fmt.Errorf("nrrd header: %s = %q: unclosed \"(\"", field, codec.Truncate(s, 80))
			}
			parts := strings.Split(rest[1:end], ",")
			if len(parts) != n {
				return nil, fmt.Errorf("nrrd header: %s: vector %q has %d components, want %d", field, rest[:end+1], len(parts), n)
			}
			vec := make([]float64, n)
			for i, p := range parts {
				x, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
				if err != nil {
					return nil, fmt.Errorf("nrrd header: %s: %q is not a number", field, strings.TrimSpace(p))
				}
				vec[i] = x
			}
			out = append(out, vec)
			rest = strings.TrimSpace(rest[end+1:])
		case strings.HasPrefix(strings.ToLower(rest), "none"):
			out = append(out, nil)
			rest = strings.TrimSpace(rest[4:])
		default:
			return nil, fmt.Errorf("nrrd header: %s = %q: want \"(x,y,z)\" vectors or none", field, codec.Truncate(s, 80))
		}
		if len(out) > 16 {
			return nil, fmt.Errorf("nrrd header: %s has too many entries", field)
		}
	}
	return out, nil
}

// nrrdLayout decides which axes are spatial and which hold channels.
func (h *nrrdHeader) layout(o Options) (spatial []int, channels int64, keepFirst bool, err error) {
	channels = 1
	for a := 0; a < h.dim; a++ {
		isSpatial := true
		switch {
		case h.directions != nil:
			isSpatial = h.directions[a] != nil
		case h.kinds != nil:
			isSpatial = !nrrdChannelKinds[h.kinds[a]]
		}
		if isSpatial {
			spatial = append(spatial, a)
			continue
		}
		switch {
		case h.sizes[a] == 1:
		case a == 0:
			if h.sizes[0] > codec.MaxChannels {
				return nil, 0, false, fmt.Errorf("nrrd header: sizes[0] = %d channels, at most %d supported", h.sizes[0], codec.MaxChannels)
			}
			channels = h.sizes[0]
		case a == h.dim-1 && o.FirstVolume:
			keepFirst = true
		default:
			return nil, 0, false, fmt.Errorf("nrrd header: axis %d (size %d) is not spatial; only a first (channel) axis may be (Options.FirstVolume keeps the first volume of a last one)", a, h.sizes[a])
		}
	}
	if len(spatial) > 3 {
		var big []int
		for _, a := range spatial {
			if h.sizes[a] > 1 {
				big = append(big, a)
			}
		}
		if len(big) > 3 {
			return nil, 0, false, fmt.Errorf("nrrd header: %d spatial axes of size > 1, at most 3 supported", len(big))
		}
		spatial = big
	}
	return spatial, channels, keepFirst, nil
}

// orig is the caller's reader, probed for its size (see codec.HoldsGzip).
// With bytes8 a single-channel 8-bit unsigned binary image keeps its
// samples as bytes (returned; Data nil).
func readNRRDData(br *bufio.Reader, h *nrrdHeader, o Options, orig io.Reader, bytes8 bool) (*volume.Volume, []uint8, error) {
	spatial, channels, keepFirst, err := h.layout(o)
	if err != nil {
		return nil, nil, err
	}
	shape := [3]int64{1, 1, 1}
	for i, a := range spatial {
		shape[i] = h.sizes[a]
	}
	// Bytes up to and including the kept volume: every axis but a dropped last one.
	all := int64(1)
	for a := 0; a < h.dim; a++ {
		if keepFirst && a == h.dim-1 {
			break
		}
		all *= h.sizes[a] // bounded below by codec.SampleCount's checks on the same product
	}
	count, err := codec.SampleCount("nrrd header: sizes", o.MaxBytes, shape[0], shape[1], shape[2], channels)
	if err != nil {
		return nil, nil, err
	}
	if all != count {
		return nil, nil, fmt.Errorf("nrrd header: sizes %v do not reduce to shape %v × %d channels", h.sizes, shape, channels)
	}
	for i := int64(0); i < h.lineSkip; i++ {
		if _, err := br.ReadString('\n'); err != nil {
			return nil, nil, fmt.Errorf("nrrd: line skip %d: %w", h.lineSkip, codec.EOFAsTruncated(err))
		}
	}
	var src io.Reader = br
	eligible8 := bytes8 && h.dtype == volume.Uint8 && channels == 1
	switch h.encoding {
	case "gzip", "gz":
		if eligible8 {
			// The gzip stream runs to the end of the file: decoded whole
			// when it is one member that holds the samples (inflate),
			// else streamed from the bytes read.
			rest, err := io.ReadAll(io.LimitReader(br, codec.MaxWholeGzipIn+1))
			if err != nil {
				return nil, nil, fmt.Errorf("nrrd: gzip data: %w", err)
			}
			if out, ok := codec.GunzipWhole(rest, o.Buffer, h.byteSkip+count); ok && int64(len(out)) == h.byteSkip+count {
				v := &volume.Volume{DType: h.dtype, Channels: 1}
				nrrdGeometry(v, h, spatial, shape)
				return v, out[h.byteSkip : h.byteSkip+count], nil
			}
			br = bufio.NewReader(io.MultiReader(bytes.NewReader(rest), br))
		}
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, nil, fmt.Errorf("nrrd: gzip data: %w", err)
		}
		defer zr.Close()
		src = zr
	case "bzip2", "bz2":
		src = bzip2.NewReader(br)
	}
	if h.byteSkip > 0 {
		if n, err := io.CopyN(io.Discard, src, h.byteSkip); err != nil {
			return nil, nil, fmt.Errorf("nrrd: byte skip %d: %w (got %d)", h.byteSkip, codec.EOFAsTruncated(err), n)
		}
	}
	v := &volume.Volume{DType: h.dtype, Channels: int(channels), Data: make([]float64, 0)}
	ascii := h.encoding == "ascii" || h.encoding == "text" || h.encoding == "txt"
	var raw []uint8
	if bytes8 && !ascii && h.dtype == volume.Uint8 && channels == 1 {
		known := (h.encoding == "gzip" || h.encoding == "gz") && codec.HoldsGzip(orig, h.byteSkip+count)
		if raw, err = codec.ReadBytes8(src, nil, count, known, o.Buffer); err != nil {
			return nil, nil, fmt.Errorf("nrrd: %w", err)
		}
		v.Data = nil
	} else if ascii {
		if v.Data, err = readASCIISamples(src, count); err != nil {
			return nil, nil, fmt.Errorf("nrrd: %w", err)
		}
	} else {
		size, _ := codec.ElemSize(h.dtype)
		bo := binary.ByteOrder(binary.LittleEndian)
		if h.bigEndian {
			bo = binary.BigEndian
		}
		// A gzip stream runs to the end of the file; its trailer tells
		// whether it holds the data.
		known := (h.encoding == "gzip" || h.encoding == "gz") && codec.HoldsGzip(orig, h.byteSkip+count*int64(size))
		if v.Data, err = codec.ReadSamples(src, count, h.dtype, bo, known); err != nil {
			return nil, nil, fmt.Errorf("nrrd: %w", err)
		}
	}
	nrrdGeometry(v, h, spatial, shape)
	return v, raw, nil
}

// nrrdGeometry sets v's shape, spacing, direction and origin from the
// header's spatial axes.
func nrrdGeometry(v *volume.Volume, h *nrrdHeader, spatial []int, shape [3]int64) {
	v.Direction = codec.Identity3()
	var cols [3][3]float64
	for i, a := range spatial {
		v.Shape[i] = int(shape[i])
		v.Spacing[i] = 1
		if h.directions != nil {
			for c, x := range h.directions[a] {
				cols[c][i] = x
			}
			n := 0.0
			for _, x := range h.directions[a] {
				n += x * x
			}
			v.Spacing[i] = codec.SpacingOrOne(math.Sqrt(n))
		} else if h.spacings != nil {
			v.Spacing[i] = codec.SpacingOrOne(h.spacings[a])
		}
	}
	for i := len(spatial); i < 3; i++ {
		v.Shape[i], v.Spacing[i] = 1, 1
	}
	if h.directions != nil {
		d := codec.DirectionFromColumns(cols)
		for i := range spatial {
			v.Direction[i] = d[i]
		}
	}
	for i, x := range h.origin {
		if !math.IsNaN(x) {
			v.Origin[i] = x
		}
	}
}

// readASCIISamples reads exactly n whitespace-separated numbers.
func readASCIISamples(r io.Reader, n int64) ([]float64, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), 4096)
	sc.Split(bufio.ScanWords)
	out := make([]float64, 0, min(n, 1<<20))
	for int64(len(out)) < n && sc.Scan() {
		tok := strings.Trim(sc.Text(), ",")
		if tok == "" {
			continue
		}
		x, err := strconv.ParseFloat(tok, 64)
		if err != nil {
			return nil, fmt.Errorf("ascii data: %q is not a number (sample %d)", codec.Truncate(tok, 20), len(out))
		}
		out = append(out, x)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("ascii data: %w", err)
	}
	if int64(len(out)) < n {
		return nil, fmt.Errorf("ascii data truncated: got %d of %d samples", len(out), n)
	}
	return out, nil
}

// nrrdTypeNames are the names the writer uses.
var nrrdTypeNames = map[volume.DType]string{
	volume.Int8: "int8", volume.Uint8: "uint8", volume.Int16: "int16", volume.Uint16: "uint16",
	volume.Int32: "int32", volume.Uint32: "uint32", volume.Int64: "int64", volume.Uint64: "uint64",
	volume.Float32: "float", volume.Float64: "double",
}

// WriteFile writes v to path as an NRRD with attached data; see
// Write.
func WriteFile(path string, v *volume.Volume, dt volume.DType, gz bool) error {
	var buf bytes.Buffer
	if err := Write(&buf, v, dt, gz); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// Write writes v as NRRD0004 with attached little-endian data of type
// dt (v.DType when empty), gzip-encoded when gz, raw otherwise. The space is
// left-posterior-superior for 3 axes ("space dimension: 2" for 2); space
// directions are Direction[j] × Spacing[j], space origin is Origin. A
// multi-channel volume gets a first axis of kind vector (direction none).
func Write(w io.Writer, v *volume.Volume, dt volume.DType, gz bool) error {
	if err := codec.CheckVolume(v); err != nil {
		return err
	}
	if dt == "" {
		dt = v.DType
	}
	hdr, err := nrrdHeaderText(v, dt, gz)
	if err != nil {
		return err
	}
	data, err := codec.EncodeSamples(v.Data, dt, binary.LittleEndian)
	if err != nil {
		return fmt.Errorf("nrrd: %w", err)
	}
	bw := bufio.NewWriter(w)
	bw.WriteString(hdr)
	if gz {
		zw, _ := gzip.NewWriterLevel(bw, gzip.BestSpeed)
		zw.Write(data)
		if err := zw.Close(); err != nil {
			return err
		}
	} else {
		bw.Write(data)
	}
	return bw.Flush()
}

// nrrdHeaderText is Write's header, blank line included, for v's geometry
// (its samples are not read) and element type dt.
func nrrdHeaderText(v *volume.Volume, dt volume.DType, gz bool) (string, error) {
	name, ok := nrrdTypeNames[dt]
	if !ok {
		return "", fmt.Errorf("nrrd: element type %q not supported", dt)
	}
	nd := codec.WriteDims(v)
	dir := codec.DirectionOrIdentity(v.Direction)
	num := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	vec := func(f func(i int) float64) string {
		parts := make([]string, nd)
		for i := range parts {
			parts[i] = num(f(i))
		}
		return "(" + strings.Join(parts, ",") + ")"
	}
	var sizes, dirs, kinds []string
	if nc := v.NumChannels(); nc > 1 {
		sizes, dirs, kinds = append(sizes, strconv.Itoa(nc)), append(dirs, "none"), append(kinds, "vector")
	}
	for a := 0; a < nd; a++ {
		sizes = append(sizes, strconv.Itoa(v.Shape[a]))
		dirs = append(dirs, vec(func(i int) float64 { return dir[a][i] * v.Spacing[a] }))
		kinds = append(kinds, "domain")
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "NRRD0004\n# written by rexmle imageio\ntype: %s\ndimension: %d\n", name, len(sizes))
	if nd == 3 {
		sb.WriteString("space: left-posterior-superior\n")
	} else {
		fmt.Fprintf(&sb, "space dimension: %d\n", nd)
	}
	enc := "raw"
	if gz {
		enc = "gzip"
	}
	fmt.Fprintf(&sb, "sizes: %s\nspace directions: %s\nkinds: %s\nendian: little\nencoding: %s\nspace origin: %s\n\n",
		strings.Join(sizes, " "), strings.Join(dirs, " "), strings.Join(kinds, " "), enc, vec(func(i int) float64 { return v.Origin[i] }))
	return sb.String(), nil
}
