// Package panthertest holds the test kit both PANTHER task packages run:
// conformance, the malformed-submission corpus, the built-in submissions'
// scores and a grading benchmark.
package panthertest

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/rexmle/rexmle/metrics/imageio/metaimage"
	"github.com/rexmle/rexmle/metrics/volume"
	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenge/challengetest"
	"github.com/rexmle/rexmle/pipeline/challenges/panthercommon"
)

func firstPred(t testing.TB, dir string) string {
	tab, err := challenge.ReadCSV(filepath.Join(dir, "submission.csv"))
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, tab.Rows[0][1])
}

func rewrite(t testing.TB, path string, fn func(v *volume.Volume) (*volume.Volume, volume.DType)) {
	v, err := metaimage.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	nv, dt := fn(v)
	if err := metaimage.WriteFile(path, nv, dt, true); err != nil {
		t.Fatal(err)
	}
}

// Malformed is the corpus of broken PANTHER submissions.
func Malformed() []challengetest.Malformed {
	return []challengetest.Malformed{
		challengetest.MissingCSV(),
		challengetest.DropRow(),
		challengetest.RenameColumn("image_id"),
		challengetest.RenameColumn("predicted_mask_path"),
		challengetest.SetCell("extra-id", "image_id", "99999_9", "unexpected"),
		challengetest.SetCell("dotdot-path", "predicted_mask_path", "../../x.mha", "leaves"),
		challengetest.SetCell("absolute-path", "predicted_mask_path", "/etc/passwd.mha", "absolute"),
		challengetest.SetCell("unsupported-type", "predicted_mask_path", "predictions/x.png", "unsupported"),
		{Name: "missing-prediction", Want: "not found", Break: func(t testing.TB, dir string) {
			if err := os.Remove(firstPred(t, dir)); err != nil {
				t.Fatal(err)
			}
		}},
		{Name: "nan-voxel", Want: "NaN", // reference: values {0, 1, NaN} are not a mask; official: not finite
			Break: func(t testing.TB, dir string) {
				rewrite(t, firstPred(t, dir), func(v *volume.Volume) (*volume.Volume, volume.DType) {
					v.Data[1] = math.NaN()
					return v, volume.Float32
				})
			}},
		{Name: "bad-values", Want: "mask values", Break: func(t testing.TB, dir string) {
			rewrite(t, firstPred(t, dir), func(v *volume.Volume) (*volume.Volume, volume.DType) {
				v.Data[0], v.Data[1] = 3, 1
				return v, volume.Uint8
			})
		}},
		{Name: "truncated", Want: "cannot read", Break: func(t testing.TB, dir string) {
			p := firstPred(t, dir)
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, b[:len(b)*2/3], 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{Name: "huge-header", Want: "cannot read", Break: func(t testing.TB, dir string) {
			hdr := "ObjectType = Image\nNDims = 3\nDimSize = 40000 40000 40000\nElementSpacing = 1 1 1\nElementType = MET_UCHAR\nElementDataFile = LOCAL\n"
			if err := os.WriteFile(firstPred(t, dir), []byte(hdr+"xx"), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{Name: "symlink-out", Want: "leaves", Break: func(t testing.TB, dir string) {
			p := firstPred(t, dir)
			outside := filepath.Join(t.TempDir(), "outside.mha")
			if err := os.Rename(p, outside); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, p); err != nil {
				t.Skip("symlinks unsupported:", err)
			}
		}},
	}
}

// Run runs conformance, the malformed corpus and the score checks.
func Run(t *testing.T, c panthercommon.Challenge) {
	t.Run("conformance", func(t *testing.T) { challengetest.Conformance(t, c) })
	p := challengetest.Prepare(t, c, 5)
	perfect := p.Submit(t, "perfect", func(ctx context.Context, out string) error { return c.Perfect(ctx, p.Public(), p.Private(), out) })
	t.Run("malformed", func(t *testing.T) { challengetest.CheckMalformed(t, p, perfect, Malformed()) })
	t.Run("scores", func(t *testing.T) { Scores(t, c, p, perfect) })
	t.Run("prepare-from-zip", func(t *testing.T) { PrepareFromZip(t, c) })
}

// PrepareFromZip leaves only the task's archive in raw/ and checks Prepare
// extracts it and splits every case.
func PrepareFromZip(t *testing.T, c panthercommon.Challenge) {
	synth := t.TempDir()
	if err := c.Synthesize(context.Background(), synth, 3, challenge.SynthSize{}); err != nil {
		t.Fatal(err)
	}
	raw := t.TempDir()
	if err := challengetest.ZipDir(synth, filepath.Join(raw, c.Task.ArchiveName)); err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	if err := c.Prepare(context.Background(), raw, data); err != nil {
		t.Fatal(err)
	}
	tab, err := challenge.ReadCSV(filepath.Join(data, "private", "test_labels.csv"))
	if err != nil {
		t.Fatal(err)
	}
	train, _ := filepath.Glob(filepath.Join(data, "public", "train", "labels", "*.mha"))
	if len(tab.Rows)+len(train) != c.Task.Synth.Cases || len(tab.Rows) == 0 {
		t.Errorf("%d test + %d train cases, want %d in all", len(tab.Rows), len(train), c.Task.Synth.Cases)
	}
}

// Scores grades the built-in submissions and checks their ordering.
func Scores(t *testing.T, c panthercommon.Challenge, p *challengetest.Prepared, perfect string) {
	var log bytes.Buffer
	subs := map[string]string{
		"perfect": perfect,
		"sample":  p.Submit(t, "sample", func(ctx context.Context, out string) error { return c.SampleSubmission(ctx, p.Public(), out) }),
		"trivial": p.Submit(t, "trivial", func(ctx context.Context, out string) error { return c.Trivial(ctx, p.Public(), out) }),
		"baseline": p.Submit(t, "baseline", func(ctx context.Context, out string) error {
			return c.Baseline(ctx, p.Public(), out, &log)
		}),
	}
	t.Log(log.String())
	for _, mode := range []challenge.Mode{challenge.Reference, challenge.Official} {
		got := map[string]map[string]float64{}
		for _, name := range []string{"perfect", "sample", "trivial", "baseline"} {
			r := p.Grade(t, subs[name], mode)
			got[name] = r.Values
			t.Logf("%-8s %-9s dsc=%.5f msd=%.5f hd95=%.5f masd=%.5f rmse=%.5f", name, mode,
				r.Values[panthercommon.MetricDSC], r.Values[panthercommon.MetricMSD], r.Values[panthercommon.MetricHD95], r.Values[panthercommon.MetricMASD], r.Values[panthercommon.MetricRMSE])
		}
		pf := got["perfect"]
		if pf[panthercommon.MetricDSC] != 1 || pf[panthercommon.MetricMSD] != 1 || pf[panthercommon.MetricHD95] != 0 || pf[panthercommon.MetricMASD] != 0 || pf[panthercommon.MetricRMSE] != 0 {
			t.Errorf("%s: perfect %v", mode, pf)
		}
		if tv := got["trivial"]; tv[panthercommon.MetricDSC] != 0 || tv[panthercommon.MetricMSD] != 0 {
			t.Errorf("%s: trivial %v, want dsc = msd = 0", mode, tv)
		}
		if b, s := got["baseline"][panthercommon.MetricDSC], got["sample"][panthercommon.MetricDSC]; b <= s || b < 0.3 {
			t.Errorf("%s: baseline dsc %v should beat the sample's %v and exceed 0.3", mode, b, s)
		}
	}
}

// BenchGrade benchmarks grading the perfect submission on synthetic data.
func BenchGrade(b *testing.B, c panthercommon.Challenge) {
	p := challengetest.Prepare(b, c, 1)
	sub := p.Submit(b, "baseline", func(ctx context.Context, out string) error {
		var log bytes.Buffer
		return c.Baseline(ctx, p.Public(), out, &log)
	})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := c.Grade(context.Background(), sub, p.Private(), challenge.Reference); err != nil {
			b.Fatal(err)
		}
	}
}
