package agentrecipe

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/rexmle/rexmle/pipeline/challenge"
)

// The shared recording format of issue 28 (rexmle-agent-recording/1): what a
// real agent did at its boundary in one run, replayed by the tests.
const recordingSchema = "rexmle-agent-recording/1"

type recording struct {
	Schema       string            `json:"schema"`
	Agent        string            `json:"agent"`
	AgentVersion string            `json:"agent_version"`
	Challenge    string            `json:"challenge"`
	RecordedWith string            `json:"recorded_with"`
	Events       []recEvent        `json:"events"`
	Collected    recCollected      `json:"collected"`
	Blobs        map[string]string `json:"blobs,omitempty"` // sha256 → base64 content of the files fs writes name
}

type recEvent struct {
	Seq          int               `json:"seq"`
	T            float64           `json:"t"`
	Kind         string            `json:"kind"` // llm, validate, fs, stop
	Method       string            `json:"method,omitempty"`
	Path         string            `json:"path,omitempty"`
	Request      map[string]any    `json:"request,omitempty"`
	ContentType  string            `json:"content_type,omitempty"`
	RequestFiles map[string]string `json:"request_files,omitempty"`
	Response     map[string]any    `json:"response,omitempty"`
	Status       int               `json:"status,omitempty"`
	Op           string            `json:"op,omitempty"`     // fs: write, mkdir, remove
	SHA256       string            `json:"sha256,omitempty"` // fs write: the content's hash (in blobs when kept)
	How          string            `json:"how,omitempty"`
	MidStep      bool              `json:"mid_step,omitempty"`
}

type recCollected struct {
	Files    []string `json:"files"`
	Valid    bool     `json:"valid"`
	BestNode string   `json:"best_node,omitempty"`
	Reason   string   `json:"reason,omitempty"`
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// fsWatcher records a folder tree's changes by walking it every period (a
// before/after walk: files are compared by content hash, so each event
// carries what the file held when seen). Transient files that live shorter
// than a period (temp files renamed into place) are not seen; their final
// names are.
type fsWatcher struct {
	root   string
	keep   func(rel string) bool // record this path at all
	blob   func(rel string) bool // keep this path's content
	start  time.Time
	mu     sync.Mutex
	events []recEvent
	blobs  map[string][]byte
	state  map[string]string // rel → sha256, or "dir"
	stop   chan struct{}
	done   chan struct{}
}

func watchTree(root string, start time.Time, period time.Duration, keep, blob func(string) bool) *fsWatcher {
	w := &fsWatcher{root: root, keep: keep, blob: blob, start: start, blobs: map[string][]byte{}, state: map[string]string{},
		stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		tk := time.NewTicker(period)
		defer tk.Stop()
		for {
			w.scan()
			select {
			case <-w.stop:
				w.scan()
				return
			case <-tk.C:
			}
		}
	}()
	return w
}

func (w *fsWatcher) scan() {
	now := map[string]string{}
	content := map[string][]byte{}
	filepath.WalkDir(w.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == w.root {
			return nil
		}
		rel, _ := filepath.Rel(w.root, p)
		rel = filepath.ToSlash(rel)
		if !w.keep(rel) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		switch {
		case d.IsDir():
			now[rel] = "dir"
		case d.Type().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return nil
			}
			h := sha(b)
			now[rel] = h
			if w.blob(rel) && len(b) <= 256<<10 {
				content[h] = b
			}
		}
		return nil
	})
	w.mu.Lock()
	defer w.mu.Unlock()
	t := time.Since(w.start).Seconds()
	var names []string
	for rel := range now {
		names = append(names, rel)
	}
	sort.Strings(names) // parents before children
	for _, rel := range names {
		h := now[rel]
		if old, ok := w.state[rel]; ok && old == h {
			continue
		}
		if h == "dir" {
			w.events = append(w.events, recEvent{T: t, Kind: "fs", Op: "mkdir", Path: rel})
			continue
		}
		w.events = append(w.events, recEvent{T: t, Kind: "fs", Op: "write", Path: rel, SHA256: h})
		if b, ok := content[h]; ok {
			w.blobs[h] = b
		}
	}
	var gone []string
	for rel := range w.state {
		if _, ok := now[rel]; !ok {
			gone = append(gone, rel)
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(gone))) // children before parents
	for _, rel := range gone {
		w.events = append(w.events, recEvent{T: t, Kind: "fs", Op: "remove", Path: rel})
	}
	w.state = now
}

func (w *fsWatcher) close() ([]recEvent, map[string][]byte) {
	close(w.stop)
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.events, w.blobs
}

// encodeBlobs keeps the content of every blob some write event names.
func encodeBlobs(events []recEvent, blobs map[string][]byte) map[string]string {
	out := map[string]string{}
	for _, e := range events {
		if b, ok := blobs[e.SHA256]; ok && e.Op == "write" {
			out[e.SHA256] = base64.StdEncoding.EncodeToString(b)
		}
	}
	return out
}

// writeRecording orders the events by time (stable, so each source keeps its
// own order), numbers them and writes the file atomically.
func writeRecording(path string, r *recording) error {
	sort.SliceStable(r.Events, func(i, j int) bool { return r.Events[i].T < r.Events[j].T })
	for i := range r.Events {
		r.Events[i].Seq = i + 1
	}
	r.Schema = recordingSchema
	b, err := json.MarshalIndent(r, "", " ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return challenge.WriteFileAtomic(path, append(b, '\n'))
}

func readRecording(path string) (*recording, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r recording
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// syntheticData synthesizes and prepares challenge ch's demo data (seed 1,
// the data the recordings were made on) under dir; returns data/ (holding
// public/ and private/).
func syntheticData(t *testing.T, ch challenge.Challenge, dir string) string {
	t.Helper()
	ctx := context.Background()
	raw, data := filepath.Join(dir, "raw"), filepath.Join(dir, "data")
	if err := ch.Synthesize(ctx, raw, 1, challenge.SynthSize{}); err != nil {
		t.Fatal(err)
	}
	if err := ch.Prepare(ctx, raw, data); err != nil {
		t.Fatal(err)
	}
	return data
}

// aideRecordings lists the AIDE recordings; none is a failure (CI replays them).
func aideRecordings(t *testing.T) []string {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join("testdata", "recordings", "aide-*.json"))
	if len(paths) == 0 {
		t.Fatal("no AIDE recordings in testdata/recordings")
	}
	return paths
}
