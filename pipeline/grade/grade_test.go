package grade

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/store"
)

func write(t *testing.T, p, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestDiscoverSubmissions(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"demo/ldct-iqa/aide/seed-2/submission", "demo/ldct-iqa/aide/seed-1/submission", "paper/usenhance/x/seed-1/submission",
		"demo/ldct-iqa/aide/seed-x/submission", "demo/ldct-iqa/aide/seed-3/logs"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	subs, err := DiscoverSubmissions(root)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range subs {
		ids = append(ids, s.RunID)
	}
	want := "demo/ldct-iqa/aide/seed-1 demo/ldct-iqa/aide/seed-2 paper/usenhance/x/seed-1"
	if got := strings.Join(ids, " "); got != want {
		t.Errorf("runs %q, want %q (a seed that is not a number and a run without a submission are left out)", got, want)
	}
	if s := subs[1]; s.Group != "demo" || s.Challenge != "ldct-iqa" || s.Agent != "aide" || s.Seed != 2 || s.SubmissionDir() != filepath.Join(root, "demo/ldct-iqa/aide/seed-2/submission") {
		t.Errorf("submission %+v", s)
	}
	if subs, err := DiscoverSubmissions(filepath.Join(root, "none")); err != nil || subs != nil {
		t.Errorf("missing runs folder: %v %v, want nothing and no error", subs, err)
	}
}

func TestReadRunMeta(t *testing.T) {
	dir := t.TempDir()
	if m, err := readRunMeta(dir, nil); err != nil || m != (runMeta{}) {
		t.Errorf("no run.json: %+v %v, want the zero value", m, err)
	}
	write(t, filepath.Join(dir, "run.json"), `{"backend":"gpt-5","setting":"24h","status":"done"}`)
	if m, err := readRunMeta(dir, nil); err != nil || m.Backend != "gpt-5" || m.Setting != "24h" {
		t.Errorf("run.json: %+v %v", m, err)
	}
	write(t, filepath.Join(dir, "run.json"), `{"backend":`)
	_, err := readRunMeta(dir, func(p string) string { return "REL:" + filepath.Base(p) })
	if err == nil || !strings.Contains(err.Error(), "REL:run.json is corrupt") {
		t.Errorf("corrupt run.json: %v, want an error naming it", err)
	}
}

// A stored grade is reused only while the submission, the private answers
// and the grader are all unchanged.
func TestGradeIsCurrent(t *testing.T) {
	ctx := context.Background()
	b, err := config.Load("../../benchmark.toml")
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), "s.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	root := t.TempDir()
	priv := filepath.Join(root, "private")
	write(t, filepath.Join(priv, "test_labels.csv"), "id,quality_score\na,1\n")
	s := Submission{RunID: "demo/ldct-iqa/a/seed-1", Group: "demo", Challenge: "ldct-iqa", Agent: "a", Seed: 1, Dir: filepath.Join(root, "run")}
	write(t, filepath.Join(s.SubmissionDir(), "submission.csv"), "id,quality_score\na,2\n")
	o := &Options{Benchmark: b, Store: st, PrivateDir: func(group, ch string) (string, error) { return priv, nil }}
	key, _, err := keyOf(o, &answerHashes{}, s)
	if err != nil {
		t.Fatal(err)
	}
	sub, err := submissionHash(s.SubmissionDir())
	if err != nil {
		t.Fatal(err)
	}
	err = st.Update(ctx, func(tx *store.Tx) error {
		if err := tx.SyncChallenges(ctx, b.Challenges); err != nil {
			return err
		}
		if err := tx.PutRun(ctx, store.Run{ID: s.RunID, Source: "demo", Setting: "demo", Backend: "none", Challenge: s.Challenge, Agent: "a", Status: store.RunDone}); err != nil {
			return err
		}
		return tx.PutGrade(ctx, store.Grade{RunID: s.RunID, Mode: string(challenge.Reference), Valid: true, SubmissionHash: sub,
			AnswersHash: key.answers, GraderVersion: key.grader, GradedAt: store.Now()})
	})
	if err != nil {
		t.Fatal(err)
	}
	current := func() bool { return gradeIsCurrent(ctx, st, o, &answerHashes{}, s, challenge.Reference) }
	if !current() {
		t.Fatal("an unchanged grade is not current")
	}
	if gradeIsCurrent(ctx, st, o, &answerHashes{}, s, challenge.Official) {
		t.Error("a grade of the other mode counts as current")
	}
	write(t, filepath.Join(s.SubmissionDir(), "submission.csv"), "id,quality_score\na,3\n")
	if current() {
		t.Error("current after the submission changed")
	}
	write(t, filepath.Join(s.SubmissionDir(), "submission.csv"), "id,quality_score\na,2\n")
	if !current() {
		t.Fatal("not current once the submission is back")
	}
	write(t, filepath.Join(priv, "test_labels.csv"), "id,quality_score\na,4\n")
	if current() {
		t.Error("current after the private answers changed")
	}
	write(t, filepath.Join(priv, "test_labels.csv"), "id,quality_score\na,1\n")
	old := gradersVersion
	gradersVersion += "-test"
	defer func() { gradersVersion = old }()
	if current() {
		t.Error("current after the grader version changed")
	}
	gradersVersion = old
	if !current() {
		t.Error("not current once everything is back")
	}
}

// modeGrader grades valid in official mode and fails in reference mode as
// refErr says (an invalid submission, a panic, or another error).
type modeGrader struct{ refErr string }

func (modeGrader) ID() string                      { return "modes" }
func (modeGrader) Metrics() []challenge.MetricCard { return nil }
func (modeGrader) Quirks() []challenge.Quirk       { return nil }
func (g modeGrader) Grade(_ context.Context, _, _ string, mode challenge.Mode) (*challenge.Result, error) {
	if mode == challenge.Reference {
		switch g.refErr {
		case "invalid":
			return nil, challenge.Invalidf("submission.csv", "id", "reference mode wants every id")
		case "panic":
			panic("index out of range")
		case "error":
			return nil, errors.New("read private answers: truncated file")
		}
	}
	r := &challenge.Result{Mode: mode}
	r.Set("score", 0.5)
	return r, nil
}

// Grading both modes: a submission the other mode rejects records nothing
// about it; a failure of the other mode's grader is recorded as a note.
func TestFolderBothModesRecordsOtherModeFailures(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "submission.csv"), "id\n")
	for _, c := range []struct{ refErr, note string }{
		{"", ""},
		{"invalid", ""},
		{"panic", "reference mode failed, so where the two modes differ is unknown: grader modes crashed: index out of range"},
		{"error", "reference mode failed, so where the two modes differ is unknown: read private answers: truncated file"},
	} {
		line := Folder(context.Background(), modeGrader{c.refErr}, nil, dir, t.TempDir(), challenge.Official, true)
		if !line.Valid || line.Metrics["score"] != 0.5 {
			t.Fatalf("%q: official grade %+v", c.refErr, line)
		}
		var want []string
		if c.note != "" {
			want = []string{c.note}
		}
		if strings.Join(line.Notes, "|") != strings.Join(want, "|") {
			t.Errorf("%q: notes %q, want %q", c.refErr, line.Notes, want)
		}
		if line.OtherMode != nil {
			t.Errorf("%q: other-mode differences %v, want none", c.refErr, line.OtherMode)
		}
	}
}
