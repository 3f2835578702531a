package nrrd

import (
	"bytes"
	"encoding/binary"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/metrics/imageio/internal/imagetest"
	"github.com/rexmle/rexmle/metrics/volume"
)

func TestNRRDHandBuilt(t *testing.T) {
	le, be := binary.LittleEndian, binary.BigEndian
	ident := [3][3]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
	tests := []struct {
		name     string
		header   string
		data     []byte
		shape    [3]int
		spacing  [3]float64
		origin   [3]float64
		dir      [3][3]float64
		channels int
		dtype    volume.DType
		want     []float64
	}{
		{
			name: "seg.nrrd style gzip uchar with space directions",
			header: "NRRD0004\n# Complete NRRD file format specification at:\ntype: unsigned char\ndimension: 3\n" +
				"space: left-posterior-superior\nsizes: 2 2 1\nspace directions: (0,-0.5,0) (2,0,0) (0,0,3)\n" +
				"kinds: domain domain domain\nencoding: gzip\nspace origin: (-10.5,20,3.25)\nSegment0_ID:=Segment_1\n\n",
			data:  imagetest.GzipBytes(t, []byte{0, 1, 2, 255}),
			shape: [3]int{2, 2, 1}, spacing: [3]float64{0.5, 2, 3}, origin: [3]float64{-10.5, 20, 3.25},
			dir: [3][3]float64{{0, -1, 0}, {1, 0, 0}, {0, 0, 1}}, channels: 1, dtype: volume.Uint8,
			want: []float64{0, 1, 2, 255},
		},
		{
			name: "raw big-endian short, spacings, gz alias absent",
			header: "NRRD0001\ntype: short\ndimension: 2\nsizes: 3 1\nspacings: 0.25 NaN\nendian: big\n" +
				"encoding: raw\n\n",
			data:  imagetest.BinBytes(t, be, []int16{-2, 300, -32768}),
			shape: [3]int{3, 1, 1}, spacing: [3]float64{0.25, 1, 1}, dir: ident, channels: 1, dtype: volume.Int16,
			want: []float64{-2, 300, -32768},
		},
		{
			name: "gz alias, signed int16 alias, CRLF",
			header: "NRRD0005\r\ntype: signed short int\r\ndimension: 1\r\nsizes: 2\r\nendian: little\r\n" +
				"encoding: gz\r\n\r\n",
			data:  imagetest.GzipBytes(t, imagetest.BinBytes(t, le, []int16{7, -7})),
			shape: [3]int{2, 1, 1}, spacing: [3]float64{1, 1, 1}, dir: ident, channels: 1, dtype: volume.Int16,
			want: []float64{7, -7},
		},
		{
			name: "vector first axis becomes channels",
			header: "NRRD0004\ntype: float\ndimension: 3\nspace: RAS\nsizes: 3 2 1\n" +
				"space directions: none (1.5,0,0) (0,1,0)\nkinds: RGB-color domain domain\nendian: little\nencoding: raw\n\n",
			data:  imagetest.BinBytes(t, le, []float32{1, 2, 3, 4, 5, 6}),
			shape: [3]int{2, 1, 1}, spacing: [3]float64{1.5, 1, 1}, dir: ident, channels: 3, dtype: volume.Float32,
			want: []float64{1, 2, 3, 4, 5, 6},
		},
		{
			name: "kinds without directions",
			header: "NRRD0004\ntype: uint16\ndimension: 2\nsizes: 2 2\nkinds: vector domain\n" +
				"endian: little\nencoding: raw\n\n",
			data:  imagetest.BinBytes(t, le, []uint16{1, 2, 65535, 4}),
			shape: [3]int{2, 1, 1}, spacing: [3]float64{1, 1, 1}, dir: ident, channels: 2, dtype: volume.Uint16,
			want: []float64{1, 2, 65535, 4},
		},
		{
			name:   "missing blank line is repaired",
			header: "NRRD0004\ntype: uint8\ndimension: 2\nsizes: 2 2\nencoding: raw\n",
			data:   []byte{9, 8, 7, 6},
			shape:  [3]int{2, 2, 1}, spacing: [3]float64{1, 1, 1}, dir: ident, channels: 1, dtype: volume.Uint8,
			want: []float64{9, 8, 7, 6},
		},
		{
			name:   "ascii double with byte skip ignored for ascii lines",
			header: "NRRD0004\ntype: double\ndimension: 1\nsizes: 3\nencoding: ascii\n\n",
			data:   []byte("1.5 -2\n3e10\n"),
			shape:  [3]int{3, 1, 1}, spacing: [3]float64{1, 1, 1}, dir: ident, channels: 1, dtype: volume.Float64,
			want: []float64{1.5, -2, 3e10},
		},
		{
			name: "byte skip and line skip on raw",
			header: "NRRD0004\ntype: longlong\ndimension: 1\nsizes: 1\nendian: little\nencoding: raw\n" +
				"line skip: 1\nbyte skip: 2\n\n",
			data:  append([]byte("skip me\nXX"), imagetest.BinBytes(t, le, []int64{-1 << 62})...),
			shape: [3]int{1, 1, 1}, spacing: [3]float64{1, 1, 1}, dir: ident, channels: 1, dtype: volume.Int64,
			want: []float64{-1 << 62},
		},
		{
			name: "2-D space",
			header: "NRRD0004\ntype: uint\ndimension: 2\nspace dimension: 2\nsizes: 1 2\n" +
				"space directions: (0,2) (-3,0)\nspace origin: (1,2)\nendian: big\nencoding: raw\n\n",
			data:  imagetest.BinBytes(t, be, []uint32{4294967295, 5}),
			shape: [3]int{1, 2, 1}, spacing: [3]float64{2, 3, 1}, origin: [3]float64{1, 2, 0},
			dir: [3][3]float64{{0, 1, 0}, {-1, 0, 0}, {0, 0, 1}}, channels: 1, dtype: volume.Uint32,
			want: []float64{4294967295, 5},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, err := Read(bytes.NewReader(append([]byte(tc.header), tc.data...)))
			if err != nil {
				t.Fatal(err)
			}
			if v.Shape != tc.shape || v.NumChannels() != tc.channels || v.DType != tc.dtype {
				t.Fatalf("shape %v channels %d dtype %s", v.Shape, v.Channels, v.DType)
			}
			imagetest.CheckVec(t, "data", v.Data, tc.want)
			imagetest.CheckVec(t, "spacing", v.Spacing[:], tc.spacing[:])
			imagetest.CheckVec(t, "origin", v.Origin[:], tc.origin[:])
			imagetest.CheckDir(t, v.Direction, tc.dir)
		})
	}
}

func TestNRRDErrors(t *testing.T) {
	base := "NRRD0004\ntype: uint8\ndimension: 3\nsizes: 2 2 1\nencoding: raw\n\n"
	tests := []struct{ name, file, want string }{
		{"empty", "", "magic"},
		{"not nrrd", "P5\n", "magic"},
		{"no fields", "NRRD0004\n", "type missing"},
		{"truncated", base + "\x01", "truncated: got 1 of 4 bytes"},
		{"detached", strings.Replace(base, "encoding: raw\n", "encoding: raw\ndata file: ../../etc/passwd\n", 1), "detached"},
		{"bad type", strings.Replace(base, "uint8", "block", 1), "type = \"block\""},
		{"negative size", strings.Replace(base, "2 2 1", "2 -3 1", 1), "sizes[1] = -3"},
		{"sizes count", strings.Replace(base, "2 2 1", "2 2", 1), "sizes has 2 values"},
		{"huge", strings.Replace(base, "2 2 1", "100000 100000 100000", 1), "limit"},
		{"overflow", strings.Replace(base, "2 2 1", "9223372036854775807 4 4", 1), "overflow"},
		{"bad encoding", strings.Replace(base, "raw", "hex", 1), "encoding = \"hex\""},
		{"no endian", strings.Replace(base, "uint8", "int16", 1), "endian missing"},
		{"4 spatial axes", "NRRD0004\ntype: uint8\ndimension: 4\nsizes: 2 2 2 2\nencoding: raw\n\n", "at most 3"},
		{"non-spatial middle axis", "NRRD0004\ntype: uint8\ndimension: 3\nspace dimension: 2\nsizes: 2 2 2\n" +
			"space directions: (1,0) none (0,1)\nencoding: raw\n\n", "axis 1 (size 2) is not spatial"},
		{"bad vector", strings.Replace(base, "encoding", "space: LPS\nspace directions: (1,0) (0,1,0) (0,0,1)\nencoding", 1), "has 2 components, want 3"},
		{"unclosed vector", strings.Replace(base, "encoding", "space: LPS\nspace origin: (1,0,0\nencoding", 1), "unclosed"},
		{"duplicate field", strings.Replace(base, "encoding", "type: uint8\nencoding", 1), "given twice"},
		{"gzip garbage", strings.Replace(base, "raw", "gzip", 1) + "notgzip", "gzip"},
		{"ascii bad token", strings.Replace(base, "raw", "ascii", 1) + "1 2 x 4", "\"x\" is not a number"},
		{"ascii short", strings.Replace(base, "raw", "ascii", 1) + "1 2", "got 2 of 4"},
		{"unknown space", strings.Replace(base, "encoding", "space: sideways\nencoding", 1), "not a known NRRD space"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tc.file))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
	t.Run("time axis with FirstVolume", func(t *testing.T) {
		file := "NRRD0004\ntype: uint8\ndimension: 3\nspace dimension: 2\nsizes: 2 1 3\n" +
			"space directions: (1,0) (0,1) none\nencoding: raw\n\n" + "\x01\x02\x03\x04\x05\x06"
		if _, err := Read(strings.NewReader(file)); err == nil {
			t.Fatal("want error without FirstVolume")
		}
		v, err := Read(strings.NewReader(file), Options{FirstVolume: true})
		if err != nil {
			t.Fatal(err)
		}
		imagetest.CheckVec(t, "data", v.Data, []float64{1, 2})
	})
}

func TestNRRDRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for _, dt := range imagetest.AllDTypes {
		for _, gz := range []bool{false, true} {
			t.Run(string(dt)+map[bool]string{true: "/gz"}[gz], func(t *testing.T) {
				v := imagetest.TestVolume(dt)
				p := filepath.Join(dir, string(dt)+map[bool]string{true: "gz"}[gz]+".seg.nrrd")
				if err := WriteFile(p, v, dt, gz); err != nil {
					t.Fatal(err)
				}
				got, err := ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				if got.DType != dt || got.Shape != v.Shape {
					t.Fatalf("dtype %s shape %v", got.DType, got.Shape)
				}
				imagetest.CheckVec(t, "data", got.Data, v.Data)
				imagetest.CheckVec(t, "spacing", got.Spacing[:], v.Spacing[:])
				imagetest.CheckVec(t, "origin", got.Origin[:], v.Origin[:])
				imagetest.CheckDir(t, got.Direction, v.Direction)
			})
		}
	}
	t.Run("2-D with channels", func(t *testing.T) {
		v := &volume.Volume{Grid: volume.Grid{Shape: [3]int{2, 1, 1}, Spacing: [3]float64{0.5, 2, 1}},
			DType: volume.Uint16, Channels: 3, Data: []float64{1, 2, 3, 4, 5, 6}, Origin: [3]float64{3, 4, 0}}
		var buf bytes.Buffer
		if err := Write(&buf, v, "", true); err != nil {
			t.Fatal(err)
		}
		got, err := Read(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if got.Channels != 3 || got.Shape != v.Shape {
			t.Fatalf("channels %d shape %v", got.Channels, got.Shape)
		}
		imagetest.CheckVec(t, "data", got.Data, v.Data)
		imagetest.CheckVec(t, "spacing", got.Spacing[:], v.Spacing[:])
		imagetest.CheckVec(t, "origin", got.Origin[:], v.Origin[:])
	})
}

func FuzzReadNRRD(f *testing.F) {
	le := binary.LittleEndian
	f.Add([]byte("NRRD0004\ntype: short\ndimension: 3\nspace: left-posterior-superior\nsizes: 2 2 1\n" +
		"space directions: (1,0,0) (0,2,0) (0,0,3)\nendian: little\nencoding: raw\nspace origin: (1,2,3)\n\n" +
		string(imagetest.BinBytes(f, le, []int16{1, 2, 3, 4}))))
	f.Add(append([]byte("NRRD0004\ntype: float\ndimension: 3\nspace: RAS\nsizes: 2 2 1\nspace directions: none (1,0,0) (0,1,0)\n"+
		"kinds: vector domain domain\nendian: big\nencoding: gzip\n\n"), imagetest.GzipBytes(f, imagetest.BinBytes(f, binary.BigEndian, []float32{1, 2, 3, 4}))...))
	f.Add([]byte("NRRD0004\ntype: uint8\ndimension: 2\nsizes: 2 2\nencoding: ascii\n\n1 2 3 4\n"))
	f.Add([]byte("NRRD0004\ntype: uint8\ndimension: 2\nsizes: 2 2\nencoding: raw\n\x01\x02\x03\x04"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, first := range []bool{false, true} {
			v, err := Read(bytes.NewReader(data), Options{MaxBytes: 1 << 24, FirstVolume: first})
			if err != nil {
				continue
			}
			if err := v.Check(); err != nil {
				t.Fatalf("decoded volume invalid: %v", err)
			}
		}
	})
}
