package judge

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// A streamed section equals truncating the whole (trimmed) text, for every
// mode, cap, and way of cutting the text into writes.
func TestCapBuilderMatchesTruncateText(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []rune("ab c\n\täöß€𝄞 ")
	for iter := 0; iter < 3000; iter++ {
		n := rng.IntN(400)
		r := make([]rune, n)
		for i := range r {
			r[i] = alphabet[rng.IntN(len(alphabet))]
		}
		text := string(r)
		max := rng.IntN(120) - 5 // includes <= 0: no cap
		mode := []Truncation{TruncateHead, TruncateTail, TruncateMiddle}[rng.IntN(3)]
		b := newCapBuilder(max)
		for rest := text; rest != ""; {
			k := 1 + rng.IntN(40)
			cut := 0
			for i := range rest {
				if k == 0 {
					break
				}
				cut = i + utf8.RuneLen([]rune(rest[i:])[0])
				k--
			}
			b.WriteString(rest[:cut])
			rest = rest[cut:]
		}
		trimmed := strings.TrimSpace(text)
		want, wantCut := truncateText(trimmed, max, mode)
		got, orig, cut := b.Finish(mode)
		if trimmed == "" {
			if !b.Empty() && got != "" {
				t.Fatalf("blank text gave %q", got)
			}
			continue
		}
		if got != want || cut != wantCut || orig != utf8.RuneCountInString(trimmed) {
			t.Fatalf("text %q max %d mode %s:\n got %q cut %v orig %d\nwant %q cut %v orig %d",
				text, max, mode, got, cut, orig, want, wantCut, utf8.RuneCountInString(trimmed))
		}
	}
}

// ML-Master's own log files ("[date] LEVEL: message" records) end an
// analysis at the next record: nothing after it spills into the section.
func TestParseMLMasterOwnFormat(t *testing.T) {
	log := strings.Join([]string{
		"[2025-11-20 16:53:07,101] INFO: Starting search",
		"[2025-11-20 16:53:08,202] INFO: prompt: # Task description",
		"Segment lesions.",
		"# Analysis",
		"The last model overfits: train Dice 0.9, validation Dice 0.4.",
		"```python",
		"model.fit(x)",
		"```",
		"Augmentation should help.",
		"[2025-11-20 16:53:09,303] INFO: response:",
		"<think>try flips</think>",
		"Add random flips and rotations.",
		"[2025-11-20 16:53:09,304] INFO: response without think:",
		"Add random flips and rotations.",
		"[2025-11-20 16:53:09,305] INFO: ---Query complete---",
		"[2025-11-20 16:53:10,406] INFO: Executing code",
		"Traceback (most recent call last): this must not be judged",
		"epoch 1 loss 0.3",
		"[2025-11-20 16:53:11,507] WARNING: GPU memory high",
		"[2025-11-20 17:00:00,000] INFO: prompt: # Analysis",
		"Second analysis.",
		"[2025-11-20 17:00:01,000] ERROR: interpreter failed",
		"more output that is not analysis",
	}, "\n")
	got, err := parseLog("ml-master.verbose.log", FormatMLMaster, []byte(log), IngestOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []labelText{
		{"ml-master.verbose.log#analysis-1", "The last model overfits: train Dice 0.9, validation Dice 0.4.\n\nAugmentation should help."},
		{"ml-master.verbose.log#analysis-2", "Second analysis."},
		{"ml-master.verbose.log#response-1", "<think>try flips</think>\nAdd random flips and rotations."},
		{"ml-master.verbose.log#response-2", "Add random flips and rotations."},
	}
	if !reflect.DeepEqual(sectionsOf(got), want) {
		t.Fatalf("got %q\nwant %q", sectionsOf(got), want)
	}
	for _, s := range got {
		if strings.Contains(s.Text, "Traceback") || strings.Contains(s.Text, "epoch 1") || strings.Contains(s.Text, "not analysis") {
			t.Errorf("%s spills log output: %q", s.Label, s.Text)
		}
	}
}

// The R&D-Agent adapter's rendering of a pickle as JSON yields the same
// feedback sections as R&D-Agent's own str() layout.
func TestParseRDAgentJSONRendering(t *testing.T) {
	reason := "[Experiment Analysis] The focal loss run beats SOTA on small lesions: Dice 0.58 versus 0.51 before."
	obs := "Validation Dice rose steadily for 30 epochs and the small-lesion recall improved from 0.4 to 0.55."
	eval := "The hypothesis that focal loss helps small lesions is confirmed by the validation numbers above."
	problem := "Small lesions are under-segmented by the current model, which lowers lesion-wise F1 a lot."
	js := fmt.Sprintf(`[{"__class__": "DSTrace", "hist": [[{"__class__": "DSExperiment", "hypothesis": {"__class__": "DSHypothesis", "problem_desc": %q, "hypothesis": "use focal loss"}},
		{"__class__": "HypothesisFeedback", "decision": true, "reason": %q, "observations": %q, "hypothesis_evaluation": %q, "new_hypothesis": "try a larger patch", "code_change_summary": "short"}]]}]`,
		problem, reason, obs, eval)
	got, err := parseLog("rd-agent/trace/1.txt", FormatRDAgent, []byte(js), IngestOptions{})
	if err != nil {
		t.Fatal(err)
	}
	text := "Reason: " + reason + "\nObservations: " + obs + "\nHypothesis Evaluation: " + eval + "\n=====\nTarget Problem: " + problem + "\n"
	fromText, err := parseLog("rd-agent/trace/1.txt", FormatRDAgent, []byte(text), IngestOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []labelText{
		{"rd-agent/trace/1.txt#target-1", "Target Problem: " + problem},
		{"rd-agent/trace/1.txt#feedback-1", "Reason: " + strings.TrimPrefix(reason, "[Experiment Analysis] ") + "\nObservations: " + obs + "\nHypothesis Evaluation: " + eval},
	}
	if !sameSet(sectionsOf(got), want) || !sameSet(sectionsOf(fromText), want) {
		t.Fatalf("json: %q\ntext: %q\nwant %q", sectionsOf(got), sectionsOf(fromText), want)
	}
	// A pickled string (a logged LLM answer) rendered as a JSON string.
	str, _ := json.Marshal(text)
	fromString, err := parseLog("rd-agent/trace/1.txt", FormatRDAgent, str, IngestOptions{})
	if err != nil || !sameSet(sectionsOf(fromString), want) {
		t.Fatalf("json string: %q (%v)", sectionsOf(fromString), err)
	}
}

func sameSet(a, b []labelText) bool {
	if len(a) != len(b) {
		return false
	}
	m := map[labelText]int{}
	for _, x := range a {
		m[x]++
	}
	for _, x := range b {
		if m[x]--; m[x] < 0 {
			return false
		}
	}
	return true
}

// The judge reads per agent the files the paper's judge read, never the
// runner's console for a paper agent.
func TestSelectLogFiles(t *testing.T) {
	files := []string{"aide/aide.log", "aide/filtered_journal.json", "aide/journal.json", "console.log",
		"ml-master/ml-master.log", "ml-master/ml-master.verbose.log", "rd-agent/trace/0.txt", "rd-agent/trace/1.txt",
		"standin/journal.jsonl", "working_time.json"}
	cases := []struct {
		agent string
		files []string
		want  []string
	}{
		{"aide", files, []string{"aide/journal.json"}},
		{"AIDE-claude", files, []string{"aide/journal.json"}},
		{"aide", []string{"console.log"}, nil},
		{"ml-master", files, []string{"ml-master/ml-master.verbose.log"}},
		{"ml-master", []string{"console.log", "ml-master/ml-master.log"}, []string{"ml-master/ml-master.log"}},
		{"mlmaster", []string{"gpt5/run.log", "console.log"}, []string{"gpt5/run.log"}},
		{"rd-agent", append([]string{"rdagent-trace.txt"}, files...), []string{"rdagent-trace.txt"}},
		{"rdagent", files, []string{"rd-agent/trace/0.txt", "rd-agent/trace/1.txt"}},
		{"standin", files, []string{"standin/journal.jsonl"}},
		{"baseline", []string{"agent.jsonl", "console.log"}, []string{"agent.jsonl"}},
		{"my-agent", []string{"console.log", "notes.md"}, []string{"console.log", "notes.md"}},
	}
	for _, c := range cases {
		if got := SelectLogFiles(c.files, c.agent); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %v want %v", c.agent, got, c.want)
		}
	}
}

// A failed AIDE start leaves only console.log ("executable not found"):
// nothing of it is judged.
func TestReadLogDirFailedStartHasNothingToJudge(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "console.log"), []byte(`exec: "aide": executable file not found in $PATH`), 0o644)
	secs, err := ReadLogDir(dir, "aide", IngestOptions{})
	if err != nil || len(secs) != 0 {
		t.Fatalf("sections %v, err %v", secs, err)
	}
}

// Reading a large log keeps memory bounded by the section cap: after
// reading a 64 MiB console log (one section) and a 16 MiB step log (one
// plan, then exec steps: one section) the heap holds far less than either,
// and the sections are the head/tail windows of the whole.
func TestReadLogDirBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 80 MiB")
	}
	dir := t.TempDir()
	line := strings.Repeat("epoch 17 loss 0.123456 dice 0.654321 lr 0.0001 ", 3) + "\n"
	const size = 64 << 20
	f, err := os.Create(filepath.Join(dir, "run.log"))
	if err != nil {
		t.Fatal(err)
	}
	chunk := []byte(strings.Repeat(line, (1<<20)/len(line)))
	written := 0
	f.WriteString("FIRST LINE\n")
	for written < size {
		n, _ := f.Write(chunk)
		written += n
	}
	f.WriteString("LAST LINE\n")
	f.Close()
	steps, err := os.Create(filepath.Join(dir, "steps.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(steps, `{"step":0,"kind":"plan","text":"train a U-Net"}`)
	for i := 1; i < 16<<10; i++ {
		fmt.Fprintf(steps, `{"step":%d,"kind":"exec","text":%q,"extra":%d}`+"\n", i, strings.Repeat("x", 1000), i)
	}
	steps.Close()

	for _, c := range []struct {
		file   string
		format Format
	}{{"run.log", FormatText}, {"steps.jsonl", FormatAgentJSONL}} {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		secs, err := readLogFile(dir, c.file, "", IngestOptions{Format: c.format, Truncation: TruncateMiddle})
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		alloc := after.TotalAlloc - before.TotalAlloc
		st, _ := os.Stat(filepath.Join(dir, c.file))
		t.Logf("%s: %d MiB read, %d section(s), %.1f MiB allocated in all, heap in use %.1f MiB",
			c.file, st.Size()>>20, len(secs), float64(alloc)/(1<<20), float64(after.HeapInuse)/(1<<20))
		if len(secs) != 1 {
			t.Errorf("%s: %d sections, want 1", c.file, len(secs))
		}
		if after.HeapInuse > 24<<20 {
			t.Errorf("%s: heap in use %d MiB after reading", c.file, after.HeapInuse>>20)
		}
		if c.format == FormatText {
			if len(secs) != 1 || !strings.HasPrefix(secs[0].Text, "FIRST LINE") || !strings.HasSuffix(secs[0].Text, "LAST LINE") ||
				!secs[0].Truncated || secs[0].OrigChars < size {
				t.Errorf("%s: %d sections, orig %d", c.file, len(secs), secs[0].OrigChars)
			}
		}
	}
}

// parseText over a reader that returns one byte at a time (characters cut
// at every read boundary) gives the same section as the whole text.
func TestParseTextSplitCharacters(t *testing.T) {
	text := strings.Repeat("äöü €𝄞 text\n", 200)
	for _, max := range []int{0, 10, 100} {
		sk := newSink("f", FormatText, IngestOptions{MaxChars: max, Truncation: TruncateMiddle})
		if max == 0 {
			sk.opts.MaxChars = -1
		}
		if err := parseText(&oneByteReader{r: bytes.NewReader([]byte(text))}, sk); err != nil {
			t.Fatal(err)
		}
		want, _ := truncateText(strings.TrimRightFunc(text, unicode.IsSpace), sk.opts.maxChars(), TruncateMiddle)
		if len(sk.out) != 1 || sk.out[0].Text != want {
			t.Fatalf("max %d: got %+v want %q", max, sk.out, want)
		}
	}
}

type oneByteReader struct{ r io.Reader }

func (o *oneByteReader) Read(p []byte) (int, error) {
	if len(p) > 1 {
		p = p[:1]
	}
	return o.r.Read(p)
}

// A step-log line longer than the line cap is skipped as a bad line; the
// lines around it are read.
func TestStepLogLongLineSkipped(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`{"step":1,"kind":"plan","text":"before"}` + "\n")
	b.WriteString(`{"step":2,"kind":"exec","text":"` + strings.Repeat("y", maxLineBytes+10) + `"}` + "\n")
	b.WriteString(`{"step":3,"kind":"result","text":"after"}` + "\n")
	got, err := parseLog("s.jsonl", FormatAgentJSONL, b.Bytes(), IngestOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []labelText{{"s.jsonl#iter-1", "[step 1] PLAN\nbefore\n\n[step 3] RESULT\nafter"}}; !reflect.DeepEqual(sectionsOf(got), want) {
		t.Fatalf("got %q", sectionsOf(got))
	}
}
