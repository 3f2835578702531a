// Package validate is the per-run submission check an agent may call while
// it works: an HTTP server on a Unix socket placed in (or, where that path is
// too long, beside) the run folder, answering GET /health and POST /validate
// with {"dir": "<submission folder>"} (or no body: the run's submission
// folder), or a multipart upload of the submission. In a sandbox the socket
// is reachable over HTTP on loopback through the bridge
// ($REXMLE_VALIDATE_URL). The answer is only valid or invalid with the
// reason the grader gave for rejecting the format; no score, metric value
// or grader output ever leaves the server.
//
// The endpoint runs with the pipeline's rights, so it never grades what the
// agent can still change or point elsewhere. A request first takes a
// sealed snapshot of the named folder into a private scratch folder inside
// the run's own folder (Config.Scratch, mode 0700, not reachable from the
// sandbox): the folder is opened through os.Root from the run's folder the
// name maps to, and walked one descriptor at a time, copying only regular
// files and folders (a link, FIFO, device or socket is left out, as the
// grade stage's seal leaves it out), each entry checked to be the one that
// was listed, within the caps of the grade stage's seal. The grader reads
// only the snapshot, and every grader opens files through challenge's one
// confinement rule (challenge.OpenInside). A folder the run cannot name,
// a missing one and a link that leaves the run all get the same answer.
//
// Bounds: one validation at a time per run (another request waits up to a
// second for the slot, then gets 429 with Retry-After), a wall-time limit per validation (Config.Timeout; the
// grader is cancelled and the slot stays taken until it has stopped), image
// size caps that graders check from headers before decoding, request bodies
// capped and read with a stall timeout, uploads spooled into the scratch
// folder, and every snapshot and upload removed when its request ends, the
// scratch folder emptied when the endpoint starts and removed when it stops
// (a snapshot is removed right after its answer is sent, before the next
// validation may start).
package validate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/rexmle/rexmle/pipeline/challenge"
)

// Request is the body of POST /validate.
type Request struct {
	Dir string `json:"dir"` // the submission folder as the agent sees it
}

// Response is the server's only answer.
type Response struct {
	Valid  bool   `json:"valid"`
	Reason string `json:"reason,omitempty"` // why the submission is invalid; empty when valid
}

// CheckFunc grades dir against the private answers and returns nil when it
// grades, an *challenge.InvalidSubmission when the format is wrong, or
// another error when grading failed.
type CheckFunc func(ctx context.Context, dir string) error

// Defaults of Config.
const (
	DefaultTimeout = 10 * time.Minute
	// RetryAfter is what a request that finds another validation running is
	// told to wait.
	RetryAfter = 5 * time.Second
	// slotWait is how long a request waits for the running validation to
	// end before it is answered 429.
	slotWait = time.Second
	// stallTimeout is how long a request body may send nothing.
	stallTimeout = 15 * time.Second
	// maxBodyTime bounds the whole reading of one request body.
	maxBodyTime = 10 * time.Minute
)

// Config is one run's endpoint.
type Config struct {
	Check CheckFunc
	// Folders maps each name the agent may use for a folder of the run
	// (the path it has inside a sandbox or container, or the host folder
	// itself) to the host folder it stands for; a request may name that
	// folder or one below it.
	Folders map[string]string
	// Default is the folder validated when a request names none.
	Default string
	// Scratch is the endpoint's private folder for snapshots and uploads,
	// inside the run's own folder and outside everything the agent can
	// reach. It is made (mode 0700) and emptied when the handler is made.
	Scratch string
	// Timeout is the wall-time limit of one validation (0: DefaultTimeout).
	Timeout time.Duration
	// Limits are the snapshot's caps (zero fields: the defaults).
	Limits Limits
	Log    *slog.Logger
}

// Handler answers GET /health ({"status":"ok"}) and POST /validate. The
// body of POST /validate is {"dir": "<submission folder>"} as the agent sees
// it; an empty body, {} or an empty dir means cfg.Default. A
// multipart/form-data body is an upload, as the reference harness's agents
// send it: the part "file" (e.g. submission.csv) and optionally
// "predictions_zip" (a zip of the submission's other files) are assembled
// into a scratch submission folder, which is checked (see receiveUpload).
func Handler(cfg Config) (http.Handler, error) {
	if cfg.Scratch == "" {
		return nil, errors.New("validation endpoint: no scratch folder")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	// Leftovers of an endpoint that did not stop cleanly go first.
	if err := os.RemoveAll(cfg.Scratch); err != nil {
		return nil, fmt.Errorf("validation endpoint: clear %s: %w", cfg.Scratch, err)
	}
	if err := os.MkdirAll(cfg.Scratch, 0o700); err != nil {
		return nil, fmt.Errorf("validation endpoint: %w", err)
	}
	e := &endpoint{cfg: cfg, slot: make(chan struct{}, 1), folders: sortedFolders(cfg.Folders)}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"status":"ok"}`+"\n")
	})
	mux.HandleFunc("POST /validate", e.validate)
	return mux, nil
}

type endpoint struct {
	cfg     Config
	slot    chan struct{} // one validation at a time
	folders [][2]string   // name prefix, host folder; longest prefix first
}

func sortedFolders(m map[string]string) [][2]string {
	var out [][2]string
	for k, v := range m {
		out = append(out, [2]string{filepath.Clean(k), v})
	}
	sort.Slice(out, func(i, j int) bool { return len(out[i][0]) > len(out[j][0]) })
	return out
}

// validate answers one validation request: an uploaded submission or a
// folder of the run, snapshotted, graded by the check within the time limit.
func (e *endpoint) validate(w http.ResponseWriter, r *http.Request) {
	if !e.acquireSlot(w, r) {
		return
	}
	released := false
	defer func() {
		if !released {
			<-e.slot
		}
	}()

	body := &stallReader{rc: http.NewResponseController(w), r: r.Body, hard: time.Now().Add(maxBodyTime)}
	upload := strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/form-data")
	var dir string
	var cleanup func()
	var ok bool
	if upload {
		dir, cleanup, ok = e.uploadedFolder(w, r, body)
	} else {
		dir, cleanup, ok = e.snapshotFolder(w, body)
	}
	if !ok {
		return
	}
	released = true // the grading goroutine releases the slot
	e.checkAndReply(w, r, dir, cleanup, upload)
}

// acquireSlot takes the run's validation slot. A request that comes while
// another validation finishes (an agent asking again at once) waits for it
// a moment; one that comes during a long validation is told to come back
// (false: the answer is sent).
func (e *endpoint) acquireSlot(w http.ResponseWriter, r *http.Request) bool {
	wait := time.NewTimer(slotWait)
	defer wait.Stop()
	select {
	case e.slot <- struct{}{}:
		return true
	case <-wait.C:
		w.Header().Set("Retry-After", strconv.Itoa(int(RetryAfter/time.Second)))
		busy := Response{Reason: fmt.Sprintf("another validation of this run is running; retry in %d s", int(RetryAfter/time.Second))}
		if strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/form-data") {
			replyUpload(w, http.StatusTooManyRequests, busy)
		} else {
			reply(w, http.StatusTooManyRequests, busy)
		}
		return false
	}
}

// uploadedFolder unpacks an uploaded submission into a scratch folder (a
// CSV sent alone is completed with the prediction files of the run's
// submission folder); ok is false when the answer is sent.
func (e *endpoint) uploadedFolder(w http.ResponseWriter, r *http.Request, body *stallReader) (dir string, cleanup func(), ok bool) {
	r.Body = http.MaxBytesReader(w, io.NopCloser(body), maxUploadBytes+1<<20)
	d, zipped, c, err := receiveUpload(r, e.cfg.Scratch)
	body.done()
	if err != nil {
		if c != nil {
			c()
		}
		reason := err.Error()
		if body.failed {
			w.Header().Set("Connection", "close")
			reason = fmt.Sprintf("the upload sent nothing for %v (or took longer than %v) and was cut off", stallTimeout, maxBodyTime)
		}
		replyUpload(w, http.StatusBadRequest, Response{Reason: reason})
		return "", nil, false
	}
	dir, cleanup = d, c
	if !zipped {
		// A CSV sent alone (ML-Master posts only its node's CSV) is
		// checked with the prediction files of the run's submission
		// folder, as the adapters' bridges do: those come from a
		// sealed snapshot of that folder, never from the live one.
		if d, c, err := e.completeUpload(dir); err == nil {
			cleanup()
			dir, cleanup = d, c
		}
	}
	return dir, cleanup, true
}

// snapshotFolder snapshots the folder a JSON request names (the default
// submission folder when none) into a scratch folder; ok is false when the
// answer is sent.
func (e *endpoint) snapshotFolder(w http.ResponseWriter, body *stallReader) (dir string, cleanup func(), ok bool) {
	var req Request
	b, err := io.ReadAll(io.LimitReader(body, 1<<16+1))
	body.done()
	if err != nil || len(b) > 1<<16 {
		reply(w, http.StatusBadRequest, Response{Reason: "want a JSON body {\"dir\": \"<submission folder>\"} of at most 64 KiB"})
		return "", nil, false
	}
	if len(strings.TrimSpace(string(b))) > 0 {
		if err := json.Unmarshal(b, &req); err != nil {
			reply(w, http.StatusBadRequest, Response{Reason: "want a JSON body {\"dir\": \"<submission folder>\"}"})
			return "", nil, false
		}
	}
	if req.Dir == "" {
		req.Dir = e.cfg.Default
	}
	snap, err := os.MkdirTemp(e.cfg.Scratch, "snapshot-")
	if err != nil {
		reply(w, http.StatusInternalServerError, Response{Reason: "the endpoint could not make its snapshot"})
		return "", nil, false
	}
	cleanup = func() { os.RemoveAll(snap) }
	base, rel, ok := e.resolve(req.Dir)
	if ok {
		err = Snapshot(base, rel, snap, e.cfg.Limits)
	}
	if !ok || errors.Is(err, errNotFolder) {
		cleanup()
		reply(w, http.StatusForbidden, Response{Reason: fmt.Sprintf("dir %s is not a folder of this run (want the submission folder or a folder in the workspace)", truncate(req.Dir))})
		return "", nil, false
	}
	if err != nil {
		cleanup()
		reply(w, http.StatusRequestEntityTooLarge, Response{Reason: err.Error()})
		return "", nil, false
	}
	return snap, cleanup, true
}

// checkAndReply grades the folder within the time limit and answers. The
// grading goroutine owns the slot: it releases it only once everything of
// this validation is gone (cleanup run); the answer goes out first.
func (e *endpoint) checkAndReply(w http.ResponseWriter, r *http.Request, dir string, cleanup func(), upload bool) {
	ctx, cancel := context.WithTimeout(r.Context(), e.cfg.Timeout)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		defer func() { <-e.slot }()
		if cleanup != nil {
			defer cleanup()
		}
		done <- e.guardedCheck(ctx, dir)
	}()
	select {
	case err := <-done:
		if err != nil && !challenge.IsInvalid(err) {
			e.cfg.Log.Warn("validation: the grader failed", "err", err)
		}
		v := verdict(err)
		// The grader names files by their path in the snapshot: the answer
		// names them as the agent does, relative to its folder.
		v.Reason = strings.ReplaceAll(v.Reason, dir+string(filepath.Separator), "")
		if upload {
			replyUpload(w, http.StatusOK, v)
		} else {
			reply(w, http.StatusOK, v)
		}
	case <-ctx.Done():
		e.cfg.Log.Warn("validation: stopped at its time limit", "limit", e.cfg.Timeout)
		reply(w, http.StatusGatewayTimeout, Response{Reason: fmt.Sprintf("validation did not finish within %v and was stopped", e.cfg.Timeout)})
	}
}

// guardedCheck runs the check, turning a panic into an error.
func (e *endpoint) guardedCheck(ctx context.Context, dir string) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("check panicked: %v", p)
		}
	}()
	return e.cfg.Check(ctx, dir)
}

// resolve maps the folder the agent names to the host folder of the run it
// lies in and the path below it; false for anything else.
func (e *endpoint) resolve(name string) (base, rel string, ok bool) {
	if name == "" || !filepath.IsAbs(name) {
		return "", "", false
	}
	p := filepath.Clean(name)
	for _, f := range e.folders {
		if p == f[0] {
			return f[1], ".", true
		}
		if strings.HasPrefix(p, f[0]+"/") {
			return f[1], strings.TrimPrefix(p, f[0]+"/"), true
		}
	}
	return "", "", false
}

// verdict turns a grading outcome into a Response that carries no number
// the grader computed: the reason is the format problem the grader names
// (file, field, what was expected), or a fixed sentence for any other error.
func verdict(err error) Response {
	if err == nil {
		return Response{Valid: true}
	}
	var inv *challenge.InvalidSubmission
	if errors.As(err, &inv) {
		return Response{Reason: inv.Error()}
	}
	return Response{Reason: "the grader could not grade this submission (not a format problem the grader can name)"}
}

// UploadResponse answers a multipart upload: the reference harness's
// clients send those and read its server's keys, "is_valid" and "result"
// (grading_server_standalone.py returns jsonify({"is_valid", "result"});
// ML-Master's parse_exec_result reads res['is_valid'] and, when false,
// res['result'] (agent/mcts_agent.py, both parse functions)), so the
// answer carries them beside rexmle's own "valid" and "reason".
type UploadResponse struct {
	Response
	IsValid bool   `json:"is_valid"`
	Result  string `json:"result"` // "Submission is valid." or "Submission is invalid: <reason>"
}

func replyUpload(w http.ResponseWriter, code int, r Response) {
	u := UploadResponse{Response: r, IsValid: r.Valid, Result: "Submission is valid."}
	if !r.Valid {
		u.Result = "Submission is invalid: " + r.Reason
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(u)
}

// completeUpload returns a new scratch submission folder holding a sealed
// snapshot of the run's default folder with the uploaded submission.csv of
// dir in place of its own. It fails (and the upload is checked alone) when
// the run has no default folder or it cannot be snapshotted.
func (e *endpoint) completeUpload(dir string) (string, func(), error) {
	base, rel, ok := e.resolve(e.cfg.Default)
	if !ok {
		return "", nil, errNotFolder
	}
	snap, err := os.MkdirTemp(e.cfg.Scratch, "upload-snapshot-")
	if err != nil {
		return "", nil, err
	}
	cleanup := func() { os.RemoveAll(snap) }
	if err := Snapshot(base, rel, snap, e.cfg.Limits); err != nil {
		cleanup()
		return "", nil, err
	}
	csv := filepath.Join(snap, "submission.csv")
	if err := os.RemoveAll(csv); err != nil {
		cleanup()
		return "", nil, err
	}
	if err := os.Rename(filepath.Join(dir, "submission.csv"), csv); err != nil {
		cleanup()
		return "", nil, err
	}
	return snap, cleanup, nil
}

func reply(w http.ResponseWriter, code int, r Response) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(r)
}

// truncate shortens a name the agent sent before it goes into an answer.
func truncate(s string) string {
	if len(s) > 200 {
		return s[:200] + "..."
	}
	return s
}

// stallReader reads a request body with a read deadline that moves with
// each read: a client that stops sending for stallTimeout, or that is
// still sending at hard, gets a read error. done clears the deadline.
type stallReader struct {
	rc     *http.ResponseController
	r      io.Reader
	hard   time.Time
	failed bool
}

func (s *stallReader) Read(p []byte) (int, error) {
	d := time.Now().Add(stallTimeout)
	if d.After(s.hard) {
		d = s.hard
	}
	s.rc.SetReadDeadline(d)
	n, err := s.r.Read(p)
	if err != nil && err != io.EOF {
		s.failed = true
	}
	return n, err
}

// done ends the body's reading: the deadline is cleared, or, after a
// failed read, set to now, so that the server does not wait for the rest
// of a stalled body before it answers and closes the connection.
func (s *stallReader) done() {
	if s.failed {
		s.rc.SetReadDeadline(time.Now())
		return
	}
	s.rc.SetReadDeadline(time.Time{})
}

// Server is a running validation endpoint.
type Server struct {
	Socket string
	srv    *http.Server
	tmp    string
}

// Listen starts the endpoint on a Unix socket at socket, or, when that path
// is longer than a socket address allows, in a fresh temporary folder.
func Listen(socket string, h http.Handler) (*Server, error) {
	s := &Server{Socket: socket}
	if len(socket) > 100 {
		tmp, err := os.MkdirTemp("", "rexmle-val-")
		if err != nil {
			return nil, err
		}
		// Searchable by others: a sandbox running as another user binds it.
		if err := os.Chmod(tmp, 0o711); err != nil {
			os.RemoveAll(tmp)
			return nil, err
		}
		s.tmp, s.Socket = tmp, filepath.Join(tmp, "validate.sock")
	}
	os.Remove(s.Socket)
	ln, err := net.Listen("unix", s.Socket)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", s.Socket, err)
	}
	os.Chmod(s.Socket, 0o666) // the agent may run as another user (containers)
	s.srv = &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: time.Minute, MaxHeaderBytes: 64 << 10}
	go s.srv.Serve(ln)
	return s, nil
}

// Close stops the endpoint and removes the socket.
func (s *Server) Close() error {
	err := s.srv.Close()
	os.Remove(s.Socket)
	if s.tmp != "" {
		os.RemoveAll(s.tmp)
	}
	return err
}

// Ask sends dir to the endpoint at socket and returns its answer.
func Ask(ctx context.Context, socket, dir string) (*Response, error) {
	c := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", socket)
	}}}
	body, _ := json.Marshal(Request{Dir: dir})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://rexmle/validate", strings.NewReader(string(body)))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return nil, fmt.Errorf("validation endpoint %s: %w", socket, err)
	}
	defer resp.Body.Close()
	var r Response
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return nil, fmt.Errorf("validation endpoint %s: bad answer (HTTP %d): %w", socket, resp.StatusCode, err)
	}
	return &r, nil
}

// Check is the CheckFunc for challenge c with its private answers in
// privateDir, grading in mode.
func Check(c challenge.Grader, privateDir string, mode challenge.Mode) CheckFunc {
	return func(ctx context.Context, dir string) error {
		_, err := challenge.SafeGrade(ctx, c, dir, privateDir, mode)
		return err
	}
}
