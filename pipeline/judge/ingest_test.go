package judge

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTruncateText(t *testing.T) {
	digits := strings.Repeat("0123456789", 10) // 100 characters
	cases := []struct {
		name, text string
		max        int
		mode       Truncation
		want       string
		cut        bool
	}{
		{"head", "abcdef", 4, TruncateHead, "abcd", true},
		{"default is head", "abcdef", 4, "", "abcd", true},
		{"tail", "abcdef", 4, TruncateTail, "cdef", true},
		{"fits", "abcdef", 6, TruncateHead, "abcdef", false},
		{"no limit", "abcdef", 0, TruncateHead, "abcdef", false},
		{"runes not bytes", "äöüß", 2, TruncateHead, "äö", true},
		{"runes tail", "äöüß", 3, TruncateTail, "öüß", true},
		// marker "\n[... 83 characters omitted ...]\n" is 33 characters; 17 kept: 9 head + 8 tail.
		{"middle", digits, 50, TruncateMiddle, "012345678\n[... 83 characters omitted ...]\n23456789", true},
		{"middle too small falls back to head", digits, 5, TruncateMiddle, "01234", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, cut := truncateText(c.text, c.max, c.mode)
			if got != c.want || cut != c.cut {
				t.Fatalf("got %q,%v want %q,%v", got, cut, c.want, c.cut)
			}
			if c.max > 0 && len([]rune(got)) > c.max {
				t.Fatalf("result has %d characters > %d", len([]rune(got)), c.max)
			}
		})
	}
}

// truncateText is the whole-text truncation the streamed sections must
// equal: text cut to at most max characters (code points) using mode, max
// <= 0 meaning no limit; it returns the kept text and whether it cut.
func truncateText(text string, max int, mode Truncation) (string, bool) {
	n := utf8.RuneCountInString(text)
	if max <= 0 || n <= max {
		return text, false
	}
	r := []rune(text)
	return truncateParts(n, r, r, max, mode), true
}

// parseLog splits one log file's bytes into sections with the given
// reader, as ReadLogDir does for a file; name is the file's label prefix.
func parseLog(name string, format Format, data []byte, opts IngestOptions) ([]Section, error) {
	return parseStream(name, format, bytes.NewReader(data), opts)
}

type labelText struct{ Label, Text string }

func sectionsOf(s []Section) []labelText {
	out := make([]labelText, len(s))
	for i, x := range s {
		out[i] = labelText{x.Label, x.Text}
	}
	return out
}

func readFixture(t *testing.T, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "logs", rel))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseAgentJSONL(t *testing.T) {
	data := readFixture(t, "baseline/agent.jsonl")
	got, err := parseLog("agent.jsonl", FormatAgentJSONL, data, IngestOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []labelText{
		{"agent.jsonl#iter-0", "[step 0] NOTE\nstarting"},
		{"agent.jsonl#iter-1", "[step 1] PLAN\nTry a U-Net\n\n[step 3] EXEC\npython train.py\n\nEpoch 1 loss 0.5"},
		{"agent.jsonl#iter-2", "[step 4] PLAN\nAdd TTA\n\n[step 5] RESULT\ndice 0.6"},
	}
	if !reflect.DeepEqual(sectionsOf(got), want) {
		t.Fatalf("got %q\nwant %q", sectionsOf(got), want)
	}
	withCode, _ := parseLog("agent.jsonl", FormatAgentJSONL, data, IngestOptions{IncludeCode: true})
	if !strings.Contains(withCode[1].Text, "[step 2] CODE\nimport torch") || !strings.Contains(withCode[1].Text, "print(1)") {
		t.Fatalf("IncludeCode lost code: %q", withCode[1].Text)
	}
	// No plan steps: one section per step.
	flat := `{"step":7,"time":"t","kind":"exec","text":"a"}` + "\n" + `{"step":8,"time":"t","kind":"result","text":"b"}`
	got, _ = parseLog("f", FormatAgentJSONL, []byte(flat), IngestOptions{})
	if want := []labelText{{"f#step-7", "[step 7] EXEC\na"}, {"f#step-8", "[step 8] RESULT\nb"}}; !reflect.DeepEqual(sectionsOf(got), want) {
		t.Fatalf("flat: got %q", sectionsOf(got))
	}
	// Only bad lines: error naming the line.
	_, err = parseLog("f", FormatAgentJSONL, []byte("{\"step\":1,\"text\":\"x\"}\nnot json\n"), IngestOptions{})
	if err == nil || !strings.Contains(err.Error(), "line 1") || !strings.Contains(err.Error(), `no "kind"`) || !strings.Contains(err.Error(), "2 bad lines") {
		t.Fatalf("bad lines: %v", err)
	}
	// Unknown fields are ignored and unknown kinds kept under their own name
	// (the stand-in agent logs "task" and "validate" steps with no step
	// number); a bad line among good ones is skipped.
	mixed := `{"time":"t","kind":"task","text":"read the task","agent_version":"1.2","tokens":{"in":3}}` + "\n" +
		`garbage` + "\n" +
		`{"time":"t","kind":"validate","text":"submission valid","extra":[1,2]}`
	got, err = parseLog("f", FormatAgentJSONL, []byte(mixed), IngestOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []labelText{{"f#step-0", "[step 0] TASK\nread the task"}, {"f#step-1", "[step 1] VALIDATE\nsubmission valid"}}; !reflect.DeepEqual(sectionsOf(got), want) {
		t.Fatalf("unknown fields and kinds: got %q", sectionsOf(got))
	}
}

func TestParseAIDE(t *testing.T) {
	data := readFixture(t, "aide/journal.json")
	got, err := parseLog("journal.json", FormatAIDE, data, IngestOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []labelText{{"journal.json#node-0", "The model reached Dice 0.5.\n\nNext: try TTA."}}
	if !reflect.DeepEqual(sectionsOf(got), want) {
		t.Fatalf("got %q", sectionsOf(got))
	}
	full, _ := parseLog("journal.json", FormatAIDE, data, IngestOptions{AIDEFull: true})
	want = []labelText{
		{"journal.json#node-0", "Plan:\nPlan A\n\nExecution output:\nEpoch 1\ndone\n\nAnalysis:\nThe model reached Dice 0.5.\n\nNext: try TTA."},
		{"journal.json#node-1", "Plan:\nPlan B"},
	}
	if !reflect.DeepEqual(sectionsOf(full), want) {
		t.Fatalf("full: got %q", sectionsOf(full))
	}
	if _, err := parseLog("j", FormatAIDE, []byte(`{"nodes":`), IngestOptions{}); err == nil {
		t.Fatal("truncated journal accepted")
	}
	if _, err := parseLog("j", FormatAIDE, []byte(`{"other":[]}`), IngestOptions{}); err == nil {
		t.Fatal("journal without nodes accepted")
	}
}

func TestParseMLMaster(t *testing.T) {
	got, err := parseLog("m.log", FormatMLMaster, readFixture(t, "mlmaster/ml-master.log"), IngestOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []labelText{
		{"m.log#analysis-1", "The validation Dice is low because of class imbalance."},
		{"m.log#analysis-2", "Second analysis text."},
		{"m.log#response-1", "Use a Dice loss next.\nIt should help."},
	}
	if !reflect.DeepEqual(sectionsOf(got), want) {
		t.Fatalf("got %q", sectionsOf(got))
	}
}

func TestParseRDAgent(t *testing.T) {
	got, err := parseLog("u.txt", FormatRDAgent, readFixture(t, "rdagent/unpickled_data.txt"), IngestOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []labelText{
		{"u.txt#feedback-1", "Reason: The baseline U-Net under-segments small lesions; the Dice on small lesions is 0.2 compared to 0.6 on large ones, so a focal term is needed.\n" +
			"Observations: Training loss plateaued after 20 epochs and validation Dice stayed around 0.45 while training Dice kept increasing.\n" +
			"Hypothesis Evaluation: The hypothesis that a deeper encoder helps was rejected because validation Dice fell by 0.03 points."},
		{"u.txt#target-1", "Target Problem: Small lesions are missed by the current model, which lowers the lesion-wise F1 significantly."},
	}
	if !reflect.DeepEqual(sectionsOf(got), want) {
		t.Fatalf("got %q", sectionsOf(got))
	}
}

func TestReadLogDirDetectsFormats(t *testing.T) {
	var got []Section
	for _, sub := range []string{"aide", "baseline", "mlmaster", "plain", "rdagent"} {
		secs, err := ReadLogDir(filepath.Join("testdata", "logs", sub), "", IngestOptions{MaxChars: 20})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range secs {
			s.Label = sub + "/" + s.Label
			got = append(got, s)
		}
	}
	formats := map[string]Format{}
	for _, s := range got {
		formats[s.Label] = s.Format
		if len([]rune(s.Text)) > 20 {
			t.Errorf("%s not truncated: %d chars", s.Label, len([]rune(s.Text)))
		}
		if s.Truncated != (s.OrigChars > 20) {
			t.Errorf("%s: truncated %v with %d chars", s.Label, s.Truncated, s.OrigChars)
		}
	}
	want := map[string]Format{
		"aide/journal.json#node-0":              FormatAIDE,
		"baseline/agent.jsonl#iter-0":           FormatAgentJSONL,
		"baseline/agent.jsonl#iter-1":           FormatAgentJSONL,
		"baseline/agent.jsonl#iter-2":           FormatAgentJSONL,
		"mlmaster/ml-master.log#analysis-1":     FormatMLMaster,
		"mlmaster/ml-master.log#analysis-2":     FormatMLMaster,
		"mlmaster/ml-master.log#response-1":     FormatMLMaster,
		"plain/run.log#full":                    FormatText,
		"rdagent/unpickled_data.txt#feedback-1": FormatRDAgent,
		"rdagent/unpickled_data.txt#target-1":   FormatRDAgent,
	}
	if !reflect.DeepEqual(formats, want) {
		t.Fatalf("got %v\nwant %v", formats, want)
	}
	// Head truncation keeps the first 20 characters, as the reference.
	for _, s := range got {
		if s.Label == "aide/journal.json#node-0" && s.Text != "The model reached Di" {
			t.Errorf("head truncation: %q", s.Text)
		}
	}
	// A forced format applies to every file; a file it cannot parse is an error naming it.
	_, err := ReadLogDir(filepath.Join("testdata", "logs", "baseline"), "", IngestOptions{Format: FormatAIDE})
	if err == nil || !strings.Contains(err.Error(), "agent.jsonl") {
		t.Fatalf("forced AIDE on jsonl: %v", err)
	}
	if _, err := ReadLogDir(filepath.Join("testdata", "nope"), "", IngestOptions{}); err == nil {
		t.Fatal("missing dir accepted")
	}
}

func TestDiscoverRuns(t *testing.T) {
	root := t.TempDir()
	mk := func(p string) {
		if err := os.MkdirAll(filepath.Join(root, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mk("r1/isles22/aide/seed-0/logs")
	mk("r1/isles22/aide/seed-1/logs")
	mk("r1/seg_a/baseline/seed-0/logs")
	mk("r1/isles22/aide/notaseed/logs")
	mk("r2/x/y/seed-z/logs")
	mk("r2/x/y/seed-3") // no logs dir
	if err := os.WriteFile(filepath.Join(root, "r1/seg_a/baseline/seed-0/run.json"), []byte(`{"backend":"gpt-5","other":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := DiscoverRuns(root)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, r := range got {
		keys = append(keys, r.Key()+"|"+r.Backend)
	}
	want := []string{"r1/isles22/aide/seed-0|", "r1/isles22/aide/seed-1|", "r1/seg_a/baseline/seed-0|gpt-5"}
	if !reflect.DeepEqual(keys, want) {
		t.Fatalf("got %v want %v", keys, want)
	}
	if got[1].LogDir != filepath.Join(root, "r1/isles22/aide/seed-1/logs") || got[1].Seed != 1 {
		t.Fatalf("run %+v", got[1])
	}
	if _, err := DiscoverRuns(filepath.Join(root, "absent")); err == nil {
		t.Fatal("missing root accepted")
	}
}

func TestLabelsStayUnique(t *testing.T) {
	j := `{"nodes":[{"step":4,"analysis":"first"},{"step":4,"analysis":"second"},{"step":4,"analysis":"third"}]}`
	got, err := parseLog("journal.json", FormatAIDE, []byte(j), IngestOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []labelText{{"journal.json#node-4", "first"}, {"journal.json#node-4~2", "second"}, {"journal.json#node-4~3", "third"}}
	if !reflect.DeepEqual(sectionsOf(got), want) {
		t.Fatalf("got %q", sectionsOf(got))
	}
}
