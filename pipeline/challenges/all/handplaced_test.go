package all_test

import (
	"archive/zip"
	"context"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenge/challengetest"
)

// packAs writes the archive of d from the synthetic raw folder synth as the
// source publishes it: the top-level entries of synth that d's patterns
// name (all of them when take is nil), wrapped in d.Under when set; for a
// ToStem archive, the contents of synth/<stem>. It removes what it packed
// from synth and returns the number of entries packed.
func packAs(t *testing.T, synth, dst string, d challenge.Download, take []string) int {
	t.Helper()
	src := synth
	if d.ToStem {
		src = filepath.Join(synth, strings.TrimSuffix(d.Archive, ".zip"))
		take = nil
	}
	f, err := os.Create(filepath.Join(dst, d.Archive))
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	n := 0 // files and folders packed
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if take != nil && !slices.Contains(take, e.Name()) {
			continue
		}
		k, err := challengetest.AddTree(zw, src, filepath.Join(src, e.Name()), d.Under, true) // folders as entries too: a folder may be all a preparer needs
		n += k
		if err != nil {
			t.Fatal(err)
		}
		if err := os.RemoveAll(filepath.Join(src, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if d.ToStem {
		os.Remove(src)
	}
	return n
}

// topEntries maps each download to the top-level entries of synth its
// patterns name (nil: the only download takes everything).
func topEntries(t *testing.T, synth string, ds []challenge.Download) [][]string {
	if len(ds) == 1 {
		return [][]string{nil}
	}
	ents, err := os.ReadDir(synth)
	if err != nil {
		t.Fatal(err)
	}
	out := make([][]string, len(ds))
	for i, d := range ds {
		for _, e := range ents {
			for _, pat := range d.Holds {
				first := strings.SplitN(pat, "/", 2)[0]
				if ok, _ := path.Match(first, e.Name()); ok && !slices.Contains(out[i], e.Name()) {
					out[i] = append(out[i], e.Name())
				}
			}
		}
	}
	return out
}

// A user who downloads every challenge's published archives and places
// them, still zipped, in the challenge's raw folder prepares all 20: the
// synthesizer's output is packed as each source packs it (the published
// file names and inner folders of challenge.Downloader), nothing of the
// synthetic tree is left unpacked beside the archives, and Prepare unpacks
// what it needs and writes the public and private folders. Then each
// required archive alone is taken away, and Prepare names it, its source
// page and the folder, instead of a bare open error.
func TestPrepareFromHandPlacedArchivesOfEveryChallenge(t *testing.T) {
	ids := challenge.IDs()
	if len(ids) != 20 {
		t.Fatalf("%d challenges registered, want 20", len(ids))
	}
	for _, id := range ids {
		id := id
		t.Run(id, func(t *testing.T) {
			t.Parallel()
			c, _ := challenge.Lookup(id)
			dl, ok := c.(challenge.Downloader)
			if !ok {
				t.Fatalf("%s lists no published downloads (challenge.Downloader)", id)
			}
			ds := dl.Downloads()
			synth := t.TempDir()
			if err := c.Synthesize(context.Background(), synth, 11, challenge.SynthSize{}); err != nil {
				t.Fatal(err)
			}
			raw := t.TempDir()
			for i, take := range topEntries(t, synth, ds) {
				n := packAs(t, synth, raw, ds[i], take)
				switch {
				case n == 0 && ds[i].Optional:
					os.Remove(filepath.Join(raw, ds[i].Archive)) // an archive the challenge does not read, left undownloaded
				case n == 0:
					t.Errorf("%s: nothing of the synthetic layout goes into %s", id, ds[i].Archive)
				}
			}
			left, _ := os.ReadDir(synth)
			var rest []string
			for _, e := range left {
				if !strings.HasPrefix(e.Name(), ".") {
					rest = append(rest, e.Name())
				}
			}
			if len(rest) > 0 {
				t.Fatalf("%s: %v of the raw layout is in no published archive", id, rest)
			}
			placed, _ := os.ReadDir(raw)
			var names []string
			for _, e := range placed {
				if e.IsDir() {
					t.Fatalf("raw folder holds a folder %s before prepare; want only archives", e.Name())
				}
				names = append(names, e.Name())
			}
			for _, d := range ds {
				if !d.Optional && !slices.Contains(names, d.Archive) {
					t.Fatalf("placed %v, want the published %s among them", names, d.Archive)
				}
			}
			data := t.TempDir()
			if err := c.Prepare(context.Background(), raw, data); err != nil {
				t.Fatalf("prepare from archives %v: %v", names, err)
			}
			for _, f := range []string{"public", "private"} {
				if st, err := os.Stat(filepath.Join(data, f)); err != nil || !st.IsDir() {
					t.Errorf("no %s/ prepared", f)
				}
			}
			// Each required archive missing alone: the error names it.
			for _, d := range ds {
				if d.Optional {
					continue
				}
				short := t.TempDir()
				for _, n := range names {
					if n == d.Archive {
						continue
					}
					if err := os.Link(filepath.Join(raw, n), filepath.Join(short, n)); err != nil {
						t.Fatal(err)
					}
				}
				err := c.Prepare(context.Background(), short, t.TempDir())
				m, ok := challenge.IsMissingDownloads(err)
				if !ok {
					t.Errorf("without %s: got %v, want a missing-download error", d.Archive, err)
					continue
				}
				if len(m.Missing) != 1 || m.Missing[0].Archive != d.Archive {
					t.Errorf("without %s: names %v", d.Archive, m.Missing)
				}
				msg := err.Error()
				for _, want := range []string{d.Archive, short, "https://", "zipped", "unpacked"} {
					if !strings.Contains(msg, want) {
						t.Errorf("without %s: message lacks %q:\n%s", d.Archive, want, msg)
					}
				}
			}
		})
	}
}
