package sega

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/rexmle/rexmle/metrics/imageio/nrrd"
	"github.com/rexmle/rexmle/metrics/volume"
	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenge/challengetest"
	"github.com/rexmle/rexmle/pipeline/challenges/medseg"
)

// BenchmarkGradeRealistic grades one case on a CTA-sized grid (512×512×200)
// with an aorta-plus-iliacs tree and a slightly thicker prediction; a
// 12-case submission costs about 12/GOMAXPROCS times this.
func BenchmarkGradeRealistic(b *testing.B) {
	g := volume.NewGrid(512, 512, 200)
	g.Spacing = [3]float64{0.8, 0.8, 1.5}
	gt := volume.New(g, volume.Uint8)
	pred := volume.New(g, volume.Uint8)
	tree := [][][3]float64{{{256, 280, 199}, {256, 284, 60}}, {{256, 284, 60}, {180, 290, 0}}, {{256, 284, 60}, {332, 290, 0}}, {{256, 280, 140}, {150, 286, 142}}}
	for _, seg := range tree {
		medseg.Tube(g, seg, 10, g.Spacing, func(i int) { gt.Data[i] = 1 })
		medseg.Tube(g, seg, 11, g.Spacing, func(i int) { pred.Data[i] = 1 })
	}
	priv, sub := challengetest.BenchDirs(b)
	for _, w := range []struct {
		path string
		v    *volume.Volume
	}{{filepath.Join(priv, "l", "c.seg.nrrd"), gt}, {filepath.Join(sub, "predictions", "c.seg.nrrd"), pred}} {
		if err := os.MkdirAll(filepath.Dir(w.path), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := nrrd.WriteFile(w.path, w.v, volume.Uint8, true); err != nil {
			b.Fatal(err)
		}
	}
	if err := challenge.WriteCSV(filepath.Join(priv, "test_labels.csv"), []string{"image_id", "image_path", "label_path"}, [][]string{{"c", "", "l/c.seg.nrrd"}}); err != nil {
		b.Fatal(err)
	}
	if err := challenge.WriteCSV(filepath.Join(sub, "submission.csv"), []string{"image_id", "predicted_mask_path"}, [][]string{{"c", "predictions/c.seg.nrrd"}}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := (Challenge{}).Grade(context.Background(), sub, priv, challenge.Reference); err != nil {
			b.Fatal(err)
		}
	}
}
