package scriptedllm

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/rexmle/rexmle/pipeline/challenge"
	_ "github.com/rexmle/rexmle/pipeline/challenges/all"
)

// The code block the Engineer writes is run with python3 as an agent runs
// it (the public data at ./input, the adapter's bridge advertised in
// .grading_port), on a CSV task, a segmentation task (a folder of NIfTI
// masks and the CSV) and a detection task: it writes a submission the
// real grader accepts and asks the validation service about that folder.
func TestSubmissionCodeWritesAValidSubmission(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed")
	}
	for _, id := range []string{"ldct-iqa", "isles22", "dentex"} {
		t.Run(id, func(t *testing.T) {
			c, ok := challenge.Lookup(id)
			if !ok {
				t.Fatalf("no challenge %s", id)
			}
			ctx := context.Background()
			root := t.TempDir()
			raw, data, ws := filepath.Join(root, "raw"), filepath.Join(root, "data"), filepath.Join(root, "ws")
			if err := c.Synthesize(ctx, raw, 1, challenge.SynthSize{}); err != nil {
				t.Fatal(err)
			}
			if err := c.Prepare(ctx, raw, data); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(ws, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Join(data, "public"), filepath.Join(ws, "input")); err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			var dirs []string
			val := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				var d struct{ Dir string }
				json.Unmarshal(b, &d)
				mu.Lock()
				dirs = append(dirs, r.URL.Path+" "+d.Dir)
				mu.Unlock()
				io.WriteString(w, `{"valid":true,"reason":"","result":"Submission is valid."}`)
			}))
			defer val.Close()
			port := val.URL[strings.LastIndexByte(val.URL, ':')+1:]
			if err := os.WriteFile(filepath.Join(root, ".grading_port"), []byte(port), 0o644); err != nil {
				t.Fatal(err)
			}
			rep := ForAgent("ml-master").Reply(&Request{Messages: []Message{{Role: "user", Content: "solve"}}})
			code := between(rep.Content, "```python\n", "```")
			if code == "" {
				t.Fatalf("no python block in %q", rep.Content)
			}
			cmd := exec.Command(py, "-c", code)
			cmd.Dir = ws
			cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + root}
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("the code failed: %v\n%s", err, out)
			}
			if !strings.Contains(string(out), "Submission is valid.") {
				t.Errorf("output %s", out)
			}
			sub := filepath.Join(ws, "submission")
			if _, err := c.Grade(ctx, sub, filepath.Join(data, "private"), challenge.Reference); err != nil {
				t.Fatalf("the submission does not grade: %v", err)
			}
			if id == "ldct-iqa" {
				checkTrainMean(t, filepath.Join(data, "public", "train_labels.csv"), filepath.Join(sub, "submission.csv"))
			}
			if len(dirs) != 1 || dirs[0] != "/validate "+sub {
				t.Errorf("validation requests %v, want one for %s", dirs, sub)
			}
		})
	}
}

func between(s, a, b string) string {
	i := strings.Index(s, a)
	if i < 0 {
		return ""
	}
	s = s[i+len(a):]
	if j := strings.Index(s, b); j >= 0 {
		return s[:j]
	}
	return ""
}

// checkTrainMean: every predicted quality_score is the training labels' mean
// (the trivial model), not the sample submission's 0.0.
func checkTrainMean(t *testing.T, train, sub string) {
	t.Helper()
	read := func(p string) [][]string {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		rows, err := csv.NewReader(f).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		return rows[1:]
	}
	var sum float64
	tr := read(train)
	for _, r := range tr {
		v, _ := strconv.ParseFloat(r[1], 64)
		sum += v
	}
	mean := sum / float64(len(tr))
	for _, r := range read(sub) {
		v, err := strconv.ParseFloat(r[1], 64)
		if err != nil || math.Abs(v-mean) > 1e-6 {
			t.Fatalf("predicted %q, want the training mean %v", r[1], mean)
		}
	}
}
