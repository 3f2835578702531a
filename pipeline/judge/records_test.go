package judge

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/rexmle/rexmle/pipeline/judge/judgetest"
	"github.com/rexmle/rexmle/pipeline/store"
)

// failingRecords is a real store whose cache reads or whose writes of one
// run's rows fail (a full disk, a locked file).
type failingRecords struct {
	*store.Store
	readErr  error
	writeErr error
	failRun  string
}

func (f failingRecords) JudgeCall(ctx context.Context, judge, rubricHash, sectionHash string) (store.JudgeCall, bool, error) {
	if f.readErr != nil {
		return store.JudgeCall{}, false, f.readErr
	}
	return f.Store.JudgeCall(ctx, judge, rubricHash, sectionHash)
}

func (f failingRecords) PutJudgedRun(ctx context.Context, r store.JudgedRun) error {
	if r.RunKey == f.failRun {
		return f.writeErr
	}
	return f.Store.PutJudgedRun(ctx, r)
}

// A store that cannot write one run's rows stops neither the batch nor the
// other runs' rows: Run reports the error, the other runs are stored, and
// judging again pays only for the run that was lost. A cache that cannot
// be read stops Run before any paid call.
func TestRunGoesOnPastAFailedWrite(t *testing.T) {
	r := loadRepoRubric(t)
	dir := t.TempDir()
	root := filepath.Join(dir, "runs")
	writeRun(t, root, "r1", "c1", "a", 0, "gpt-5", "first plan", "second plan")
	writeRun(t, root, "r1", "c2", "a", 0, "gpt-5", "third plan")
	writeRun(t, root, "r1", "c3", "a", 0, "gpt-5", "fourth plan", "fifth plan")
	srv := judgetest.New(func(req judgetest.Request) judgetest.Reply {
		return judgetest.Reply{Content: judgetest.AnswerAll(r.IDs(), oddOnes)}
	})
	defer srv.Close()
	j, _ := newTestJudge(t, srv, nil)
	db := openDB(t, dir)
	runs, err := DiscoverRuns(root)
	if err != nil || len(runs) != 3 {
		t.Fatalf("discover: %v %d", err, len(runs))
	}
	cfg := Config{RubricPath: repoRubric, Impl: j, Concurrency: 2,
		Logger: slog.New(slog.NewTextHandler(&syncBuffer{}, nil))}
	ctx := context.Background()

	broken := errors.New("cache unreadable")
	if _, err := Run(ctx, failingRecords{Store: db, readErr: broken}, cfg, runs); !errors.Is(err, broken) {
		t.Fatalf("an unreadable cache: %v, want %v", err, broken)
	}
	if srv.Calls() != 0 {
		t.Fatalf("%d paid calls with an unreadable cache", srv.Calls())
	}

	full := errors.New("disk full")
	lost := "r1/c2/a/seed-0"
	_, err = Run(ctx, failingRecords{Store: db, writeErr: full, failRun: lost}, cfg, runs)
	if !errors.Is(err, full) {
		t.Fatalf("a failed write: %v, want %v", err, full)
	}
	if srv.Calls() != 5 {
		t.Errorf("%d calls for 5 sections", srv.Calls())
	}
	for key, want := range map[string]int{"r1/c1/a/seed-0": 2, lost: 0, "r1/c3/a/seed-0": 2} {
		if n := countRows(t, db, `SELECT COUNT(*) FROM judge_sections WHERE run_key = ?`, key); n != want {
			t.Errorf("%s: %d judged sections stored, want %d", key, n, want)
		}
	}
	rep, err := Run(ctx, db, cfg, runs)
	if err != nil {
		t.Fatal(err)
	}
	if srv.Calls() != 6 || rep.CacheHits != 4 || rep.Judged != 1 {
		t.Errorf("judging again: %d calls in all (want 6), report %+v", srv.Calls(), rep)
	}
	if n := countRows(t, db, `SELECT COUNT(*) FROM judge_sections`); n != 5 {
		t.Errorf("%d judged sections stored, want 5", n)
	}
}
