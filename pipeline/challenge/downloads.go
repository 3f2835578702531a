package challenge

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Download is one file a source publishes and a preparer reads, either as
// the archive itself, placed in the raw folder under its published name, or
// unpacked there. It is the one rule by which every preparer finds its raw
// data: Downloads of a challenge, EnsureDownloads before reading, and the
// same description in prepare's and doctor's messages and the README.
type Download struct {
	// Source names the challenge file's [[source]] that publishes the file,
	// as "<kind>:<record>" (e.g. "zenodo:7833096", "gdrive:1Db…").
	Source string
	// Archive is the published file name (e.g. "LDCTIQAG2023_train.zip").
	Archive string
	// Holds lists what the unpacked archive provides in the raw folder, as
	// slash-path patterns relative to it (e.g. "LDCTIQAG2023_train", or
	// "ImagesTr/*_0001_0000.mha" where tasks share a folder); anything
	// matching one of them means the download is there unpacked.
	Holds []string
	// Under is the folder the published archive wraps the Holds entries in
	// ("" when they are its top level); that folder present also counts as
	// unpacked.
	Under string
	// ToStem unpacks the archive into a folder named after it (without
	// ".zip") instead of into the raw folder itself.
	ToStem bool
	// Optional downloads are used when present and not asked for otherwise.
	Optional bool
}

// Downloader is implemented by challenges whose preparers read published
// downloads: it lists them, for the messages, doctor and the README.
type Downloader interface {
	Downloads() []Download
}

// unpackedAt reports whether d is present unpacked in rawDir: its Under
// folder, or anything matching one of its Holds patterns.
func (d Download) unpackedAt(rawDir string) bool {
	if d.Under != "" && isDir(filepath.Join(rawDir, d.Under)) {
		return true
	}
	for _, pat := range d.Holds {
		m, _ := filepath.Glob(filepath.Join(rawDir, filepath.FromSlash(pat)))
		for _, p := range m {
			if filepath.Base(p) != d.Archive && !IsExtractionEntry(filepath.Base(p)) {
				return true
			}
		}
	}
	return false
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// Form says in words where d goes in the raw folder dir and in which
// forms it is accepted.
func (d Download) Form(dir string) string {
	dir = strings.TrimSuffix(dir, "/") + "/"
	if d.ToStem {
		return fmt.Sprintf("put it in %s zipped, as downloaded, or unpacked into %s%s/", dir, dir, strings.TrimSuffix(d.Archive, ".zip"))
	}
	var alts []string
	for _, h := range d.Holds {
		if !strings.ContainsAny(h, "*?[") {
			h += "/"
		}
		alts = append(alts, h)
	}
	what := alts[0]
	if d.Under != "" {
		what = d.Under + "/ (or its folders " + strings.Join(alts, ", ") + " straight in " + dir + ")"
	} else if len(alts) > 1 {
		what += " (or " + strings.Join(alts[1:], ", ") + ")"
	}
	return fmt.Sprintf("put it in %s zipped, as downloaded, or unpacked there as %s", dir, what)
}

// MissingDownloadsError says which downloads a preparer needs and did not
// find in the raw folder, in either form.
type MissingDownloadsError struct {
	Challenge string
	RawDir    string
	Missing   []Download
}

func (e *MissingDownloadsError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: raw data missing in %s:", e.Challenge, e.RawDir)
	for _, d := range e.Missing {
		fmt.Fprintf(&b, "\n  - %s from %s: %s", d.Archive, SourceWords(d.Source), d.Form(e.RawDir))
	}
	b.WriteString("\n  (the zipped and the unpacked form both work; `mage fetch` downloads them instead)")
	return b.String()
}

// BadArchiveError is an archive that unpacked without what it should hold:
// not the published file, or a different version of it.
type BadArchiveError struct {
	Challenge, Archive string
	Want               []string
}

func (e *BadArchiveError) Error() string {
	return fmt.Sprintf("%s: %s unpacked but holds none of %s: is it the published file (a different version or a re-packed copy)?",
		e.Challenge, e.Archive, strings.Join(e.Want, ", "))
}

// CheckDownloads reports the downloads of ds that are in rawDir neither
// unpacked nor as their archive (optional ones left out); it changes
// nothing.
func CheckDownloads(rawDir string, ds []Download) []Download {
	var missing []Download
	for _, d := range ds {
		if d.Optional || d.unpackedAt(rawDir) || isRegular(filepath.Join(rawDir, d.Archive)) {
			continue
		}
		missing = append(missing, d)
	}
	return missing
}

// EnsureDownloads makes every download of ds available unpacked in rawDir:
// one already unpacked is left as it is; one present as its published
// archive is unpacked (once, under the folder's lock, see EnsureExtracted);
// an optional one is left as it is (the challenge does not read it). When any other is absent in both forms
// it returns a *MissingDownloadsError naming each, with nothing changed.
func EnsureDownloads(id, rawDir string, ds []Download) error {
	if missing := CheckDownloads(rawDir, ds); len(missing) > 0 {
		return &MissingDownloadsError{Challenge: id, RawDir: rawDir, Missing: missing}
	}
	for _, d := range ds {
		archive := filepath.Join(rawDir, d.Archive)
		if d.Optional || !isRegular(archive) {
			continue // not read by this challenge, or unpacked by hand
		}
		// An archive is unpacked once (EnsureExtracted marks it); one placed
		// beside its unpacked tree, with no mark, is not unpacked again.
		if !isRegular(filepath.Join(rawDir, extractDoneDir, d.Archive)) && d.unpackedAt(rawDir) {
			continue
		}
		var err error
		if d.ToStem {
			err = EnsureExtractedInto(rawDir, strings.TrimSuffix(d.Archive, ".zip"), d.Archive)
		} else {
			err = EnsureExtracted(rawDir, d.Archive)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", id, err)
		}
		if !d.ToStem && !d.unpackedAt(rawDir) {
			want := append([]string(nil), d.Holds...)
			if d.Under != "" {
				want = append(want, d.Under+"/")
			}
			return &BadArchiveError{Challenge: id, Archive: d.Archive, Want: want}
		}
	}
	return nil
}

// SourceWords names a "<kind>:<record>" source in words with the page a
// browser opens to download it (the same page as the fetch plan's).
func SourceWords(src string) string {
	kind, rec, _ := strings.Cut(src, ":")
	switch kind {
	case "zenodo":
		return fmt.Sprintf("Zenodo record %s (https://zenodo.org/records/%s)", rec, rec)
	case "figshare":
		return fmt.Sprintf("Figshare article %s (https://figshare.com/articles/dataset/_/%s)", rec, rec)
	case "gdrive":
		return fmt.Sprintf("Google Drive file %s (https://drive.google.com/file/d/%s/view)", rec, rec)
	}
	return src
}

// IsMissingDownloads reports whether err says downloads are missing, and
// which.
func IsMissingDownloads(err error) (*MissingDownloadsError, bool) {
	var m *MissingDownloadsError
	ok := errors.As(err, &m)
	return m, ok
}

// DownloadNames lists the distinct archive names of ds, sorted.
func DownloadNames(ds []Download) []string {
	seen := map[string]bool{}
	var out []string
	for _, d := range ds {
		if !seen[d.Archive] {
			seen[d.Archive] = true
			out = append(out, d.Archive)
		}
	}
	sort.Strings(out)
	return out
}
