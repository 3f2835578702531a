package panthercommon

import "testing"

// At the real size a case has the real grid and the tumour keeps its size
// in millimetres (an ellipsoid of 6–12 mm radii: 0.9–7.3 ml, less where
// the body clips it).
func TestRealSizeCase(t *testing.T) {
	for _, task := range []Task{Task2} {
		cfg := task.Synth
		img, lab := task.synthCase(4, 1, true)
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
