package puma

import (
	"bytes"
	"context"
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"testing"

	"github.com/rexmle/rexmle/pipeline/challenge/challengetest"
)

// firstPred returns the path of the first prediction file named in submission.csv.
func firstPred(t testing.TB, dir string) string {
	tab, err := readSubmissionAny(dir)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, filepath.FromSlash(tab))
}

func readSubmissionAny(dir string) (string, error) {
	for _, col := range []string{"predicted_mask_path", "predicted_nuclei_path"} {
		if rows, err := readSubmission(dir, col); err == nil {
			return rows[0].path, nil
		}
	}
	return "", os.ErrNotExist
}

func overwrite(content []byte) func(t testing.TB, dir string) {
	return func(t testing.TB, dir string) {
		if err := os.WriteFile(firstPred(t, dir), content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// hugePNG is a PNG header claiming 100000 × 100000 pixels.
func hugePNG() []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], 100000)
	binary.BigEndian.PutUint32(ihdr[4:], 100000)
	ihdr[8], ihdr[9] = 8, 0
	var l [4]byte
	binary.BigEndian.PutUint32(l[:], 13)
	b.Write(l[:])
	chunk := append([]byte("IHDR"), ihdr...)
	b.Write(chunk)
	binary.BigEndian.PutUint32(l[:], crc32.ChecksumIEEE(chunk))
	b.Write(l[:])
	return b.Bytes()
}

// replaceWith writes content as a new file name and points the first
// submission row at it.
func replaceWith(name string, content []byte) func(t testing.TB, dir string) {
	return func(t testing.TB, dir string) {
		if err := os.WriteFile(filepath.Join(dir, "predictions", name), content, 0o644); err != nil {
			t.Fatal(err)
		}
		challengetest.EditCSV(t, filepath.Join(dir, "submission.csv"), func(h []string, r [][]string) ([]string, [][]string) {
			r[0][1] = "predictions/" + name
			return h, r
		})
	}
}

func symlinkOut(t testing.TB, dir string) {
	p := firstPred(t, dir)
	outside := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(outside, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(p)
	if err := os.Symlink(outside, p); err != nil {
		t.Fatal(err)
	}
}

func TestMalformedTissue(t *testing.T) {
	c := Track1Task1
	p := challengetest.Prepare(t, c, 1)
	valid := p.Submit(t, "perfect", func(ctx context.Context, o string) error { return c.Perfect(ctx, p.Public(), p.Private(), o) })
	truncated := func(t testing.TB, dir string) {
		b, err := os.ReadFile(firstPred(t, dir))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(firstPred(t, dir), b[:len(b)/3], 0o644); err != nil {
			t.Fatal(err)
		}
	}
	challengetest.CheckMalformed(t, p, valid, []challengetest.Malformed{
		challengetest.MissingCSV(),
		challengetest.DropRow(),
		challengetest.RenameColumn("case_id"),
		challengetest.RenameColumn("predicted_mask_path"),
		challengetest.SetCell("extra-id", "case_id", "training_set_primary_roi_999", "not a test case"),
		challengetest.SetCell("missing-file", "predicted_mask_path", "predictions/none.tif", "not found"),
		challengetest.SetCell("dotdot", "predicted_mask_path", "../../etc/passwd", "leaves"),
		challengetest.SetCell("absolute", "predicted_mask_path", "/etc/passwd", "absolute"),
		{Name: "truncated", Want: "cannot read", Break: truncated},
		{Name: "huge-header", Want: "limit", Break: replaceWith("huge.png", hugePNG())},
		{Name: "not-an-image", Want: "cannot read", Break: overwrite([]byte("hello"))},
		{Name: "unknown-format", Want: "cannot read", Break: replaceWith("mask.bmp", []byte("BM"))},
		{Name: "symlink-out", Want: "link", Break: symlinkOut},
	})
}

func TestMalformedNuclei(t *testing.T) {
	for _, c := range []Challenge{Track1Task2, Track2Task2} {
		t.Run(c.ID(), func(t *testing.T) {
			p := challengetest.Prepare(t, c, 1)
			valid := p.Submit(t, "perfect", func(ctx context.Context, o string) error { return c.Perfect(ctx, p.Public(), p.Private(), o) })
			challengetest.CheckMalformed(t, p, valid, []challengetest.Malformed{
				challengetest.MissingCSV(),
				challengetest.RenameColumn("case_id"),
				challengetest.RenameColumn("predicted_nuclei_path"),
				challengetest.SetCell("unknown-id", "case_id", "training_set_primary_roi_999", "not a test case"),
				challengetest.SetCell("missing-file", "predicted_nuclei_path", "predictions/none.json", "not found"),
				challengetest.SetCell("dotdot", "predicted_nuclei_path", "../x.json", "leaves"),
				{Name: "bad-json", Want: "not valid JSON", Break: overwrite([]byte(`{"polygons": [`))},
				{Name: "top-level-array", Want: "object", Break: overwrite([]byte(`[]`))},
				{Name: "null-list", Want: "not a list", Break: overwrite([]byte(`{"polygons":null}`))},
				{Name: "trailing-data", Want: "extra data", Break: overwrite([]byte(`{"polygons":[]} {}`))},
				{Name: "bad-point", Want: "point", Break: overwrite([]byte(`{"polygons":[{"name":"tumor","path_points":[[1,2],[3],[4,5]]}]}`))},
				{Name: "no-rows", Want: "no rows", Break: func(t testing.TB, dir string) {
					challengetest.EditCSV(t, filepath.Join(dir, "submission.csv"), func(h []string, r [][]string) ([]string, [][]string) { return h, nil })
				}},
				{Name: "symlink-out", Want: "link", Break: symlinkOut},
			})
		})
	}
}
