package imageio

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/rexmle/rexmle/metrics/volume"
)

// TestReadNIfTIFileBytes: the byte path returns what ReadNIfTIFile returns —
// unscaled 8-bit unsigned samples as bytes, every other type as float64
// samples — plain or gzip, whole or truncated, with the same geometry and
// the same errors.
func TestReadNIfTIFileBytes(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(35, 36))
	for it := 0; it < 60; it++ {
		g := volume.NewGrid(1+rng.IntN(30), 1+rng.IntN(20), 1+rng.IntN(9))
		g.Spacing = [3]float64{0.5 + rng.Float64(), 1, 2.5}
		dt := []volume.DType{volume.Uint8, volume.Uint8, volume.Int16, volume.Float32}[it%4]
		v := volume.New(g, dt)
		for i := range v.Data {
			if rng.IntN(5) == 0 {
				v.Data[i] = float64(rng.IntN(40))
			}
		}
		name := "m.nii"
		if it%2 == 1 {
			name += ".gz"
		}
		path := filepath.Join(dir, name)
		if err := WriteNIfTIFile(path, v, dt); err != nil {
			t.Fatal(err)
		}
		file, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		variants := map[string][]byte{"whole": file, "truncated": file[:len(file)-1-rng.IntN(min(20, len(file)/4))]}
		for vname, data := range variants {
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			want, werr := ReadNIfTIFile(path)
			got, gerr := ReadNIfTIFileBytes(path)
			if (werr == nil) != (gerr == nil) || (werr != nil && werr.Error() != gerr.Error()) {
				t.Fatalf("%d %s %s %s: errors %v / %v", it, dt, name, vname, werr, gerr)
			}
			if werr != nil {
				continue
			}
			if got.Grid != want.Grid || got.Origin != want.Origin || got.Direction != want.Direction || got.DType != want.DType {
				t.Fatalf("%d %s %s: geometry %+v, want %+v", it, dt, vname, got.Volume, want)
			}
			if dt != volume.Uint8 {
				if got.Bytes != nil || !slices.Equal(got.Data, want.Data) {
					t.Fatalf("%d %s %s: samples differ", it, dt, vname)
				}
				continue
			}
			if got.Data != nil || len(got.Bytes) != len(want.Data) {
				t.Fatalf("%d %s: %d bytes, want %d samples", it, vname, len(got.Bytes), len(want.Data))
			}
			for i, b := range got.Bytes {
				if float64(b) != want.Data[i] {
					t.Fatalf("%d %s: sample %d = %d, want %v", it, vname, i, b, want.Data[i])
				}
			}
		}
	}
}
