package fetch

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/rexmle/rexmle/pipeline/fsutil"
)

// LockEntry records one verified file of a challenge.
type LockEntry struct {
	Name      string    `json:"name"`
	Size      int64     `json:"size"`
	SHA256    string    `json:"sha256"`
	MD5       string    `json:"md5"`
	URL       string    `json:"url,omitempty"`
	FetchedAt time.Time `json:"fetched_at"`
	// ExtractedTo is the folder (relative to the challenge's raw folder, "."
	// for itself) the archive was unpacked into; empty = not unpacked.
	ExtractedTo string     `json:"extracted_to,omitempty"`
	ExtractedAt *time.Time `json:"extracted_at,omitempty"`
	// Trust is TrustFirstUse when the source publishes no checksum (a Google
	// Drive file, a plain URL): Size, SHA256 and MD5 were recorded from the
	// first download and every later download or check must match them.
	Trust string `json:"trust,omitempty"`
	// FirstFetchedAt is when a TrustFirstUse record was first made (kept
	// across re-downloads that matched it).
	FirstFetchedAt *time.Time `json:"first_fetched_at,omitempty"`
}

// TrustFirstUse marks a lock entry whose checksums come from the first download.
const TrustFirstUse = "first-use"

// LockFile is the content of <RawRoot>/<challenge>/FETCHED.lock.
type LockFile struct {
	Version   int         `json:"version"`
	Challenge string      `json:"challenge"`
	Files     []LockEntry `json:"files"`
}

// ReadLockFile reads a lock file; a missing file is an empty lock.
func ReadLockFile(path string) (*LockFile, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &LockFile{Version: 1}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read lock file: %w", err)
	}
	var lf LockFile
	if err := json.Unmarshal(b, &lf); err != nil {
		return nil, fmt.Errorf("parse lock file %s: %w", path, err)
	}
	return &lf, nil
}

// Entry returns the entry named name, or nil.
func (lf *LockFile) Entry(name string) *LockEntry {
	for i := range lf.Files {
		if lf.Files[i].Name == name {
			return &lf.Files[i]
		}
	}
	return nil
}

// upsert replaces or adds e, keeping entries sorted by name.
func (lf *LockFile) upsert(e LockEntry) {
	if old := lf.Entry(e.Name); old != nil {
		*old = e
		return
	}
	lf.Files = append(lf.Files, e)
	sort.Slice(lf.Files, func(i, j int) bool { return lf.Files[i].Name < lf.Files[j].Name })
}

// remove drops the entry named name.
func (lf *LockFile) remove(name string) {
	out := lf.Files[:0]
	for _, e := range lf.Files {
		if e.Name != name {
			out = append(out, e)
		}
	}
	lf.Files = out
}

// writeAtomic writes lf to path through a temporary file, fsync and rename.
func (lf *LockFile) writeAtomic(path string) error {
	b, err := json.MarshalIndent(lf, "", "  ")
	if err != nil {
		return fmt.Errorf("encode lock file: %w", err)
	}
	return fsutil.WriteFile(path, append(b, '\n'), 0o644)
}

// lockStore serialises lock-file updates per challenge.
type lockStore struct {
	root string
	mu   sync.Mutex
	m    map[string]*LockFile
}

func newLockStore(root string) *lockStore {
	return &lockStore{root: root, m: map[string]*LockFile{}}
}

func (s *lockStore) path(challenge string) string {
	return filepath.Join(s.root, challenge, LockFileName)
}

// get returns a copy of challenge's lock file.
func (s *lockStore) get(challenge string) (*LockFile, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	lf, err := s.loadLocked(challenge)
	if err != nil {
		return nil, err
	}
	c := *lf
	c.Files = append([]LockEntry(nil), lf.Files...)
	return &c, nil
}

func (s *lockStore) loadLocked(challenge string) (*LockFile, error) {
	if lf, ok := s.m[challenge]; ok {
		return lf, nil
	}
	lf, err := ReadLockFile(s.path(challenge))
	if err != nil {
		return nil, err
	}
	lf.Version, lf.Challenge = 1, challenge
	s.m[challenge] = lf
	return lf, nil
}

// update applies fn to challenge's lock file and writes it atomically.
func (s *lockStore) update(challenge string, fn func(*LockFile)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	lf, err := s.loadLocked(challenge)
	if err != nil {
		return err
	}
	fn(lf)
	if err := os.MkdirAll(filepath.Join(s.root, challenge), 0o755); err != nil {
		return fmt.Errorf("create raw folder: %w", err)
	}
	return lf.writeAtomic(s.path(challenge))
}
