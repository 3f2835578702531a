package fetch

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/fsutil"
)

// FileSum is what a source publishes about one of its files: its name and
// any of its MD5, SHA-256 and size (a challenge file's [[source.published]]).
type FileSum struct {
	Name        string
	MD5, SHA256 string
	Size        int64
}

func (f FileSum) known() bool { return f.MD5 != "" || f.SHA256 != "" || f.Size > 0 }

// what names what is compared ("md5 and size", …).
func (f FileSum) what() string {
	var w []string
	if f.MD5 != "" {
		w = append(w, "md5")
	}
	if f.SHA256 != "" {
		w = append(w, "sha256")
	}
	if f.Size > 0 {
		w = append(w, "size")
	}
	return strings.Join(w, " and ")
}

// Hand-placed file states.
const (
	HandVerified   = "verified"
	HandBad        = "bad"
	HandUnverified = "unverified"
)

// HandFile is one entry of a raw folder without a FETCHED.lock record: a
// published file checked against the checksum or size its challenge file
// records, or one that could not be checked, and why.
type HandFile struct {
	Challenge string `json:"-"`
	Dir       string `json:"-"`
	// Name is the entry's name in Dir (a folder name ends in "/").
	Name   string `json:"name"`
	Status string `json:"status"` // HandVerified, HandBad or HandUnverified
	Why    string `json:"why"`
	Files  int    `json:"files"` // regular files the entry holds (1 for a file)
}

// sums returns what the sources of folder publish about their files: the
// checksums recorded for them (by name), and every file name they publish.
func sums(sources []Source, folder string) (map[string]FileSum, map[string]bool) {
	known, names := map[string]FileSum{}, map[string]bool{}
	for _, s := range sources {
		if s.Challenge != folder {
			continue
		}
		for _, n := range s.Files {
			names[n] = true
		}
		if n, err := s.singleFileName(); err == nil && (s.Kind == KindGDrive || s.Kind == KindURL || s.Kind == KindManual) {
			names[n] = true
			if f := (FileSum{Name: n, MD5: s.MD5, SHA256: s.SHA256, Size: s.Size}); f.known() {
				known[n] = f
			}
		}
		for _, f := range s.Published {
			names[f.Name] = true
			if f.known() {
				known[f.Name] = f
			}
		}
	}
	return known, names
}

// checkHandPlaced checks the entries of the raw folder dir, which has no
// lock record: each published file whose checksum or size the challenge
// file records is hashed and compared; the rest are listed unverified with
// the reason. Files prepare unpacked from an archive there are derived from
// it and left out, as are rexmle's own bookkeeping files.
func checkHandPlaced(ctx context.Context, sources []Source, folder, dir string) ([]HandFile, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	known, names := sums(sources, folder)
	unpacked := challenge.ExtractedFiles(dir)
	var out []HandFile
	for _, e := range ents {
		n := e.Name()
		if n == LockFileName || strings.HasSuffix(n, ".part") || challenge.IsExtractionEntry(n) {
			continue
		}
		h := HandFile{Challenge: folder, Dir: dir, Name: n, Files: 1}
		switch {
		case e.IsDir():
			h.Name += "/"
			h.Files = 0
			filepath.WalkDir(filepath.Join(dir, n), func(p string, d fs.DirEntry, err error) error {
				if err == nil && d.Type().IsRegular() {
					if rel, _ := filepath.Rel(dir, p); !unpacked[filepath.ToSlash(rel)] {
						h.Files++
					}
				}
				return nil
			})
			if h.Files == 0 {
				continue // unpacked by prepare from an archive beside it, or empty
			}
			h.Status, h.Why = HandUnverified, "unpacked by hand: the sources publish checksums of their archives only, so an unpacked tree cannot be checked"
		case !e.Type().IsRegular():
			continue
		case known[n].known():
			f := known[n]
			h.Status, h.Why = HandVerified, f.what()+" as published"
			if err := verifyEntry(ctx, filepath.Join(dir, n), LockEntry{Name: n, Size: f.Size, MD5: f.MD5, SHA256: f.SHA256}); err != nil {
				if f.Size == 0 {
					if ce, ok := err.(*ChecksumError); ok && ce.What == "size" {
						// No published size: verifyEntry compared with 0; check the sums alone.
						err = verifyEntry(ctx, filepath.Join(dir, n), LockEntry{Name: n, Size: sizeOf(filepath.Join(dir, n)), MD5: f.MD5, SHA256: f.SHA256})
					}
				}
				if err != nil {
					h.Status, h.Why = HandBad, err.Error()
				}
			}
		case names[n]:
			h.Status, h.Why = HandUnverified, "the challenge file records no checksum or size for it (run `mage fetch` with the network: it checks a file already in place against the source's published checksum and records it)"
		default:
			h.Status, h.Why = HandUnverified, "not a file the challenge file's sources publish"
		}
		out = append(out, h)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, ctx.Err()
}

func sizeOf(p string) int64 {
	st, err := os.Stat(p)
	if err != nil {
		return -1
	}
	return st.Size()
}

// handRecord is the record fetchVerify leaves in a raw folder of
// hand-placed files (challenge.HandCheckName).
type handRecord struct {
	CheckedAt string     `json:"checked_at"`
	Files     []HandFile `json:"files"`
}

// WriteHandRecord records the check of one raw folder's hand-placed files
// in it, atomically.
func WriteHandRecord(dir string, files []HandFile, now time.Time) error {
	b, err := json.MarshalIndent(handRecord{CheckedAt: now.UTC().Format(time.RFC3339), Files: files}, "", "  ")
	if err != nil {
		return err
	}
	return fsutil.WriteFile(filepath.Join(dir, challenge.HandCheckName), append(b, '\n'), 0o644)
}

// Provenance says where the raw data in dir came from, for the site:
// "downloaded by mage fetch (…)" with a FETCHED.lock record, else "placed by
// hand, verified" / "placed by hand, unverified (…)" from fetchVerify's last
// check, or "placed by hand, not checked" ("" when dir holds nothing).
func Provenance(dir string) string {
	if b, err := os.ReadFile(filepath.Join(dir, LockFileName)); err == nil {
		var lf LockFile
		if json.Unmarshal(b, &lf) == nil && len(lf.Files) > 0 {
			return fmt.Sprintf("downloaded by mage fetch, %d files checked against the sources", len(lf.Files))
		}
	}
	ents, err := os.ReadDir(dir)
	if err != nil || len(ents) == 0 {
		return ""
	}
	b, err := os.ReadFile(filepath.Join(dir, challenge.HandCheckName))
	if err != nil {
		return "placed by hand, not checked (run mage fetchVerify)"
	}
	var rec handRecord
	if json.Unmarshal(b, &rec) != nil {
		return "placed by hand, not checked (unreadable " + challenge.HandCheckName + ")"
	}
	var ok, bad, unv []string
	for _, f := range rec.Files {
		switch f.Status {
		case HandVerified:
			ok = append(ok, f.Name)
		case HandBad:
			bad = append(bad, f.Name)
		default:
			unv = append(unv, f.Name)
		}
	}
	switch {
	case len(bad) > 0:
		return fmt.Sprintf("placed by hand, FAILED verification on %s: %s", rec.CheckedAt, strings.Join(bad, ", "))
	case len(unv) > 0 && len(ok) > 0:
		return fmt.Sprintf("placed by hand, partly verified on %s: %s verified; %s unverified", rec.CheckedAt, strings.Join(ok, ", "), strings.Join(unv, ", "))
	case len(unv) > 0:
		return fmt.Sprintf("placed by hand, unverified (checked %s: %s could not be checked against the sources)", rec.CheckedAt, strings.Join(unv, ", "))
	case len(ok) > 0:
		return fmt.Sprintf("placed by hand, verified on %s against the published checksums: %s", rec.CheckedAt, strings.Join(ok, ", "))
	}
	return "placed by hand, nothing to check"
}
