package nifti

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/klauspost/compress/gzip"

	"github.com/rexmle/rexmle/metrics/volume"
)

// TestNIfTIMaskMatchesReadNIfTI: ReadMask's mask is Read's
// samples != 0, with the same grid, for every stored type, both byte
// orders' worth of values, scaled and unscaled headers, plain and gzip,
// file-backed and streamed (size unknown); NaN and ±Inf count as
// non-zero and the first is reported; truncated data gives Read's
// error.
func TestNIfTIMaskMatchesReadNIfTI(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 15))
	types := []volume.DType{volume.Uint8, volume.Int8, volume.Uint16, volume.Int16, volume.Uint32, volume.Int32, volume.Int64, volume.Float32, volume.Float64}
	for trial := 0; trial < 400; trial++ {
		dt := types[r.IntN(len(types))]
		g := volume.NewGrid(1+r.IntN(9), 1+r.IntN(7), 1+r.IntN(5))
		g.Spacing = [3]float64{0.5 + r.Float64(), 1, 2}
		v := volume.New(g, dt)
		for i := range v.Data {
			if r.IntN(3) == 0 {
				v.Data[i] = float64(r.IntN(120) - 10*boolInt(dt != volume.Uint8 && dt != volume.Uint16 && dt != volume.Uint32))
				if dt.IsInteger() {
					// Values whose low byte is zero: non-zero only in a
					// higher byte.
					if dt != volume.Uint8 && dt != volume.Int8 && r.IntN(2) == 0 {
						v.Data[i] = float64([]int{256, 512, -256, 1 << 12}[r.IntN(4)])
						if dt == volume.Uint16 && v.Data[i] < 0 || dt == volume.Uint32 && v.Data[i] < 0 {
							v.Data[i] = 768
						}
					}
					continue
				}
				v.Data[i] += r.Float64()
			}
		}
		var raw bytes.Buffer
		if err := Write(&raw, v, dt, false); err != nil {
			t.Fatal(err)
		}
		data := raw.Bytes()
		scaled := r.IntN(4) == 0
		if scaled { // scl_slope, scl_inter (NIfTI-1, little-endian)
			binary.LittleEndian.PutUint32(data[112:], math.Float32bits([]float32{2, 0.5, -1}[r.IntN(3)]))
			binary.LittleEndian.PutUint32(data[116:], math.Float32bits([]float32{0, 1, -3}[r.IntN(3)]))
		}
		nonFinite := -1
		if !dt.IsInteger() && r.IntN(4) == 0 {
			nonFinite = r.IntN(g.Len())
			vo := int(math.Float32frombits(binary.LittleEndian.Uint32(data[108:])))
			bad := []float64{math.NaN(), math.Inf(1), math.Inf(-1)}[r.IntN(3)]
			if dt == volume.Float32 {
				binary.LittleEndian.PutUint32(data[vo+4*nonFinite:], math.Float32bits(float32(bad)))
			} else {
				binary.LittleEndian.PutUint64(data[vo+8*nonFinite:], math.Float64bits(bad))
			}
		}
		truncate := r.IntN(8) == 0
		if truncate {
			data = data[:len(data)-1-r.IntN(3)]
		}
		gz := r.IntN(2) == 0
		file := data
		if gz {
			var z bytes.Buffer
			zw := gzip.NewWriter(&z)
			zw.Write(data)
			zw.Close()
			file = z.Bytes()
		}
		sized := r.IntN(2) == 0
		newReader := func() interface{ Read([]byte) (int, error) } {
			if sized {
				return bytes.NewReader(file) // size known
			}
			return struct{ *bytes.Buffer }{bytes.NewBuffer(file)} // size unknown
		}
		want, werr := Read(newReader(), gz)
		got, err := ReadMask(newReader(), gz)
		switch {
		case werr != nil:
			if err == nil || err.Error() != werr.Error() {
				t.Fatalf("trial %d (%s, gz %v, truncated %v): mask error %v, ReadNIfTI %v", trial, dt, gz, truncate, err, werr)
			}
			continue
		case err != nil:
			t.Fatalf("trial %d (%s, scaled %v, gz %v): %v", trial, dt, scaled, gz, err)
		}
		if got.FirstNonFinite != nonFinite {
			t.Fatalf("trial %d (%s): first non-finite sample %d, want %d", trial, dt, got.FirstNonFinite, nonFinite)
		}
		mask := got.NonZero
		if got.Data != nil || got.Grid != want.Grid {
			t.Fatalf("trial %d: grid %+v (data %v), want %+v", trial, got.Grid, got.Data != nil, want.Grid)
		}
		for i, x := range want.Data {
			if mask[i] != (x != 0) {
				t.Fatalf("trial %d (%s, scaled %v): voxel %d: mask %v, sample %v", trial, dt, scaled, i, mask[i], x)
			}
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestNIfTIMaskReleaseReuse: a released mask's memory comes back cleared:
// a mask of zeros read after a released mask of ones is all false.
func TestNIfTIMaskReleaseReuse(t *testing.T) {
	g := volume.NewGrid(9, 8, 7)
	ones, zeros := volume.New(g, volume.Uint8), volume.New(g, volume.Uint8)
	for i := range ones.Data {
		ones.Data[i] = 1
	}
	read := func(v *volume.Volume) *Mask {
		var b bytes.Buffer
		if err := Write(&b, v, volume.Uint8, true); err != nil {
			t.Fatal(err)
		}
		m, err := ReadMask(bytes.NewReader(b.Bytes()), true)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	for round := 0; round < 3; round++ {
		a := read(ones)
		if a.Header == nil || a.Header.Dim[0] != 3 {
			t.Fatalf("header %+v", a.Header)
		}
		a.Release()
		if a.NonZero != nil {
			t.Fatal("Release kept NonZero")
		}
		b := read(zeros)
		for i, x := range b.NonZero {
			if x {
				t.Fatalf("round %d: voxel %d of a zero image is true after a reuse", round, i)
			}
		}
		b.Release()
	}
}
