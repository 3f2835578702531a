package stages

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/pipeline/challenge/challengetest"
	"github.com/rexmle/rexmle/pipeline/checkouttest"

	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/store"
)

// testBench writes a benchmark.toml into a temporary folder that uses the
// repository's challenge files and a demo profile of two small challenges,
// so every stage writes into the temporary folder.
func testBench(t *testing.T) Options {
	t.Helper()
	return Options{Config: checkouttest.Benchmark(t), Profile: "demo", Challenges: []string{"ldct-iqa", "isles22"}, Mode: "reference"}
}

func TestPrepareIsIdempotent(t *testing.T) {
	o := testBench(t)
	ctx := context.Background()
	if err := Prepare(ctx, o); err != nil {
		t.Fatal(err)
	}
	root := filepath.Dir(o.Config)
	m, err := challenge.ReadManifest(filepath.Join(root, "data", "synthetic", "isles22"))
	if err != nil || len(m.Files) == 0 {
		t.Fatalf("manifest: %v %v", m, err)
	}
	stamp := func() map[string]int64 {
		out := map[string]int64{}
		filepath.Walk(filepath.Join(root, "data"), func(p string, info os.FileInfo, err error) error {
			if err == nil && info.Mode().IsRegular() {
				out[p] = info.ModTime().UnixNano()
			}
			return nil
		})
		return out
	}
	before := stamp()
	if err := Prepare(ctx, o); err != nil {
		t.Fatal(err)
	}
	after := stamp()
	for p, ts := range before {
		if after[p] != ts {
			t.Errorf("%s was rewritten by a second prepare", p)
		}
	}
	// A prepared file changed by hand is noticed and the challenge prepared again.
	f := filepath.Join(root, "data", "synthetic", "isles22", "public", "sample_submission.csv")
	if err := os.WriteFile(f, []byte("tampered"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Prepare(ctx, o); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(f); string(b) == "tampered" {
		t.Error("a changed prepared file was not restored")
	}
}

func TestGradeAndGradeOne(t *testing.T) {
	o := testBench(t)
	ctx := context.Background()
	if err := Prepare(ctx, o); err != nil {
		t.Fatal(err)
	}
	root := filepath.Dir(o.Config)
	// Lay out two run folders as the runner does: a perfect and a broken submission.
	c, _ := challenge.Lookup("ldct-iqa")
	pub, priv := filepath.Join(root, "data", "synthetic", "ldct-iqa", "public"), filepath.Join(root, "data", "synthetic", "ldct-iqa", "private")
	good := filepath.Join(root, "results", "runs", "t", "ldct-iqa", "baseline", "seed-1")
	bad := filepath.Join(root, "results", "runs", "t", "ldct-iqa", "sample", "seed-1")
	for _, d := range []string{good, bad} {
		if err := os.MkdirAll(filepath.Join(d, "submission"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := challengetest.MustOracle(t, c).Perfect(ctx, pub, priv, filepath.Join(good, "submission")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bad, "submission", "submission.csv"), []byte("nope\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Grade(ctx, o); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, filepath.Join(root, "results", "rexmle.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var valid, invalid int
	st.RawQueryRow(context.Background(), `SELECT count(*) FROM grades WHERE valid=1`).Scan(&valid)
	st.RawQueryRow(context.Background(), `SELECT count(*) FROM grades WHERE valid=0 AND error LIKE '%submission.csv%'`).Scan(&invalid)
	if valid != 1 || invalid != 1 {
		t.Fatalf("grades: %d valid, %d invalid naming the file", valid, invalid)
	}
	var pos int
	st.RawQueryRow(context.Background(), `SELECT position FROM positions WHERE run_id='t/ldct-iqa/baseline/seed-1' AND metric='score'`).Scan(&pos)
	if pos != 1 {
		t.Errorf("perfect ldct-iqa submission ranks %d, want 1", pos)
	}
	lines := readLines(t, filepath.Join(root, "results", "grades.jsonl"))
	if len(lines) != 2 {
		t.Fatalf("%d lines in grades.jsonl", len(lines))
	}
	// A second grade finds nothing new; a changed submission is graded again.
	if err := Grade(ctx, o); err != nil {
		t.Fatal(err)
	}
	if n := len(readLines(t, filepath.Join(root, "results", "grades.jsonl"))); n != 2 {
		t.Fatalf("grading twice appended %d lines", n-2)
	}
	if err := challengetest.MustOracle(t, c).Perfect(ctx, pub, priv, filepath.Join(bad, "submission")); err != nil {
		t.Fatal(err)
	}
	if err := Grade(ctx, o); err != nil {
		t.Fatal(err)
	}
	if n := len(readLines(t, filepath.Join(root, "results", "grades.jsonl"))); n != 3 {
		t.Fatalf("a changed submission was not regraded: %d lines", n)
	}
	// gradeOne on the good folder succeeds, on a missing challenge it names the problem.
	if err := GradeOne(ctx, o, "ldct-iqa", filepath.Join(good, "submission")); err != nil {
		t.Fatal(err)
	}
	if err := GradeOne(ctx, o, "nope", good); err == nil || !strings.Contains(err.Error(), "unknown challenge") {
		t.Errorf("gradeOne of an unknown challenge: %v", err)
	}
}

func readLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("bad JSON line: %v", err)
		}
		out = append(out, m)
	}
	return out
}

// Issue 19: with paper_public_folder the public folder holds what the
// paper's agents saw besides the data (the leaderboard except for
// ISLES'22, a grading description), and turning it on re-prepares.
func TestPaperPublicFolder(t *testing.T) {
	o := testBench(t)
	ctx := context.Background()
	if err := Prepare(ctx, o); err != nil {
		t.Fatal(err)
	}
	root := filepath.Dir(o.Config)
	pub := func(id, f string) string { return filepath.Join(root, "data", "synthetic", id, "public", f) }
	if _, err := os.Stat(pub("ldct-iqa", "leaderboard.csv")); err == nil {
		t.Fatal("a leaderboard without paper_public_folder")
	}
	b, _ := os.ReadFile(o.Config)
	text := strings.Replace(string(b), "[profile.demo]\n", "[profile.demo]\npaper_public_folder = true\n", 1)
	if err := os.WriteFile(o.Config, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Prepare(ctx, o); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"leaderboard.csv", "grading.md", "description.md"} {
		if _, err := os.Stat(pub("ldct-iqa", f)); err != nil {
			t.Errorf("ldct-iqa public/%s: %v", f, err)
		}
	}
	if _, err := os.Stat(pub("isles22", "leaderboard.csv")); err == nil {
		t.Error("isles22 got a leaderboard (the paper's folder had none)")
	}
	if _, err := os.Stat(pub("isles22", "grading.md")); err != nil {
		t.Errorf("isles22 grading.md: %v", err)
	}
	// Private answers stay out of the public folder.
	priv, _ := os.ReadFile(filepath.Join(root, "data", "synthetic", "ldct-iqa", "private", "test_labels.csv"))
	g, _ := os.ReadFile(pub("ldct-iqa", "grading.md"))
	if len(priv) > 0 && strings.Contains(string(g), strings.SplitN(string(priv), "\n", 3)[1]) {
		t.Error("grading.md quotes the private answers")
	}
}
