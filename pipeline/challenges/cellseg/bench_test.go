package cellseg

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/rexmle/rexmle/metrics/imageio/tiff"
	"github.com/rexmle/rexmle/metrics/volume"
	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenge/challengetest"
)

// TestScoresReport logs perfect, sample, trivial and baseline scores.
func TestScoresReport(t *testing.T) {
	c := Challenge{}
	p := challengetest.Prepare(t, c, 3)
	var log bytes.Buffer
	subs := map[string]string{
		"perfect":  p.Submit(t, "perfect", func(ctx context.Context, o string) error { return c.Perfect(ctx, p.Public(), p.Private(), o) }),
		"sample":   p.Submit(t, "sample", func(ctx context.Context, o string) error { return c.SampleSubmission(ctx, p.Public(), o) }),
		"trivial":  p.Submit(t, "trivial", func(ctx context.Context, o string) error { return c.Trivial(ctx, p.Public(), o) }),
		"baseline": p.Submit(t, "baseline", func(ctx context.Context, o string) error { return c.Baseline(ctx, p.Public(), o, &log) }),
	}
	t.Log(log.String())
	for _, name := range []string{"perfect", "sample", "trivial", "baseline"} {
		for _, m := range []challenge.Mode{challenge.Reference, challenge.Official} {
			r := p.Grade(t, subs[name], m)
			t.Logf("%s %s: %v %v %v %v %v", name, m, r.Values["f1_0.5"], r.Values["f1_0.6"], r.Values["f1_0.7"], r.Values["f1_0.8"], r.Values["f1_0.9"])
		}
	}
	if r := p.Grade(t, subs["baseline"], challenge.Reference); r.Values["f1_0.5"] <= 0 {
		t.Errorf("baseline f1_0.5 = %v, want > 0", r.Values["f1_0.5"])
	}
}

// BenchmarkGrade grades the synthetic perfect submission.
func BenchmarkGrade(b *testing.B) {
	c := Challenge{}
	p := challengetest.Prepare(b, c, 1)
	sub := p.Submit(b, "perfect", func(ctx context.Context, o string) error { return c.Perfect(ctx, p.Public(), p.Private(), o) })
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := c.Grade(context.Background(), sub, p.Private(), challenge.Reference); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGrade100 grades 100 images of 1000 × 1000 with about 1100
// touching cells each; predictions are the truths with every cell's
// label shifted and a one-pixel erosion on some rows (IoU < 1).
func BenchmarkGrade100(b *testing.B) {
	const n, size = 100, 1000
	root := challengetest.BenchDir(b, "data")
	sub, priv := filepath.Join(root, "sub"), filepath.Join(root, "priv")
	for _, d := range []string{filepath.Join(sub, "predictions"), filepath.Join(priv, "test", "labels")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	r := rand.New(rand.NewPCG(9, 9))
	base := makeCells(r, size, size, 1)
	var ans, rows [][]string
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("cell_%05d", i+1)
		tv := volume.New(volume.NewGrid(size, size), volume.Uint16)
		pv := volume.New(volume.NewGrid(size, size), volume.Uint16)
		shift := i * 3 // vary images a little without re-rendering
		for k, l := range base.labels {
			if l == 0 {
				continue
			}
			tv.Data[k] = float64(l)
			if (k/size+shift)%7 != 0 {
				pv.Data[k] = float64(int(l)+shift%5) + 1
			}
		}
		if err := tiff.WriteFile(filepath.Join(priv, "test", "labels", id+"_label.tiff"), tv, volume.Uint16); err != nil {
			b.Fatal(err)
		}
		if err := tiff.WriteFile(filepath.Join(sub, "predictions", id+"_label.tiff"), pv, volume.Uint16); err != nil {
			b.Fatal(err)
		}
		ans = append(ans, []string{id, "x", "test/labels/" + id + "_label.tiff"})
		rows = append(rows, []string{id, "predictions/" + id + "_label.tiff"})
	}
	if err := challenge.WriteCSV(filepath.Join(priv, "test_labels.csv"), []string{"image_id", "image_path", "label_path"}, ans); err != nil {
		b.Fatal(err)
	}
	if err := challenge.WriteCSV(filepath.Join(sub, submissionFile), []string{"image_id", "predicted_mask_path"}, rows); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := (Challenge{}).Grade(context.Background(), sub, priv, challenge.Reference); err != nil {
			b.Fatal(err)
		}
	}
}
