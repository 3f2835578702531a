package topcowcommon

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/rexmle/rexmle/metrics/imageio/nifti"
	"github.com/rexmle/rexmle/metrics/volume"
	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenge/challengetest"
)

// realisticPair rasterises two different synthetic anatomies (GT and a
// "prediction" from another variant draw, so every metric has work to do)
// on a 512×512×300 grid with CTA-like 0.45×0.45×0.5 mm spacing.
func realisticPair(b *testing.B, brain bool) (*labelMap, *labelMap) {
	b.Helper()
	shape, spacing := [3]int{512, 512, 300}, [3]float64{0.45, 0.45, 0.5}
	ls := topCoWLabels()
	if brain {
		ls = topBrainLabels("ct")
	}
	mk := func(seed uint64) *labelMap {
		v := drawVariant(rand.New(rand.NewPCG(seed, 1)))
		v.scale *= 2.2       // spread the tree over a realistic field of view
		v.radiusScale *= 1.8 // and give the vessels realistic calibres (3–8 voxels across)
		r := rasterise(buildAnatomy(v, ls, "ct"), shape, spacing)
		return &labelMap{shape: shape, spacing: spacing, labels: r.labels}
	}
	return mk(1), mk(2)
}

// BenchmarkGradeCaseRealistic grades one 512×512×300 multiclass case with
// every metric (label scan, Dice, clDice, B0, HD95, detection, topology),
// excluding file decoding.
func BenchmarkGradeCaseRealistic(b *testing.B) {
	ctx := context.Background()
	for _, bc := range []struct {
		name  string
		brain bool
		mode  challenge.Mode
	}{
		{"topcow-reference", false, challenge.Reference},
		{"topcow-official", false, challenge.Official},
		{"topbrain-reference", true, challenge.Reference},
	} {
		b.Run(bc.name, func(b *testing.B) {
			gt, pred := realisticPair(b, bc.brain)
			n := 0
			for _, l := range gt.labels {
				if l != 0 {
					n++
				}
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				var err error
				if bc.brain {
					_, err = gradeBrainCase(ctx, gt, pred, bc.mode, "ct")
				} else {
					_, err = gradeCoWCase(ctx, gt, pred, bc.mode)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n), "gt-voxels")
		})
	}
}

// BenchmarkGradeRealisticWithIO grades a one-case submission end to end
// (CSV, gzipped NIfTI decoding of GT and prediction, all metrics).
func BenchmarkGradeRealisticWithIO(b *testing.B) { benchGradeWithIO(b, TopCoWT1T1) }

// BenchmarkGradeBrainRealisticWithIO is BenchmarkGradeRealisticWithIO for
// TopBrain track 1 (its 40-odd CTA vessel classes on the same grid).
func BenchmarkGradeBrainRealisticWithIO(b *testing.B) { benchGradeWithIO(b, TopBrain1) }

func benchGradeWithIO(b *testing.B, cfg Config) {
	brain := cfg.Family == TopBrain
	gt, pred := realisticPair(b, brain)
	root := challengetest.BenchDir(b, "data")
	priv, sub := filepath.Join(root, "private"), filepath.Join(root, "sub")
	write := func(path string, lm *labelMap) {
		v := volume.New(volume.Grid{Shape: lm.shape, Spacing: lm.spacing}, volume.Uint8)
		for i, l := range lm.labels {
			v.Data[i] = float64(l)
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := nifti.WriteFile(path, v, volume.Uint8); err != nil {
			b.Fatal(err)
		}
	}
	stem := cfg.stem("001")
	write(filepath.Join(priv, "test/labels/"+stem+".nii.gz"), gt)
	write(filepath.Join(sub, "predictions/"+stem+"_0000.nii.gz"), pred)
	if err := challenge.WriteCSV(filepath.Join(priv, "test_labels.csv"), []string{"image_id", "image_path", "label_path", "modality"},
		[][]string{{"001", "test/images/" + stem + "_0000.nii.gz", "test/labels/" + stem + ".nii.gz", "CTA"}}); err != nil {
		b.Fatal(err)
	}
	if err := challenge.WriteCSV(filepath.Join(sub, "submission.csv"), []string{"image_id", "modality", "predicted_mask_path"},
		[][]string{{"001", "CTA", "predictions/" + stem + "_0000.nii.gz"}}); err != nil {
		b.Fatal(err)
	}
	c := New(cfg)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := c.Grade(context.Background(), sub, priv, challenge.Reference); err != nil {
			b.Fatal(err)
		}
	}
}
