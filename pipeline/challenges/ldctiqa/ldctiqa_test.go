package ldctiqa

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenge/challengetest"
)

func TestConformance(t *testing.T) {
	p := challengetest.Conformance(t, Challenge{})
	perfect := p.Submit(t, "perfect", func(ctx context.Context, out string) error {
		return Challenge{}.Perfect(ctx, p.Public(), p.Private(), out)
	})
	res := p.Grade(t, perfect, challenge.Reference)
	if res.Values["score"] != 3 || res.Values["plcc"] != 1 {
		t.Errorf("perfect submission: %v, want score 3", res.Values)
	}
	sample := p.Submit(t, "sample", func(ctx context.Context, out string) error {
		return Challenge{}.SampleSubmission(ctx, p.Public(), out)
	})
	if rs := p.Grade(t, sample, challenge.Reference); !math.IsNaN(rs.Values["score"]) || len(rs.Notes) == 0 {
		t.Errorf("sample (all 0.0) submission: %v %v, want NaN with a note (spec L4)", rs.Values, rs.Notes)
	}

	challengetest.CheckMalformed(t, p, perfect, []challengetest.Malformed{
		challengetest.MissingCSV(),
		challengetest.DropRow(),
		challengetest.DuplicateRow(),
		challengetest.RenameColumn(colID),
		challengetest.RenameColumn(colScore),
		challengetest.SetCell("nan-score", colScore, "nan", "finite"),
		challengetest.SetCell("inf-score", colScore, "inf", "finite"),
		challengetest.SetCell("text-score", colScore, "good", "not a number"),
		challengetest.SetCell("text-id", colID, "abc", "integer"),
		{Name: "merge-suffix-column", Want: "clashes", Break: func(t testing.TB, dir string) {
			challengetest.EditCSV(t, filepath.Join(dir, submissionFile), func(h []string, r [][]string) ([]string, [][]string) {
				for i := range r {
					r[i] = append(r[i], "0")
				}
				return append(h, colScore+"_pred"), r
			})
		}},
		{Name: "symlink-out", Want: "leaves", Break: func(t testing.TB, dir string) {
			outside := filepath.Join(t.TempDir(), "x.csv")
			os.WriteFile(outside, []byte("image_id,quality_score\n"), 0o644)
			os.Remove(filepath.Join(dir, submissionFile))
			if err := os.Symlink(outside, filepath.Join(dir, submissionFile)); err != nil {
				t.Skip(err)
			}
		}},
	})
}

// writeCase writes answers and a submission for the spec's vectors.
func writeCase(t *testing.T, ids []string, truth []string, subIDs []string, pred []string) (sub, priv string) {
	t.Helper()
	sub, priv = t.TempDir(), t.TempDir()
	rows := make([][]string, len(ids))
	for i := range ids {
		rows[i] = []string{ids[i], truth[i]}
	}
	if err := challenge.WriteCSV(filepath.Join(priv, "test_labels.csv"), []string{colID, colScore}, rows); err != nil {
		t.Fatal(err)
	}
	rows = make([][]string, len(subIDs))
	for i := range subIDs {
		rows[i] = []string{subIDs[i], pred[i]}
	}
	if err := challenge.WriteCSV(filepath.Join(sub, submissionFile), []string{colID, colScore}, rows); err != nil {
		t.Fatal(err)
	}
	return sub, priv
}

// TestMergeLikePandas: the reference's only check is that the inner merge
// has one pair per test row, so a duplicated id makes up for a missing one
// and is scored twice; the result equals that of the same pairs under
// distinct ids. Missing values (empty, NA) in extra rows keep an integer
// id column numeric, and blanks around numbers are ignored.
func TestMergeLikePandas(t *testing.T) {
	ids := []string{"a", "b", "c", "d", "e"}
	sub, priv := writeCase(t, ids, []string{"2", "1", "4", "3", "5"}, []string{"a", "b", "d", "c", "d"}, []string{"1", "2", "4", "3", "6"})
	got, err := Challenge{}.Grade(context.Background(), sub, priv, challenge.Reference)
	if err != nil {
		t.Fatalf("duplicate d making up for missing e: %v", err)
	}
	// The merge's pairs: a (1, 2), b (2, 1), c (3, 4), d (4, 3), d (6, 3).
	sub, priv = writeCase(t, ids, []string{"2", "1", "4", "3", "3"}, ids, []string{"1", "2", "3", "4", "6"})
	want, err := Challenge{}.Grade(context.Background(), sub, priv, challenge.Reference)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"plcc", "srocc", "krocc", "score"} {
		if got.Values[m] != want.Values[m] {
			t.Errorf("%s = %v, want %v (the same pairs under distinct ids)", m, got.Values[m], want.Values[m])
		}
	}
	if len(got.Cases) != 5 || got.Cases[3].ID == got.Cases[4].ID || len(got.Notes) == 0 {
		t.Errorf("cases %v, notes %q: want five distinct case ids and a note", got.Cases, got.Notes)
	}
	if _, err := (Challenge{}).Grade(context.Background(), sub, priv, challenge.Official); err != nil {
		t.Errorf("official, distinct ids: %v", err)
	}
	sub, priv = writeCase(t, ids, []string{"2", "1", "4", "3", "5"}, []string{"a", "b", "d", "c", "d"}, []string{"1", "2", "4", "3", "6"})
	if _, err := (Challenge{}).Grade(context.Background(), sub, priv, challenge.Official); !challenge.IsInvalid(err) {
		t.Errorf("official, duplicate and missing: err = %v, want invalid", err)
	}

	sub, priv = writeCase(t, []string{"7", "8", "9"}, []string{"1", "2", "3"}, []string{" 7", "8 ", "9", "", "NA", "null"}, []string{"1", "2", "3", "4", "5", "6"})
	res, err := Challenge{}.Grade(context.Background(), sub, priv, challenge.Reference)
	if err != nil || len(res.Cases) != 3 || res.Values["krocc"] != 1 {
		t.Errorf("numeric ids with blanks and missing extra ids: %v, %v; want three pairs, krocc 1", res, err)
	}
}

// Spec §7 L1–L4 and the validity rules.
func TestSpecVectors(t *testing.T) {
	ids := []string{"a", "b", "c", "d", "e"}
	cases := []struct {
		name               string
		ids, truth         []string
		subIDs, pred       []string
		plcc, srocc, krocc float64
	}{
		{"L1", ids, []string{"2", "1", "4", "3", "5"}, ids, []string{"1", "2", "3", "4", "5"}, 0.8, 0.8, 0.6},
		{"L2", ids[:4], []string{"1", "2", "3", "3"}, ids[:4], []string{"1", "1", "2", "3"}, 9.0 / 11, 8.0 / 9, 0.8},
		{"L3", ids, []string{"1", "2", "3", "4", "5"}, ids, []string{"5", "4", "3", "2", "1"}, 1, 1, 1},
		{"L4", ids[:3], []string{"1", "2", "3"}, ids[:3], []string{"0", "0", "0"}, math.NaN(), math.NaN(), math.NaN()},
		// Extra id ignored; submission rows in another order; numeric ids with
		// leading zeros match numerically as pandas parses them.
		{"extra-id", []string{"7", "8", "9"}, []string{"1", "2", "3"}, []string{"0009", "8", "10", "0007"}, []string{"3", "2", "9", "1"}, 1, 1, 1},
		// Float-formatted ids (issue 15.3): pandas reads them as float64 and
		// merges them with the int64 test ids by value (7.0 == 7); 7.5
		// matches nothing. The values are L1's.
		{"float-ids", []string{"7", "8", "9", "10", "11"}, []string{"2", "1", "4", "3", "5"},
			[]string{"7.0", "8.0", "9.0", "1e1", "11.0", "7.5"}, []string{"1", "2", "3", "4", "5", "0"}, 0.8, 0.8, 0.6},
	}
	for _, c := range cases {
		sub, priv := writeCase(t, c.ids, c.truth, c.subIDs, c.pred)
		res, err := Challenge{}.Grade(context.Background(), sub, priv, challenge.Reference)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		check := func(name string, got, want float64) {
			if math.IsNaN(want) != math.IsNaN(got) || (!math.IsNaN(want) && math.Abs(got-want) > 1e-12) {
				t.Errorf("%s: %s = %v, want %v", c.name, name, got, want)
			}
		}
		check("plcc", res.Values["plcc"], c.plcc)
		check("srocc", res.Values["srocc"], c.srocc)
		check("krocc", res.Values["krocc"], c.krocc)
		check("score", res.Values["score"], c.plcc+c.srocc+c.krocc)
	}
	// L2 score 2.5070707 (spec).
	sub, priv := writeCase(t, ids[:4], []string{"1", "2", "3", "3"}, ids[:4], []string{"1", "1", "2", "3"})
	res, _ := Challenge{}.Grade(context.Background(), sub, priv, challenge.Official)
	if got := res.Rounded()["score"]; got != 2.50707 {
		t.Errorf("L2 rounded score %v, want 2.50707", got)
	}

	invalid := []struct {
		name   string
		subIDs []string
	}{
		{"missing", []string{"a", "b"}},
		{"duplicate", []string{"a", "a", "b", "c"}},
		{"numeric-vs-text", []string{"1", "2", "3"}},
		// pandas keeps the blanks of a text id: " a" is not "a".
		{"blank-in-text-id", []string{" a", "b", "c"}},
	}
	for _, c := range invalid {
		pred := make([]string, len(c.subIDs))
		for i := range pred {
			pred[i] = "1"
		}
		sub, priv := writeCase(t, []string{"a", "b", "c"}, []string{"1", "2", "3"}, c.subIDs, pred)
		if _, err := (Challenge{}).Grade(context.Background(), sub, priv, challenge.Reference); !challenge.IsInvalid(err) {
			t.Errorf("%s: err = %v, want invalid", c.name, err)
		}
	}
}

func BenchmarkGrade(b *testing.B) {
	p := challengetest.Prepare(b, Challenge{}, 1)
	dir := p.Submit(b, "perfect", func(ctx context.Context, out string) error {
		return Challenge{}.Perfect(ctx, p.Public(), p.Private(), out)
	})
	challengetest.KeepCopy(b, p.Private(), dir)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := (Challenge{}).Grade(context.Background(), dir, p.Private(), challenge.Reference); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGrade300 grades a test split of the challenge's real size (300
// test slices, numeric ids as the real file names are) with predictions
// that correlate with the truth; bench/graders.sh times the reference
// grader on the same files.
func BenchmarkGrade300(b *testing.B) {
	priv, sub := challengetest.BenchDirs(b)
	r := rand.New(rand.NewPCG(3, 300))
	var labels, rows [][]string
	for i := 0; i < 300; i++ {
		id := fmt.Sprintf("%04d", i)
		truth := math.Round(r.Float64()*4*10) / 10 // radiologists' mean score, 0–4 in tenths
		pred := truth + 0.4*r.NormFloat64()
		labels = append(labels, []string{id, strconv.FormatFloat(truth, 'f', -1, 64)})
		rows = append(rows, []string{id, strconv.FormatFloat(pred, 'g', 17, 64)})
	}
	r.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
	if err := challenge.WriteCSV(filepath.Join(priv, "test_labels.csv"), []string{colID, colScore}, labels); err != nil {
		b.Fatal(err)
	}
	if err := challenge.WriteCSV(filepath.Join(sub, submissionFile), []string{colID, colScore}, rows); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := (Challenge{}).Grade(context.Background(), sub, priv, challenge.Reference)
		if err != nil {
			b.Fatal(err)
		}
		if i == 0 {
			b.ReportMetric(res.Values["plcc"], "plcc")
		}
	}
}

// Property: the id parser and canonical form agree with strconv on random
// integer-like text (signs, leading zeros, overflow, junk).
func TestIntegerIDsMatchStrconv(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	alphabet := "0123456789+- x._"
	for trial := 0; trial < 200000; trial++ {
		var b strings.Builder
		if r.IntN(4) == 0 {
			b.WriteString([]string{"9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809", "18446744073709551616", "000", "-0", "+0"}[r.IntN(8)])
		} else {
			for k := r.IntN(22); k > 0; k-- {
				c := alphabet[r.IntN(len(alphabet))]
				if r.IntN(3) > 0 {
					c = alphabet[r.IntN(10)]
				}
				b.WriteByte(c)
			}
		}
		s := b.String()
		want, err := strconv.ParseInt(s, 10, 64)
		got, ok := parseDecimalInt(s)
		if ok != (err == nil) || ok && got != want {
			t.Fatalf("%q: parseDecimalInt = %d, %v; strconv %d, %v", s, got, ok, want, err)
		}
		if ok {
			if c := canonicalInt(s); c != strconv.FormatInt(want, 10) {
				t.Fatalf("%q: canonical %q, want %q", s, c, strconv.FormatInt(want, 10))
			}
		}
	}
}
