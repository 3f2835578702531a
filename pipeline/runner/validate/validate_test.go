package validate

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/pipeline/challenge"
)

// fakeChallenge grades by looking at the folder: a file "bad.txt" makes the
// submission invalid, "crash" makes the grader fail, otherwise it returns
// metric values that must never reach the agent.
type fakeChallenge struct{ challenge.Challenge }

var secretValues = map[string]float64{"dice": 0.734521, "hd95": 12.5, "count": 37}

func (fakeChallenge) ID() string { return "fake" }
func (fakeChallenge) Grade(ctx context.Context, dir, private string, mode challenge.Mode) (*challenge.Result, error) {
	if _, err := os.Stat(filepath.Join(dir, "bad.txt")); err == nil {
		return nil, challenge.Invalidf("submission.csv", "label", "want 0 or 1")
	}
	if _, err := os.Stat(filepath.Join(dir, "crash")); err == nil {
		panic("grader bug with value 0.734521")
	}
	r := &challenge.Result{Mode: mode}
	for k, v := range secretValues {
		r.Set(k, v)
	}
	return r, nil
}

func serve(t *testing.T, root string) string {
	t.Helper()
	srv, err := Listen(filepath.Join(t.TempDir(), "v.sock"), mustHandler(t, Config{Check: Check(fakeChallenge{}, "private", challenge.Reference),
		Folders: map[string]string{"/submission": filepath.Join(root, "submission"), root: root}, Default: "/submission", Scratch: filepath.Join(t.TempDir(), ".validate")}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv.Socket
}

func mustHandler(t testing.TB, cfg Config) http.Handler {
	t.Helper()
	h, err := Handler(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func rawAsk(t *testing.T, socket, body string) string {
	c := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", socket)
	}}}
	resp, err := c.Post("http://x/validate", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

func TestValidateAnswersOnlyValidity(t *testing.T) {
	root := t.TempDir()
	sub := filepath.Join(root, "submission")
	os.MkdirAll(sub, 0o755)
	bad := filepath.Join(root, "bad")
	os.MkdirAll(bad, 0o755)
	os.WriteFile(filepath.Join(bad, "bad.txt"), nil, 0o644)
	crash := filepath.Join(root, "crash")
	os.MkdirAll(crash, 0o755)
	os.WriteFile(filepath.Join(crash, "crash"), nil, 0o644)
	socket := serve(t, root)

	tests := []struct {
		name, dir string
		want      string // the exact body
	}{
		{"valid", sub, `{"valid":true}`},
		{"valid through the container path", "/submission", `{"valid":true}`},
		{"invalid", bad, `{"valid":false,"reason":"invalid submission: submission.csv: label: want 0 or 1"}`},
		{"grader crash", crash, `{"valid":false,"reason":"the grader could not grade this submission (not a format problem the grader can name)"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			body := strings.TrimSpace(rawAsk(t, socket, `{"dir":"`+tc.dir+`"}`))
			if body != tc.want {
				t.Fatalf("body %s, want %s", body, tc.want)
			}
			for _, v := range secretValues {
				for _, s := range []string{strconv.FormatFloat(v, 'g', -1, 64), strconv.FormatFloat(v, 'f', 2, 64)} {
					if strings.Contains(body, s) {
						t.Fatalf("response %s leaks metric value %s", body, s)
					}
				}
			}
		})
	}
	r, err := Ask(context.Background(), socket, sub)
	if err != nil || !r.Valid || r.Reason != "" {
		t.Fatalf("Ask: %+v %v", r, err)
	}
}

func TestValidateRefusesFoldersOutsideTheRun(t *testing.T) {
	root := t.TempDir()
	other := t.TempDir()
	os.Symlink(other, filepath.Join(root, "link"))
	socket := serve(t, root)
	for _, dir := range []string{other, filepath.Join(root, "link"), filepath.Join(root, "..", filepath.Base(other)), "/nonexistent"} {
		r, err := Ask(context.Background(), socket, dir)
		if err != nil {
			t.Fatal(err)
		}
		if r.Valid {
			t.Errorf("dir %q accepted", dir)
		}
	}
	if body := rawAsk(t, socket, "not json"); !strings.Contains(body, `"valid":false`) {
		t.Errorf("bad body answered %s", body)
	}
}

func TestLongSocketPathFallsBack(t *testing.T) {
	long := filepath.Join(t.TempDir(), strings.Repeat("d", 120), "v.sock")
	srv, err := Listen(long, mustHandler(t, Config{Check: func(context.Context, string) error { return errors.New("x") }, Folders: map[string]string{"/": t.TempDir()}, Default: "/", Scratch: filepath.Join(t.TempDir(), "s")}))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if srv.Socket == long || len(srv.Socket) > 100 {
		t.Fatalf("socket %s", srv.Socket)
	}
	r, err := Ask(context.Background(), srv.Socket, "/")
	if err != nil || r.Valid {
		t.Fatalf("%+v %v", r, err)
	}
}

// TestValidateDefaultsAndHealth: no body (or no dir) validates the run's
// submission folder; GET /health answers; a request the handler does not
// know is not answered with a verdict.
func TestValidateDefaultsAndHealth(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "submission"), 0o755)
	socket := serve(t, root)
	for _, body := range []string{"", "{}", `{"dir":""}`} {
		if got := strings.TrimSpace(rawAsk(t, socket, body)); got != `{"valid":true}` {
			t.Errorf("body %q answered %s", body, got)
		}
	}
	// The default is the submission folder: break it and the answer changes.
	os.WriteFile(filepath.Join(root, "submission", "bad.txt"), nil, 0o644)
	if got := rawAsk(t, socket, ""); !strings.Contains(got, `"valid":false`) {
		t.Errorf("default dir with a bad submission answered %s", got)
	}
	c := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", socket)
	}}}
	resp, err := c.Get("http://x/health")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || strings.TrimSpace(string(b)) != `{"status":"ok"}` {
		t.Errorf("health: %d %s", resp.StatusCode, b)
	}
	resp, err = c.Get("http://x/validate")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET /validate: %d", resp.StatusCode)
	}
}

// TestValidateDoesNotRevealHiddenPaths (issue 13 #17): a folder outside the
// run that exists and one that does not get the same answer, apart from
// the name the agent sent.
func TestValidateDoesNotRevealHiddenPaths(t *testing.T) {
	root := filepath.Join(t.TempDir(), "run")
	os.MkdirAll(filepath.Join(root, "submission"), 0o755)
	hidden := filepath.Join(filepath.Dir(root), "private")
	os.MkdirAll(hidden, 0o755)
	missing := filepath.Join(filepath.Dir(root), "privatX")
	socket := serve(t, root)
	a := rawAsk(t, socket, `{"dir":"`+hidden+`"}`)
	b := rawAsk(t, socket, `{"dir":"`+missing+`"}`)
	if !strings.Contains(a, `"valid":false`) || strings.Replace(a, hidden, missing, 1) != b {
		t.Fatalf("existing hidden folder answered %s, missing one %s", a, b)
	}
	// Inside the run a missing folder gets that answer too.
	if c := rawAsk(t, socket, `{"dir":"/submission/nope"}`); strings.Replace(a, hidden, "/submission/nope", 1) != c {
		t.Errorf("missing folder in the run answered %s, a hidden one %s", c, a)
	}
}
