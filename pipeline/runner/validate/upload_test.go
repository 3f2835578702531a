package validate

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
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

	"github.com/rexmle/rexmle/pipeline/challenge"
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

// filesIn lists the regular files under dir as "relative/path=content", sorted.
func filesIn(dir string) []string {
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			b, _ := os.ReadFile(p)
			out = append(out, rel+"="+string(b))
		}
		return nil
	})
	sort.Strings(out)
	return out
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
		seenDir, seen = dir, filesIn(dir)
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
	if got != `{"valid":true,"is_valid":true,"result":"Submission is valid."}` || strings.Join(seen, "|") != strings.Join(want, "|") {
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
	if got := upload(t, srv.Socket, [][3]string{{"file", "submission.csv", "bad"}}); !strings.Contains(got, `"valid":false`) ||
		!strings.Contains(got, `"is_valid":false`) || !strings.Contains(got, `"result":"Submission is invalid: invalid submission: submission.csv: label: bad"`) {
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

// TestValidateUploadAsMLMasterSendsIt: ML-Master (the harness's copy)
// posts its node's CSV as part "file" with the filename
// submission_<node>.csv and reads "is_valid" (utils/server_utils.py
// call_validate, agent/mcts_agent.py parse_exec_result). The part is the
// submission's CSV whatever its name, and a CSV sent alone is checked
// with the prediction files of the run's submission folder, whose own
// submission.csv, links and nested folders are handled as stated.
func TestValidateUploadAsMLMasterSendsIt(t *testing.T) {
	var seen []string
	check := func(ctx context.Context, dir string) error {
		seen = filesIn(dir)
		if !strings.Contains(strings.Join(seen, "|"), "masks/b.nii") {
			return challenge.Invalidf("masks/b.nii", "", "not found")
		}
		return nil
	}
	root := t.TempDir()
	live := filepath.Join(root, "submission")
	os.MkdirAll(filepath.Join(live, "masks"), 0o755)
	os.WriteFile(filepath.Join(live, "submission.csv"), []byte("stale"), 0o644)
	os.WriteFile(filepath.Join(live, "submission_4.csv"), []byte("other node"), 0o644)
	os.WriteFile(filepath.Join(live, "masks", "a.nii"), []byte("A"), 0o644)
	secret := filepath.Join(t.TempDir(), "answers.csv")
	os.WriteFile(secret, []byte("private"), 0o644)
	os.Symlink(secret, filepath.Join(live, "masks", "link.nii"))
	h, err := Handler(Config{Check: check, Folders: map[string]string{"/submission": live}, Default: "/submission", Scratch: filepath.Join(root, ".validate")})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := Listen(filepath.Join(t.TempDir(), "v.sock"), h)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()

	got := upload(t, srv.Socket, [][3]string{{"file", "submission_5.csv", "case,mask\n1,masks/a.nii\n"}})
	want := []string{"masks/a.nii=A", "submission.csv=case,mask\n1,masks/a.nii\n", "submission_4.csv=other node"}
	if strings.Join(seen, "|") != strings.Join(want, "|") {
		t.Errorf("the check saw %q, want %q (the upload as submission.csv, the live folder's other regular files, no link)", seen, want)
	}
	var ans map[string]any
	if err := json.Unmarshal([]byte(got), &ans); err != nil {
		t.Fatalf("answer %s: %v", got, err)
	}
	if ans["is_valid"] != false || ans["valid"] != false || !strings.Contains(ans["result"].(string), "masks/b.nii") {
		t.Errorf("answer %s, want is_valid and valid false with the reason in result", got)
	}
	os.WriteFile(filepath.Join(live, "masks", "b.nii"), []byte("B"), 0o644)
	if got := upload(t, srv.Socket, [][3]string{{"file", "submission_6.csv", "x"}}); !strings.Contains(got, `"is_valid":true`) {
		t.Errorf("with both masks in the live folder the answer is %s", got)
	}
	// a predictions_zip is the whole prediction set: nothing is added
	upload(t, srv.Socket, [][3]string{{"file", "submission_7.csv", "x"}, {"predictions_zip", "p.zip", zipOf(t, map[string]string{"masks/z.nii": "Z"})}})
	if strings.Join(seen, "|") != "masks/z.nii=Z|submission.csv=x" {
		t.Errorf("with a zip the check saw %q", seen)
	}
}
