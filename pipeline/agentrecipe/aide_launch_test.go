package agentrecipe

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// aide_launch.keep, the copy made after each AIDE step whose node is the
// best: the whole submission folder (prediction files included) lands in
// best/node-<id>/ and BEST names it; a best node that wrote nothing keeps
// the earlier copy; working/submission.csv alone is the harness's fallback.
func TestAIDELaunchKeepsTheBestNodesFolder(t *testing.T) {
	py := python(t)
	dir := t.TempDir()
	ws, best := filepath.Join(dir, "ws"), filepath.Join(dir, "best")
	os.MkdirAll(filepath.Join(ws, "submission", "predictions"), 0o755)
	os.MkdirAll(filepath.Join(ws, "working"), 0o755)
	os.MkdirAll(best, 0o755)
	write := func(rel, text string) {
		if err := os.WriteFile(filepath.Join(ws, rel), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	keep := func(id string) string {
		t.Helper()
		script := `import sys, types
sys.path.insert(0, sys.argv[1])
import aide_launch
node = types.SimpleNamespace(id=sys.argv[4], metric=types.SimpleNamespace(value=0.5, maximize=True))
print(aide_launch.keep(sys.argv[2], sys.argv[3], node, 3, 0.0))`
		out, err := exec.Command(py, "-c", script, filepath.Join(agentsDir, "aide"), best, ws, id).Output()
		if err != nil {
			t.Fatalf("keep: %v\n%s", err, out)
		}
		return string(out)
	}
	pointer := func() string {
		var p struct {
			Dir string `json:"dir"`
		}
		b, err := os.ReadFile(filepath.Join(best, "BEST"))
		if err != nil || json.Unmarshal(b, &p) != nil {
			t.Fatalf("BEST: %v %s", err, b)
		}
		return p.Dir
	}

	write("submission/submission.csv", "case_id,predicted_mask_path\nc1,predictions/c1.nii.gz\n")
	write("submission/predictions/c1.nii.gz", "mask-a")
	keep("a")
	if pointer() != "node-a" || readFile(filepath.Join(best, "node-a", "submission", "predictions", "c1.nii.gz")) != "mask-a" {
		t.Fatalf("node a's folder not kept: BEST %s", pointer())
	}
	// the next best node rewrites the folder: its copy replaces a's
	write("submission/predictions/c1.nii.gz", "mask-b")
	keep("b")
	if pointer() != "node-b" || readFile(filepath.Join(best, "node-b", "submission", "predictions", "c1.nii.gz")) != "mask-b" {
		t.Fatalf("node b's folder not kept: BEST %s", pointer())
	}
	if _, err := os.Stat(filepath.Join(best, "node-a")); !os.IsNotExist(err) {
		t.Errorf("node a's copy is still there: %v", err)
	}
	// a best node with no submission at all: b's copy stays
	os.RemoveAll(filepath.Join(ws, "submission"))
	if out := keep("c"); out != "\n" || pointer() != "node-b" {
		t.Errorf("a node without a submission replaced the kept one: %q, BEST %s", out, pointer())
	}
	// AIDE's own place for the CSV, when there is no submission folder
	write("working/submission.csv", "image_id,quality_score\n1,0.5\n")
	keep("d")
	if pointer() != "node-d" || readFile(filepath.Join(best, "node-d", "submission", "submission.csv")) != "image_id,quality_score\n1,0.5\n" {
		t.Errorf("working/submission.csv not kept: BEST %s", pointer())
	}
	var meta map[string]any
	if b, err := os.ReadFile(filepath.Join(best, "node-d", "node.json")); err != nil || json.Unmarshal(b, &meta) != nil || meta["source"] != "working-csv" || meta["node_id"] != "d" {
		t.Errorf("node.json: %v %v", meta, err)
	}
}
