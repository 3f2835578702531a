package fetch

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"
)

// Source kinds understood by Plan and Fetch.
const (
	KindZenodo   = "zenodo"   // Record = Zenodo record id; files and md5 checksums from the records API
	KindFigshare = "figshare" // Record = Figshare article id; files and md5 checksums from the articles API
	KindURL      = "url"      // URL = the address of one file
	KindGDrive   = "gdrive"   // Record = Google Drive file id
	KindManual   = "manual"   // the user downloads Files by hand following Instructions
)

// Source is where one challenge's raw data comes from.
type Source struct {
	// Challenge is the challenge id (e.g. "isles22"), or the name of a raw
	// folder shared by several challenges (e.g. "topcow-shared"); the files
	// land in Options.RawDir(Challenge). Several sources may name the same
	// Challenge (ldct-iqa: a Zenodo record plus a Drive file); they share its
	// folder and lock file.
	Challenge string
	// For is the challenge the source is listed under when Challenge names a
	// shared raw folder (e.g. "panther-task2" for "panther-shared"); it only
	// labels the source in plans and messages ("" = Challenge).
	For string
	// Kind is one of KindZenodo, KindFigshare, KindURL, KindGDrive, KindManual.
	Kind string
	// Record is the Zenodo record id, Figshare article id or Google Drive file id.
	Record string
	// Files names the files to take from the record; empty means every file.
	// For KindURL and KindGDrive the first entry, if any, names the saved file
	// (default: the URL's last path element, or "<id>.zip" / "<id>" for Drive).
	// For KindManual it lists the files the user must place (required).
	Files []string
	// URL is the address for KindURL.
	URL string
	// SHA256 and MD5 are the expected hex checksums of the single file of a
	// KindURL, KindGDrive or KindManual source (optional).
	SHA256, MD5 string
	// Size is the expected size in bytes if known (0 = unknown); single-file kinds only.
	Size int64
	// Extract unpacks archives (.zip, .tar, .tar.gz, .tgz) after verification.
	Extract bool
	// ExtractToStem unpacks each archive into "<raw>/<archive name without
	// extension>/" instead of into the raw folder itself (the layout SEG.A's
	// preparer expects for its per-hospital archives).
	ExtractToStem bool
	// Instructions tells the user what to download from where (KindManual).
	Instructions string
	// Landing is the challenge's web page; License the data's licence and
	// Terms any registration or terms to accept, as the challenge file
	// states them. They only label the offline plan.
	Landing, License, Terms string
	// ApproxSize is the approximate size in bytes of everything the source
	// downloads, as published (0 = unknown); it only feeds the offline plan.
	ApproxSize int64
	// Published lists what the source publishes about its files (checksums,
	// sizes) as the challenge file records it: fetchVerify checks files
	// placed by hand against it.
	Published []FileSum
}

// Label is the name a plan prints for s: the challenge it is listed under
// (For), or else its folder.
func (s Source) Label() string {
	if s.For == "" {
		return s.Challenge
	}
	return s.For
}

// validate reports the first structural problem of s.
func (s Source) validate() error {
	if s.Challenge == "" {
		return fmt.Errorf("source has no challenge id")
	}
	if err := checkName(s.Challenge); err != nil {
		return fmt.Errorf("challenge id %q: %w", s.Challenge, err)
	}
	switch s.Kind {
	case KindZenodo, KindFigshare, KindGDrive:
		if s.Record == "" {
			return fmt.Errorf("challenge %s: %s source needs a record id", s.Challenge, s.Kind)
		}
	case KindURL:
		if s.URL == "" {
			return fmt.Errorf("challenge %s: url source needs a URL", s.Challenge)
		}
	case KindManual:
		if len(s.Files) == 0 {
			return fmt.Errorf("challenge %s: manual source must list the files to place", s.Challenge)
		}
	default:
		return fmt.Errorf("challenge %s: unknown source kind %q", s.Challenge, s.Kind)
	}
	for _, f := range s.Files {
		if err := checkName(f); err != nil {
			return fmt.Errorf("challenge %s: file %q: %w", s.Challenge, f, err)
		}
	}
	return nil
}

// checkName accepts a single path element: no separators, not "." or "..",
// no NUL bytes, not empty. Names from remote metadata pass through it before
// they become paths.
func checkName(name string) error {
	switch {
	case name == "" || name == "." || name == "..":
		return fmt.Errorf("not a usable file name")
	case strings.ContainsAny(name, "/\\\x00"):
		return fmt.Errorf("file name must not contain path separators or NUL")
	case filepath.Base(name) != name || path.Base(name) != name:
		return fmt.Errorf("not a plain file name")
	}
	return nil
}

// singleFileName is the saved name of a KindURL / KindGDrive source.
func (s Source) singleFileName() (string, error) {
	if len(s.Files) > 0 {
		return s.Files[0], nil
	}
	switch s.Kind {
	case KindURL:
		p := s.URL
		if i := strings.IndexAny(p, "?#"); i >= 0 {
			p = p[:i]
		}
		name := path.Base(p)
		if checkName(name) != nil || strings.Contains(name, ":") {
			return "", fmt.Errorf("challenge %s: cannot derive a file name from %s; list it in Files", s.Challenge, s.URL)
		}
		return name, nil
	case KindGDrive:
		if s.Extract {
			return s.Record + ".zip", nil
		}
		return s.Record, nil
	}
	return "", fmt.Errorf("challenge %s: %s source has no single file", s.Challenge, s.Kind)
}
