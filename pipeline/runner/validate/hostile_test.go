package validate

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rexmle/rexmle/metrics/imageio/png"
	"github.com/rexmle/rexmle/metrics/volume"
	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenges/cellseg"
	"github.com/rexmle/rexmle/pipeline/challenges/ldctiqa"
	"github.com/rexmle/rexmle/pipeline/challenges/puma"
	"github.com/rexmle/rexmle/pipeline/challenges/usenhance"
)

// The hostile tests play an agent against the endpoint as the pipeline
// runs it (these tests run as root in CI, as the runner does on a GPU
// node): a root-only secret outside the run, the runner's own environment
// and the private answers must never appear in an answer, whatever the
// submission folder holds or however fast it changes. On the code before
// the snapshot (commit d9d326e) NeurIPS-CellSeg answered the secret's first
// line, 1.4 KB of /proc/self/environ and the answers' header through a
// link named submission.csv, and the file/link swap on LDCT-IQA's
// submission.csv won 2 of 2,000 requests (first at request 157).

const hostileSecret = "ROOTONLY-SECRET-91c2"

type hostileRun struct {
	run, sub, secret, secretDir, priv, socket string
}

// newHostileRun makes a run folder, a root-only secret beside it, private
// answers (test_labels.csv with both LDCT-IQA's and NeurIPS-CellSeg's
// columns) and an endpoint grading with g.
func newHostileRun(t *testing.T, g challenge.Grader, priv string) *hostileRun {
	t.Helper()
	root := t.TempDir()
	h := &hostileRun{run: filepath.Join(root, "run")}
	h.secretDir = filepath.Join(root, "host")
	os.Mkdir(h.secretDir, 0o700)
	h.secret = filepath.Join(h.secretDir, "shadow")
	if err := os.WriteFile(h.secret, []byte("root:"+hostileSecret+":19000\nx:1:2\ny:3:4\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	h.priv = priv
	if h.priv == "" {
		h.priv = filepath.Join(root, "private")
		os.Mkdir(h.priv, 0o700)
		os.WriteFile(filepath.Join(h.priv, "test_labels.csv"), []byte("image_id,quality_score,label_path\n1,0.5,a.png\n2,0.5,b.png\n"), 0o600)
	}
	h.sub = filepath.Join(h.run, "submission")
	os.MkdirAll(h.sub, 0o777)
	hd := mustHandler(t, Config{Check: Check(g, h.priv, challenge.Reference), Folders: map[string]string{"/submission": h.sub, h.sub: h.sub},
		Default: "/submission", Scratch: filepath.Join(h.run, ".validate")})
	srv, err := Listen(filepath.Join(h.run, "v.sock"), hd)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	h.socket = srv.Socket
	return h
}

// leaks says which protected content an answer carries.
func (h *hostileRun) leaks(reason string) string {
	home := os.Getenv("HOME")
	switch {
	case strings.Contains(reason, hostileSecret):
		return "the root-only secret"
	case home != "" && strings.Contains(reason, "HOME="+home):
		return "the runner's environment"
	case strings.Contains(reason, "quality_score") && strings.Contains(reason, "label_path"):
		return "the private answers' header"
	}
	return ""
}

func TestHostileLinksRevealNothing(t *testing.T) {
	graders := []challenge.Grader{cellseg.Challenge{}, ldctiqa.Challenge{}, puma.Track1Task1, usenhance.Challenge{}}
	for _, g := range graders {
		t.Run(g.ID(), func(t *testing.T) {
			h := newHostileRun(t, g, "")
			targets := []string{h.secret, "/proc/self/environ", filepath.Join(h.priv, "test_labels.csv"), h.secretDir, "/nonexistent/x", "/etc/passwd"}
			var first string
			for _, target := range targets {
				link := filepath.Join(h.sub, "submission.csv")
				os.Remove(link)
				if err := os.Symlink(target, link); err != nil {
					t.Fatal(err)
				}
				r, err := Ask(context.Background(), h.socket, "/submission")
				if err != nil {
					t.Fatal(err)
				}
				if what := h.leaks(r.Reason); what != "" || r.Valid {
					t.Errorf("submission.csv -> %s: the answer carries %s: %+v", target, what, r)
				}
				// No existence bit: every target, there or not, gets one answer.
				if first == "" {
					first = r.Reason
				} else if r.Reason != first {
					t.Errorf("submission.csv -> %s answered %q, -> %s answered %q", target, r.Reason, targets[0], first)
				}
			}
			t.Logf("every link answered %q", first)
		})
	}
}

// TestHostileFolderLinks: a folder named through a link that leaves the
// run, a missing folder and a folder outside get one answer, and nothing of
// what lies behind the link is graded.
func TestHostileFolderLinks(t *testing.T) {
	h := newHostileRun(t, cellseg.Challenge{}, "")
	os.WriteFile(filepath.Join(h.secretDir, "submission.csv"), []byte("id\n"+hostileSecret+"\n"), 0o600)
	os.Symlink(h.secretDir, filepath.Join(h.sub, "out"))
	var answers []string
	for _, dir := range []string{"/submission/out", "/submission/missing", h.secretDir, "/proc/self", "/submission/../../host"} {
		body := rawAsk(t, h.socket, `{"dir":"`+dir+`"}`)
		if h.leaks(body) != "" {
			t.Errorf("dir %s: %s", dir, body)
		}
		answers = append(answers, strings.Replace(body, dir, "DIR", 1))
	}
	for _, a := range answers[1:] {
		if a != answers[0] {
			t.Errorf("answers differ: %q", answers)
			break
		}
	}
}

// TestHostileSwapRace swaps submission.csv between a regular file and a
// link to the secret as fast as it can while 2,000 validations run.
func TestHostileSwapRace(t *testing.T) {
	h := newHostileRun(t, ldctiqa.Challenge{}, "")
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			tmp := filepath.Join(h.sub, ".tmp")
			if i%2 == 0 {
				os.WriteFile(tmp, []byte("image_id,quality_score\n1,0.1\n2,0.2\n"), 0o644)
			} else {
				os.Symlink(h.secret, tmp)
			}
			os.Rename(tmp, filepath.Join(h.sub, "submission.csv"))
		}
	}()
	n, start := 2000, time.Now()
	kinds := map[string]int{}
	for i := 0; i < n; i++ {
		r, err := Ask(context.Background(), h.socket, "/submission")
		if err != nil {
			t.Fatal(err)
		}
		if what := h.leaks(r.Reason); what != "" {
			t.Fatalf("request %d: the answer carries %s: %s", i+1, what, r.Reason)
		}
		kinds[fmt.Sprint(r.Valid)+" "+r.Reason]++
	}
	close(stop)
	wg.Wait()
	t.Logf("%d requests in %v, none leaked; answers: %v", n, time.Since(start), kinds)
	if kinds["true "] == 0 {
		t.Errorf("no request saw the regular file: the race did not run")
	}
}

// TestHostilePNGBomb: an all-zero 6000×6000 PNG (35 KB on disk) for a
// 64×64 answer is refused from its header, by USenhance (an enhanced
// image) and NeurIPS-CellSeg (a mask). Before: USenhance answered valid,
// with 343 MB allocated by the one call.
func TestHostilePNGBomb(t *testing.T) {
	for _, tc := range []struct {
		g                 challenge.Grader
		answers, sub, col string
	}{
		{usenhance.Challenge{}, "image_id,ground_truth_path\na,gt/a.png\n", "image_id,enhanced_image_path\na,a.png\n", "enhanced"},
		{cellseg.Challenge{}, "image_id,label_path\na,gt/a.png\n", "image_id,predicted_mask_path\na,a.png\n", "mask"},
	} {
		t.Run(tc.g.ID(), func(t *testing.T) {
			root := t.TempDir()
			priv := filepath.Join(root, "private")
			os.MkdirAll(filepath.Join(priv, "gt"), 0o755)
			if err := png.WriteFile(filepath.Join(priv, "gt", "a.png"), volume.New(volume.NewGrid(64, 64), volume.Uint8), 8); err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(priv, "test_labels.csv"), []byte(tc.answers), 0o644)
			h := newHostileRun(t, tc.g, priv)
			if err := png.WriteFile(filepath.Join(h.sub, "a.png"), volume.New(volume.NewGrid(6000, 6000), volume.Uint8), 8); err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(h.sub, "submission.csv"), []byte(tc.sub), 0o644)
			runtime.GC()
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			r, err := Ask(context.Background(), h.socket, "/submission")
			runtime.ReadMemStats(&m1)
			alloc := (m1.TotalAlloc - m0.TotalAlloc) >> 20
			t.Logf("answer %+v; %d MB allocated", r, alloc)
			if err != nil || r.Valid || !strings.Contains(r.Reason, "a.png") || !strings.Contains(r.Reason, "limit") || strings.Contains(r.Reason, h.run) {
				t.Fatalf("a 6000×6000 %s for a 64×64 answer: %+v %v", tc.col, r, err)
			}
			if alloc > 40 {
				t.Errorf("%d MB allocated: the image was decoded", alloc)
			}
			// The same image at the answer's size is graded.
			png.WriteFile(filepath.Join(h.sub, "a.png"), volume.New(volume.NewGrid(64, 64), volume.Uint8), 8)
			if r, err := Ask(context.Background(), h.socket, "/submission"); err != nil || !r.Valid {
				t.Fatalf("a 64×64 %s: %+v %v", tc.col, r, err)
			}
		})
	}
}

// TestHostileConcurrency: eight requests at once; one grades at a time,
// the others wait up to a second for it and then get 429 with
// Retry-After. Before: all eight graded at once.
func TestHostileConcurrency(t *testing.T) {
	root := t.TempDir()
	sub := filepath.Join(root, "submission")
	os.MkdirAll(sub, 0o755)
	var mu sync.Mutex
	in, peak := 0, 0
	slow := func(ctx context.Context, dir string) error {
		mu.Lock()
		in++
		peak = max(peak, in)
		mu.Unlock()
		time.Sleep(300 * time.Millisecond)
		mu.Lock()
		in--
		mu.Unlock()
		return nil
	}
	srv, err := Listen(filepath.Join(root, "v.sock"), mustHandler(t, Config{Check: slow, Folders: map[string]string{sub: sub}, Default: sub, Scratch: filepath.Join(root, ".validate")}))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", srv.Socket)
	}}}
	codes := make(chan string, 8)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := c.Post("http://x/validate", "application/json", strings.NewReader(""))
			if err != nil {
				codes <- err.Error()
				return
			}
			resp.Body.Close()
			codes <- fmt.Sprint(resp.StatusCode, " ", resp.Header.Get("Retry-After"))
		}()
	}
	wg.Wait()
	close(codes)
	got := map[string]int{}
	for c := range codes {
		got[c]++
	}
	t.Logf("8 requests at once: %v, at most %d graded at once", got, peak)
	// Each waits a second for the slot: about three are graded in turn.
	if peak != 1 || got["200 "] < 1 || got["429 5"] < 1 || got["200 "]+got["429 5"] != 8 {
		t.Errorf("8 requests at once: %v, peak %d", got, peak)
	}
}

// TestHostileTimeout: a validation that runs past its limit is answered
// 504, and the slot stays taken until the grader stopped.
func TestHostileTimeout(t *testing.T) {
	root := t.TempDir()
	sub := filepath.Join(root, "submission")
	os.MkdirAll(sub, 0o755)
	stopped := make(chan struct{})
	check := func(ctx context.Context, dir string) error {
		<-ctx.Done()
		time.Sleep(slotWait + 500*time.Millisecond) // a grader slow to stop
		close(stopped)
		return ctx.Err()
	}
	srv, err := Listen(filepath.Join(root, "v.sock"), mustHandler(t, Config{Check: check, Folders: map[string]string{sub: sub}, Default: sub, Scratch: filepath.Join(root, ".validate"), Timeout: 300 * time.Millisecond}))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	start := time.Now()
	body := rawAsk(t, srv.Socket, "")
	if !strings.Contains(body, "did not finish within 300ms") || time.Since(start) > 5*time.Second {
		t.Fatalf("answered %s after %v", body, time.Since(start))
	}
	if b := rawAsk(t, srv.Socket, ""); !strings.Contains(b, "retry") {
		t.Errorf("while the stopped grader still ran, another request answered %s", b)
	}
	<-stopped
}

// TestHostileStalledUpload: an upload that stops sending is cut off after
// the stall timeout and leaves nothing in the scratch folder; leftovers of
// an endpoint that died are swept when the next one starts. Before: the
// connection stayed open, spooled in the host's temporary folder.
func TestHostileStalledUpload(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the stall timeout")
	}
	root := t.TempDir()
	scratch := filepath.Join(root, ".validate")
	os.MkdirAll(filepath.Join(scratch, "upload-left-by-a-crash"), 0o700)
	cfg := Config{Check: func(context.Context, string) error { return nil }, Folders: map[string]string{root: root}, Default: root, Scratch: scratch}
	srv, err := Listen(filepath.Join(root, "v.sock"), mustHandler(t, cfg))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	if ents, _ := os.ReadDir(scratch); len(ents) != 0 {
		t.Errorf("leftovers not swept at start: %v", ents)
	}
	var conns []net.Conn
	for i := 0; i < 4; i++ {
		c, err := net.Dial("unix", srv.Socket)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		fmt.Fprintf(c, "POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=B\r\nContent-Length: 100000000\r\n\r\n--B\r\nContent-Disposition: form-data; name=\"file\"; filename=\"submission.csv\"\r\n\r\n%s", strings.Repeat("x", 1<<20))
	}
	start := time.Now()
	buf := make([]byte, 4096)
	conns[0].SetReadDeadline(time.Now().Add(stallTimeout + 10*time.Second))
	n, _ := conns[0].Read(buf)
	took := time.Since(start)
	t.Logf("the stalled upload was answered after %v: %q", took, firstLine(string(buf[:n])))
	if !strings.Contains(string(buf[:n]), "cut off") || took > stallTimeout+5*time.Second {
		t.Errorf("the stalled upload was not cut off (%v)", took)
	}
	for _, c := range conns {
		c.Close()
	}
	// The slot is free again.
	if b := rawAsk(t, srv.Socket, ""); !strings.Contains(b, `"valid":true`) {
		t.Errorf("after the stalled upload: %s", b)
	}
	deadline := time.Now().Add(2 * stallTimeout)
	for {
		ents, _ := os.ReadDir(scratch)
		if len(ents) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("left in the scratch folder: %v", ents)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
