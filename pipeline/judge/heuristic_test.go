package judge

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func fixtureSection(t *testing.T, name string) Section {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "heuristic", name))
	if err != nil {
		t.Fatal(err)
	}
	return Section{Label: name, Text: string(b)}
}

func scoreOf(sc SectionScore, id int) (StrategyScore, bool) {
	for _, s := range sc.Scores {
		if s.ID == id {
			return s, true
		}
	}
	return StrategyScore{}, false
}

func TestHeuristicFixtures(t *testing.T) {
	r := loadRepoRubric(t)
	h := NewHeuristic()
	ctx := context.Background()
	neg, err := h.Score(ctx, fixtureSection(t, "negative.txt"), r)
	if err != nil {
		t.Fatal(err)
	}
	if neg.Status != StatusOK || len(neg.Scores) != 13 || len(neg.Missing) != 0 {
		t.Fatalf("negative: status %s, %d scores, missing %v", neg.Status, len(neg.Scores), neg.Missing)
	}
	for _, s := range neg.Scores {
		if s.Score != 0 {
			t.Errorf("generic log scored strategy %d: %s", s.ID, s.Evidence)
		}
	}
	for id := 1; id <= 13; id++ {
		pos, _ := h.Score(ctx, fixtureSection(t, fmt.Sprintf("s%02d.txt", id)), r)
		if s, _ := scoreOf(pos, id); s.Score != 1 {
			t.Errorf("s%02d.txt: strategy %d not found", id, id)
		} else if !strings.HasPrefix(s.Evidence, "pattern ") {
			t.Errorf("s%02d.txt: evidence %q", id, s.Evidence)
		}
		near, _ := h.Score(ctx, fixtureSection(t, fmt.Sprintf("n%02d.txt", id)), r)
		if s, _ := scoreOf(near, id); s.Score != 0 {
			t.Errorf("n%02d.txt (near miss): strategy %d scored 1: %s", id, id, s.Evidence)
		}
	}
	if h.Kind() != KindHeuristic || h.Name() != HeuristicName {
		t.Errorf("labels %s %s", h.Kind(), h.Name())
	}
}

func TestHeuristicDeterministicSnippet(t *testing.T) {
	r := loadRepoRubric(t)
	sec := Section{Label: "x", Text: strings.Repeat("a", 100) + " ran an optuna study " + strings.Repeat("b", 100)}
	a, _ := NewHeuristic().Score(context.Background(), sec, r)
	b, _ := NewHeuristic().Score(context.Background(), sec, r)
	sa, _ := scoreOf(a, 13)
	sb, _ := scoreOf(b, 13)
	if sa.Evidence != sb.Evidence || sa.Score != 1 {
		t.Fatalf("not deterministic: %q vs %q", sa.Evidence, sb.Evidence)
	}
	// 60 characters of context each side of "optuna": 52 a + " ran an " before,
	// " study " + 53 b after; cut marks at both ends.
	want := "pattern 0: …" + strings.Repeat("a", 52) + " ran an optuna study " + strings.Repeat("b", 53) + "…"
	if sa.Evidence != want {
		t.Fatalf("snippet\n got %q\nwant %q", sa.Evidence, want)
	}
}

func TestHeuristicCancelled(t *testing.T) {
	r := loadRepoRubric(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	sc, err := NewHeuristic().Score(ctx, Section{Text: "optuna"}, r)
	if err == nil || sc.Status != StatusError || len(sc.Missing) != 13 {
		t.Fatalf("cancelled: err %v status %s missing %v", err, sc.Status, sc.Missing)
	}
}

// The prefilter must never hide a match: on every fixture text (and case
// variants of it), a pattern that matches always passes its prefilter.
func TestPrefilterNeverHidesAMatch(t *testing.T) {
	r := loadRepoRubric(t)
	files, _ := filepath.Glob(filepath.Join("testdata", "heuristic", "*.txt"))
	var texts []string
	for _, f := range files {
		b, _ := os.ReadFile(f)
		texts = append(texts, string(b), strings.ToUpper(string(b)), strings.ToLower(string(b)))
	}
	texts = append(texts, "OPTUNA", "ſegresnet ſtudy", "K-fold KFold", "")
	matched := 0
	for _, text := range texts {
		folded := foldString(text)
		for _, s := range r.Strategies {
			for k, re := range s.compiled {
				if re.MatchString(text) {
					matched++
					if !mayMatch(folded, s.prefilter[k]) {
						t.Errorf("strategy %d pattern %d matches %q but its prefilter %q says no", s.ID, k, text, s.prefilter[k])
					}
				}
			}
		}
	}
	if matched < 39 {
		t.Errorf("only %d matches: the property is not exercised", matched)
	}
}

func TestRequiredLiterals(t *testing.T) {
	cases := []struct {
		pattern string
		want    []string // unfolded; compared after folding
	}{
		{`(?i)\boptuna\b`, []string{"optuna"}},
		{`(?i)\b(grid|random)[ _-]search\b`, []string{"grid", "random"}},
		{`(?i)\bn4[ _-]?(bias|itk)|\bbias[ _-]field\b`, []string{"n4", "bias"}},
		{`(?i)(soft)?dice`, nil}, // optional start: no requirement
		{`(?i).*dice`, nil},
	}
	for _, c := range cases {
		got := requiredLiterals(c.pattern)
		if len(got) != len(c.want) {
			t.Errorf("%s: got %q want %q", c.pattern, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != foldString(c.want[i]) {
				t.Errorf("%s: got %q want %q", c.pattern, got, c.want)
			}
		}
	}
}

func TestHeuristicSpecificPhrases(t *testing.T) {
	r := loadRepoRubric(t)
	cases := []struct {
		text string
		id   int
		want int
	}{
		{"Trained a UNet++ with an EfficientNet encoder.", 2, 1},
		{"Backbone: Swin Transformer (tiny).", 2, 1},
		{"A plain U-Net for the lesion masks.", 2, 1},
		{"Switched to UNETR.", 2, 1},
		{"A gradient-boosting model on radiomics features.", 2, 0},
		{"for t in range(10): print(t)", 3, 0},
		{"for thr in np.linspace(0.1, 0.9, 9): evaluate(thr)", 3, 1},
		{"retrained the model", 13, 0},
	}
	for _, c := range cases {
		sc, _ := NewHeuristic().Score(context.Background(), Section{Text: c.text}, r)
		if s, _ := scoreOf(sc, c.id); s.Score != c.want {
			t.Errorf("%q: strategy %d scored %d, want %d (%s)", c.text, c.id, s.Score, c.want, s.Evidence)
		}
	}
}

// findMatch must return exactly what a plain regexp search returns, for
// every rubric pattern, on shuffled, case-mangled fixture text with
// case-folding look-alikes (ſ = s, Kelvin sign = k) and glued words.
func TestFindMatchEqualsFullScan(t *testing.T) {
	r := loadRepoRubric(t)
	files, _ := filepath.Glob(filepath.Join("testdata", "heuristic", "*.txt"))
	var lines []string
	for _, f := range files {
		b, _ := os.ReadFile(f)
		lines = append(lines, strings.Split(string(b), "\n")...)
	}
	lines = append(lines, "uses optuna", "apply TTA", "nnU-Net", "hounsfield", "optunas", "retrain the model", "re-run: optuna\tstudy", "ſegreſnet and \u212Afold", "pretrained =\nTrue", "")
	rng := rand.New(rand.NewSource(1))
	compared, found := 0, 0
	for iter := 0; iter < 150; iter++ {
		n := 1 + rng.Intn(12)
		parts := make([]string, n)
		for i := range parts {
			l := lines[rng.Intn(len(lines))]
			switch rng.Intn(4) {
			case 0:
				l = strings.ToUpper(l)
			case 1:
				l = "x" + l // glue a word character in front
			}
			parts[i] = l
		}
		sep := []string{"\n", " ", "\n\n", "\r\n"}[rng.Intn(4)]
		text := strings.Join(parts, sep)
		folded := foldString(text)
		li := newLineIndex(text, folded)
		for _, s := range r.Strategies {
			for k, re := range s.compiled {
				want := re.FindStringIndex(text)
				got := findMatch(re, text, folded, li, s.prefilter[k], s.local[k])
				compared++
				if want != nil {
					found++
				}
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("strategy %d pattern %d on %q: got %v want %v", s.ID, k, text, got, want)
				}
			}
		}
	}
	if found < 200 {
		t.Errorf("only %d of %d searches matched: property barely exercised", found, compared)
	}
}
