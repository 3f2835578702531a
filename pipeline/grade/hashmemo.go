package grade

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"sync"

	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/fsutil"
)

// hashMemo keeps the content hashes of the folders the up-to-date check
// reads (every submission, every private-answers folder) with the size and
// modification time of each of their files when they were hashed. While
// those are unchanged the hash is taken from the memo, so a rerun with
// nothing to grade reads no data (at the paper's scale, gigabytes of
// volumes); a folder whose files changed in size, time or number is hashed
// again. It lives in the results folder (results/.stamps), which no agent
// can reach; without it everything is hashed, as before.
type hashMemo struct {
	mu    sync.Mutex
	path  string
	m     map[string]memoEntry
	dirty bool
}

type memoEntry struct {
	Stat string `json:"stat"` // digest of every regular file's path, size and time
	Hash string `json:"hash"`
}

// loadMemo reads the memo at path; a missing or unreadable memo is empty.
func loadMemo(path string) *hashMemo {
	m := &hashMemo{path: path, m: map[string]memoEntry{}}
	if b, err := challenge.ReadFileMax(path, 64<<20); err == nil {
		if json.Unmarshal(b, &m.m) != nil {
			m.m = map[string]memoEntry{}
		}
	}
	return m
}

// statDigest hashes the path, size and modification time of every regular
// file under dir (links are not followed).
func statDigest(dir string) (string, error) {
	files, err := fsutil.StatTree(dir, fsutil.StatOptions{})
	if err != nil {
		return "", err
	}
	lines := make([]string, len(files))
	for i, f := range files {
		lines[i] = fmt.Sprintf("%s\x00%d\x00%d", f.Path, f.Size, f.ModNano)
	}
	sort.Strings(lines)
	h := sha256.New()
	for _, l := range lines {
		fmt.Fprintln(h, l)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// hash returns fn(dir), from the memo while dir's files are as they were
// when it was last hashed under kind. A nil memo always hashes.
func (m *hashMemo) hash(kind, dir string, fn func(string) (string, error)) (string, error) {
	if m == nil {
		return fn(dir)
	}
	st, err := statDigest(dir)
	if err != nil {
		return fn(dir)
	}
	key := kind + "\x00" + dir
	m.mu.Lock()
	e, ok := m.m[key]
	m.mu.Unlock()
	if ok && e.Stat == st {
		return e.Hash, nil
	}
	h, err := fn(dir)
	if err != nil {
		return "", err
	}
	m.mu.Lock()
	m.m[key] = memoEntry{Stat: st, Hash: h}
	m.dirty = true
	m.mu.Unlock()
	return h, nil
}

// put records hash as dir's hash under kind, with dir's file stats now
// (a folder hashed elsewhere, as the grader does with a submission).
func (m *hashMemo) put(kind, dir, hash string) {
	if m == nil {
		return
	}
	st, err := statDigest(dir)
	if err != nil {
		return
	}
	m.mu.Lock()
	m.m[kind+"\x00"+dir] = memoEntry{Stat: st, Hash: hash}
	m.dirty = true
	m.mu.Unlock()
}

// save writes the memo if it changed; a memo that cannot be written only
// means the next run hashes again.
func (m *hashMemo) save() error {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.dirty {
		return nil
	}
	b, err := json.Marshal(m.m)
	if err != nil {
		return err
	}
	if err := fsutil.WriteFile(m.path, b, 0o644); err != nil {
		return err
	}
	m.dirty = false
	return nil
}
