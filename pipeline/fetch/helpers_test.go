package fetch_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rexmle/rexmle/pipeline/fetch"
	"github.com/rexmle/rexmle/pipeline/fetch/fetchtest"
)

// syncBuffer is a bytes.Buffer safe for concurrent log writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// testOptions points every service at srv, with fast retries and a log
// captured in the returned buffer.
func testOptions(t *testing.T, srv *fetchtest.Server) (fetch.Options, *syncBuffer) {
	t.Helper()
	logs := &syncBuffer{}
	return fetch.Options{
		RawRoot:         t.TempDir(),
		ZenodoBaseURL:   srv.URL,
		FigshareBaseURL: srv.URL,
		GDriveBaseURL:   srv.URL,
		Concurrency:     3,
		Logger:          slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Retry:           fetch.RetryPolicy{MaxAttempts: 4, BaseDelay: time.Millisecond, MaxDelay: 4 * time.Millisecond},
		StallTimeout:    5 * time.Second,
		SyncEvery:       256 << 10,
		FreeSpace:       func(string) (uint64, error) { return 1 << 40, nil },
	}, logs
}

func sha256hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return b
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

func lockOf(t *testing.T, opts fetch.Options, challenge string) *fetch.LockFile {
	t.Helper()
	lf, err := fetch.ReadLockFile(filepath.Join(opts.RawDir(challenge), fetch.LockFileName))
	if err != nil {
		t.Fatal(err)
	}
	return lf
}

// resultOf finds one file's result in a summary.
func resultOf(t *testing.T, s *fetch.Summary, challenge, name string) fetch.FileResult {
	t.Helper()
	for _, f := range s.Files {
		if f.Challenge == challenge && f.Name == name {
			return f
		}
	}
	t.Fatalf("no result for %s/%s in %+v", challenge, name, s.Files)
	return fetch.FileResult{}
}

// cancellingClient returns a client whose response bodies call cancel once
// limit bytes have been read through them (a Ctrl-C mid-download).
func cancellingClient(limit int64, cancel func()) *http.Client {
	return &http.Client{Transport: &cancelTransport{limit: limit, cancel: cancel}}
}

type cancelTransport struct {
	limit  int64
	cancel func()
	read   atomic.Int64
}

func (c *cancelTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	resp.Body = &cancelBody{ReadCloser: resp.Body, t: c}
	return resp, nil
}

type cancelBody struct {
	io.ReadCloser
	t *cancelTransport
}

func (b *cancelBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if b.t.read.Add(int64(n)) >= b.t.limit {
		b.t.cancel()
	}
	return n, err
}
