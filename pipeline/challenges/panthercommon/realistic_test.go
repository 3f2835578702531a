package panthercommon

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/rexmle/rexmle/metrics/imageio/metaimage"
	"github.com/rexmle/rexmle/metrics/volume"
	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenge/challengetest"
	"github.com/rexmle/rexmle/pipeline/challenges/medseg"
)

// BenchmarkGradeRealistic grades one case on a diagnostic-MRI-sized grid
// (400×400×80, 0.8×0.8×2.5 mm) with a 3 cm tumour and a shifted
// prediction; a 19-case submission costs about 19/GOMAXPROCS times this.
func BenchmarkGradeRealistic(b *testing.B) {
	g := volume.NewGrid(400, 400, 80)
	g.Spacing = [3]float64{0.8, 0.8, 2.5}
	gt := volume.New(g, volume.Uint8)
	pred := volume.New(g, volume.Uint8)
	c := [3]float64{200, 190, 40}
	r := [3]float64{15 / 0.8, 12 / 0.8, 14 / 2.5}
	medseg.Ellipsoid(g, c, r, func(i int) { gt.Data[i] = 1 })
	c[0] += 4
	r[1] *= 1.2
	medseg.Ellipsoid(g, c, r, func(i int) { pred.Data[i] = 1 })
	priv, sub := challengetest.BenchDirs(b)
	for _, w := range []struct {
		path string
		v    *volume.Volume
	}{{filepath.Join(priv, "l", "c.mha"), gt}, {filepath.Join(sub, "predictions", "c.mha"), pred}} {
		if err := os.MkdirAll(filepath.Dir(w.path), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := metaimage.WriteFile(w.path, w.v, volume.Uint8, true); err != nil {
			b.Fatal(err)
		}
	}
	if err := challenge.WriteCSV(filepath.Join(priv, "test_labels.csv"), []string{"image_id", "image_path", "label_path"}, [][]string{{"c", "", "l/c.mha"}}); err != nil {
		b.Fatal(err)
	}
	if err := challenge.WriteCSV(filepath.Join(sub, "submission.csv"), []string{"image_id", "predicted_mask_path"}, [][]string{{"c", "predictions/c.mha"}}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := testChallenge.Grade(context.Background(), sub, priv, challenge.Reference); err != nil {
			b.Fatal(err)
		}
	}
}
