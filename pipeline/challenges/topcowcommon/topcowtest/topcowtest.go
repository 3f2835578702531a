// Package topcowtest holds test helpers shared by the TopCoW/TopBrain
// challenge packages: hand-built mini tasks (private answers plus a
// submission) and the malformed-submission corpus.
package topcowtest

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/metrics/imageio/nifti"
	"github.com/rexmle/rexmle/metrics/volume"
	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenge/challengetest"
)

// Vox is a labelled voxel given in numpy (z, y, x) order, as the specs write them.
type Vox struct{ Z, Y, X, L int }

// Seg is one hand-built segmentation case: shape in (z, y, x), spacing in
// header (x, y, z) order, and the GT and predicted voxels.
type Seg struct {
	ID        string
	ZYX       [3]int
	Spacing   [3]float64
	GT, Pred  []Vox
	PredShape *[3]int // prediction (z,y,x) shape when it differs
}

// Volume builds a uint8 label volume from (z,y,x) voxels.
func Volume(zyx [3]int, spacing [3]float64, vox []Vox) *volume.Volume {
	g := volume.Grid{Shape: [3]int{zyx[2], zyx[1], zyx[0]}, Spacing: spacing}
	v := volume.New(g, volume.Uint8)
	for _, p := range vox {
		v.Data[g.Index(p.X, p.Y, p.Z)] = float64(p.L)
	}
	return v
}

// Line returns voxels of label l along x from x0 to x1 inclusive at (z, y).
func Line(z, y, x0, x1, l int) []Vox {
	var out []Vox
	for x := x0; x <= x1; x++ {
		out = append(out, Vox{z, y, x, l})
	}
	return out
}

// Block returns a solid block of label l: z0..z1, y0..y1, x0..x1 inclusive.
func Block(z0, z1, y0, y1, x0, x1, l int) []Vox {
	var out []Vox
	for z := z0; z <= z1; z++ {
		for y := y0; y <= y1; y++ {
			for x := x0; x <= x1; x++ {
				out = append(out, Vox{z, y, x, l})
			}
		}
	}
	return out
}

// MiniSeg writes a private folder and a submission for hand-built cases of
// a segmentation challenge with the given file stem prefix (e.g.
// "topcow_ct") and returns (submissionDir, privateDir).
func MiniSeg(t testing.TB, prefix string, cases []Seg) (string, string) {
	t.Helper()
	root := t.TempDir()
	priv, sub := filepath.Join(root, "private"), filepath.Join(root, "sub")
	var ans, rows [][]string
	for _, c := range cases {
		gt := Volume(c.ZYX, c.Spacing, c.GT)
		ps := c.ZYX
		if c.PredShape != nil {
			ps = *c.PredShape
		}
		pred := Volume(ps, c.Spacing, c.Pred)
		lab := fmt.Sprintf("test/labels/%s_%s.nii.gz", prefix, c.ID)
		for _, d := range []string{filepath.Join(priv, "test", "labels"), filepath.Join(sub, "predictions")} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if err := nifti.WriteFile(filepath.Join(priv, lab), gt, volume.Uint8); err != nil {
			t.Fatal(err)
		}
		pp := fmt.Sprintf("predictions/%s_%s_0000.nii.gz", prefix, c.ID)
		if err := nifti.WriteFile(filepath.Join(sub, pp), pred, volume.Uint8); err != nil {
			t.Fatal(err)
		}
		ans = append(ans, []string{c.ID, "test/images/x.nii.gz", lab, "CTA"})
		rows = append(rows, []string{c.ID, "CTA", pp})
	}
	writeCSV(t, filepath.Join(priv, "test_labels.csv"), []string{"image_id", "image_path", "label_path", "modality"}, ans)
	writeCSV(t, filepath.Join(sub, "submission.csv"), []string{"image_id", "modality", "predicted_mask_path"}, rows)
	return sub, priv
}

func writeCSV(t testing.TB, path string, h []string, rows [][]string) {
	t.Helper()
	if err := challenge.WriteCSV(path, h, rows); err != nil {
		t.Fatal(err)
	}
}

// MiniFiles writes a private folder whose answers are the given files
// (id → content, stored under test/labels/<name>) and a submission whose
// predictions are the given files (id → (relative path, content)); pathCol
// names the submission's path column.
func MiniFiles(t testing.TB, pathCol string, answers map[string][2]string, preds map[string][2]string, order []string) (string, string) {
	t.Helper()
	root := t.TempDir()
	priv, sub := filepath.Join(root, "private"), filepath.Join(root, "sub")
	var ans, rows [][]string
	for _, id := range order {
		a := answers[id]
		rel := "test/labels/" + a[0]
		if err := challenge.WriteFileAtomic(filepath.Join(priv, rel), []byte(a[1])); err != nil {
			t.Fatal(err)
		}
		ans = append(ans, []string{id, "test/images/x.nii.gz", rel, "CTA"})
		p := preds[id]
		if p[1] != "" {
			clean := strings.TrimPrefix(strings.TrimPrefix(p[0], "./"), "working/")
			if err := challenge.WriteFileAtomic(filepath.Join(sub, clean), []byte(p[1])); err != nil {
				t.Fatal(err)
			}
		}
		rows = append(rows, []string{id, "CTA", p[0]})
	}
	writeCSV(t, filepath.Join(priv, "test_labels.csv"), []string{"image_id", "image_path", "label_path", "modality"}, ans)
	writeCSV(t, filepath.Join(sub, "submission.csv"), []string{"image_id", "modality", pathCol}, rows)
	return sub, priv
}

// Grade grades a folder and fails the test on error.
func Grade(t testing.TB, c challenge.Challenge, sub, priv string, mode challenge.Mode) *challenge.Result {
	t.Helper()
	r, err := challenge.SafeGrade(context.Background(), c, sub, priv, mode)
	if err != nil {
		t.Fatalf("grade (%s): %v", mode, err)
	}
	return r
}

// firstPrediction returns the path column and first prediction path of a submission.
func firstPrediction(t testing.TB, dir string) (string, string) {
	t.Helper()
	tab, err := challenge.ReadCSV(filepath.Join(dir, "submission.csv"))
	if err != nil {
		t.Fatal(err)
	}
	col := tab.Header[len(tab.Header)-1]
	return col, filepath.Join(dir, filepath.FromSlash(tab.Rows[0][len(tab.Header)-1]))
}

// Malformed returns the malformed-submission corpus for a challenge whose
// valid submission names prediction files in its last CSV column.
// kind is "seg", "box" or "edges".
func Malformed(kind string) []challengetest.Malformed {
	col := map[string]string{"seg": "predicted_mask_path", "box": "predicted_bbox_path", "edges": "predicted_edges_path"}[kind]
	write := func(name, want string, fn func(t testing.TB, path string)) challengetest.Malformed {
		return challengetest.Malformed{Name: name, Want: want, Break: func(t testing.TB, dir string) {
			_, p := firstPrediction(t, dir)
			fn(t, p)
		}}
	}
	cases := []challengetest.Malformed{
		challengetest.MissingCSV(),
		challengetest.DropRow(),
		challengetest.RenameColumn(col),
		challengetest.RenameColumn("image_id"),
		challengetest.SetCell("extra-id", "image_id", "999", "missing"),
		challengetest.SetCell("float-id-column", "image_id", "1.0", "missing"),
		challengetest.SetCell("dotdot-path", col, "../../private/x", "leaves"),
		challengetest.SetCell("absolute-path", col, "/etc/passwd", "absolute"),
		write("missing-prediction", "not found", func(t testing.TB, p string) {
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
		}),
		{Name: "symlink-out", Want: "link", Break: func(t testing.TB, dir string) {
			_, p := firstPrediction(t, dir)
			os.Remove(p)
			if err := os.Symlink("/etc/hostname", p); err != nil {
				t.Skip("symlinks unsupported")
			}
		}},
	}
	switch kind {
	case "seg":
		cases = append(cases,
			write("truncated-gzip", "", func(t testing.TB, p string) {
				b, _ := os.ReadFile(p)
				os.WriteFile(p, b[:len(b)/2], 0o644)
			}),
			write("not-an-image", "", func(t testing.TB, p string) { os.WriteFile(p, []byte("hello"), 0o644) }),
			write("huge-header", "", func(t testing.TB, p string) { os.WriteFile(p, hugeHeader(), 0o644) }),
			write("nan-labels", "finite", func(t testing.TB, p string) {
				v, err := nifti.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				v.Data[0] = nan()
				if err := nifti.WriteFile(p, v, volume.Float32); err != nil {
					t.Fatal(err)
				}
			}),
			write("wrong-dims", "", func(t testing.TB, p string) {
				v := volume.New(volume.NewGrid(4, 4), volume.Uint8)
				if err := nifti.WriteFile(p, v, volume.Uint8); err != nil {
					t.Fatal(err)
				}
			}),
		)
	case "box":
		cases = append(cases,
			write("two-sizes", "size", func(t testing.TB, p string) {
				os.WriteFile(p, []byte(`{"size":[10,10],"location":[0,0,0]}`), 0o644)
			}),
			write("missing-location", "location", func(t testing.TB, p string) { os.WriteFile(p, []byte(`{"size":[1,2,3]}`), 0o644) }),
			write("string-value", "integer", func(t testing.TB, p string) {
				os.WriteFile(p, []byte(`{"size":["7.5",1,1],"location":[0,0,0]}`), 0o644)
			}),
			write("not-json", "json", func(t testing.TB, p string) { os.WriteFile(p, []byte(`{"size":`), 0o644) }),
			challengetest.SetCell("yml-extension", col, "predictions/box.yml", ".json or .txt"),
		)
	case "edges":
		cases = append(cases,
			write("value-2", "0 or 1", func(t testing.TB, p string) {
				os.WriteFile(p, []byte(`{"anterior":{"L-A1":2,"Acom":1,"3rd-A2":0,"R-A1":1},"posterior":{"L-Pcom":1,"L-P1":1,"R-P1":1,"R-Pcom":1}}`), 0o644)
			}),
			write("extra-key", "exactly", func(t testing.TB, p string) {
				os.WriteFile(p, []byte(`{"anterior":{"L-A1":1,"Acom":1,"3rd-A2":0,"R-A1":1},"posterior":{"L-Pcom":1,"L-P1":1,"R-P1":1,"R-Pcom":1},"x":1}`), 0o644)
			}),
			write("string-value", "0 or 1", func(t testing.TB, p string) {
				os.WriteFile(p, []byte(`{"anterior":{"L-A1":"1","Acom":1,"3rd-A2":0,"R-A1":1},"posterior":{"L-Pcom":1,"L-P1":1,"R-P1":1,"R-Pcom":1}}`), 0o644)
			}),
			write("missing-posterior-key", "exactly", func(t testing.TB, p string) {
				os.WriteFile(p, []byte(`{"anterior":{"L-A1":1,"Acom":1,"3rd-A2":0,"R-A1":1},"posterior":{"L-Pcom":1,"L-P1":1,"R-P1":1}}`), 0o644)
			}),
			challengetest.SetCell("txt-extension", col, "predictions/e.txt", ".json"),
		)
	}
	return cases
}

func nan() float64 {
	var z float64
	return z / z
}

// hugeHeader is a gzipped NIfTI-1 header claiming a 2^15-cube float64
// image with no data behind it.
func hugeHeader() []byte {
	h := make([]byte, 352)
	binary.LittleEndian.PutUint32(h[0:], 348)
	dims := []int16{3, 32767, 32767, 32767, 1, 1, 1, 1}
	for i, d := range dims {
		binary.LittleEndian.PutUint16(h[40+2*i:], uint16(d))
	}
	binary.LittleEndian.PutUint16(h[70:], 64) // float64
	binary.LittleEndian.PutUint16(h[72:], 64)
	for i := 0; i < 4; i++ {
		binary.LittleEndian.PutUint32(h[76+4*i:], 0x3f800000) // pixdim 1.0
	}
	binary.LittleEndian.PutUint32(h[108:], 0x43b00000) // vox_offset 352
	copy(h[344:], "n+1\x00")
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write(h)
	zw.Close()
	return b.Bytes()
}
