package metaimage

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/metrics/imageio/internal/codec"
	"github.com/rexmle/rexmle/metrics/imageio/internal/imagetest"
	"github.com/rexmle/rexmle/metrics/volume"
)

// ReadMetaImage decodes a MetaImage stream whose data is inline
// (ElementDataFile = LOCAL), as ReadFile does a .mha file.
func ReadMetaImage(r io.Reader, opts ...Options) (*volume.Volume, error) {
	v, _, err := readMetaImageAs(r, "", codec.PickOptions(opts), false)
	return v, err
}

// WriteMetaImage writes v as WriteFile writes a .mha file, to w.
func WriteMetaImage(w io.Writer, v *volume.Volume, dt volume.DType, compressed bool) error {
	header, data, err := encodeMetaImage(v, dt, compressed, "LOCAL")
	if err != nil {
		return err
	}
	if _, err := w.Write(header); err != nil {
		return err
	}
	_, err = w.Write(data)
	return err
}

func TestMetaImageHandBuilt(t *testing.T) {
	le, be := binary.LittleEndian, binary.BigEndian
	shorts := []int16{-5, 0, 7, 32767, -32768, 1, 2, 3, 4, 5, 6, 7}
	wantShorts := []float64{-5, 0, 7, 32767, -32768, 1, 2, 3, 4, 5, 6, 7}
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
			name: "short LE with geometry",
			header: "ObjectType = Image\nNDims = 3\nBinaryData = True\nBinaryDataByteOrderMSB = False\n" +
				"TransformMatrix = 0 1 0 -1 0 0 0 0 1\nOffset = 1.5 -2 3\nElementSpacing = 0.5 0.75 2\n" +
				"DimSize = 3 2 2\nElementType = MET_SHORT\nElementDataFile = LOCAL\n",
			data: imagetest.BinBytes(t, le, shorts), shape: [3]int{3, 2, 2}, spacing: [3]float64{0.5, 0.75, 2},
			origin: [3]float64{1.5, -2, 3}, dir: [3][3]float64{{0, 1, 0}, {-1, 0, 0}, {0, 0, 1}},
			channels: 1, dtype: volume.Int16, want: wantShorts,
		},
		{
			name: "short MSB, CRLF lines, Origin alias",
			header: "ObjectType = Image\r\nNDims = 3\r\nElementByteOrderMSB = True\r\nOrigin = 1 2 3\r\n" +
				"DimSize = 3 2 2\r\nElementType = MET_SHORT\r\nElementDataFile = LOCAL\r\n",
			data: imagetest.BinBytes(t, be, shorts), shape: [3]int{3, 2, 2}, spacing: [3]float64{1, 1, 1},
			origin: [3]float64{1, 2, 3}, dir: [3][3]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}},
			channels: 1, dtype: volume.Int16, want: wantShorts,
		},
		{
			name: "compressed float with size",
			header: "ObjectType = Image\nNDims = 2\nCompressedData = True\nCompressedDataSize = " +
				itoa(len(imagetest.ZlibBytes(t, imagetest.BinBytes(t, le, []float32{1.5, -2, 0.25, 8})))) +
				"\nElementSpacing = 0.3 0.4\nDimSize = 2 2\nElementType = MET_FLOAT\nElementDataFile = LOCAL\n",
			data: imagetest.ZlibBytes(t, imagetest.BinBytes(t, le, []float32{1.5, -2, 0.25, 8})), shape: [3]int{2, 2, 1},
			spacing: [3]float64{0.3, 0.4, 1}, dir: [3][3]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}},
			channels: 1, dtype: volume.Float32, want: []float64{1.5, -2, 0.25, 8},
		},
		{
			name: "compressed double MSB without size",
			header: "ObjectType = Image\nNDims = 1\nCompressedData = True\nBinaryDataByteOrderMSB = True\n" +
				"DimSize = 3\nElementType = MET_DOUBLE\nElementDataFile = LOCAL\n",
			data: imagetest.ZlibBytes(t, imagetest.BinBytes(t, be, []float64{1e300, -0.5, 3})), shape: [3]int{3, 1, 1},
			spacing: [3]float64{1, 1, 1}, dir: [3][3]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}},
			channels: 1, dtype: volume.Float64, want: []float64{1e300, -0.5, 3},
		},
		{
			name: "RGB channels",
			header: "ObjectType = Image\nNDims = 2\nDimSize = 2 1\nElementNumberOfChannels = 3\n" +
				"ElementType = MET_UCHAR_ARRAY\nElementDataFile = LOCAL\n",
			data: []byte{255, 0, 10, 1, 2, 3}, shape: [3]int{2, 1, 1}, spacing: [3]float64{1, 1, 1},
			dir: [3][3]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, channels: 3, dtype: volume.Uint8,
			want: []float64{255, 0, 10, 1, 2, 3},
		},
		{
			name: "4-D with singleton tail, 64-bit ints",
			header: "ObjectType = Image\nNDims = 4\nDimSize = 2 1 1 1\nElementSpacing = 2 3 4 5\n" +
				"ElementType = MET_LONG_LONG\nElementDataFile = LOCAL\n",
			data: imagetest.BinBytes(t, le, []int64{-1 << 60, 1 << 40}), shape: [3]int{2, 1, 1}, spacing: [3]float64{2, 3, 4},
			dir: [3][3]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}, channels: 1, dtype: volume.Int64,
			want: []float64{-1 << 60, 1 << 40},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, err := ReadMetaImage(bytes.NewReader(append([]byte(tc.header), tc.data...)))
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

func itoa(n int) string { return strconv.Itoa(n) }

func TestMetaImageErrors(t *testing.T) {
	base := "ObjectType = Image\nNDims = 3\nDimSize = 2 2 1\nElementType = MET_UCHAR\nElementDataFile = LOCAL\n"
	tests := []struct {
		name, file, want string
	}{
		{"empty", "", "no ElementDataFile"},
		{"not metaimage", "hello world\n", "no \"=\""},
		{"first field wrong", "Foo = 1\n", "first field"},
		{"truncated data", base + "\x01\x02", "truncated: got 2 of 4 bytes"},
		{"negative dim", strings.Replace(base, "2 2 1", "2 -5 1", 1), "DimSize[1] = -5"},
		{"dims count", strings.Replace(base, "2 2 1", "2 2", 1), "DimSize has 2 values, want NDims = 3"},
		{"bad type", strings.Replace(base, "MET_UCHAR", "MET_COMPLEX", 1), "ElementType = \"MET_COMPLEX\""},
		{"missing type", strings.Replace(base, "ElementType = MET_UCHAR\n", "", 1), "ElementType missing"},
		{"huge dims", strings.Replace(base, "2 2 1", "100000 100000 100000", 1), "limit"},
		{"overflow dims", strings.Replace(base, "2 2 1", "9223372036854775807 9223372036854775807 2", 1), "overflow"},
		{"4-D", strings.Replace(strings.Replace(base, "NDims = 3", "NDims = 4", 1), "2 2 1", "2 2 1 2", 1), "DimSize[3] = 2"},
		{"ascii", strings.Replace(base, "NDims = 3\n", "NDims = 3\nBinaryData = False\n", 1), "ASCII"},
		{"spacing count", strings.Replace(base, "NDims = 3\n", "NDims = 3\nElementSpacing = 1 1\n", 1), "ElementSpacing has 2 values"},
		{"bad number", strings.Replace(base, "NDims = 3\n", "NDims = 3\nOffset = 1 x 2\n", 1), "\"x\" is not a number"},
		{"channels zero", strings.Replace(base, "NDims = 3\n", "NDims = 3\nElementNumberOfChannels = 0\n", 1), "ElementNumberOfChannels"},
		{"compressed garbage", strings.Replace(base, "NDims = 3\n", "NDims = 3\nCompressedData = True\n", 1) + "garbage!", "compressed data"},
		{"external without path", strings.Replace(base, "LOCAL", "x.raw", 1), "needs the header's path"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadMetaImage(strings.NewReader(tc.file))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
	t.Run("compressed truncated", func(t *testing.T) {
		raw := make([]byte, 4000)
		for i := range raw {
			raw[i] = byte(i * i % 251)
		}
		z := imagetest.ZlibBytes(t, raw)
		file := strings.Replace(strings.Replace(base, "NDims = 3\n", "NDims = 3\nCompressedData = True\n", 1), "2 2 1", "40 100 1", 1) + string(z[:len(z)/2])
		if _, err := ReadMetaImage(strings.NewReader(file)); err == nil {
			t.Fatal("want error")
		}
	})
}

func TestMetaImageDetached(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	hdr := func(file, extra string) []byte {
		return []byte("ObjectType = Image\nNDims = 2\nDimSize = 2 2\nElementType = MET_USHORT\n" + extra + "ElementDataFile = " + file + "\n")
	}
	raw := imagetest.BinBytes(t, binary.LittleEndian, []uint16{1, 65535, 3, 4})
	write("img.raw", raw)
	write("sub/img2.raw", append([]byte("JUNKJUNK"), raw...))
	write("img3.raw", append([]byte("0123456789"), raw...))
	write("img4.zraw", imagetest.ZlibBytes(t, raw))
	write("short.raw", raw[:2])
	os.WriteFile(filepath.Join(outside, "secret.raw"), raw, 0o644)
	if err := os.Symlink(filepath.Join(outside, "secret.raw"), filepath.Join(dir, "link.raw")); err != nil {
		t.Fatal(err)
	}
	ok := []struct{ name, file, extra string }{
		{"plain", "img.raw", ""},
		{"subfolder with HeaderSize", "sub/img2.raw", "HeaderSize = 8\n"},
		{"HeaderSize -1", "img3.raw", "HeaderSize = -1\n"},
		{"compressed", "img4.zraw", "CompressedData = True\n"},
	}
	for _, tc := range ok {
		t.Run(tc.name, func(t *testing.T) {
			p := write(strings.ReplaceAll(tc.name, " ", "_")+".mhd", hdr(tc.file, tc.extra))
			v, err := ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			imagetest.CheckVec(t, "data", v.Data, []float64{1, 65535, 3, 4})
		})
	}
	bad := []struct{ name, file, want string }{
		{"dotdot", "../" + filepath.Base(outside) + "/secret.raw", "leaves the header's folder"},
		{"absolute", filepath.Join(outside, "secret.raw"), "absolute"},
		{"symlink out", "link.raw", "outside the header's folder"},
		{"missing", "nothere.raw", "nothere.raw"},
		{"list", "LIST", "lists"},
		{"short raw file", "short.raw", "holds 2 bytes, the header needs 8"},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			p := write("bad.mhd", hdr(tc.file, ""))
			_, err := ReadFile(p)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "bad.mhd") {
				t.Fatalf("err = %v, want it to contain %q and the file name", err, tc.want)
			}
		})
	}
}

func TestMetaImageRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for _, dt := range imagetest.AllDTypes {
		for _, name := range []string{"a.mha", "a.mhd"} {
			for _, compressed := range []bool{false, true} {
				t.Run(string(dt)+"/"+name+map[bool]string{true: "/z"}[compressed], func(t *testing.T) {
					v := imagetest.TestVolume(dt)
					p := filepath.Join(dir, map[bool]string{true: "z"}[compressed]+string(dt)+name)
					if err := WriteFile(p, v, dt, compressed); err != nil {
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
	}
	t.Run("channels", func(t *testing.T) {
		v := &volume.Volume{Grid: volume.NewGrid(2, 1), DType: volume.Uint8, Channels: 3, Data: []float64{1, 2, 3, 4, 5, 6}}
		var buf bytes.Buffer
		if err := WriteMetaImage(&buf, v, "", true); err != nil {
			t.Fatal(err)
		}
		got, err := ReadMetaImage(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if got.Channels != 3 {
			t.Fatalf("channels %d", got.Channels)
		}
		imagetest.CheckVec(t, "data", got.Data, v.Data)
	})
}

func FuzzReadMetaImage(f *testing.F) {
	le := binary.LittleEndian
	f.Add([]byte("ObjectType = Image\nNDims = 3\nTransformMatrix = 1 0 0 0 1 0 0 0 1\nOffset = 0 0 0\n" +
		"ElementSpacing = 1 1 2\nDimSize = 2 2 1\nElementType = MET_SHORT\nElementDataFile = LOCAL\n" +
		string(imagetest.BinBytes(f, le, []int16{1, 2, 3, 4}))))
	f.Add([]byte("ObjectType = Image\nNDims = 2\nCompressedData = True\nDimSize = 2 2\nElementNumberOfChannels = 2\n" +
		"ElementType = MET_FLOAT\nElementDataFile = LOCAL\n" + string(imagetest.ZlibBytes(f, imagetest.BinBytes(f, le, []float32{1, 2, 3, 4, 5, 6, 7, 8})))))
	f.Add([]byte("ObjectType = Image\nNDims = 1\nBinaryDataByteOrderMSB = True\nDimSize = 2\nElementType = MET_ULONG_LONG\nElementDataFile = LOCAL\n" +
		string(imagetest.BinBytes(f, binary.BigEndian, []uint64{1, 2}))))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := ReadMetaImage(bytes.NewReader(data), Options{MaxBytes: 1 << 24})
		if err != nil {
			return
		}
		if err := v.Check(); err != nil {
			t.Fatalf("decoded volume invalid: %v", err)
		}
	})
}

// TestMetaImageShapeFile: the header-only shape is the decoded volume's,
// with the same options; a header the reader refuses is refused alike.
func TestMetaImageShapeFile(t *testing.T) {
	dir := t.TempDir()
	base := "ObjectType = Image\nNDims = 3\nDimSize = 3 2 2\nElementType = MET_UCHAR\nElementDataFile = LOCAL\n"
	files := []struct {
		name, header string
		data         []byte
		opt          Options
		wantErr      string
	}{
		{"3d.mha", base, make([]byte, 12), Options{}, ""},
		{"2d.mha", strings.Replace(strings.Replace(base, "NDims = 3", "NDims = 2", 1), "3 2 2", "5 4", 1), make([]byte, 20), Options{}, ""},
		{"4d-first.mha", strings.Replace(strings.Replace(base, "NDims = 3", "NDims = 4", 1), "3 2 2", "3 2 2 2", 1), make([]byte, 24), Options{FirstVolume: true}, ""},
		{"4d.mha", strings.Replace(strings.Replace(base, "NDims = 3", "NDims = 4", 1), "3 2 2", "3 2 2 2", 1), make([]byte, 24), Options{}, "DimSize[3] = 2"},
		{"capped.mha", base, make([]byte, 12), Options{MaxBytes: 8 * 11}, "limit"},
		{"compressed.mha", strings.Replace(base, "NDims = 3\n", "NDims = 3\nCompressedData = True\n", 1), imagetest.ZlibBytes(t, make([]byte, 12)), Options{}, ""},
		{"no type.mha", strings.Replace(base, "ElementType = MET_UCHAR\n", "", 1), make([]byte, 12), Options{}, "ElementType missing"},
	}
	for _, f := range files {
		p := filepath.Join(dir, f.name)
		if err := os.WriteFile(p, append([]byte(f.header), f.data...), 0o644); err != nil {
			t.Fatal(err)
		}
		shape, err := ReadShapeFile(p, f.opt)
		v, verr := ReadFile(p, f.opt)
		if f.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), f.wantErr) || verr == nil {
				t.Errorf("%s: shape error %v, read error %v; want both, containing %q", f.name, err, verr, f.wantErr)
			}
			continue
		}
		if err != nil || verr != nil {
			t.Fatalf("%s: shape error %v, read error %v", f.name, err, verr)
		}
		if shape != v.Shape {
			t.Errorf("%s: header shape %v, decoded shape %v", f.name, shape, v.Shape)
		}
	}
	if _, err := ReadShapeFile(filepath.Join(dir, "missing.mha")); err == nil {
		t.Error("a missing file gave no error")
	}
}
