package validate

import (
	"archive/zip"
	"bytes"
	"context"
	"io"
	"io/fs"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rexmle/rexmle/internal/challenge"
)

// upload posts a multipart body with the given parts (name -> filename,
// content) to the endpoint and returns the answer's body.
func upload(t *testing.T, socket string, parts [][3]string) string {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, p := range parts {
		w, err := mw.CreateFormFile(p[0], p[1])
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, p[2])
	}
	mw.Close()
	c := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", socket)
	}}}
	resp, err := c.Post("http://x/validate", mw.FormDataContentType(), &buf)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return strings.TrimSpace(string(b))
}

func zipOf(t *testing.T, files map[string]string) string {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, body := range files {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, body)
	}
	zw.Close()
	return buf.String()
}

// TestValidateUpload: the reference harness's upload (part "file", optional
// "predictions_zip") is assembled into a scratch submission folder that the
// check sees, then removed; a zip entry leaving the folder, or a body
// without "file", is refused before any check.
func TestValidateUpload(t *testing.T) {
	var seen []string
	var seenDir string
	check := func(ctx context.Context, dir string) error {
		seenDir, seen = dir, nil
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				rel, _ := filepath.Rel(dir, p)
				b, _ := os.ReadFile(p)
				seen = append(seen, rel+"="+string(b))
			}
			return nil
		})
		sort.Strings(seen)
		if len(seen) > 0 && strings.Contains(seen[0], "bad") {
			return challenge.Invalidf("submission.csv", "label", "bad")
		}
		return nil
	}
	root := t.TempDir()
	scratch := filepath.Join(root, ".validate")
	h, err := Handler(Config{Check: check, Folders: map[string]string{root: root}, Default: root, Scratch: scratch})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := Listen(filepath.Join(t.TempDir(), "v.sock"), h)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()

	got := upload(t, srv.Socket, [][3]string{{"file", "../../submission.csv", "case,label\n1,0\n"},
		{"predictions_zip", "p.zip", zipOf(t, map[string]string{"predictions/a.nii": "A", "predictions/sub/b.nii": "B"})}})
	want := []string{"predictions/a.nii=A", "predictions/sub/b.nii=B", "submission.csv=case,label\n1,0\n"}
	if got != `{"valid":true}` || strings.Join(seen, "|") != strings.Join(want, "|") {
		t.Fatalf("answer %s, the check saw %q, want %q", got, seen, want)
	}
	// The upload is removed right after the answer.
	for start := time.Now(); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(seenDir); os.IsNotExist(err) {
			break
		}
		if time.Since(start) > 5*time.Second {
			t.Errorf("scratch folder %s left behind", seenDir)
			break
		}
	}
	if rel, err := filepath.Rel(scratch, seenDir); err != nil || strings.HasPrefix(rel, "..") {
		t.Errorf("the upload was spooled in %s, not in the run's scratch folder %s", seenDir, scratch)
	}
	if got := upload(t, srv.Socket, [][3]string{{"file", "bad.csv", "x"}}); !strings.Contains(got, `"valid":false`) {
		t.Errorf("invalid upload answered %s", got)
	}
	seen = nil
	for name, parts := range map[string][][3]string{
		"zip slip":  {{"file", "submission.csv", "x"}, {"predictions_zip", "p.zip", zipOf(t, map[string]string{"../../escape.txt": "E"})}},
		"no file":   {{"other", "o.txt", "x"}},
		"not a zip": {{"file", "submission.csv", "x"}, {"predictions_zip", "p.zip", "not a zip"}},
	} {
		got := upload(t, srv.Socket, parts)
		if !strings.Contains(got, `"valid":false`) || seen != nil {
			t.Errorf("%s: answered %s, check saw %q", name, got, seen)
		}
	}
	if _, err := os.Stat(filepath.Join(os.TempDir(), "escape.txt")); err == nil {
		t.Error("a zip entry escaped the scratch folder")
	}
}
