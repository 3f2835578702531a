package agentrecipe

import (
	"context"
	"encoding/base64"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/pipeline/judge"
	"github.com/rexmle/rexmle/pipeline/judge/judgetest"
	"github.com/rexmle/rexmle/pipeline/settings"
	"github.com/rexmle/rexmle/pipeline/stages"
)

// TestAIDEJournalsJudged puts the journal.json AIDE wrote in each recorded
// real run (the last one the recording keeps) where `mage judge` finds a
// paper-profile run, and runs the judge stage twice: with the heuristic
// judge and with the OpenAI judge against a scripted server. Every node of
// every journal must come out as one judged section (AIDE's review analysis,
// the text the paper's judge read), none skipped.
func TestAIDEJournalsJudged(t *testing.T) {
	paths := aideRecordings(t)
	root := journeyCheckout(t)
	wantSections, runs := 0, 0
	distinct := map[string]bool{} // the judge asks once per distinct text
	for _, p := range paths {
		rec, err := readRecording(p)
		if err != nil {
			t.Fatal(err)
		}
		journal := lastJournal(t, rec)
		var j struct {
			Nodes []json.RawMessage `json:"nodes"`
		}
		if err := json.Unmarshal(journal, &j); err != nil || len(j.Nodes) == 0 {
			t.Fatalf("%s: journal.json with %d nodes: %v", p, len(j.Nodes), err)
		}
		name := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), "aide-"), ".json")
		seed := filepath.Join(root, "results", "runs", "paper", name, "aide", "seed-1")
		logs := filepath.Join(seed, "logs", "aide")
		os.MkdirAll(logs, 0o755)
		os.WriteFile(filepath.Join(logs, "journal.json"), journal, 0o644)
		backend := "gpt-5"
		if strings.Contains(rec.RecordedWith, "claude-sonnet-4.5") {
			backend = "claude-sonnet-4.5"
		}
		os.WriteFile(filepath.Join(seed, "run.json"), []byte(`{"group": "paper", "backend": "`+backend+`", "status": "done"}`), 0o644)
		secs, err := judge.ReadLogDir(filepath.Join(seed, "logs"), "aide", judge.IngestOptions{MaxChars: 15000})
		if err != nil {
			t.Fatal(err)
		}
		if len(secs) != len(j.Nodes) {
			t.Errorf("%s: %d journal nodes, %d sections found", name, len(j.Nodes), len(secs))
		}
		for _, sec := range secs {
			distinct[sec.Text] = true
		}
		t.Logf("%s: %d journal nodes, %d sections", name, len(j.Nodes), len(secs))
		wantSections += len(j.Nodes)
		runs++
	}
	cfgPath := filepath.Join(root, "benchmark.toml")
	base, _ := os.ReadFile(cfgPath)
	o := stages.Options{Config: cfgPath, Profile: "paper"}
	ctx := context.Background()

	// the heuristic judge: the paper profile with judge = "heuristic"
	heur := strings.Replace(string(base), "[profile.paper]\n", "[profile.paper]\njudge = \"heuristic\"\n", 1)
	heur = removeFirstAfter(heur, "[profile.paper]\njudge = \"heuristic\"\n", "judge = \"openai\"\n")
	os.WriteFile(cfgPath, []byte(heur), 0o644)
	if err := stages.Judge(ctx, o); err != nil {
		t.Fatalf("judge (heuristic): %v", err)
	}
	checkCapabilities(t, root, "heuristic", wantSections, runs)

	// the OpenAI judge, against a scripted endpoint
	rub, err := judge.LoadRubric(filepath.Join(root, "rubrics", "winning-strategies.toml"))
	if err != nil {
		t.Fatal(err)
	}
	srv := judgetest.New(func(req judgetest.Request) judgetest.Reply {
		return judgetest.Reply{Content: judgetest.AnswerAll(rub.IDs(), func(id int) int { return id % 2 }), PromptTokens: 10, CompletionTokens: 5}
	})
	defer srv.Close()
	o.Host = settings.NewEnviron([]string{"OPENAI_API_KEY=judge-key"}) // as settings.Load captures it
	oa := strings.Replace(string(base), "base_url = \"\"", "base_url = \""+srv.URL+"\"", 1)
	os.WriteFile(cfgPath, []byte(oa), 0o644)
	if err := stages.Judge(ctx, o); err != nil {
		t.Fatalf("judge (openai): %v", err)
	}
	if srv.Calls() != len(distinct) {
		t.Errorf("the OpenAI judge was asked %d times for %d distinct sections", srv.Calls(), len(distinct))
	}
	checkCapabilities(t, root, "llm", wantSections, runs)
}

// lastJournal is the content of the last journal.json write the recording keeps.
func lastJournal(t *testing.T, rec *recording) []byte {
	t.Helper()
	var b []byte
	for _, e := range rec.Events {
		if e.Kind == "fs" && e.Op == "write" && strings.HasSuffix(e.Path, "/journal.json") {
			if enc, ok := rec.Blobs[e.SHA256]; ok {
				d, err := base64.StdEncoding.DecodeString(enc)
				if err != nil {
					t.Fatal(err)
				}
				b = d
			}
		}
	}
	if b == nil {
		t.Fatal("the recording keeps no journal.json")
	}
	return b
}

func removeFirstAfter(s, after, what string) string {
	i := strings.Index(s, after)
	if i < 0 {
		return s
	}
	j := strings.Index(s[i+len(after):], what)
	if j < 0 {
		return s
	}
	k := i + len(after) + j
	return s[:k] + s[k+len(what):]
}

// checkCapabilities reads results/capabilities.csv: AIDE's rows (one per
// backend and strategy) must count, per strategy, every section of every
// run and none missing.
func checkCapabilities(t *testing.T, root, kind string, sections, runs int) {
	t.Helper()
	f, err := os.Open(filepath.Join(root, "results", "capabilities.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) < 2 {
		t.Fatalf("capabilities.csv: %v (%d rows)", err, len(rows))
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	secs, nruns := map[string]int{}, map[string]int{}
	for _, r := range rows[1:] {
		if r[col["agent"]] != "aide" || r[col["judge_kind"]] != kind {
			continue
		}
		id := r[col["strategy_id"]]
		n, _ := strconv.Atoi(r[col["n_sections"]])
		k, _ := strconv.Atoi(r[col["n_runs"]])
		secs[id] += n
		nruns[id] += k
		if r[col["n_missing"]] != "0" {
			t.Errorf("%s judge, %s, strategy %s: n_missing %s", kind, r[col["backend"]], id, r[col["n_missing"]])
		}
	}
	if len(secs) == 0 {
		t.Errorf("capabilities.csv has no AIDE row of the %s judge", kind)
	}
	for id := range secs {
		if secs[id] != sections || nruns[id] != runs {
			t.Errorf("%s judge, strategy %s: %d sections of %d runs, want %d of %d", kind, id, secs[id], nruns[id], sections, runs)
		}
	}
	t.Logf("%s judge: %d strategies, each over %d sections of %d AIDE runs", kind, len(secs), sections, runs)
}
