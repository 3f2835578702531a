package imagetest

import (
	"bytes"
	"math"
	"testing"

	"github.com/klauspost/compress/gzip"

	"github.com/rexmle/rexmle/metrics/volume"
)

func GzipBytes(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func near(a, b float64) bool { return a == b || math.Abs(a-b) <= 1e-6*math.Max(1, math.Abs(b)) }

func CheckVec(t *testing.T, name string, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: len %d, want %d", name, len(got), len(want))
	}
	for i := range want {
		if !near(got[i], want[i]) && !(math.IsNaN(got[i]) && math.IsNaN(want[i])) {
			t.Fatalf("%s[%d] = %v, want %v (all: %v)", name, i, got[i], want[i], got)
		}
	}
}

func CheckDir(t *testing.T, got, want [3][3]float64) {
	t.Helper()
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			if !near(got[i][j], want[i][j]) && math.Abs(got[i][j]-want[i][j]) > 1e-6 {
				t.Fatalf("direction = %v, want %v", got, want)
			}
		}
	}
}

// SampleValues returns values exercising the range of dt.
func SampleValues(dt volume.DType) []float64 {
	switch dt {
	case volume.Uint8:
		return []float64{0, 1, 127, 128, 255, 42}
	case volume.Int8:
		return []float64{-128, -1, 0, 1, 127, 42}
	case volume.Uint16:
		return []float64{0, 1, 255, 256, 65535, 1234}
	case volume.Int16:
		return []float64{-32768, -1, 0, 1, 32767, -1234}
	case volume.Uint32:
		return []float64{0, 1, 65536, 1 << 31, 4294967295, 99}
	case volume.Int32:
		return []float64{-2147483648, -1, 0, 1, 2147483647, -99}
	case volume.Uint64:
		return []float64{0, 1, 1 << 40, 1 << 53, 1 << 63, 99}
	case volume.Int64:
		return []float64{-(1 << 62), -1, 0, 1, 1 << 53, -99}
	case volume.Float32:
		return []float64{-1.5, 0, 0.25, 3.4e38, math.Inf(-1), math.NaN()}
	default:
		return []float64{-1e300, 0, 1.0 / 3, 5e-324, math.Inf(1), math.NaN()}
	}
}

var AllDTypes = []volume.DType{volume.Uint8, volume.Int8, volume.Uint16, volume.Int16, volume.Uint32,
	volume.Int32, volume.Uint64, volume.Int64, volume.Float32, volume.Float64}

func TestVolume(dt volume.DType) *volume.Volume {
	v := volume.New(volume.Grid{Shape: [3]int{3, 2, 1}, Spacing: [3]float64{0.5, 1.25, 3}}, dt)
	copy(v.Data, SampleValues(dt))
	v.Origin = [3]float64{-10, 20.5, 3}
	v.Direction = [3][3]float64{{0, 1, 0}, {-1, 0, 0}, {0, 0, 1}}
	return v
}
