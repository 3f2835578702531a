package isles22

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/rexmle/rexmle/internal/challenge"
	"github.com/rexmle/rexmle/internal/challenge/challengetest"
	"github.com/rexmle/rexmle/internal/challenges/medseg"
	"github.com/rexmle/rexmle/metrics/imageio"
	"github.com/rexmle/rexmle/metrics/volume"
)

// BenchmarkGradeRealistic grades one case on the real ISLES'22 DWI grid
// (112×112×73, 2 mm) with several lesions; a 50-case submission costs about
// 50/GOMAXPROCS times this.
func BenchmarkGradeRealistic(b *testing.B) {
	g := volume.NewGrid(112, 112, 73)
	g.Spacing = [3]float64{2, 2, 2}
	gt := volume.New(g, volume.Uint8)
	pred := volume.New(g, volume.Uint8)
	rng := medseg.NewRand(1, 1)
	for l := 0; l < 8; l++ {
		var c, r [3]float64
		for a := 0; a < 3; a++ {
			c[a] = 20 + rng.Float64()*float64(g.Shape[a]-40)
			r[a] = 1 + rng.Float64()*8
		}
		medseg.Ellipsoid(g, c, r, func(i int) { gt.Data[i] = 1 })
		c[0] += 1.5
		medseg.Ellipsoid(g, c, r, func(i int) { pred.Data[i] = 1 })
	}
	priv, sub := challengetest.BenchDirs(b)
	for _, w := range []struct {
		path string
		v    *volume.Volume
	}{{filepath.Join(priv, "test", "c_msk.nii.gz"), gt}, {filepath.Join(sub, "predictions", "c_pred.nii.gz"), pred}} {
		if err := os.MkdirAll(filepath.Dir(w.path), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := imageio.WriteNIfTIFile(w.path, w.v, volume.Uint8); err != nil {
			b.Fatal(err)
		}
	}
	if err := challenge.WriteCSV(filepath.Join(priv, "test_labels.csv"), []string{"case_id", "mask_path"}, [][]string{{"c", "test/c_msk.nii.gz"}}); err != nil {
		b.Fatal(err)
	}
	if err := challenge.WriteCSV(filepath.Join(sub, "submission.csv"), []string{"case_id", "predicted_mask_path"}, [][]string{{"c", "predictions/c_pred.nii.gz"}}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := (Challenge{}).Grade(context.Background(), sub, priv, challenge.Reference); err != nil {
			b.Fatal(err)
		}
	}
}
