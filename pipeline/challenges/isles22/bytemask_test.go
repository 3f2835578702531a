package isles22

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/rexmle/rexmle/metrics/imageio/nifti"
	"github.com/rexmle/rexmle/metrics/volume"
	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenges/medseg"
)

// TestStoredTypesScoreAsBoolMasks: a case scores as Score scores its masks
// as booleans whatever the files store: any non-zero byte of an 8-bit file
// (uint8 or int8, labelled on its bytes as stored), or wider integer and
// float samples (read as booleans); .nii.gz (decoded whole) and .nii.
// Graded one after another, each case reads into memory the cases before
// it left full of other masks' bytes.
func TestStoredTypesScoreAsBoolMasks(t *testing.T) {
	r := rand.New(rand.NewPCG(34, 22))
	priv, sub := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(priv, "test"), 0o755); err != nil {
		t.Fatal(err)
	}
	types := []volume.DType{volume.Uint8, volume.Int8, volume.Int16, volume.Float32}
	g := volume.NewGrid(23, 11, 7)
	write := func(path string, mask []bool, dt volume.DType) {
		v := volume.New(g, dt)
		for i, on := range mask {
			if on {
				switch dt {
				case volume.Uint8:
					v.Data[i] = float64(1 + r.IntN(255))
				case volume.Int8:
					v.Data[i] = float64([]int{-128, -1, 1, 127}[r.IntN(4)])
				default:
					v.Data[i] = float64([]int{1, 256, -3}[r.IntN(3)])
				}
			}
		}
		if err := nifti.WriteFile(path, v, dt); err != nil {
			t.Fatal(err)
		}
	}
	randomMask := func() []bool {
		m := make([]bool, g.Len())
		d := []float64{0, 0.02, 0.2, 0.9}[r.IntN(4)]
		for i := range m {
			m[i] = r.Float64() < d
		}
		return m
	}
	for trial := 0; trial < 60; trial++ {
		truth, pred := randomMask(), randomMask()
		gtDT, predDT := types[r.IntN(2)], types[r.IntN(len(types))]
		ext := []string{".nii.gz", ".nii"}[r.IntN(2)]
		gtRel := "test/c" + ext
		write(filepath.Join(priv, gtRel), truth, gtDT)
		write(filepath.Join(sub, "p"+ext), pred, predDT)
		want, err := Score(pred, truth, g, VoxelML(zooms(1, 1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		got := gradeRowBothWays(t, priv, sub, gtRel, medseg.Row{Line: 1, ID: "c", Key: "c", Path: "p" + ext}, challenge.Official)
		if got.err != "" || got.note != "" || got.scores != want {
			t.Fatalf("trial %d (GT %s, prediction %s, %s): %+v, want %+v", trial, gtDT, predDT, ext, got, want)
		}
	}
}
