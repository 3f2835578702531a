package nifti

import (
	"bytes"
	"encoding/binary"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"unsafe"

	"github.com/klauspost/compress/gzip"

	"github.com/rexmle/rexmle/metrics/imageio/internal/codec"
	"github.com/rexmle/rexmle/metrics/volume"
)

// randomNIfTIFile is a NIfTI-1 file of a random small image of type dt,
// sparse (most samples zero, as a mask's), scaled (scl_slope 2) when
// scaled, gzipped when gz, and cut short by a byte or more when truncated.
func randomNIfTIFile(t *testing.T, r *rand.Rand, dt volume.DType, scaled, gz, truncated bool) []byte {
	t.Helper()
	g := volume.NewGrid(1+r.IntN(40), 1+r.IntN(9), 1+r.IntN(6))
	v := volume.New(g, dt)
	for i := range v.Data {
		if r.IntN(4) == 0 {
			v.Data[i] = float64(1 + r.IntN(100))
			if dt != volume.Uint8 && dt != volume.Int8 && dt.IsInteger() && r.IntN(2) == 0 {
				v.Data[i] = 256 // non-zero in its high byte only
			}
		}
	}
	var raw bytes.Buffer
	if err := Write(&raw, v, dt, false); err != nil {
		t.Fatal(err)
	}
	data := raw.Bytes()
	if scaled {
		binary.LittleEndian.PutUint32(data[112:], math.Float32bits(2))
	}
	if truncated {
		data = data[:len(data)-1-r.IntN(5)]
	}
	if !gz {
		return data
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(data)
	zw.Close()
	return z.Bytes()
}

// garbage is a buffer of capacity n full of non-zero bytes, as a recycled
// buffer that held another image would be.
func garbage(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(1 + r.IntN(255))
	}
	return b[:r.IntN(n+1)] // the length does not matter, only the capacity
}

// within reports whether p lies in buf's memory.
func within(p, buf []byte) bool {
	if cap(p) == 0 || cap(buf) == 0 {
		return false
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(buf[:1])))
	at := uintptr(unsafe.Pointer(unsafe.SliceData(p[:1])))
	return at >= start && at < start+uintptr(cap(buf))
}

// TestNIfTIMaskBytesMatchesMask: ReadMaskBytes gives ReadMask's
// mask — as Bytes (non-zero exactly where NonZero is true, NonZero nil)
// for unscaled uint8 and int8 samples, as NonZero for any other — with the
// same grid, header and errors, for plain and gzip files, file-backed
// (a .nii.gz decoded whole) and streamed, whole and truncated; offered a
// recycled Options.Buffer full of garbage, of a capacity that holds the
// whole decoded file, only the samples or less, and reading after masks
// released into the pool (dirty memory), it gives the same.
func TestNIfTIMaskBytesMatchesMask(t *testing.T) {
	r := rand.New(rand.NewPCG(34, 2))
	types := []volume.DType{volume.Uint8, volume.Int8, volume.Int16, volume.Uint16, volume.Float32}
	var kept []*Mask // released a few trials later, to dirty the pool
	for trial := 0; trial < 600; trial++ {
		dt := types[r.IntN(len(types))]
		scaled, gz, truncated := r.IntN(5) == 0, r.IntN(3) != 0, r.IntN(8) == 0
		file := randomNIfTIFile(t, r, dt, scaled, gz, truncated)
		sized := r.IntN(4) != 0
		newReader := func() io.Reader {
			if sized {
				return bytes.NewReader(file)
			}
			return struct{ io.Reader }{bytes.NewReader(file)} // size unknown: streamed
		}
		var buf []byte
		switch r.IntN(4) {
		case 0: // holds the whole decoded file
			buf = garbage(r, nifti1MinOffset+len(file)*4+4096)
		case 1: // holds about the samples, maybe not the header besides
			buf = garbage(r, max(len(file)-nifti1MinOffset+r.IntN(8)-4, 1))
		case 2:
			buf = garbage(r, 16)
		}
		want, werr := ReadMask(newReader(), gz)
		got, err := ReadMaskBytes(newReader(), gz, Options{Buffer: buf})
		what := func() string {
			return string(dt) + map[bool]string{true: " scaled", false: ""}[scaled] + map[bool]string{true: " gz", false: ""}[gz] +
				map[bool]string{true: " truncated", false: ""}[truncated] + map[bool]string{true: " sized", false: " streamed"}[sized]
		}
		if werr != nil {
			if err == nil || err.Error() != werr.Error() {
				t.Fatalf("trial %d (%s): error %v, ReadNIfTIMask's %v", trial, what(), err, werr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("trial %d (%s): %v", trial, what(), err)
		}
		if got.Grid != want.Grid || got.DType != want.DType || !reflect.DeepEqual(got.Header, want.Header) || got.FirstNonFinite != want.FirstNonFinite {
			t.Fatalf("trial %d (%s): grid %+v %v header %+v first non-finite %d, want %+v %v %+v %d",
				trial, what(), got.Grid, got.DType, got.Header, got.FirstNonFinite, want.Grid, want.DType, want.Header, want.FirstNonFinite)
		}
		oneByte := (dt == volume.Uint8 || dt == volume.Int8) && !scaled
		switch {
		case oneByte && (got.Bytes == nil || got.NonZero != nil || len(got.Bytes) != len(want.NonZero)):
			t.Fatalf("trial %d (%s): %d bytes, NonZero %v, want %d bytes and no NonZero", trial, what(), len(got.Bytes), got.NonZero != nil, len(want.NonZero))
		case !oneByte && (got.Bytes != nil || !reflect.DeepEqual(got.NonZero, want.NonZero)):
			t.Fatalf("trial %d (%s): bytes %v, NonZero differs from ReadNIfTIMask's", trial, what(), got.Bytes != nil)
		}
		for i, b := range got.Bytes {
			if (b != 0) != want.NonZero[i] {
				t.Fatalf("trial %d (%s): voxel %d: byte %d, mask %v", trial, what(), i, b, want.NonZero[i])
			}
		}
		// The offered buffer is used where it holds the samples (for a
		// file decoded whole: all of it).
		if oneByte && !gz && cap(buf) >= len(got.Bytes) && !within(got.Bytes, buf) {
			t.Fatalf("trial %d (%s): a buffer of capacity %d was not used for %d samples", trial, what(), cap(buf), len(got.Bytes))
		}
		if oneByte && gz && sized && cap(buf) >= nifti1MinOffset+len(got.Bytes) && !within(got.Bytes, buf) {
			t.Fatalf("trial %d (%s): a buffer of capacity %d was not decoded into", trial, what(), cap(buf))
		}
		want.Release()
		kept = append(kept, got)
		if len(kept) > 3 || r.IntN(2) == 0 {
			kept[0].Release()
			if kept[0].Bytes != nil || kept[0].NonZero != nil {
				t.Fatal("Release kept the samples")
			}
			kept = kept[1:]
		}
	}
}

// TestNIfTIWholeMatchesStreamed: a .nii.gz decoded whole (file-backed)
// gives the samples and the mask the streamed reading (size unknown)
// gives: built from the decoded buffer where it lies, not copied through
// a small buffer.
func TestNIfTIWholeMatchesStreamed(t *testing.T) {
	r := rand.New(rand.NewPCG(34, 3))
	types := []volume.DType{volume.Uint8, volume.Int16, volume.Uint16, volume.Int32, volume.Float32, volume.Float64}
	for trial := 0; trial < 200; trial++ {
		dt := types[r.IntN(len(types))]
		file := randomNIfTIFile(t, r, dt, r.IntN(4) == 0, true, r.IntN(8) == 0)
		streamed := func() io.Reader { return struct{ io.Reader }{bytes.NewReader(file)} }
		if _, _, ok := codec.GunzipFile(bytes.NewReader(file), codec.MaxWholeGzipOut, nil); !ok {
			t.Fatalf("trial %d: not decoded whole", trial)
		}
		wv, werr := Read(streamed(), true)
		gv, err := Read(bytes.NewReader(file), true)
		if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
			t.Fatalf("trial %d (%s): samples: error %v, streamed %v", trial, dt, err, werr)
		}
		if err == nil && !reflect.DeepEqual(gv, wv) {
			t.Fatalf("trial %d (%s): samples of the file decoded whole differ from the streamed ones", trial, dt)
		}
		wm, werr := ReadMask(streamed(), true)
		gm, err := ReadMask(bytes.NewReader(file), true)
		if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
			t.Fatalf("trial %d (%s): mask: error %v, streamed %v", trial, dt, err, werr)
		}
		if err == nil && !reflect.DeepEqual(gm, wm) {
			t.Fatalf("trial %d (%s): mask of the file decoded whole differs from the streamed one", trial, dt)
		}
	}
}

// TestReadNIfTIBytesIntoBuffer: ReadFileBytes of a .nii.gz decodes
// into an Options.Buffer that holds the whole decoded file, pre-filled
// with garbage, and gives ReadFile's samples; one too small is left
// as it was. Read and ReadMask (not 8-bit readers) never write
// into it.
func TestReadNIfTIBytesIntoBuffer(t *testing.T) {
	r := rand.New(rand.NewPCG(34, 4))
	dir := t.TempDir()
	v := volume.New(volume.NewGrid(33, 7, 5), volume.Uint8)
	for i := range v.Data {
		if r.IntN(5) == 0 {
			v.Data[i] = float64(r.IntN(256))
		}
	}
	p := filepath.Join(dir, "m.nii.gz")
	if err := WriteFile(p, v, volume.Uint8); err != nil {
		t.Fatal(err)
	}
	want, err := ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	whole := nifti1MinOffset + v.Len()
	for _, c := range []struct {
		capacity int
		into     bool
	}{{whole, true}, {whole + 100, true}, {whole - 1, false}, {v.Len(), false}} {
		buf := garbage(r, c.capacity)
		before := append([]byte(nil), buf[:cap(buf)]...)
		got, err := ReadFileBytes(p, Options{Buffer: buf})
		if err != nil {
			t.Fatal(err)
		}
		if within(got.Bytes, buf) != c.into {
			t.Errorf("capacity %d (file decodes to %d bytes): decoded into the buffer %v, want %v", c.capacity, whole, !c.into, c.into)
		}
		if !c.into && !bytes.Equal(buf[:cap(buf)], before) {
			t.Errorf("capacity %d: a buffer too small was written", c.capacity)
		}
		for i, b := range got.Bytes {
			if float64(b) != want.Data[i] {
				t.Fatalf("capacity %d: sample %d = %d, want %v", c.capacity, i, b, want.Data[i])
			}
		}
	}
	buf := garbage(r, 2*whole)
	before := append([]byte(nil), buf[:cap(buf)]...)
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := Read(f, true, Options{Buffer: buf}); err != nil {
		t.Fatal(err)
	}
	f.Seek(0, 0)
	if _, err := ReadMask(f, true, Options{Buffer: buf}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf[:cap(buf)], before) {
		t.Error("ReadNIfTI or ReadNIfTIMask wrote into Options.Buffer")
	}
}
