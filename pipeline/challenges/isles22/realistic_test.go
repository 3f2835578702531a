package isles22

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/rexmle/rexmle/metrics/imageio/nifti"
	"github.com/rexmle/rexmle/metrics/volume"
	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenge/challengetest"
	"github.com/rexmle/rexmle/pipeline/challenges/medseg"
)

// writeCase writes case id's truth and prediction on the real ISLES'22 DWI
// grid (112×112×73, 2 mm): lesions ellipsoids of 1–9 voxels per axis, the
// prediction shifted by 1.5 voxels; when imperfect, the prediction also
// misses the first lesion (of more than two) and adds a false one (with
// more than three).
func writeCase(b *testing.B, priv, sub, id string, lesions int, imperfect bool, rng interface{ Float64() float64 }) {
	g := volume.NewGrid(112, 112, 73)
	g.Spacing = [3]float64{2, 2, 2}
	gt := volume.New(g, volume.Uint8)
	pred := volume.New(g, volume.Uint8)
	for l := 0; l < lesions; l++ {
		var c, r [3]float64
		for a := 0; a < 3; a++ {
			c[a] = 20 + rng.Float64()*float64(g.Shape[a]-40)
			r[a] = 1 + rng.Float64()*8
		}
		medseg.Ellipsoid(g, c, r, func(i int) { gt.Data[i] = 1 })
		if imperfect && l == 0 && lesions > 2 {
			continue // missed
		}
		c[0] += 1.5
		medseg.Ellipsoid(g, c, r, func(i int) { pred.Data[i] = 1 })
	}
	if imperfect && lesions > 3 {
		medseg.Ellipsoid(g, [3]float64{30, 80, 40}, [3]float64{2, 2, 2}, func(i int) { pred.Data[i] = 1 })
	}
	for _, w := range []struct {
		path string
		v    *volume.Volume
	}{{filepath.Join(priv, "test", id+"_msk.nii.gz"), gt}, {filepath.Join(sub, "predictions", id+"_pred.nii.gz"), pred}} {
		if err := os.MkdirAll(filepath.Dir(w.path), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := nifti.WriteFile(w.path, w.v, volume.Uint8); err != nil {
			b.Fatal(err)
		}
	}
}

// benchGrade writes n cases (writeCase with lesions(k) lesions) and the
// two CSVs, then times grading them.
func benchGrade(b *testing.B, n int, lesions func(k int) int, imperfect bool, rng interface{ Float64() float64 }) {
	priv, sub := challengetest.BenchDirs(b)
	var ans, rows [][]string
	for k := 0; k < n; k++ {
		id := fmt.Sprintf("sub-strokecase%04d", k+1)
		writeCase(b, priv, sub, id, lesions(k), imperfect, rng)
		ans = append(ans, []string{id, "test/" + id + "_msk.nii.gz"})
		rows = append(rows, []string{id, "predictions/" + id + "_pred.nii.gz"})
	}
	if err := challenge.WriteCSV(filepath.Join(priv, "test_labels.csv"), []string{"case_id", "mask_path"}, ans); err != nil {
		b.Fatal(err)
	}
	if err := challenge.WriteCSV(filepath.Join(sub, "submission.csv"), []string{"case_id", "predicted_mask_path"}, rows); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := (Challenge{}).Grade(context.Background(), sub, priv, challenge.Reference); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGrade50 grades a test split of the real size: 50 cases on the
// real DWI grid with 1–12 lesions each (bench/graders.sh times the
// reference on the same files).
func BenchmarkGrade50(b *testing.B) {
	benchGrade(b, 50, func(k int) int { return 1 + k%12 }, true, medseg.NewRand(5, 50))
}

// BenchmarkGradeRealistic grades one case on the real ISLES'22 DWI grid
// (112×112×73, 2 mm) with eight lesions, each predicted shifted.
func BenchmarkGradeRealistic(b *testing.B) {
	benchGrade(b, 1, func(int) int { return 8 }, false, medseg.NewRand(1, 1))
}
