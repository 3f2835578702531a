package imageio

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rexmle/rexmle/metrics/volume"
)

// TestReadNRRDFileBytes: the byte path returns what ReadNRRDFile returns —
// 8-bit single-channel samples as bytes, every other type as float64
// samples — raw or gzip, whole or truncated, with the same geometry and the
// same errors.
func TestReadNRRDFileBytes(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(33, 34))
	for it := 0; it < 60; it++ {
		g := volume.NewGrid(1+rng.IntN(40), 1+rng.IntN(20), 1+rng.IntN(9))
		g.Spacing = [3]float64{0.5 + rng.Float64(), 1, 2.5}
		dt := []volume.DType{volume.Uint8, volume.Uint8, volume.Int16, volume.Float32}[it%4]
		v := volume.New(g, dt)
		for i := range v.Data {
			if rng.IntN(5) == 0 {
				v.Data[i] = float64(rng.IntN(3))
			}
		}
		path := filepath.Join(dir, "m.seg.nrrd")
		if err := WriteNRRDFile(path, v, dt, it%2 == 1); err != nil {
			t.Fatal(err)
		}
		file, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		variants := map[string][]byte{"whole": file, "truncated": file[:len(file)-1-rng.IntN(min(20, len(file)/4))]}
		for name, data := range variants {
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			want, werr := ReadNRRDFile(path)
			got, gerr := ReadNRRDFileBytes(path)
			if (werr == nil) != (gerr == nil) || (werr != nil && werr.Error() != gerr.Error()) {
				t.Fatalf("%d %s %s: errors %v / %v", it, dt, name, werr, gerr)
			}
			if werr != nil {
				continue
			}
			if got.Grid != want.Grid || got.Origin != want.Origin || got.Direction != want.Direction || got.DType != want.DType {
				t.Fatalf("%d %s %s: geometry %+v, want %+v", it, dt, name, got.Volume, want)
			}
			if dt != volume.Uint8 {
				if got.Bytes != nil || !slices.Equal(got.Data, want.Data) {
					t.Fatalf("%d %s %s: samples differ", it, dt, name)
				}
				continue
			}
			if got.Data != nil || len(got.Bytes) != len(want.Data) {
				t.Fatalf("%d %s: %d bytes, want %d samples", it, name, len(got.Bytes), len(want.Data))
			}
			for i, b := range got.Bytes {
				if float64(b) != want.Data[i] {
					t.Fatalf("%d %s: sample %d = %d, want %v", it, name, i, b, want.Data[i])
				}
			}
		}
	}
}
