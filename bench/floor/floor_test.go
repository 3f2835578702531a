package floor

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/metrics/imageio/nifti"
	"github.com/rexmle/rexmle/metrics/imageio/png"
	"github.com/rexmle/rexmle/metrics/imageio/tiff"
	"github.com/rexmle/rexmle/metrics/volume"
	"github.com/rexmle/rexmle/pipeline/challenge"
)

// writeFolders writes a submission and an answers folder holding one file
// of each reader's kind.
func writeFolders(t *testing.T) (sub, priv string) {
	t.Helper()
	sub, priv = t.TempDir(), t.TempDir()
	g := volume.New(volume.NewGrid(7, 5), volume.Uint8)
	for i := range g.Data {
		g.Data[i] = float64(i * 7 % 256)
	}
	if err := png.WriteFile(filepath.Join(sub, "a.png"), g, 8); err != nil {
		t.Fatal(err)
	}
	// A 16-bit PNG is no 8-bit grey picture: the luma reader takes it; a
	// TIFF the general one.
	if err := os.MkdirAll(filepath.Join(sub, "deep"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := png.WriteFile(filepath.Join(sub, "deep", "b.png"), g, 16); err != nil {
		t.Fatal(err)
	}
	if err := tiff.WriteFile(filepath.Join(sub, "deep", "c.tif"), g, volume.Uint8); err != nil {
		t.Fatal(err)
	}
	m := volume.New(volume.NewGrid(4, 3, 2), volume.Uint8)
	m.Data[5] = 1
	if err := nifti.WriteFile(filepath.Join(priv, "m.nii.gz"), m, volume.Uint8); err != nil {
		t.Fatal(err)
	}
	if err := challenge.WriteCSV(filepath.Join(sub, "submission.csv"), []string{"id", "v"}, [][]string{{"1", "2"}}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(priv, "boxes.json"), []byte(`{"a": [1, 2.5, {"b": null}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(priv, "notes.txt"), []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	return sub, priv
}

func TestDecodeReadsEveryFileWithItsReader(t *testing.T) {
	sub, priv := writeFolders(t)
	paths, err := Files(sub, priv, sub) // a folder given twice is walked once
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 7 {
		t.Fatalf("listed %d files, want 7: %v", len(paths), paths)
	}
	for _, workers := range []int{1, 3} {
		st, err := Decode(context.Background(), paths, workers)
		if err != nil {
			t.Fatal(err)
		}
		want := map[Kind]int{CSV: 1, JSON: 1, Gray8: 1, Luma8: 1, Picture: 1, Volume: 1, Raw: 1}
		for k, n := range want {
			if st.Files[k] != n {
				t.Errorf("workers %d: %d files read as %s, want %d (all: %v)", workers, st.Files[k], k, n, st.Files)
			}
		}
		// 35 grey pixels three times (8-bit and 16-bit PNG, TIFF) and 24 voxels.
		if st.Samples != 3*35+24 {
			t.Errorf("workers %d: %d samples decoded, want 129", workers, st.Samples)
		}
		if st.Bytes <= 0 {
			t.Errorf("workers %d: %d bytes read", workers, st.Bytes)
		}
	}
}

func TestDecodeNamesAFileThatDoesNotDecode(t *testing.T) {
	sub, priv := writeFolders(t)
	for name, body := range map[string]string{
		"broken.json":  `{"a": [1, 2`,
		"broken.png":   "\x89PNG\r\n\x1a\n truncated",
		"broken.nii":   "not a header",
		"ragged.csv":   "a,b\n1,2,3\n\"unterminated\n",
		"zz-unused.md": "read whole, never decoded",
	} {
		dir := t.TempDir()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		paths, err := Files(sub, priv, dir)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Decode(context.Background(), paths, 2)
		if name == "zz-unused.md" {
			if err != nil {
				t.Errorf("%s: %v", name, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: error %v, want one naming the file", name, err)
		}
	}
}

// TestDecodeReadsANonPictureNamedPNGWhole: a file named .png skips the
// sniff and goes to the PNG reader; when it is no picture at all it is
// still read whole, as before, not reported as a broken picture.
func TestDecodeReadsANonPictureNamedPNGWhole(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "notes.png")
	if err := os.WriteFile(p, []byte("plain text, misnamed"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := Decode(context.Background(), []string{p}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if st.Files[Raw] != 1 || st.Bytes != 20 {
		t.Errorf("read as %v, %d bytes; want 1 raw file of 20 bytes", st.Files, st.Bytes)
	}
}
