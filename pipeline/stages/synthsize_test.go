package stages

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/prepare"
)

// Changing REXMLE_SYNTH_CASES re-synthesizes and re-prepares; the manifest
// records the size; run and grade refuse data of another size; going back
// to the default gives back the default preparation, byte for byte.
func TestSynthCasesReprepares(t *testing.T) {
	o := testBench(t)
	o.Challenges = []string{"ldct-iqa"}
	ctx := context.Background()
	root := filepath.Dir(o.Config)
	dataDir := filepath.Join(root, "data", "synthetic", "ldct-iqa")
	testRows := func() int {
		t.Helper()
		tab, err := challenge.ReadCSV(filepath.Join(dataDir, "private", "test_labels.csv"))
		if err != nil {
			t.Fatal(err)
		}
		return len(tab.Rows)
	}
	if err := Prepare(ctx, o); err != nil {
		t.Fatal(err)
	}
	def, err := os.ReadFile(filepath.Join(dataDir, challenge.ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(def), "synth_size") {
		t.Errorf("a default manifest records a size:\n%s", def)
	}
	nDef := testRows()

	sized := o
	sized.SynthSize = challenge.SynthSize{Cases: 40}
	if err := Prepare(ctx, sized); err != nil {
		t.Fatal(err)
	}
	m, err := challenge.ReadManifest(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	if m.SynthSize != "40" {
		t.Errorf("manifest records size %q, want 40", m.SynthSize)
	}
	// 40 slices shared 1000 : 300 as the download's: 31 train, 9 test.
	if n := testRows(); n != 9 || n == nDef {
		t.Errorf("%d test cases at REXMLE_SYNTH_CASES=40 (default %d), want 9", n, nDef)
	}
	if left, _ := filepath.Glob(filepath.Join(root, "data", "synthetic", "*", ".*ing-*")); len(left) > 0 {
		t.Errorf("half-written folders left: %v", left)
	}
	// Data of another size are refused by run and grade, naming both sizes.
	if err := checkPrepared(dataDir, prepare.Synthetic, "demo", challenge.SynthSize{}); err == nil ||
		!strings.Contains(err.Error(), "size 40") || !strings.Contains(err.Error(), "REXMLE_SYNTH_CASES=default") {
		t.Errorf("default settings on 40-case data: %v", err)
	}
	if err := GradeOne(ctx, o, "ldct-iqa", t.TempDir()); err == nil || !strings.Contains(err.Error(), "size 40") {
		t.Errorf("gradeOne on data of another size: %v", err)
	}
	if err := checkPrepared(dataDir, prepare.Synthetic, "demo", sized.SynthSize); err != nil {
		t.Errorf("matching size refused: %v", err)
	}
	// Up to date at the same size: nothing is redone.
	before, _ := os.Stat(filepath.Join(dataDir, challenge.ManifestName))
	if err := Prepare(ctx, sized); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.Stat(filepath.Join(dataDir, challenge.ManifestName)); !after.ModTime().Equal(before.ModTime()) {
		t.Error("a second prepare at the same size prepared again")
	}
	// Back to the default: the same files as at first (the input hash
	// differs: it holds the raw files' modification times).
	if err := Prepare(ctx, o); err != nil {
		t.Fatal(err)
	}
	mb, err := challenge.ReadManifest(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	var first challenge.Manifest
	if err := json.Unmarshal(def, &first); err != nil {
		t.Fatal(err)
	}
	if n := testRows(); n != nDef || mb.SynthSize != "" || !reflect.DeepEqual(mb.Files, first.Files) {
		t.Errorf("back at the default: %d test cases (want %d), size %q, same files %v", n, nDef, mb.SynthSize, reflect.DeepEqual(mb.Files, first.Files))
	}
}
