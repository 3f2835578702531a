package imageio

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/metrics/imageio/metaimage"
	"github.com/rexmle/rexmle/metrics/imageio/nifti"
	"github.com/rexmle/rexmle/metrics/imageio/nrrd"
	"github.com/rexmle/rexmle/metrics/volume"
)

// TestReadFileBytes: each byte path (nifti.ReadFileBytes, metaimage.ReadFileBytes,
// nrrd.ReadFileBytes, and ReadBytes choosing among them) returns what the
// float path returns — 8-bit unsigned single-channel samples as bytes,
// every other type as float64 samples — plain or compressed, whole or
// damaged (truncated; junk after a compressed stream), with the same
// geometry and the same errors.
func TestReadFileBytes(t *testing.T) {
	type format struct {
		name  string
		write func(path string, v *volume.Volume, dt volume.DType, compressed bool) error
		read  func(path string, opts ...Options) (*volume.Volume, error)
		bytes func(path string, opts ...Options) (*Volume8, error)
		ext   func(compressed bool) string
		junk  bool // a compressed stream may be followed by junk
	}
	formats := []format{
		{"nifti", func(p string, v *volume.Volume, dt volume.DType, _ bool) error { return nifti.WriteFile(p, v, dt) },
			nifti.ReadFile, nifti.ReadFileBytes,
			func(c bool) string { return map[bool]string{false: ".nii", true: ".nii.gz"}[c] }, false},
		{"metaimage", metaimage.WriteFile, metaimage.ReadFile, metaimage.ReadFileBytes,
			func(bool) string { return ".mha" }, true},
		{"nrrd", nrrd.WriteFile, nrrd.ReadFile, nrrd.ReadFileBytes,
			func(bool) string { return ".seg.nrrd" }, false},
		{"any", nrrd.WriteFile, Read, ReadBytes,
			func(bool) string { return ".nrrd" }, false},
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(31, 32))
	for _, f := range formats {
		for it := 0; it < 48; it++ {
			g := volume.NewGrid(1+rng.IntN(40), 1+rng.IntN(20), 1+rng.IntN(9))
			g.Spacing = [3]float64{0.5 + rng.Float64(), 1, 2.5}
			dt := []volume.DType{volume.Uint8, volume.Uint8, volume.Int16, volume.Float32}[it%4]
			v := volume.New(g, dt)
			for i := range v.Data {
				if rng.IntN(5) == 0 {
					v.Data[i] = float64(rng.IntN(40))
				}
			}
			v.Origin = [3]float64{1, -2, 3}
			compressed := it%2 == 1
			path := filepath.Join(dir, "m"+f.ext(compressed))
			if err := f.write(path, v, dt, compressed); err != nil {
				t.Fatal(err)
			}
			file, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			variants := map[string][]byte{"whole": file, "truncated": file[:len(file)-1-rng.IntN(min(20, len(file)/4))]}
			if compressed && f.junk {
				variants["junk after the stream"] = append(slices.Clone(file), 1, 2, 3)
			}
			for name, data := range variants {
				if err := os.WriteFile(path, data, 0o644); err != nil {
					t.Fatal(err)
				}
				if err := sameAsFloat(path, dt, f.read, f.bytes); err != nil {
					t.Fatalf("%s %d %s (compressed %v) %s: %v", f.name, it, dt, compressed, name, err)
				}
			}
		}
	}
}

// sameAsFloat reads path both ways and reports how they differ; the byte
// path also with a dirty Options.Buffer one byte too small, just large
// enough and larger (or, for a file that does not read, large), which must
// change nothing but where the bytes live: a MetaImage or NRRD that fits
// lands in the buffer.
func sameAsFloat(path string, dt volume.DType, read func(string, ...Options) (*volume.Volume, error), readBytes func(string, ...Options) (*Volume8, error)) error {
	want, werr := read(path)
	got, gerr := readBytes(path)
	if (werr == nil) != (gerr == nil) || (werr != nil && werr.Error() != gerr.Error()) {
		return fmt.Errorf("errors %v / %v", werr, gerr)
	}
	sizes := []int{1 << 16}
	if werr == nil {
		sizes = []int{len(want.Data) - 1, len(want.Data), len(want.Data) + 9}
	}
	for _, size := range sizes {
		buf := bytes.Repeat([]byte{0xa5}, max(size, 0))
		inBuf, err := readBytes(path, Options{Buffer: buf})
		if fmt.Sprint(err) != fmt.Sprint(gerr) {
			return fmt.Errorf("with a %d-byte buffer: error %v, want %v", size, err, gerr)
		}
		if err != nil {
			continue
		}
		if !bytes.Equal(inBuf.Bytes, got.Bytes) || !slices.Equal(inBuf.Data, got.Data) {
			return fmt.Errorf("with a %d-byte buffer: other samples", size)
		}
		fits := got.Bytes != nil && size >= len(got.Bytes) && len(got.Bytes) > 0
		if shared := len(inBuf.Bytes) > 0 && &inBuf.Bytes[0] == &buf[0]; fits && !strings.Contains(path, ".nii") && !shared {
			return fmt.Errorf("with a %d-byte buffer: %d samples not decoded into it", size, len(got.Bytes))
		}
	}
	if werr != nil {
		return nil
	}
	if got.Grid != want.Grid || got.Origin != want.Origin || got.Direction != want.Direction || got.DType != want.DType {
		return fmt.Errorf("geometry %+v, want %+v", got.Volume, want)
	}
	if dt != volume.Uint8 {
		if got.Bytes != nil || !slices.Equal(got.Data, want.Data) {
			return fmt.Errorf("samples differ (bytes %v)", got.Bytes != nil)
		}
		return nil
	}
	if got.Data != nil || len(got.Bytes) != len(want.Data) {
		return fmt.Errorf("%d bytes, Data %v, want %d samples", len(got.Bytes), got.Data != nil, len(want.Data))
	}
	for i, b := range got.Bytes {
		if float64(b) != want.Data[i] {
			return fmt.Errorf("sample %d = %d, want %v", i, b, want.Data[i])
		}
	}
	return nil
}

// TestReadMetaImageBytesLongStream: a valid zlib stream longer than the
// whole-stream bound (here padded with 400 empty blocks) is streamed, not
// cut short: the byte path reads what the float path reads.
func TestReadMetaImageBytesLongStream(t *testing.T) {
	v := volume.New(volume.NewGrid(5, 4, 3), volume.Uint8)
	raw := make([]byte, len(v.Data))
	for i := range v.Data {
		v.Data[i] = float64(i % 7)
		raw[i] = byte(i % 7)
	}
	path := filepath.Join(t.TempDir(), "long.mha")
	if err := metaimage.WriteFile(path, v, volume.Uint8, true); err != nil {
		t.Fatal(err)
	}
	file, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	for i := 0; i < 400; i++ {
		zw.Flush() // an empty stored block each
	}
	zw.Write(raw)
	zw.Close()
	head := string(file[:bytes.Index(file, []byte("ElementDataFile"))])
	var kept []string
	for _, line := range strings.Split(head, "\n") {
		if !strings.HasPrefix(line, "CompressedDataSize") {
			kept = append(kept, line)
		}
	}
	long := append([]byte(strings.Join(kept, "\n")+"ElementDataFile = LOCAL\n"), z.Bytes()...)
	if int64(z.Len()) <= int64(len(raw))+int64(len(raw))/8+1024 {
		t.Fatalf("stream of %d bytes is within the bound", z.Len())
	}
	if err := os.WriteFile(path, long, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := sameAsFloat(path, volume.Uint8, metaimage.ReadFile, metaimage.ReadFileBytes); err != nil {
		t.Fatal(err)
	}
	if got, err := metaimage.ReadFileBytes(path); err != nil || !bytes.Equal(got.Bytes, raw) {
		t.Fatalf("long stream: %v", err)
	}
}

// TestReadNIfTIBytesKeepsItsBuffer: the bytes a whole-decoded .nii.gz hands
// over are not recycled — reading more files afterwards leaves them as
// they were.
func TestReadNIfTIBytesKeepsItsBuffer(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, fill float64) string {
		v := volume.New(volume.NewGrid(16, 8, 4), volume.Uint8)
		for i := range v.Data {
			v.Data[i] = fill
		}
		p := filepath.Join(dir, name)
		if err := nifti.WriteFile(p, v, volume.Uint8); err != nil {
			t.Fatal(err)
		}
		return p
	}
	first, err := nifti.ReadFileBytes(write("a.nii.gz", 7))
	if err != nil || first.Bytes == nil {
		t.Fatalf("read: %v", err)
	}
	for i := 0; i < 20; i++ {
		if _, err := nifti.ReadFile(write("b.nii.gz", float64(100+i))); err != nil {
			t.Fatal(err)
		}
	}
	for i, b := range first.Bytes {
		if b != 7 {
			t.Fatalf("byte %d became %d after later reads", i, b)
		}
	}
}
