package panthercommon

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/rexmle/rexmle/metrics/imageio"
	"github.com/rexmle/rexmle/metrics/volume"
)

// At the real size a case has the real grid and the tumour keeps its size
// in millimetres (an ellipsoid of 6–12 mm radii: 0.9–7.3 ml, less where
// the body clips it), read back from the files written. Soft tissue is a
// CT's: 180 HU times the drawn gain (0.85–1.15), with noise of the gain
// times √(150²/27 + 35²) ≈ 44 HU (a 3×3×3 mean of unit normals and a unit
// normal).
func TestRealSizeCase(t *testing.T) {
	d := t.TempDir()
	for _, task := range []Task{Task2} {
		cfg := task.Synth
		c := task.drawCase(4, 1, true)
		if err := c.writeImage(filepath.Join(d, "img.mha")); err != nil {
			t.Fatal(err)
		}
		if err := c.writeLabel(filepath.Join(d, "lab.mha")); err != nil {
			t.Fatal(err)
		}
		img, err := imageio.Read(filepath.Join(d, "img.mha"))
		if err != nil {
			t.Fatal(err)
		}
		lab, err := imageio.Read(filepath.Join(d, "lab.mha"))
		if err != nil {
			t.Fatal(err)
		}
		if lab.Shape != img.Shape || lab.Spacing != img.Spacing || img.DType != volume.Int16 || lab.DType != volume.Uint8 {
			t.Errorf("%s: image %v %v %s, label %v %v %s", task.ID, img.Shape, img.Spacing, img.DType, lab.Shape, lab.Spacing, lab.DType)
		}
		for a := 0; a < 3; a++ {
			span := 6
			if a == 2 {
				span = 3
			}
			if s := img.Shape[a]; s < cfg.RealShape[a] || s >= cfg.RealShape[a]+span {
				t.Errorf("%s: shape %v, want %v plus at most %d", task.ID, img.Shape, cfg.RealShape, span-1)
			}
		}
		if img.Spacing[0] != cfg.RealSpacing[0] || img.Spacing[2] != cfg.RealSpacing[2] {
			t.Errorf("%s: spacing %v, want %v", task.ID, img.Spacing, cfg.RealSpacing)
		}
		n := 0
		for _, v := range lab.Data {
			if v == 1 {
				n++
			}
		}
		ml := float64(n) * img.Spacing[0] * img.Spacing[1] * img.Spacing[2] / 1000
		if ml < 0.3 || ml > 7.5 {
			t.Errorf("%s: tumour %.2f ml, want 0.3–7.5 ml (radii 6–12 mm)", task.ID, ml)
		}
		// Soft tissue: a 20 × 20 patch in front of the organs, middle slices.
		var s, s2, m float64
		x0, y0 := img.Shape[0]/2-10, img.Shape[1]*3/10-10
		for k := img.Shape[2]/2 - 10; k < img.Shape[2]/2+10; k++ {
			for j := y0; j < y0+20; j++ {
				for i := x0; i < x0+20; i++ {
					v := img.Data[img.Index(i, j, k)]
					s += v
					s2 += v * v
					m++
				}
			}
		}
		mean := s / m
		sd := math.Sqrt(s2/m - mean*mean)
		t.Logf("%s: soft tissue %.1f ± %.1f HU (gain %.3f)", task.ID, mean, sd, c.gain)
		if math.Abs(mean-180*c.gain) > 5 || math.Abs(sd-44.3*c.gain) > 4 {
			t.Errorf("%s: soft tissue %.1f ± %.1f HU, want %.1f ± %.1f (gain %.3f)", task.ID, mean, sd, 180*c.gain, 44.3*c.gain, c.gain)
		}
	}
}

// The unlabeled pool follows the labelled count at the real size: the
// real 367 beside the real 92, in proportion for full:N.
func TestRealUnlabeledScales(t *testing.T) {
	for _, c := range []struct {
		n        int
		realSize bool
		want     int
	}{{92, true, 367}, {10, true, 40}, {46, true, 184}, {1, true, 4}, {15, false, 2}, {92, false, 2}} {
		if got := Task1.unlabeledCount(c.n, c.realSize); got != c.want {
			t.Errorf("%d labelled (real size %v): %d unlabeled, want %d", c.n, c.realSize, got, c.want)
		}
	}
}
