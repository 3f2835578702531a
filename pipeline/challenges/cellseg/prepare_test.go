package cellseg

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/rexmle/rexmle/pipeline/challenge"
)

// Prepare lists every test pair in split order (a colliding stem twice)
// and the private label of a repeated id is the copy written last.
func TestPrepareFollowsSplitAndCollisions(t *testing.T) {
	raw, data := t.TempDir(), t.TempDir()
	if err := (Challenge{}).Synthesize(context.Background(), raw, 4, challenge.SynthSize{}); err != nil {
		t.Fatal(err)
	}
	all, err := Pairs(raw)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 20 {
		t.Fatalf("%d pairs, want 20 (16 training + 4 tuning)", len(all))
	}
	// Stable sort: the training copy of cell_00001 precedes the tuning one.
	if all[0].ImageID != "cell_00001" || all[1].ImageID != "cell_00001" || filepath.Base(filepath.Dir(filepath.Dir(all[0].Image))) != trainDir {
		t.Fatalf("first pairs %+v %+v, want training then tuning cell_00001", all[0], all[1])
	}
	_, test := Split(all)
	if err := (Challenge{}).Prepare(context.Background(), raw, data); err != nil {
		t.Fatal(err)
	}
	tab, err := challenge.ReadCSV(filepath.Join(data, "private", "test_labels.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Rows) != len(test) {
		t.Fatalf("%d answer rows, want %d", len(tab.Rows), len(test))
	}
	last := map[string]string{}
	for i, p := range test {
		if tab.Rows[i][0] != p.ImageID {
			t.Errorf("row %d id %s, want %s", i, tab.Rows[i][0], p.ImageID)
		}
		last[filepath.Base(p.Label)] = p.Label
	}
	for name, src := range last {
		want, _ := os.ReadFile(src)
		got, err := os.ReadFile(filepath.Join(data, "private", "test", "labels", name))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("private %s is not the last copy written (%s)", name, src)
		}
	}
}
