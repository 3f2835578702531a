package challenge

import (
	"archive/zip"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func writeZip(t *testing.T, files map[string]string, zipPath string) {
	t.Helper()
	src := t.TempDir()
	for name, body := range files {
		p := filepath.Join(src, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := zipDir(t, src, zipPath); err != nil {
		t.Fatal(err)
	}
}

func TestEnsureExtracted(t *testing.T) {
	raw := t.TempDir()
	writeZip(t, map[string]string{"ImagesTr/a_0001_0000.mha": "a1", "LabelsTr/a_0001.mha": "l1"}, filepath.Join(raw, "T1.zip"))
	writeZip(t, map[string]string{"ImagesTr/b_0000.mha": "b2", "LabelsTr/b.mha": "l2"}, filepath.Join(raw, "T2.zip"))
	// A folder left by an interrupted extraction is cleared, not merged.
	if err := os.MkdirAll(filepath.Join(raw, extractTmpPrefix+"123", "LabelsTr"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(raw, extractTmpPrefix+"123", "LabelsTr", "half.mha"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// T1's images are already there (the case that once kept T2 from being unpacked).
	if err := EnsureExtracted(raw, "T1.zip"); err != nil {
		t.Fatal(err)
	}
	if err := EnsureExtracted(raw, "T2.zip", "missing.zip"); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"ImagesTr/a_0001_0000.mha": "a1", "LabelsTr/a_0001.mha": "l1", "ImagesTr/b_0000.mha": "b2", "LabelsTr/b.mha": "l2"} {
		got, err := os.ReadFile(filepath.Join(raw, name))
		if err != nil || string(got) != want {
			t.Errorf("%s = %q, %v; want %q", name, got, err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(raw, "LabelsTr", "half.mha")); err == nil {
		t.Error("a half-extracted file from an interrupted run was merged")
	}
	// Marked archives are not unpacked again: a file changed after
	// extraction keeps its content.
	if err := os.WriteFile(filepath.Join(raw, "LabelsTr", "b.mha"), []byte("edited"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := EnsureExtracted(raw, "T1.zip", "T2.zip"); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(raw, "LabelsTr", "b.mha")); string(got) != "edited" {
		t.Error("an archive marked complete was unpacked again")
	}
	got := ExtractedFiles(raw)
	for _, p := range []string{"ImagesTr/a_0001_0000.mha", "LabelsTr/a_0001.mha", "ImagesTr/b_0000.mha", "LabelsTr/b.mha"} {
		if !got[p] {
			t.Errorf("ExtractedFiles lacks %s: %v", p, got)
		}
	}
	if len(got) != 4 {
		t.Errorf("ExtractedFiles = %v, want the 4 unpacked files", got)
	}
	entries, _ := os.ReadDir(raw)
	for _, e := range entries {
		if IsExtractionEntry(e.Name()) && e.Name() != extractLockName && e.Name() != extractDoneDir {
			t.Errorf("left behind %s", e.Name())
		}
	}
}

// An archive that `mage fetch` records as unpacked in place is not unpacked again.
func TestEnsureExtractedTrustsFetch(t *testing.T) {
	raw := t.TempDir()
	writeZip(t, map[string]string{"x.txt": "from zip"}, filepath.Join(raw, "A.zip"))
	if err := os.WriteFile(filepath.Join(raw, "FETCHED.lock"), []byte(`{"version":1,"files":[{"name":"A.zip","extracted_to":"."}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := EnsureExtracted(raw, "A.zip"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(raw, "x.txt")); err == nil {
		t.Error("unpacked an archive fetch had already unpacked")
	}
}

// zipDir zips every regular file under dir (the medseg test helper, here
// without the import cycle).
func zipDir(t *testing.T, dir, zipPath string) error {
	t.Helper()
	f, err := os.Create(zipPath)
	if err != nil {
		return err
	}
	zw := zip.NewWriter(f)
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		w, err := zw.Create(filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	})
	if cerr := zw.Close(); err == nil {
		err = cerr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
