package judge

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func labels(run string, id int, vals ...int) []Label {
	out := make([]Label, len(vals))
	for i, v := range vals {
		out[i] = Label{Run: run, Section: string(rune('a' + i)), StrategyID: id, Value: v}
	}
	return out
}

func TestAgreementKappa(t *testing.T) {
	cases := []struct {
		name           string
		a, b           []int
		n11, n10, n01  int
		n00            int
		agree, pe, kap float64
		defined        bool
	}{
		// n11=4 n10=2 n01=1 n00=3; Po=0.7; pA=0.6 pB=0.5; Pe=0.3+0.2=0.5; κ=0.2/0.5=0.4
		{"textbook", []int{1, 1, 0, 0, 1, 0, 1, 0, 1, 1}, []int{1, 0, 0, 0, 1, 1, 1, 0, 1, 0}, 4, 2, 1, 3, 0.7, 0.5, 0.4, true},
		// perfect agreement with both labels present: Po=1, Pe=0.5, κ=1
		{"perfect", []int{1, 0, 1, 0}, []int{1, 0, 1, 0}, 2, 0, 0, 2, 1, 0.5, 1, true},
		// complete disagreement, balanced: Po=0, pA=0.5, pB=0.5, Pe=0.5, κ=-1
		{"opposite", []int{1, 0}, []int{0, 1}, 0, 1, 1, 0, 0, 0.5, -1, true},
		// both constant 0: Pe=1, κ undefined (Po=1)
		{"both constant same", []int{0, 0, 0}, []int{0, 0, 0}, 0, 0, 0, 3, 1, 1, math.NaN(), false},
		{"both constant ones", []int{1, 1}, []int{1, 1}, 2, 0, 0, 0, 1, 1, math.NaN(), false},
		// constant at different values: Po=0, pA=1, pB=0, Pe=0, κ=0
		{"constant different", []int{1, 1}, []int{0, 0}, 0, 2, 0, 0, 0, 0, 0, true},
		// one rater constant: A all 1, B 1,0 → Po=0.5, pA=1, pB=0.5, Pe=0.5, κ=0
		{"one constant", []int{1, 1}, []int{1, 0}, 1, 1, 0, 0, 0.5, 0.5, 0, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rep := Agreement("A", labels("r", 3, c.a...), "B", labels("r", 3, c.b...))
			if len(rep.PerStrategy) != 1 {
				t.Fatalf("per strategy %d", len(rep.PerStrategy))
			}
			s := rep.PerStrategy[0]
			if s.N11 != c.n11 || s.N10 != c.n10 || s.N01 != c.n01 || s.N00 != c.n00 || s.N != len(c.a) {
				t.Errorf("counts %+v", s)
			}
			if math.Abs(s.Agreement-c.agree) > 1e-12 || math.Abs(s.Expected-c.pe) > 1e-12 {
				t.Errorf("Po %v Pe %v", s.Agreement, s.Expected)
			}
			if s.KappaDefined != c.defined {
				t.Fatalf("defined %v", s.KappaDefined)
			}
			if c.defined && math.Abs(s.Kappa-c.kap) > 1e-12 {
				t.Errorf("kappa %v want %v", s.Kappa, c.kap)
			}
			if !c.defined && !math.IsNaN(s.Kappa) {
				t.Errorf("undefined kappa reported as %v", s.Kappa)
			}
			if rep.Pooled.N != s.N {
				t.Errorf("pooled N %d", rep.Pooled.N)
			}
		})
	}
}

func TestAgreementPairingAndPooling(t *testing.T) {
	a := append(labels("r", 1, 1, 0), labels("r", 2, 1, 1)...)
	a = append(a, Label{"r", "z", 1, 1}) // no partner
	b := append(labels("r", 1, 1, 1), labels("r", 2, 1, 1)...)
	b = append(b, Label{"q", "a", 1, 0}, Label{"r", "a", 1, 0}) // unpaired; duplicate key (first wins)
	rep := Agreement("A", a, "B", b)
	if rep.OnlyA != 1 || rep.OnlyB != 1 {
		t.Errorf("unpaired %d %d", rep.OnlyA, rep.OnlyB)
	}
	// Strategy 2: both constant 1 → undefined; strategy 1: A(1,0) B(1,1) → Po .5, κ 0.
	if rep.PerStrategy[0].StrategyID != 1 || !rep.PerStrategy[0].KappaDefined || rep.PerStrategy[0].Kappa != 0 {
		t.Errorf("strategy 1 %+v", rep.PerStrategy[0])
	}
	if rep.PerStrategy[1].KappaDefined {
		t.Errorf("strategy 2 kappa defined")
	}
	// Pooled: n11=3 n01=1 → Po=.75, pA=.75, pB=1, Pe=.75, κ=0
	p := rep.Pooled
	if p.N != 4 || p.N11 != 3 || p.N01 != 1 || p.Agreement != 0.75 || p.Kappa != 0 {
		t.Errorf("pooled %+v", p)
	}
	var buf bytes.Buffer
	if err := PrintAgreement(&buf, rep, loadRepoRubric(t)); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"A vs B", "Analyzing and handling failure cases", "0.500", "undef (constant)", "(pooled)", "0.750"} {
		if !strings.Contains(out, want) {
			t.Errorf("printout lacks %q:\n%s", want, out)
		}
	}
	empty := Agreement("A", nil, "B", nil)
	buf.Reset()
	_ = PrintAgreement(&buf, empty, nil)
	if !strings.Contains(buf.String(), "n/a") || empty.Pooled.KappaDefined {
		t.Errorf("empty: %s", buf.String())
	}
}

func TestReadLabelsCSV(t *testing.T) {
	dir := t.TempDir()
	write := func(s string) string {
		p := filepath.Join(dir, "labels.csv")
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	got, err := ReadLabelsCSV(write("run_id,section,strategy_id,label\nr1/c/a/seed-0,agent.jsonl#iter-1,3,1\nr1/c/a/seed-0,agent.jsonl#iter-2,3,0\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != (Label{"r1/c/a/seed-0", "agent.jsonl#iter-1", 3, 1}) || got[1].Value != 0 {
		t.Fatalf("got %+v", got)
	}
	for _, bad := range []struct{ src, want string }{
		{"run,section,strategy_id,label\n", "header"},
		{"run_id,section,strategy_id,label\nr,s,x,1\n", "line 2"},
		{"run_id,section,strategy_id,label\nr,s,1,yes\n", "not 0 or 1"},
		{"run_id,section,strategy_id,label\nr,s,1\n", "labels.csv"},
	} {
		if _, err := ReadLabelsCSV(write(bad.src)); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: error %v, want mention of %q", bad.src, err, bad.want)
		}
	}
	one := 1
	if l := LabelsFromScores([]ScoreRow{{RunKey: "k", Section: "s", StrategyID: 2, Score: &one}, {RunKey: "k", Section: "s", StrategyID: 3}}); len(l) != 1 || l[0].Value != 1 {
		t.Errorf("labels from scores %+v", l)
	}
}
