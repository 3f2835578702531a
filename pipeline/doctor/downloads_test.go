package doctor

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/rexmle/rexmle/pipeline/challenges/ldctiqa"
	"github.com/rexmle/rexmle/pipeline/config"
)

// On fetched data, a challenge that is not prepared is reported with the
// downloads its raw folder lacks, in prepare's words (file, source page,
// folder, zipped or unpacked), not sent back to prepare; once they are in
// place, with prepare as the one step left.
func TestDoctorNamesMissingDownloads(t *testing.T) {
	root := t.TempDir()
	b := bench(root)
	b.Challenges = []*config.Challenge{{ID: "ldct-iqa"}}
	h := &fakeHost{paths: map[string]string{"bwrap": "/usr/bin/bwrap"}, devErr: errors.New("no driver"), free: 2 << 30}
	paper := config.Profile{Data: "fetched", Agents: []string{"sample"}}
	in := Input{Bench: b, ProfileName: "paper", Profile: paper, Challenges: b.Challenges, MinFreeBytes: 1 << 30}
	raw := filepath.Join(root, "data", "raw", "ldct-iqa")

	c := find(Run(context.Background(), in, h.probe()), "data", "ldct-iqa")
	if c == nil || c.Status != Fail {
		t.Fatalf("nothing downloaded: %+v", c)
	}
	for _, want := range []string{"LDCTIQAG2023_train.zip", "https://zenodo.org/records/7833096", "test_dataset.zip",
		"https://drive.google.com/file/d/1DbZfTj4it-3QRTuJO73r1iQyHLRwPS6H/view", raw, "zipped", "unpacked"} {
		if !strings.Contains(c.Detail, want) {
			t.Errorf("detail lacks %q:\n%s", want, c.Detail)
		}
	}
	// The training set unpacked by hand, the test set still zipped: all there.
	os.MkdirAll(filepath.Join(raw, "LDCTIQAG2023_train", "image"), 0o755)
	c = find(Run(context.Background(), in, h.probe()), "data", "ldct-iqa")
	if c == nil || strings.Contains(c.Detail, "LDCTIQAG2023_train.zip") || !strings.Contains(c.Detail, "test_dataset.zip") {
		t.Fatalf("train unpacked: %+v", c)
	}
	os.WriteFile(filepath.Join(raw, "test_dataset.zip"), []byte("PK"), 0o644)
	c = find(Run(context.Background(), in, h.probe()), "data", "ldct-iqa")
	if c == nil || c.Status != Fail || !strings.Contains(c.Detail, "downloads are in") || !strings.Contains(c.Detail, "mage.go prepare") {
		t.Fatalf("all placed: %+v", c)
	}
}

// A prepared challenge whose raw data was placed by hand says whether
// fetchVerify checked it (a warning until it has).
func TestDoctorSaysHandPlacedDataIsUnverified(t *testing.T) {
	root := t.TempDir()
	b := bench(root)
	prepare(t, root, "c2", "shared", false)
	os.WriteFile(filepath.Join(root, "data", "raw", "shared", "c2.zip"), []byte("zip"), 0o644)
	h := &fakeHost{paths: map[string]string{"bwrap": "/usr/bin/bwrap"}, devErr: errors.New("no driver"), free: 2 << 30}
	paper := config.Profile{Data: "fetched", Agents: []string{"sample"}}
	in := Input{Bench: b, ProfileName: "paper", Profile: paper, Challenges: b.Challenges[1:], MinFreeBytes: 1 << 30}
	c := find(Run(context.Background(), in, h.probe()), "data", "c2 raw")
	if c == nil || c.Status != Warn || !strings.Contains(c.Detail, "placed by hand, not checked") || !strings.Contains(c.Detail, "mage fetchVerify") {
		t.Fatalf("hand-placed, unchecked: %+v", c)
	}
}
