package isles22

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/metrics/imageio/nifti"
	"github.com/rexmle/rexmle/metrics/volume"
	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenges/medseg"
)

// rowOutcome is what gradeRow returns, comparable.
type rowOutcome struct {
	scores CaseScores
	note   string
	err    string
}

func gradeRowBothWays(t *testing.T, priv, sub, gtRel string, row medseg.Row, mode challenge.Mode) rowOutcome {
	t.Helper()
	var out [2]rowOutcome
	for i, overlap := range []bool{true, false} {
		s, note, err := gradeRow(priv, sub, gtRel, row, mode, overlap)
		out[i] = rowOutcome{scores: s, note: note}
		if err != nil {
			out[i].err = err.Error()
		}
	}
	if out[0] != out[1] {
		t.Fatalf("%s (%v): answer read beside the prediction %+v, in turn %+v", row.Path, mode, out[0], out[1])
	}
	return out[0]
}

// TestGradeRowChecksInOrder: the answer read beside the prediction or in
// turn gives the same scores, notes and errors, and the errors come in the
// order of the checks: the answer's, then the prediction's path, name,
// file, dimensions, shape.
func TestGradeRowChecksInOrder(t *testing.T) {
	sh := [3]int{6, 5, 4}
	priv := t.TempDir()
	writeMask(t, filepath.Join(priv, "test/a.nii.gz"), sh, block([3]int{1, 1, 1}, [3]int{3, 3, 3})...)
	if err := os.WriteFile(filepath.Join(priv, "test/broken.nii.gz"), []byte("not gzip"), 0o644); err != nil {
		t.Fatal(err)
	}
	sub := t.TempDir()
	// 4 of the 8 GT voxels, and a second lesion away from it.
	writeMask(t, filepath.Join(sub, "p/good.nii.gz"), sh, [3]int{1, 1, 1}, [3]int{2, 1, 1}, [3]int{1, 2, 1}, [3]int{2, 2, 1}, [3]int{5, 4, 3})
	writeMask(t, filepath.Join(sub, "p/small.nii.gz"), [3]int{3, 5, 4}, [3]int{0, 1, 1})
	g2 := volume.NewGrid(6, 5)
	if err := nifti.WriteFile(filepath.Join(sub, "p/flat.nii.gz"), volume.New(g2, volume.Uint8), volume.Uint8); err != nil {
		t.Fatal(err)
	}
	row := func(path string) medseg.Row { return medseg.Row{Line: 1, ID: "a", Key: "a", Path: path} }

	got := gradeRowBothWays(t, priv, sub, "test/a.nii.gz", row("p/good.nii.gz"), challenge.Official)
	// Dice 2·4/(8+5); lesions: TP 1, FP 1, FN 0 → F1 1/(1+1/2); counts 1 and 2;
	// volumes |8−5| voxels of 1 mm³.
	want := CaseScores{Dice: 8.0 / 13, LesionF1: 1 / 1.5, CountDiff: 1, VolDiff: 0.003}
	if got.err != "" || got.note != "" || got.scores != want {
		t.Errorf("good prediction: %+v, want %+v", got, want)
	}
	for _, c := range []struct {
		name, gt, path string
		mode           challenge.Mode
		want           string // in the error; "" for none
		invalid        bool
	}{
		{"short path", "test/a.nii.gz", "x", challenge.Reference, "want a NIfTI file", true},
		{"path leaves", "test/a.nii.gz", "../x.png", challenge.Reference, "leaves the submission folder", true},
		{"not NIfTI", "test/a.nii.gz", "p/good.png", challenge.Reference, "want a NIfTI file", true},
		{"missing", "test/a.nii.gz", "p/none.nii.gz", challenge.Reference, "not found", true},
		{"two dimensions", "test/a.nii.gz", "p/flat.nii.gz", challenge.Reference, "2 dimensions, want 3", true},
		{"other shape, official", "test/a.nii.gz", "p/small.nii.gz", challenge.Official, "does not match", true},
		{"other shape, reference", "test/a.nii.gz", "p/small.nii.gz", challenge.Reference, "", false},
		{"answer unreadable, prediction missing", "test/broken.nii.gz", "p/none.nii.gz", challenge.Reference, "read answer test/broken.nii.gz", false},
		{"answer unreadable, prediction flat", "test/broken.nii.gz", "p/flat.nii.gz", challenge.Reference, "read answer test/broken.nii.gz", false},
		{"answer missing", "test/none.nii.gz", "p/good.nii.gz", challenge.Reference, "read answer test/none.nii.gz", false},
	} {
		got := gradeRowBothWays(t, priv, sub, c.gt, row(c.path), c.mode)
		if c.want == "" {
			if got.err != "" || !strings.Contains(got.note, "resized to the GT shape [6 5 4]") {
				t.Errorf("%s: %+v, want a score and a resize note", c.name, got)
			}
			continue
		}
		if !strings.Contains(got.err, c.want) {
			t.Errorf("%s: error %q, want it to say %q", c.name, got.err, c.want)
		}
		_, _, err := gradeRow(priv, sub, c.gt, row(c.path), c.mode, true)
		if challenge.IsInvalid(err) != c.invalid {
			t.Errorf("%s: %v: invalid submission %v, want %v", c.name, err, challenge.IsInvalid(err), c.invalid)
		}
	}
}

// TestPredictionReadAgainWithinTheAnswersBound: a prediction that does not
// read within minPredictionBytes is read again within its answer's bound,
// with the same scores; one that reads within neither gives the read's
// error.
func TestPredictionReadAgainWithinTheAnswersBound(t *testing.T) {
	sh := [3]int{8, 8, 8}
	priv := t.TempDir()
	writeMask(t, filepath.Join(priv, "test/a.nii.gz"), sh, block([3]int{2, 2, 2}, [3]int{5, 5, 5})...)
	sub := t.TempDir()
	writeMask(t, filepath.Join(sub, "p/a.nii.gz"), sh, block([3]int{3, 3, 3}, [3]int{6, 6, 6})...)
	v, err := nifti.ReadFile(filepath.Join(sub, "p/a.nii.gz"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sub, "p/huge.nii.gz"), hugeHeader(t, v), 0o644); err != nil {
		t.Fatal(err)
	}
	row := func(path string) medseg.Row { return medseg.Row{Line: 1, ID: "a", Key: "a", Path: path} }
	want := gradeRowBothWays(t, priv, sub, "test/a.nii.gz", row("p/a.nii.gz"), challenge.Official)
	hugeWant := gradeRowBothWays(t, priv, sub, "test/a.nii.gz", row("p/huge.nii.gz"), challenge.Official)
	if want.err != "" || want.scores.Dice != 2*8.0/54 {
		t.Fatalf("within the first bound: %+v, want dice 16/54", want)
	}
	if !strings.Contains(hugeWant.err, "cannot read the mask") || !strings.Contains(hugeWant.err, "limit") {
		t.Fatalf("huge header: %q, want the read's limit error", hugeWant.err)
	}
	defer func(b int64) { minPredictionBytes = b }(minPredictionBytes)
	minPredictionBytes = 100 // below the 512 decoded bytes: the first read fails
	if limit := predictionLimit(int64(sh[0] * sh[1] * sh[2])); limit != 256<<20 {
		t.Fatalf("answer's bound %d, want 256 MiB", limit)
	}
	if got := gradeRowBothWays(t, priv, sub, "test/a.nii.gz", row("p/a.nii.gz"), challenge.Official); got != want {
		t.Errorf("read again: %+v, read once: %+v", got, want)
	}
	if got := gradeRowBothWays(t, priv, sub, "test/a.nii.gz", row("p/huge.nii.gz"), challenge.Official); got != hugeWant {
		t.Errorf("huge header read again: %+v, read once: %+v", got, hugeWant)
	}
	p := readPredictionAhead(sub, row("p/a.nii.gz"))
	defer p.close()
	if p.readErr == nil {
		t.Fatalf("a 512-byte image read within %d bytes", minPredictionBytes)
	}
}

// TestGradeCancelled: a cancelled grade stops with the context's error,
// whether its one case runs on the calling goroutine or several on the
// pool.
func TestGradeCancelled(t *testing.T) {
	sh := [3]int{4, 4, 4}
	priv := miniTask(t, map[string][][3]int{"a": {{1, 1, 1}}, "b": {{2, 2, 2}}}, sh)
	one := miniTask(t, map[string][][3]int{"a": {{1, 1, 1}}}, sh)
	sub := writeSub(t, [][]string{{"a", "p/a.nii.gz"}, {"b", "p/b.nii.gz"}})
	subOne := writeSub(t, [][]string{{"a", "p/a.nii.gz"}})
	for _, dir := range []string{sub, subOne} {
		writeMask(t, filepath.Join(dir, "p/a.nii.gz"), sh, [3]int{1, 1, 1})
		writeMask(t, filepath.Join(dir, "p/b.nii.gz"), sh, [3]int{2, 2, 2})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range []struct{ sub, priv string }{{sub, priv}, {subOne, one}} {
		if _, err := (Challenge{}).Grade(ctx, c.sub, c.priv, challenge.Reference); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: %v, want context.Canceled", c.sub, err)
		}
		res, err := (Challenge{}).Grade(context.Background(), c.sub, c.priv, challenge.Reference)
		if err != nil || res.Values[MetricDice] != 1 {
			t.Errorf("%s not cancelled: %v %v, want dice 1", c.sub, res, err)
		}
	}
}

// TestAnswerPanicReachesSafeGrade: a panic while a one-case grade's
// answer is read on its own goroutine is raised again on the grading
// goroutine, so challenge.SafeGrade reports it (with the answer's name)
// instead of the process dying. (Several cases run on challenge.ForEach's
// workers, where a panic is not recovered.)
func TestAnswerPanicReachesSafeGrade(t *testing.T) {
	sh := [3]int{4, 4, 4}
	priv := miniTask(t, map[string][][3]int{"a": {{1, 1, 1}}}, sh)
	sub := writeSub(t, [][]string{{"a", "p/a.nii.gz"}})
	writeMask(t, filepath.Join(sub, "p/a.nii.gz"), sh, [3]int{1, 1, 1})
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2)) // one case, two cores: the answer on its own goroutine
	defer func(f func(string) truthLesions) { readTruthOf = f }(readTruthOf)
	readTruthOf = func(string) truthLesions { panic("boom") }
	_, err := challenge.SafeGrade(context.Background(), Challenge{}, sub, priv, challenge.Reference)
	var ge *challenge.GraderError
	if !errors.As(err, &ge) || !strings.Contains(fmt.Sprint(ge.Panic), "reading answer test/a_msk.nii.gz: boom") {
		t.Errorf("%v, want the answer's panic as a GraderError", err)
	}
}
