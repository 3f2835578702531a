package challenge

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var testDownloads = []Download{
	{Source: "zenodo:7833096", Archive: "Train.zip", Holds: []string{"Train"}},
	{Source: "gdrive:abc", Archive: "test_dataset.zip", Holds: []string{"Test"}},
	{Source: "zenodo:7833096", Archive: "Extra.zip", Holds: []string{"Extra"}, Optional: true},
}

func readBody(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestEnsureDownloadsTakesArchivesAndUnpackedTrees(t *testing.T) {
	raw := t.TempDir()
	// One download as its archive, the other unpacked by hand.
	writeZip(t, map[string]string{"Train/train.json": "{}"}, filepath.Join(raw, "Train.zip"))
	if err := os.MkdirAll(filepath.Join(raw, "Test"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(raw, "Test", "test.json"), []byte("by hand"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The optional archive is not read, so it is not unpacked.
	writeZip(t, map[string]string{"Extra/x": "x"}, filepath.Join(raw, "Extra.zip"))
	if err := EnsureDownloads("demo", raw, testDownloads); err != nil {
		t.Fatal(err)
	}
	if got := readBody(t, filepath.Join(raw, "Train", "train.json")); got != "{}" {
		t.Errorf("Train/train.json = %q", got)
	}
	if got := readBody(t, filepath.Join(raw, "Test", "test.json")); got != "by hand" {
		t.Errorf("the hand-unpacked tree was touched: %q", got)
	}
	if _, err := os.Stat(filepath.Join(raw, "Extra")); err == nil {
		t.Error("the optional archive was unpacked")
	}
	// A second call changes nothing (the archive is marked unpacked).
	if err := os.WriteFile(filepath.Join(raw, "Train", "train.json"), []byte("edited"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := EnsureDownloads("demo", raw, testDownloads); err != nil {
		t.Fatal(err)
	}
	if got := readBody(t, filepath.Join(raw, "Train", "train.json")); got != "edited" {
		t.Errorf("unpacked again: %q", got)
	}
}

func TestEnsureDownloadsKeepsAnUnpackedTreeBesideItsArchive(t *testing.T) {
	raw := t.TempDir()
	writeZip(t, map[string]string{"Train/train.json": "from zip"}, filepath.Join(raw, "Train.zip"))
	if err := os.MkdirAll(filepath.Join(raw, "Train"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(raw, "Train", "train.json"), []byte("unpacked by hand"), 0o644); err != nil {
		t.Fatal(err)
	}
	writeZip(t, map[string]string{"Test/test.json": "t"}, filepath.Join(raw, "test_dataset.zip"))
	if err := EnsureDownloads("demo", raw, testDownloads); err != nil {
		t.Fatal(err)
	}
	if got := readBody(t, filepath.Join(raw, "Train", "train.json")); got != "unpacked by hand" {
		t.Errorf("the tree beside its archive was overwritten: %q", got)
	}
}

func TestEnsureDownloadsNamesWhatIsMissing(t *testing.T) {
	raw := t.TempDir()
	writeZip(t, map[string]string{"Train/train.json": "{}"}, filepath.Join(raw, "Train.zip"))
	err := EnsureDownloads("ldct-iqa", raw, testDownloads)
	m, ok := IsMissingDownloads(err)
	if !ok {
		t.Fatalf("got %v, want a missing-download error", err)
	}
	if len(m.Missing) != 1 || m.Missing[0].Archive != "test_dataset.zip" {
		t.Fatalf("missing %v, want only test_dataset.zip (the optional one is not asked for)", m.Missing)
	}
	msg := err.Error()
	for _, want := range []string{"ldct-iqa", raw, "test_dataset.zip", "Google Drive file abc (https://drive.google.com/file/d/abc/view)",
		"put it in " + raw + "/ zipped, as downloaded, or unpacked there as Test/", "both work"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
	// Nothing was unpacked: the check comes first.
	if _, err := os.Stat(filepath.Join(raw, "Train")); err == nil {
		t.Error("an archive was unpacked although the call failed")
	}
}

func TestEnsureDownloadsRefusesAnArchiveWithoutTheLayout(t *testing.T) {
	raw := t.TempDir()
	writeZip(t, map[string]string{"Other/file": "x"}, filepath.Join(raw, "Train.zip"))
	writeZip(t, map[string]string{"Test/test.json": "t"}, filepath.Join(raw, "test_dataset.zip"))
	err := EnsureDownloads("demo", raw, testDownloads)
	if _, ok := err.(*BadArchiveError); !ok || !strings.Contains(err.Error(), "Train.zip unpacked but holds none of Train") {
		t.Fatalf("got %v, want a bad-archive error naming Train.zip", err)
	}
}

func TestEnsureDownloadsUnderAndToStem(t *testing.T) {
	raw := t.TempDir()
	ds := []Download{
		{Source: "zenodo:1", Archive: "Release.zip", Under: "Release", Holds: []string{"imagesTr"}},
		{Source: "figshare:2", Archive: "KiTS.zip", Holds: []string{"KiTS"}, ToStem: true},
	}
	writeZip(t, map[string]string{"Release/imagesTr/a.nii.gz": "a"}, filepath.Join(raw, "Release.zip"))
	writeZip(t, map[string]string{"K1/K1.nrrd": "k"}, filepath.Join(raw, "KiTS.zip"))
	if err := EnsureDownloads("demo", raw, ds); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"Release/imagesTr/a.nii.gz", "KiTS/K1/K1.nrrd"} {
		if _, err := os.Stat(filepath.Join(raw, p)); err != nil {
			t.Errorf("%s not unpacked: %v", p, err)
		}
	}
	files := ExtractedFiles(raw)
	if !files["KiTS/K1/K1.nrrd"] || !files["Release/imagesTr/a.nii.gz"] {
		t.Errorf("extracted files recorded as %v", files)
	}
	// The release's folders placed straight in the raw folder also count.
	flat := t.TempDir()
	if err := os.MkdirAll(filepath.Join(flat, "imagesTr"), 0o755); err != nil {
		t.Fatal(err)
	}
	if m := CheckDownloads(flat, ds[:1]); len(m) != 0 {
		t.Errorf("flat layout reported missing: %v", m)
	}
}
