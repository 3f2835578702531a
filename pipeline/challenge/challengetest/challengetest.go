// Package challengetest is the conformance kit every challenge package runs
// in its tests: synthesize → prepare → grade perfect, sample, trivial and
// malformed submissions, and check the properties every challenge must have;
// ZipDir builds the archives of synthetic raw downloads.
package challengetest

import (
	"bytes"
	"context"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/fsutil"
)

// Prepared is a synthesized and prepared challenge in a temporary folder.
type Prepared struct {
	Challenge challenge.Challenge
	RawDir    string
	DataDir   string
}

// Public and Private are the prepared folders.
func (p *Prepared) Public() string  { return filepath.Join(p.DataDir, "public") }
func (p *Prepared) Private() string { return filepath.Join(p.DataDir, "private") }

// synthesizeLimit bounds one challenge's Synthesize in Prepare.
const synthesizeLimit = 15 * time.Second

// Prepare synthesizes the default (demo) size with seed and prepares into
// t.TempDir().
func Prepare(t testing.TB, c challenge.Challenge, seed int64) *Prepared {
	t.Helper()
	return PrepareSized(t, c, seed, challenge.SynthSize{})
}

// PrepareSized is Prepare at another synthetic size (tests and benchmarks
// that want realistic case counts: challenge.ParseSynthSize of REXMLE_SYNTH_CASES).
func PrepareSized(t testing.TB, c challenge.Challenge, seed int64, size challenge.SynthSize) *Prepared {
	t.Helper()
	ctx := context.Background()
	root := t.TempDir()
	p := &Prepared{Challenge: c, RawDir: filepath.Join(root, "raw"), DataDir: filepath.Join(root, "data")}
	start := time.Now()
	if err := c.Synthesize(ctx, p.RawDir, seed, size); err != nil {
		t.Fatalf("%s: synthesize: %v", c.ID(), err)
	}
	// The demo synthesizes every challenge: a pathological slowdown fails
	// here. The bound is loose because packages test in parallel on a
	// loaded machine (about 1 s each when the machine is quiet).
	if d, limit := time.Since(start), synthesizeLimit; size.IsDefault() && d > limit {
		t.Errorf("%s: synthesize took %v, want under %v", c.ID(), d, limit)
	}
	if err := c.Prepare(ctx, p.RawDir, p.DataDir); err != nil {
		t.Fatalf("%s: prepare: %v", c.ID(), err)
	}
	return p
}

// Submit writes a submission with fn into a fresh folder and returns it.
func (p *Prepared) Submit(t testing.TB, name string, fn func(ctx context.Context, outDir string) error) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := fn(context.Background(), dir); err != nil {
		t.Fatalf("%s: write %s submission: %v", p.Challenge.ID(), name, err)
	}
	return dir
}

// Grade grades a submission folder in a mode and fails the test on error.
func (p *Prepared) Grade(t testing.TB, dir string, mode challenge.Mode) *challenge.Result {
	t.Helper()
	res, err := challenge.SafeGrade(context.Background(), p.Challenge, dir, p.Private(), mode)
	if err != nil {
		t.Fatalf("%s: grade %s (%s): %v", p.Challenge.ID(), filepath.Base(dir), mode, err)
	}
	return res
}

// Conformance runs the checks every challenge must pass:
//   - Synthesize is deterministic (same seed → byte-identical trees) and fast;
//   - Prepare writes public/sample_submission.csv and public/description.md,
//     a non-empty private folder, and no private file appears in public;
//   - the perfect, sample, baseline and trivial submissions are valid in both modes,
//     every metric card's value is present and finite (or the card says why not),
//     and the perfect submission is at least as good as the trivial one on
//     every ranked metric and strictly better on at least one.
func Conformance(t *testing.T, c challenge.Challenge) *Prepared {
	t.Helper()
	checkSynthesizeDeterministic(t, c)
	p := Prepare(t, c, 1)
	checkPrepared(t, p)

	o := MustOracle(t, c)
	perfect := p.Submit(t, "perfect", func(ctx context.Context, out string) error {
		return o.Perfect(ctx, p.Public(), p.Private(), out)
	})
	trivial := p.Submit(t, "trivial", func(ctx context.Context, out string) error { return o.Trivial(ctx, p.Public(), out) })
	sample := p.Submit(t, "sample", func(ctx context.Context, out string) error { return c.SampleSubmission(ctx, p.Public(), out) })
	var log bytes.Buffer
	baseline := p.Submit(t, "baseline", func(ctx context.Context, out string) error { return c.Baseline(ctx, p.Public(), out, &log) })
	if log.Len() == 0 {
		t.Error("baseline wrote no log lines")
	}

	cards := c.Metrics()
	if len(cards) == 0 {
		t.Fatal("no metric cards")
	}
	for _, card := range cards {
		if card.Card == "" || (card.Direction != challenge.HigherBetter && card.Direction != challenge.LowerBetter) {
			t.Errorf("metric card %q incomplete: %+v", card.Name, card)
		}
	}
	for _, mode := range []challenge.Mode{challenge.Reference, challenge.Official} {
		rp := p.Grade(t, perfect, mode)
		rt := p.Grade(t, trivial, mode)
		p.Grade(t, sample, mode)
		p.Grade(t, baseline, mode)
		checkPerfectBeatsTrivial(t, mode, cards, rp, rt)
	}
	return p
}

// checkSynthesizeDeterministic synthesizes twice with seed 7 and wants the
// same files.
func checkSynthesizeDeterministic(t *testing.T, c challenge.Challenge) {
	t.Helper()
	ctx := context.Background()
	a, b := t.TempDir(), t.TempDir()
	if err := c.Synthesize(ctx, a, 7, challenge.SynthSize{}); err != nil {
		t.Fatalf("synthesize: %v", err)
	}
	if err := c.Synthesize(ctx, b, 7, challenge.SynthSize{}); err != nil {
		t.Fatalf("synthesize: %v", err)
	}
	ha, err := challenge.HashTree(a)
	if err != nil {
		t.Fatal(err)
	}
	hb, _ := challenge.HashTree(b)
	if len(ha) == 0 {
		t.Fatal("synthesize wrote no files")
	}
	for k, v := range ha {
		if hb[k] != v {
			t.Errorf("synthesize is not deterministic: %s differs between two runs with seed 7", k)
		}
	}
	if len(ha) != len(hb) {
		t.Errorf("synthesize is not deterministic: %d vs %d files", len(ha), len(hb))
	}
}

// CheckSynthesizeOnAnyCoreCount synthesizes at size (e.g. "full:10") with
// seed on 1 and then 4 cores and wants the same wantFiles files both times,
// each with its own content: a synthesizer that draws its cases on every
// core must give each case its own draws, in an order no core count changes.
func CheckSynthesizeOnAnyCoreCount(t *testing.T, c challenge.Challenge, size string, seed int64, wantFiles int) {
	t.Helper()
	sz, err := challenge.ParseSynthSize(size)
	if err != nil {
		t.Fatal(err)
	}
	var trees []map[string]string
	for _, procs := range []int{1, 4} {
		old := runtime.GOMAXPROCS(procs)
		dir := t.TempDir()
		err := c.Synthesize(context.Background(), dir, seed, sz)
		runtime.GOMAXPROCS(old)
		if err != nil {
			t.Fatalf("synthesize on %d cores: %v", procs, err)
		}
		h, err := challenge.HashTree(dir)
		if err != nil {
			t.Fatal(err)
		}
		trees = append(trees, h)
	}
	if len(trees[0]) != wantFiles || len(trees[1]) != wantFiles {
		t.Fatalf("synthesize at %s: %d and %d files, want %d", size, len(trees[0]), len(trees[1]), wantFiles)
	}
	distinct := map[string]bool{}
	for k, h := range trees[0] {
		if trees[1][k] != h {
			t.Errorf("%s differs between 1 and 4 cores", k)
		}
		distinct[h] = true
	}
	if len(distinct) != wantFiles {
		t.Errorf("%d distinct files of %d: each case must get its own draws", len(distinct), wantFiles)
	}
}

// checkPrepared wants the public files an agent needs, a private folder,
// and no public file with the content of a private one (description.md
// aside).
func checkPrepared(t *testing.T, p *Prepared) {
	t.Helper()
	for _, f := range []string{"sample_submission.csv", "description.md"} {
		if _, err := os.Stat(filepath.Join(p.Public(), f)); err != nil {
			t.Errorf("public/%s missing: %v", f, err)
		}
	}
	priv, err := challenge.HashTree(p.Private())
	if err != nil || len(priv) == 0 {
		t.Fatalf("private folder empty or unreadable: %v", err)
	}
	pub, _ := challenge.HashTree(p.Public())
	privHashes := map[string]string{}
	for k, v := range priv {
		privHashes[v] = k
	}
	for k, v := range pub {
		if pk, ok := privHashes[v]; ok && !strings.HasSuffix(k, "description.md") {
			t.Errorf("public/%s has the same content as private/%s: answers leak to the agent", k, pk)
		}
	}
}

// checkPerfectBeatsTrivial wants every metric in both results, the perfect
// submission (rp) no worse than the trivial one (rt) on every ranked
// metric, and better on one at least.
func checkPerfectBeatsTrivial(t *testing.T, mode challenge.Mode, cards []challenge.MetricCard, rp, rt *challenge.Result) {
	t.Helper()
	better := 0
	for _, card := range cards {
		vp, okp := rp.Values[card.Name]
		vt, okt := rt.Values[card.Name]
		if !okp || !okt {
			t.Errorf("%s: metric %q missing from the result", mode, card.Name)
			continue
		}
		if !card.Ranked || math.IsNaN(vp) || math.IsNaN(vt) {
			continue
		}
		worse := vp < vt
		if card.Direction == challenge.LowerBetter {
			worse = vp > vt
		}
		if worse {
			t.Errorf("%s: perfect %s = %v is worse than trivial %v", mode, card.Name, vp, vt)
		}
		if vp != vt {
			better++
		}
	}
	if better == 0 {
		t.Errorf("%s: perfect and trivial submissions score the same on every ranked metric", mode)
	}
}

// Malformed is one broken submission: Break mutates a copy of a valid
// submission folder; the grader must answer with an *InvalidSubmission whose
// message contains Want (case-insensitive).
type Malformed struct {
	Name  string
	Break func(t testing.TB, dir string)
	Want  string
}

// CheckMalformed copies the valid submission in validDir for each case,
// breaks it and checks the grader rejects it cleanly (no panic, an
// *InvalidSubmission, the expected words in the message).
func CheckMalformed(t *testing.T, p *Prepared, validDir string, cases []Malformed) {
	t.Helper()
	if len(cases) < 8 {
		t.Errorf("malformed corpus has %d cases, want at least 8", len(cases))
	}
	for _, mc := range cases {
		t.Run(mc.Name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "sub")
			CopyDir(t, validDir, dir)
			mc.Break(t, dir)
			for _, mode := range []challenge.Mode{challenge.Reference, challenge.Official} {
				_, err := challenge.SafeGrade(context.Background(), p.Challenge, dir, p.Private(), mode)
				if err == nil {
					t.Fatalf("%s: grader accepted a broken submission", mode)
				}
				if !challenge.IsInvalid(err) {
					t.Fatalf("%s: error is not an InvalidSubmission: %v", mode, err)
				}
				if mc.Want != "" && !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(mc.Want)) {
					t.Errorf("%s: message %q does not mention %q", mode, err, mc.Want)
				}
			}
		})
	}
}

// CopyDir copies a folder tree (regular files and folders only).
func CopyDir(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		return fsutil.CopyFile(p, target)
	})
	if err != nil {
		t.Fatalf("copy %s: %v", src, err)
	}
}

// EditCSV rewrites a CSV file in a submission folder through fn, which gets
// and returns the header and rows.
func EditCSV(t testing.TB, path string, fn func(header []string, rows [][]string) ([]string, [][]string)) {
	t.Helper()
	tab, err := challenge.ReadCSV(path)
	if err != nil {
		t.Fatal(err)
	}
	h, rows := fn(tab.Header, tab.Rows)
	if err := challenge.WriteCSV(path, h, rows); err != nil {
		t.Fatal(err)
	}
}

// Common malformed cases that apply to any challenge whose submission is a
// submission.csv (with optional prediction files).

// MissingCSV deletes submission.csv.
func MissingCSV() Malformed {
	return Malformed{Name: "missing-csv", Want: "submission.csv", Break: func(t testing.TB, dir string) {
		if err := os.Remove(filepath.Join(dir, "submission.csv")); err != nil {
			t.Fatal(err)
		}
	}}
}

// DropRow removes the last data row of submission.csv.
func DropRow() Malformed {
	return Malformed{Name: "missing-row", Want: "missing", Break: func(t testing.TB, dir string) {
		EditCSV(t, filepath.Join(dir, "submission.csv"), func(h []string, r [][]string) ([]string, [][]string) { return h, r[:len(r)-1] })
	}}
}

// DuplicateRow repeats the first data row of submission.csv.
func DuplicateRow() Malformed {
	return Malformed{Name: "duplicate-row", Want: "duplicate", Break: func(t testing.TB, dir string) {
		EditCSV(t, filepath.Join(dir, "submission.csv"), func(h []string, r [][]string) ([]string, [][]string) {
			return h, append(r, append([]string{}, r[0]...))
		})
	}}
}

// RenameColumn renames column col of submission.csv.
func RenameColumn(col string) Malformed {
	return Malformed{Name: "wrong-column-" + col, Want: col, Break: func(t testing.TB, dir string) {
		EditCSV(t, filepath.Join(dir, "submission.csv"), func(h []string, r [][]string) ([]string, [][]string) {
			for i := range h {
				if h[i] == col {
					h[i] = col + "_renamed"
				}
			}
			return h, r
		})
	}}
}

// SetCell sets column col of the first data row to value.
func SetCell(name, col, value, want string) Malformed {
	return Malformed{Name: name, Want: want, Break: func(t testing.TB, dir string) {
		EditCSV(t, filepath.Join(dir, "submission.csv"), func(h []string, r [][]string) ([]string, [][]string) {
			for i := range h {
				if h[i] == col {
					r[0][i] = value
				}
			}
			return h, r
		})
	}}
}

// MustOracle returns c's test oracles (challenge.Oracle, an optional
// interface every registered challenge must implement for the conformance
// kit), failing the test when c has none.
func MustOracle(t testing.TB, c challenge.Challenge) challenge.Oracle {
	t.Helper()
	o, ok := c.(challenge.Oracle)
	if !ok {
		t.Fatalf("%s does not implement challenge.Oracle (Perfect, Trivial): the conformance kit needs them", c.ID())
	}
	return o
}
