// Package validate is the per-run submission check an agent may call while
// it works: an HTTP server on a Unix socket placed in (or, where that path is
// too long, beside) the run folder, answering GET /health and POST /validate
// with {"dir": "<submission folder>"} (or no body: the run's submission
// folder) by grading the folder against the private answers inside the
// runner process. In a sandbox the socket is reachable over HTTP on
// loopback through the bridge ($REXMLE_VALIDATE_URL). The answer is only valid or invalid
// with the reason the grader gave for rejecting the format; no score, metric
// value or grader output ever leaves the server.
package validate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rexmle/rexmle/internal/challenge"
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

// Handler answers GET /health ({"status":"ok"}) and POST /validate. The
// body of POST /validate is {"dir": "<submission folder>"} as the agent sees
// it; an empty body, {} or an empty dir means defaultDir (the run's
// submission folder as the agent sees it). A multipart/form-data body is
// an upload, as the reference harness's agents send it: the part "file"
// (the submission CSV, whatever its filename) and optionally
// "predictions_zip" (a zip of the submission's other files) are assembled
// into a scratch submission folder, which is checked (see receiveUpload);
// the answer is an UploadResponse. Resolve maps the folder the
// agent names to a host folder and refuses folders outside what the run
// may name.
func Handler(check CheckFunc, resolve func(string) (string, error), defaultDir string) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"status":"ok"}`+"\n")
	})
	mux.HandleFunc("POST /validate", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 10*time.Minute)
		defer cancel()
		if strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/form-data") {
			// A CSV sent alone is checked with the prediction files of
			// the run's submission folder (see receiveUpload).
			live, err := resolve(defaultDir)
			if err != nil {
				live = ""
			}
			dir, cleanup, err := receiveUpload(r, live)
			if cleanup != nil {
				defer cleanup()
			}
			if err != nil {
				replyUpload(w, http.StatusBadRequest, Response{Reason: err.Error()})
				return
			}
			replyUpload(w, http.StatusOK, verdict(check(ctx, dir)))
			return
		}
		var req Request
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<16+1))
		if err != nil || len(body) > 1<<16 {
			reply(w, http.StatusBadRequest, Response{Reason: "want a JSON body {\"dir\": \"<submission folder>\"} of at most 64 KiB"})
			return
		}
		if len(strings.TrimSpace(string(body))) > 0 {
			if err := json.Unmarshal(body, &req); err != nil {
				reply(w, http.StatusBadRequest, Response{Reason: "want a JSON body {\"dir\": \"<submission folder>\"}"})
				return
			}
		}
		if req.Dir == "" {
			req.Dir = defaultDir
		}
		dir, err := resolve(req.Dir)
		if err != nil {
			reply(w, http.StatusForbidden, Response{Reason: err.Error()})
			return
		}
		reply(w, http.StatusOK, verdict(check(ctx, dir)))
	})
	return mux
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

func reply(w http.ResponseWriter, code int, r Response) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(r)
}

// Within returns a resolver that accepts a folder inside root (after
// cleaning; symbolic links are followed) and, for sandboxes and containers,
// maps names under each key of mounts (the path the agent sees) to its
// value (the host folder). A name outside those, missing or not, gets one
// and the same answer, so the endpoint never tells whether a hidden path
// exists; only a missing folder inside the run's own folders is named as
// missing.
func Within(root string, mounts map[string]string) func(string) (string, error) {
	return func(p string) (string, error) {
		if p == "" {
			return "", errors.New("dir is empty")
		}
		name := p
		outside := fmt.Errorf("dir %s is not a folder of this run (want the submission folder or a folder in the workspace)", truncate(name))
		p = filepath.Clean(p)
		mapped := false
		for in, host := range mounts {
			if p == in || strings.HasPrefix(p, in+"/") {
				p = filepath.Join(host, strings.TrimPrefix(p, in))
				mapped = true
				break
			}
		}
		rootReal, err := filepath.EvalSymlinks(root)
		if err != nil {
			return "", fmt.Errorf("run folder: %w", err)
		}
		within := func(q string) bool {
			for _, r := range []string{filepath.Clean(root), rootReal} {
				if q == r || strings.HasPrefix(q, r+"/") {
					return true
				}
			}
			return false
		}
		if !mapped && !within(p) {
			return "", outside
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			// Only a name inside the run's own folders gets here.
			return "", fmt.Errorf("dir %s: no such folder", truncate(name))
		}
		if !within(real) {
			return "", outside
		}
		return real, nil
	}
}

// truncate shortens a name the agent sent before it goes into an answer.
func truncate(s string) string {
	if len(s) > 200 {
		return s[:200] + "..."
	}
	return s
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
	s.srv = &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
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
