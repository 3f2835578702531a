package nifti

import (
	"bytes"
	"encoding/binary"
	"io"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/metrics/imageio/internal/imagetest"
	"github.com/rexmle/rexmle/metrics/volume"
)

// n1hdr describes a NIfTI-1 header field by field, for hand-built test files.
type n1hdr struct {
	bo           binary.ByteOrder
	dim          [8]int16
	datatype     int16
	bitpix       int16
	pixdim       [8]float32
	vox          float32
	slope, inter float32
	qcode, scode int16
	quat, qoff   [3]float32
	srow         [3][4]float32
	magic        string
	sizeof       int32
}

func (h n1hdr) bytes() []byte {
	if h.bo == nil {
		h.bo = binary.LittleEndian
	}
	if h.sizeof == 0 {
		h.sizeof = 348
	}
	if h.magic == "" {
		h.magic = "n+1"
	}
	b := make([]byte, 348)
	bo := h.bo
	bo.PutUint32(b[0:], uint32(h.sizeof))
	for i := 0; i < 8; i++ {
		bo.PutUint16(b[40+2*i:], uint16(h.dim[i]))
		bo.PutUint32(b[76+4*i:], math.Float32bits(h.pixdim[i]))
	}
	bo.PutUint16(b[70:], uint16(h.datatype))
	bo.PutUint16(b[72:], uint16(h.bitpix))
	bo.PutUint32(b[108:], math.Float32bits(h.vox))
	bo.PutUint32(b[112:], math.Float32bits(h.slope))
	bo.PutUint32(b[116:], math.Float32bits(h.inter))
	bo.PutUint16(b[252:], uint16(h.qcode))
	bo.PutUint16(b[254:], uint16(h.scode))
	for i := 0; i < 3; i++ {
		bo.PutUint32(b[256+4*i:], math.Float32bits(h.quat[i]))
		bo.PutUint32(b[268+4*i:], math.Float32bits(h.qoff[i]))
		for j := 0; j < 4; j++ {
			bo.PutUint32(b[280+16*i+4*j:], math.Float32bits(h.srow[i][j]))
		}
	}
	copy(b[344:], h.magic+"\x00")
	return b
}

// n2hdr describes a NIfTI-2 header field by field.
type n2hdr struct {
	bo           binary.ByteOrder
	dim          [8]int64
	datatype     int16
	pixdim       [8]float64
	vox          int64
	slope, inter float64
	qcode, scode int32
	quat, qoff   [3]float64
	srow         [3][4]float64
}

func (h n2hdr) bytes() []byte {
	bo := h.bo
	if bo == nil {
		bo = binary.LittleEndian
	}
	b := make([]byte, 540)
	bo.PutUint32(b[0:], 540)
	copy(b[4:12], "n+2\x00\r\n\x1a\n")
	bo.PutUint16(b[12:], uint16(h.datatype))
	for i := 0; i < 8; i++ {
		bo.PutUint64(b[16+8*i:], uint64(h.dim[i]))
		bo.PutUint64(b[104+8*i:], math.Float64bits(h.pixdim[i]))
	}
	bo.PutUint64(b[168:], uint64(h.vox))
	bo.PutUint64(b[176:], math.Float64bits(h.slope))
	bo.PutUint64(b[184:], math.Float64bits(h.inter))
	bo.PutUint32(b[344:], uint32(h.qcode))
	bo.PutUint32(b[348:], uint32(h.scode))
	for i := 0; i < 3; i++ {
		bo.PutUint64(b[352+8*i:], math.Float64bits(h.quat[i]))
		bo.PutUint64(b[376+8*i:], math.Float64bits(h.qoff[i]))
		for j := 0; j < 4; j++ {
			bo.PutUint64(b[400+32*i+8*j:], math.Float64bits(h.srow[i][j]))
		}
	}
	return b
}

// nii assembles header, padding up to offset, and the data written with
// binary.Write in byte order bo.
func nii(t testing.TB, hdr []byte, offset int, bo binary.ByteOrder, data any) []byte {
	t.Helper()
	var buf bytes.Buffer
	buf.Write(hdr)
	for buf.Len() < offset {
		buf.WriteByte(0xEE) // extension / padding garbage
	}
	if data != nil {
		if err := binary.Write(&buf, bo, data); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

func TestNIfTIHandBuiltScaling(t *testing.T) {
	raw := []int16{-3, 0, 5, 100, -32768, 32767}
	nan := float32(math.NaN())
	tests := []struct {
		name         string
		slope, inter float32
		want         []float64
		dtype        volume.DType
	}{
		{"slope 2 inter -1", 2, -1, []float64{-7, -1, 9, 199, -65537, 65533}, volume.Float64},
		{"slope 0.5 inter 10", 0.5, 10, []float64{8.5, 10, 12.5, 60, -16374, 16393.5}, volume.Float64},
		{"slope 0 means none", 0, 7, []float64{-3, 0, 5, 100, -32768, 32767}, volume.Int16},
		{"slope NaN means none", nan, 7, []float64{-3, 0, 5, 100, -32768, 32767}, volume.Int16},
		{"slope Inf means none", float32(math.Inf(1)), 7, []float64{-3, 0, 5, 100, -32768, 32767}, volume.Int16},
		{"slope 0 with NaN intercept means none", 0, nan, []float64{-3, 0, 5, 100, -32768, 32767}, volume.Int16},
		{"identity scaling", 1, 0, []float64{-3, 0, 5, 100, -32768, 32767}, volume.Int16},
		{"slope 1 inter 3", 1, 3, []float64{0, 3, 8, 103, -32765, 32770}, volume.Float64},
	}
	for _, bo := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		for _, tc := range tests {
			t.Run(bo.String()+"/"+tc.name, func(t *testing.T) {
				h := n1hdr{bo: bo, dim: [8]int16{3, 3, 2, 1, 1, 1, 1, 1}, datatype: 4, bitpix: 16,
					pixdim: [8]float32{1, 0.5, 2, 3}, vox: 352, slope: tc.slope, inter: tc.inter}
				file := nii(t, h.bytes(), 352, bo, raw)
				for _, gz := range []bool{false, true} {
					in := file
					if gz {
						in = imagetest.GzipBytes(t, file)
					}
					v, err := Read(bytes.NewReader(in), gz)
					if err != nil {
						t.Fatal(err)
					}
					imagetest.CheckVec(t, "data", v.Data, tc.want)
					if v.DType != tc.dtype {
						t.Errorf("dtype %s, want %s", v.DType, tc.dtype)
					}
					if v.Shape != [3]int{3, 2, 1} || v.Spacing != [3]float64{0.5, 2, 3} {
						t.Errorf("shape %v spacing %v, want [3 2 1] [0.5 2 3]", v.Shape, v.Spacing)
					}
				}
			})
		}
	}
}

func TestNIfTIAffines(t *testing.T) {
	s := float32(math.Sqrt(0.5))
	tests := []struct {
		name    string
		h       n1hdr
		origin  [3]float64
		dir     [3][3]float64
		spacing [3]float64
	}{
		{
			name: "sform preferred over qform",
			h: n1hdr{pixdim: [8]float32{1, 2, 3, 4}, scode: 2, qcode: 1,
				srow: [3][4]float32{{-2, 0, 0, 10}, {0, 3, 0, -20}, {0, 0, 4, 5}},
				quat: [3]float32{0, 0, 1}, qoff: [3]float32{1, 1, 1}},
			origin: [3]float64{10, -20, 5}, dir: [3][3]float64{{-1, 0, 0}, {0, 1, 0}, {0, 0, 1}},
			spacing: [3]float64{2, 3, 4},
		},
		{
			name: "qform 180 deg about z with qfac -1",
			h: n1hdr{pixdim: [8]float32{-1, 2, 3, 4}, qcode: 1,
				quat: [3]float32{0, 0, 1}, qoff: [3]float32{7, 8, 9}},
			origin: [3]float64{7, 8, 9}, dir: [3][3]float64{{-1, 0, 0}, {0, -1, 0}, {0, 0, -1}},
			spacing: [3]float64{2, 3, 4},
		},
		{
			name: "qform 90 deg about z",
			h: n1hdr{pixdim: [8]float32{1, 1, 1, 1}, qcode: 1,
				quat: [3]float32{0, 0, s}, qoff: [3]float32{-1, -2, -3}},
			origin: [3]float64{-1, -2, -3}, dir: [3][3]float64{{0, 1, 0}, {-1, 0, 0}, {0, 0, 1}},
			spacing: [3]float64{1, 1, 1},
		},
		{
			name:   "no codes: pixdim diagonal",
			h:      n1hdr{pixdim: [8]float32{0, 0.7, 0.8, 2.5}, srow: [3][4]float32{{9, 9, 9, 9}}},
			origin: [3]float64{}, dir: [3][3]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}},
			spacing: [3]float64{0.7, 0.8, 2.5},
		},
		{
			name:   "negative and zero pixdim give positive spacing",
			h:      n1hdr{pixdim: [8]float32{1, -2, 0, 3}},
			origin: [3]float64{}, dir: [3][3]float64{{-1, 0, 0}, {0, 1, 0}, {0, 0, 1}},
			spacing: [3]float64{2, 1, 3},
		},
	}
	for _, bo := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		for _, tc := range tests {
			t.Run(bo.String()+"/"+tc.name, func(t *testing.T) {
				h := tc.h
				h.bo = bo
				h.dim = [8]int16{3, 2, 2, 2, 1, 1, 1, 1}
				h.datatype, h.bitpix, h.vox = 2, 8, 352
				v, err := Read(bytes.NewReader(nii(t, h.bytes(), 352, bo, []uint8{1, 2, 3, 4, 5, 6, 7, 8})), false)
				if err != nil {
					t.Fatal(err)
				}
				imagetest.CheckVec(t, "origin", v.Origin[:], tc.origin[:])
				imagetest.CheckVec(t, "spacing", v.Spacing[:], tc.spacing[:])
				imagetest.CheckDir(t, v.Direction, tc.dir)
				imagetest.CheckVec(t, "data", v.Data, []float64{1, 2, 3, 4, 5, 6, 7, 8})
			})
		}
	}
}

func TestNIfTIShapes(t *testing.T) {
	le := binary.LittleEndian
	base := n1hdr{datatype: 2, bitpix: 8, vox: 352, pixdim: [8]float32{1, 1, 1, 1, 1}}
	tests := []struct {
		name  string
		dim   [8]int16
		opts  Options
		data  []uint8
		shape [3]int
		want  []float64
		err   string
	}{
		{"1-D", [8]int16{1, 4, 0, 0}, Options{}, []uint8{1, 2, 3, 4}, [3]int{4, 1, 1}, []float64{1, 2, 3, 4}, ""},
		{"2-D", [8]int16{2, 2, 2, 7}, Options{}, []uint8{1, 2, 3, 4}, [3]int{2, 2, 1}, []float64{1, 2, 3, 4}, ""},
		{"4-D with one volume", [8]int16{4, 2, 1, 2, 1}, Options{}, []uint8{1, 2, 3, 4}, [3]int{2, 1, 2}, []float64{1, 2, 3, 4}, ""},
		{"5-D with singleton tail", [8]int16{5, 2, 1, 1, 1, 1}, Options{}, []uint8{9, 8}, [3]int{2, 1, 1}, []float64{9, 8}, ""},
		{"4-D rejected", [8]int16{4, 2, 1, 1, 2}, Options{}, []uint8{1, 2, 3, 4}, [3]int{}, nil, "dim[4] = 2"},
		{"4-D first volume", [8]int16{4, 2, 1, 1, 2}, Options{FirstVolume: true}, []uint8{1, 2, 3, 4}, [3]int{2, 1, 1}, []float64{1, 2}, ""},
		{"dim[2] negative", [8]int16{3, 2, -5, 1}, Options{}, nil, [3]int{}, nil, "dim[2] = -5, want 1..32767"},
		{"dim[0] zero", [8]int16{0, 2, 2, 1}, Options{}, nil, [3]int{}, nil, "dim[0] = 0"},
		{"dim[0] eight", [8]int16{8, 2, 2, 1}, Options{}, nil, [3]int{}, nil, "dim[0] = 8"},
		{"dim[3] zero", [8]int16{3, 2, 2, 0}, Options{}, nil, [3]int{}, nil, "dim[3] = 0"},
		{"over MaxBytes", [8]int16{3, 100, 100, 100}, Options{MaxBytes: 1000}, nil, [3]int{}, nil, "limit"},
		{"truncated data", [8]int16{3, 2, 2, 2}, Options{}, []uint8{1, 2, 3}, [3]int{}, nil, "truncated"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := base
			h.dim = tc.dim
			var data any
			if tc.data != nil {
				data = tc.data
			}
			file := nii(t, h.bytes(), 352, le, data)
			for _, gz := range []bool{false, true} {
				in := file
				if gz {
					in = imagetest.GzipBytes(t, file)
				}
				v, err := Read(bytes.NewReader(in), gz, tc.opts)
				if tc.err != "" {
					if err == nil || !strings.Contains(err.Error(), tc.err) {
						t.Fatalf("gz=%v: err = %v, want it to contain %q", gz, err, tc.err)
					}
					continue
				}
				if err != nil {
					t.Fatalf("gz=%v: %v", gz, err)
				}
				if v.Shape != tc.shape {
					t.Errorf("shape %v, want %v", v.Shape, tc.shape)
				}
				imagetest.CheckVec(t, "data", v.Data, tc.want)
			}
		})
	}
}

func TestNIfTIOffsetsAndHeaderErrors(t *testing.T) {
	le := binary.LittleEndian
	good := n1hdr{dim: [8]int16{3, 2, 1, 1}, datatype: 512, bitpix: 16, vox: 416, pixdim: [8]float32{1, 1, 1, 1}}
	t.Run("vox_offset past extensions", func(t *testing.T) {
		v, err := Read(bytes.NewReader(nii(t, good.bytes(), 416, le, []uint16{65535, 7})), false)
		if err != nil {
			t.Fatal(err)
		}
		imagetest.CheckVec(t, "data", v.Data, []float64{65535, 7})
		if v.DType != volume.Uint16 {
			t.Errorf("dtype %s", v.DType)
		}
	})
	t.Run("vox_offset 0 read as 352", func(t *testing.T) {
		h := good
		h.vox = 0
		v, err := Read(bytes.NewReader(nii(t, h.bytes(), 352, le, []uint16{3, 4})), false)
		if err != nil {
			t.Fatal(err)
		}
		imagetest.CheckVec(t, "data", v.Data, []float64{3, 4})
	})
	errCases := []struct {
		name string
		file []byte
		want string
	}{
		{"empty", nil, "file truncated"},
		{"short header", good.bytes()[:100], "file truncated"},
		{"bad sizeof_hdr", func() []byte { h := good; h.sizeof = 349; return h.bytes() }(), "sizeof_hdr = 349"},
		{"bad magic", func() []byte { h := good; h.magic = "xyz"; return h.bytes() }(), "magic"},
		{"pair magic", func() []byte { h := good; h.magic = "ni1"; return h.bytes() }(), "ni1"},
		{"rgb datatype", func() []byte { h := good; h.datatype = 128; return h.bytes() }(), "datatype = 128"},
		{"vox_offset too low", func() []byte { h := good; h.vox = 200; return h.bytes() }(), "vox_offset = 200"},
		{"valid slope, NaN intercept", func() []byte { h := good; h.slope, h.inter = 2, float32(math.NaN()); return h.bytes() }(), "scl_inter = NaN"},
		{"vox_offset NaN", func() []byte { h := good; h.vox = float32(math.NaN()); return h.bytes() }(), "vox_offset"},
		{"vox_offset beyond file", func() []byte { h := good; h.vox = 1e6; return nii(t, h.bytes(), 352, le, []uint16{1, 2}) }(), "vox_offset 1000000"},
	}
	for _, tc := range errCases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(bytes.NewReader(tc.file), false)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
			_, err = Read(bytes.NewReader(imagetest.GzipBytes(t, tc.file)), true)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("gz: err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
	t.Run("not gzip", func(t *testing.T) {
		_, err := Read(bytes.NewReader(good.bytes()), true)
		if err == nil || !strings.Contains(err.Error(), "gzip") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("gzip truncated mid-stream", func(t *testing.T) {
		z := imagetest.GzipBytes(t, nii(t, good.bytes(), 416, le, []uint16{1, 2}))
		_, err := Read(bytes.NewReader(z[:len(z)/2]), true)
		if err == nil {
			t.Fatal("want error")
		}
	})
}

// hideSize wraps a reader so the decoder cannot learn the input size and
// takes the piece-by-piece path.
type hideSize struct{ r io.Reader }

func (h hideSize) Read(p []byte) (int, error) { return h.r.Read(p) }

func TestNIfTIStreamingAndPiecewisePathsAgree(t *testing.T) {
	// 1.5 M float64 samples span several 4 MiB streaming buffers and 16 MiB pieces.
	const nx, ny, nz = 150, 100, 100
	v := volume.New(volume.Grid{Shape: [3]int{nx, ny, nz}, Spacing: [3]float64{1, 1, 1}}, volume.Float64)
	for i := range v.Data {
		v.Data[i] = float64(i%9973) - 0.5
	}
	for _, gz := range []bool{false, true} {
		var buf bytes.Buffer
		if err := Write(&buf, v, volume.Float64, gz); err != nil {
			t.Fatal(err)
		}
		for _, hidden := range []bool{false, true} {
			var r io.Reader = bytes.NewReader(buf.Bytes())
			if hidden {
				r = hideSize{r}
			}
			got, err := Read(r, gz)
			if err != nil {
				t.Fatalf("gz=%v hidden=%v: %v", gz, hidden, err)
			}
			for _, i := range []int{0, 1, 524287, 524288, 1048576, len(v.Data) - 1} {
				if want := float64(i%9973) - 0.5; got.Data[i] != want {
					t.Fatalf("gz=%v hidden=%v: sample %d = %v, want %v", gz, hidden, i, got.Data[i], want)
				}
			}
			// Cut the stream: both paths must fail.
			cut := buf.Bytes()[:buf.Len()*2/3]
			r = bytes.NewReader(cut)
			if hidden {
				r = hideSize{r}
			}
			if _, err := Read(r, gz); err == nil || !strings.Contains(err.Error(), "truncated") && !strings.Contains(err.Error(), "unexpected EOF") {
				t.Fatalf("gz=%v hidden=%v cut: err = %v", gz, hidden, err)
			}
		}
	}
}

func TestNIfTI2HandBuilt(t *testing.T) {
	for _, bo := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
		t.Run(bo.String(), func(t *testing.T) {
			h := n2hdr{bo: bo, dim: [8]int64{3, 2, 2, 1, 1, 1, 1, 1}, datatype: 1024, vox: 544,
				pixdim: [8]float64{1, 1.5, 2.5, 3.5}, slope: 0, scode: 1,
				srow: [3][4]float64{{0, 2.5, 0, 1}, {1.5, 0, 0, 2}, {0, 0, -3.5, 3}}}
			v, err := Read(bytes.NewReader(nii(t, h.bytes(), 544, bo, []int64{-1 << 40, 5, -7, 1 << 50})), false)
			if err != nil {
				t.Fatal(err)
			}
			imagetest.CheckVec(t, "data", v.Data, []float64{-1 << 40, 5, -7, 1 << 50})
			imagetest.CheckVec(t, "spacing", v.Spacing[:], []float64{1.5, 2.5, 3.5})
			imagetest.CheckVec(t, "origin", v.Origin[:], []float64{1, 2, 3})
			imagetest.CheckDir(t, v.Direction, [3][3]float64{{0, 1, 0}, {1, 0, 0}, {0, 0, -1}})
			if v.DType != volume.Int64 {
				t.Errorf("dtype %s", v.DType)
			}
			h.slope, h.inter = 0.25, 1
			h.datatype = 64
			v, err = Read(bytes.NewReader(nii(t, h.bytes(), 544, bo, []float64{4, 8, -4, 0.5})), false)
			if err != nil {
				t.Fatal(err)
			}
			imagetest.CheckVec(t, "scaled", v.Data, []float64{2, 3, 0, 1.125})
		})
	}
	t.Run("absurd dims", func(t *testing.T) {
		h := n2hdr{dim: [8]int64{3, 1 << 40, 1 << 40, 1 << 40}, datatype: 2, vox: 544}
		_, err := Read(bytes.NewReader(h.bytes()), false)
		if err == nil || !strings.Contains(err.Error(), "overflow") {
			t.Fatalf("err = %v, want overflow", err)
		}
		h.dim = [8]int64{3, 1 << 20, 1 << 20, 1}
		_, err = Read(bytes.NewReader(h.bytes()), false)
		if err == nil || !strings.Contains(err.Error(), "limit") {
			t.Fatalf("err = %v, want limit", err)
		}
		h.dim = [8]int64{3, 4, -1, 1}
		_, err = Read(bytes.NewReader(h.bytes()), false)
		if err == nil || !strings.Contains(err.Error(), "dim[2] = -1") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("lying size in gzip allocates little", func(t *testing.T) {
		// Header claims 1 GiB of uint8 (8 GiB decoded would exceed the
		// default cap, so raise it) but the stream holds 10 bytes.
		h := n2hdr{dim: [8]int64{3, 1024, 1024, 1024}, datatype: 2, vox: 544}
		z := imagetest.GzipBytes(t, nii(t, h.bytes(), 544, binary.LittleEndian, make([]byte, 10)))
		_, err := Read(bytes.NewReader(z), true, Options{MaxBytes: 16 << 30})
		if err == nil || !strings.Contains(err.Error(), "truncated: got 10 of") {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestNIfTIRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for _, dt := range imagetest.AllDTypes {
		for _, name := range []string{"a.nii", "a.nii.gz"} {
			t.Run(string(dt)+"/"+name, func(t *testing.T) {
				v := imagetest.TestVolume(dt)
				path := filepath.Join(dir, string(dt)+name)
				if err := WriteFile(path, v, dt); err != nil {
					t.Fatal(err)
				}
				got, err := ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if got.DType != dt || got.Shape != [3]int{3, 2, 1} {
					t.Fatalf("dtype %s shape %v", got.DType, got.Shape)
				}
				imagetest.CheckVec(t, "data", got.Data, imagetest.SampleValues(dt))
				imagetest.CheckVec(t, "spacing", got.Spacing[:], []float64{0.5, 1.25, 3})
				imagetest.CheckVec(t, "origin", got.Origin[:], []float64{-10, 20.5, 3})
				imagetest.CheckDir(t, got.Direction, v.Direction)
				h, err := ReadHeaderFile(path)
				if err != nil {
					t.Fatal(err)
				}
				// A 3×2×1 volume whose axis 2 spacing is not 1 is written as 3-D.
				if h.Dim[0] != 3 || h.Pixdim[3] != 3 || h.SformCode != 1 || h.QformCode != 1 || h.VoxOffset != 352 {
					t.Errorf("header %+v", h)
				}
				// sform column 0 = Direction[0]·0.5 = (0, 0.5, 0); column 1 = (−1.25, 0, 0).
				wantS := [3][4]float64{{0, -1.25, 0, -10}, {0.5, 0, 0, 20.5}, {0, 0, 3, 3}}
				for i := range wantS {
					imagetest.CheckVec(t, "srow", h.Srow[i][:], wantS[i][:])
				}
			})
		}
	}
}

func TestNIfTIWriteErrors(t *testing.T) {
	v := imagetest.TestVolume(volume.Float64)
	v.Data[0] = 0.5
	if err := Write(&bytes.Buffer{}, v, volume.Int16, false); err == nil || !strings.Contains(err.Error(), "sample 0 is 0.5") {
		t.Errorf("fraction into int16: err = %v", err)
	}
	v.Data[0] = 256
	if err := Write(&bytes.Buffer{}, v, volume.Uint8, false); err == nil {
		t.Error("256 into uint8: want error")
	}
	v.Data[0] = math.NaN()
	if err := Write(&bytes.Buffer{}, v, volume.Int32, false); err == nil {
		t.Error("NaN into int32: want error")
	}
	if err := Write(&bytes.Buffer{}, v, "complex64", false); err == nil {
		t.Error("unknown type: want error")
	}
	v.Data = v.Data[:2]
	if err := Write(&bytes.Buffer{}, v, volume.Float64, false); err == nil {
		t.Error("short data: want error")
	}
}

func TestNIfTIQformMatchesSform(t *testing.T) {
	// The writer's qform must describe the same rotation as its sform, also
	// for a reflection (det < 0) and an oblique rotation.
	dirs := [][3][3]float64{
		{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}},
		{{-1, 0, 0}, {0, -1, 0}, {0, 0, 1}},
		{{1, 0, 0}, {0, 1, 0}, {0, 0, -1}},
		{{0, 0, 1}, {1, 0, 0}, {0, 1, 0}},
		{{0.6, 0.8, 0}, {-0.8, 0.6, 0}, {0, 0, 1}},
		{{-1, 0, 0}, {0, 0, 1}, {0, 1, 0}},
	}
	for i, d := range dirs {
		v := volume.New(volume.Grid{Shape: [3]int{2, 2, 2}, Spacing: [3]float64{1, 2, 3}}, volume.Uint8)
		v.Direction = d
		var buf bytes.Buffer
		if err := Write(&buf, v, volume.Uint8, false); err != nil {
			t.Fatal(err)
		}
		b := buf.Bytes()
		binary.LittleEndian.PutUint16(b[254:], 0) // drop sform_code: the reader falls back to the qform
		got, err := Read(bytes.NewReader(b), false)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(string(rune('a'+i)), func(t *testing.T) { imagetest.CheckDir(t, got.Direction, d) })
	}
}

func FuzzReadNIfTI(f *testing.F) {
	le := binary.LittleEndian
	h := n1hdr{dim: [8]int16{3, 2, 2, 1}, datatype: 4, bitpix: 16, vox: 352, pixdim: [8]float32{-1, 1, 2, 3},
		slope: 2, inter: 1, qcode: 1, quat: [3]float32{0.1, 0.2, 0.3}}
	f.Add(nii(f, h.bytes(), 352, le, []int16{1, 2, 3, 4}), false)
	h.bo = binary.BigEndian
	h.scode = 1
	h.srow = [3][4]float32{{1, 0, 0, 1}, {0, 1, 0, 2}, {0, 0, 1, 3}}
	f.Add(nii(f, h.bytes(), 352, binary.BigEndian, []int16{1, 2, 3, 4}), false)
	f.Add(imagetest.GzipBytes(f, nii(f, h.bytes(), 352, binary.BigEndian, []int16{1, 2, 3, 4})), true)
	h2 := n2hdr{dim: [8]int64{4, 2, 1, 1, 2}, datatype: 16, vox: 544}
	f.Add(nii(f, h2.bytes(), 544, le, []float32{1, 2, 3, 4}), false)
	f.Add(imagetest.GzipBytes(f, nii(f, h2.bytes(), 544, le, []float32{1, 2, 3, 4})), true)
	f.Fuzz(func(t *testing.T, data []byte, gz bool) {
		for _, first := range []bool{false, true} {
			v, err := Read(bytes.NewReader(data), gz, Options{MaxBytes: 1 << 24, FirstVolume: first})
			if err != nil {
				continue
			}
			if err := v.Check(); err != nil {
				t.Fatalf("decoded volume invalid: %v", err)
			}
		}
	})
}
