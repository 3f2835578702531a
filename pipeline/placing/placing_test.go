package placing

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/fetch"
)

func loadBench(t *testing.T) *config.Benchmark {
	t.Helper()
	b, err := config.Load(filepath.Join("..", "..", "benchmark.toml"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Every download a preparer reads comes from a source its challenge file
// lists (same kind and record), under a file name that source publishes
// when the file lists them, and the page named in messages and the README
// is the fetch plan's page for that source.
func TestDownloadsMatchTheChallengeFiles(t *testing.T) {
	b := loadBench(t)
	if len(b.Challenges) != 20 {
		t.Fatalf("%d challenges in benchmark.toml, want 20", len(b.Challenges))
	}
	for _, c := range b.Challenges {
		ds, err := Downloads(c.ID)
		if err != nil {
			t.Error(err)
			continue
		}
		for _, s := range c.Sources {
			for _, p := range s.Published {
				found := false
				for _, d := range ds {
					found = found || (d.Archive == p.Name && d.Source == SourceKey(s))
				}
				if !found {
					t.Errorf("%s: checksum recorded for %s, which no download of %s reads from %s", c.ID, p.Name, c.ID, SourceKey(s))
				}
				if p.MD5 == "" && p.SHA256 == "" && p.Size == 0 {
					t.Errorf("%s: published %s records nothing to check", c.ID, p.Name)
				}
			}
		}
		for _, d := range ds {
			var src *config.Source
			for i := range c.Sources {
				if SourceKey(c.Sources[i]) == d.Source {
					src = &c.Sources[i]
				}
			}
			if src == nil {
				t.Errorf("%s: %s comes from %s, which %s does not list", c.ID, d.Archive, d.Source, c.File)
				continue
			}
			named := append(append([]string(nil), src.Files...), src.Name)
			if (len(src.Files) > 0 || src.Name != "") && !d.Optional && !slices.Contains(named, d.Archive) {
				t.Errorf("%s: %s is not among the files %s names for %s: %v", c.ID, d.Archive, c.File, d.Source, named)
			}
			if d.ToStem != src.ExtractToStem {
				t.Errorf("%s: %s unpacks into its own folder = %v, but the challenge file's extract_to_stem = %v", c.ID, d.Archive, d.ToStem, src.ExtractToStem)
			}
			fs := fetch.Source{Kind: src.Kind, Record: src.Record}
			if got := pageOf(c, d.Source); got != fs.BrowserURL() {
				t.Errorf("%s: page %s, the fetch plan opens %s", c.ID, got, fs.BrowserURL())
			}
		}
	}
}

// The README's "Placing downloads by hand" table is what Markdown generates
// from the challenge files; REXMLE_UPDATE_README=1 rewrites it.
func TestReadmePlacingTableIsGenerated(t *testing.T) {
	b := loadBench(t)
	want, err := Markdown(b)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range b.Challenges {
		if !strings.Contains(want, "| "+c.ID+" |") {
			t.Errorf("no row for %s", c.ID)
		}
	}
	readme := filepath.Join("..", "..", "README.md")
	text, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	s := string(text)
	i, j := strings.Index(s, Begin), strings.Index(s, End)
	if i < 0 || j < i {
		t.Fatalf("README.md has no generated table between %q and %q", Begin, End)
	}
	got := s[i : j+len(End)+1]
	if got == want {
		return
	}
	if os.Getenv("REXMLE_UPDATE_README") == "1" {
		if err := os.WriteFile(readme, []byte(s[:i]+want+s[j+len(End)+1:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("README.md's table differs from the challenge files; run REXMLE_UPDATE_README=1 go test ./pipeline/placing\n--- got\n%s\n--- want\n%s", got, want)
}
