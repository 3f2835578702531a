package puma

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenge/challengetest"
)

// BenchmarkGrade grades the synthetic perfect submission (3 test ROIs).
func BenchmarkGrade(b *testing.B) {
	for _, c := range []Challenge{Track1Task1, Track2Task1, Track1Task2, Track2Task2} {
		b.Run(c.ID(), func(b *testing.B) {
			p := challengetest.Prepare(b, c, 1)
			sub := p.Submit(b, "perfect", func(ctx context.Context, o string) error { return c.Perfect(ctx, p.Public(), p.Private(), o) })
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := c.Grade(context.Background(), sub, p.Private(), challenge.Official); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkGrade100 grades 100 full-size ROIs: tissue masks 1024 × 1024
// (truth and prediction TIFFs) and nuclei files with about 100 nuclei each.
func BenchmarkGrade100(b *testing.B) {
	const n = 100
	root := challengetest.BenchDir(b, "data")
	sub, priv := filepath.Join(root, "sub"), filepath.Join(root, "priv")
	r := rand.New(rand.NewPCG(5, 6))
	var tAns, tRows, nAns, nRows [][]string
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("roi_%03d", i)
		sc := makeCase(r)
		for _, d := range []string{priv, filepath.Join(priv, officialDir)} {
			if err := writeMaskTIFF(filepath.Join(d, "test/labels", id+".tif"), sc.labels); err != nil {
				b.Fatal(err)
			}
		}
		if err := writeMaskTIFF(filepath.Join(sub, "predictions", id+".tif"), sc.labels); err != nil {
			b.Fatal(err)
		}
		tAns = append(tAns, []string{id, "x", "test/labels/" + id + ".tif"})
		tRows = append(tRows, []string{id, "predictions/" + id + ".tif"})
		pf := PolygonFile{Polygons: []PolygonItem{}}
		for _, nu := range sc.nuclei {
			pf.Polygons = append(pf.Polygons, PolygonItem{Name: track2Classes[nu.cls], PathPoints: nu.ring, Score: 1})
		}
		for _, d := range []string{priv, filepath.Join(priv, officialDir)} {
			if err := writeJSON(filepath.Join(d, "test/labels", id+"_nuclei.json"), pf); err != nil {
				b.Fatal(err)
			}
		}
		if err := writeJSON(filepath.Join(sub, "predictions", id+".json"), pf); err != nil {
			b.Fatal(err)
		}
		nAns = append(nAns, []string{id, "x", "test/labels/" + id + "_nuclei.json"})
		nRows = append(nRows, []string{id, "predictions/" + id + ".json"})
	}
	write := func(ans, rows [][]string, col string) {
		if err := challenge.WriteCSV(filepath.Join(priv, answersCSV), []string{"case_id", "image_path", "label_path"}, ans); err != nil {
			b.Fatal(err)
		}
		if err := challenge.WriteCSV(filepath.Join(sub, submissionFile), []string{"case_id", col}, rows); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("tissue", func(b *testing.B) {
		write(tAns, tRows, "predicted_mask_path")
		b.ResetTimer()
		cpu0 := processCPUSeconds()
		for i := 0; i < b.N; i++ {
			if _, err := Track1Task1.Grade(context.Background(), sub, priv, challenge.Reference); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric((processCPUSeconds()-cpu0)/float64(b.N), "cpu-s/op")
	})
	b.Run("nuclei", func(b *testing.B) {
		write(nAns, nRows, "predicted_nuclei_path")
		b.ResetTimer()
		cpu0 := processCPUSeconds()
		for i := 0; i < b.N; i++ {
			if _, err := Track2Task2.Grade(context.Background(), sub, priv, challenge.Reference); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric((processCPUSeconds()-cpu0)/float64(b.N), "cpu-s/op")
	})
	_ = os.Remove
}

// processCPUSeconds is the user + system CPU time this process has used
// (all threads), 0 where getrusage is unavailable.
func processCPUSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(ru.Utime) + tv(ru.Stime)
}
