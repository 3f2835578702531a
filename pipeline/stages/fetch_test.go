package stages

import (
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/fetch"
	"github.com/rexmle/rexmle/pipeline/fetch/fetchtest"
)

// TestFetchPlansEverySourceOfThePaperProfile plans the repository's real
// [[source]] tables against a fake Zenodo/Figshare/Drive that publishes the
// files they name: every source is planned (none refused for sharing a raw
// folder), each file is downloaded by exactly one source, and the PUMA
// nuclei annotations are among them.
func TestFetchPlansEverySourceOfThePaperProfile(t *testing.T) {
	b, err := config.Load(filepath.Join("..", "..", "benchmark.toml"))
	if err != nil {
		t.Fatal(err)
	}
	sources := fetchSources(b.Challenges)
	tables := 0
	for _, c := range b.Challenges {
		tables += len(c.Sources)
	}
	if len(sources) != tables || tables < len(b.Challenges) {
		t.Fatalf("%d sources from %d [[source]] tables of %d challenges", len(sources), tables, len(b.Challenges))
	}

	srv := fetchtest.New()
	defer srv.Close()
	zenodo, figshare := map[string][]string{}, map[string][]string{}
	add := func(m map[string][]string, rec string, names []string) {
		if len(names) == 0 {
			names = []string{"record-" + rec + ".zip"}
		}
		for _, n := range names {
			if !contains(m[rec], n) {
				m[rec] = append(m[rec], n)
			}
		}
	}
	for _, s := range sources {
		switch s.Kind {
		case fetch.KindZenodo:
			add(zenodo, s.Record, s.Files)
		case fetch.KindFigshare:
			add(figshare, s.Record, s.Files)
		case fetch.KindGDrive:
			srv.AddGDrive(s.Record, fetchtest.File{Name: s.Record, Data: []byte("drive " + s.Record)}, true)
		default:
			t.Fatalf("source %s: kind %s not served by this test", s.Label(), s.Kind)
		}
	}
	files := func(rec string, names []string) []fetchtest.File {
		var out []fetchtest.File
		for _, n := range names {
			out = append(out, fetchtest.File{Name: n, Data: []byte(rec + "/" + n)})
		}
		return out
	}
	for rec, names := range zenodo {
		srv.AddZenodo(rec, files(rec, names)...)
	}
	for rec, names := range figshare {
		srv.AddFigshare(rec, files(rec, names)...)
	}

	opts := fetch.Options{RawRoot: t.TempDir(), ZenodoBaseURL: srv.URL, FigshareBaseURL: srv.URL, GDriveBaseURL: srv.URL,
		FreeSpace: func(string) (uint64, error) { return 1 << 40, nil }}
	p, err := fetch.Plan(context.Background(), sources, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Challenges) != len(sources) {
		t.Fatalf("plan lists %d sources, want %d", len(p.Challenges), len(sources))
	}
	if f := p.Failed(); len(f) > 0 {
		for _, c := range f {
			t.Errorf("%s: %v", c.Source.Label(), c.Err)
		}
	}
	if err := p.Err(); err != nil {
		t.Errorf("plan error: %v", err)
	}
	downloads := map[string]int{}
	for _, f := range p.Files() {
		downloads[filepath.Join(f.Challenge, f.Name)]++
	}
	for _, c := range p.Challenges {
		for _, f := range append(append([]*fetch.PlannedFile(nil), c.Files...), c.Shared...) {
			if downloads[filepath.Join(f.Challenge, f.Name)] != 1 {
				t.Errorf("%s: %s planned %d times", c.Source.Label(), f.Name, downloads[filepath.Join(f.Challenge, f.Name)])
			}
		}
		if want := c.Source.Files; len(want) > 0 && len(c.Files)+len(c.Shared) != len(want) {
			t.Errorf("%s: %d files planned or shared, want %d", c.Source.Label(), len(c.Files)+len(c.Shared), len(want))
		}
	}
	var nuclei []string
	for k := range downloads {
		if strings.Contains(k, "geojson_nuclei") {
			nuclei = append(nuclei, k)
		}
	}
	if len(nuclei) != 1 {
		t.Errorf("PUMA nuclei annotations planned as %v, want once", nuclei)
	}
	var out strings.Builder
	if err := p.Print(&out); err != nil {
		t.Fatal(err)
	}
	t.Logf("dry-run listing:\n%s", out.String())
	if want := fmt.Sprintf("%d sources (0 could not be planned)", len(sources)); !strings.Contains(out.String(), want) {
		t.Errorf("dry-run listing lacks %q:\n%s", want, out.String())
	}
	if !strings.Contains(out.String(), "puma-track1-task2 (zenodo 14869398)") || !strings.Contains(out.String(), "shared: planned by puma-track1-task1") {
		t.Errorf("dry-run listing does not show the shared PUMA folder:\n%s", out.String())
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestFetchVerifyRehashesRecordedFiles: fetchVerify passes while the raw
// files match their FETCHED.lock records and fails naming a changed file.
func TestFetchVerifyRehashesRecordedFiles(t *testing.T) {
	o := testBench(t)
	o.Profile, o.Challenges = "paper", []string{"ldct-iqa"}
	root := filepath.Dir(o.Config)
	b, err := config.Load(o.Config)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := b.Challenge("ldct-iqa")
	srcs := fetchSources([]*config.Challenge{c})
	if len(srcs) == 0 {
		t.Fatal("ldct-iqa has no source")
	}
	dir := filepath.Join(root, "data", "raw", srcs[0].Challenge)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	data := []byte("recorded bytes")
	if err := os.WriteFile(filepath.Join(dir, "a.zip"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	sha, md := sha256.Sum256(data), md5.Sum(data)
	lock, _ := json.Marshal(fetch.LockFile{Version: 1, Challenge: srcs[0].Challenge, Files: []fetch.LockEntry{
		{Name: "a.zip", Size: int64(len(data)), SHA256: hex.EncodeToString(sha[:]), MD5: hex.EncodeToString(md[:])}}})
	if err := os.WriteFile(filepath.Join(dir, fetch.LockFileName), lock, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := FetchVerify(ctx, o); err != nil {
		t.Fatalf("intact file: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a.zip"), []byte("recorded bytez"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := FetchVerify(ctx, o); err == nil || !strings.Contains(err.Error(), "a.zip") || !strings.Contains(err.Error(), "1 files fail verification") {
		t.Fatalf("changed file: %v, want an error naming it", err)
	}
}
