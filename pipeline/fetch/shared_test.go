package fetch_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/pipeline/fetch"
	"github.com/rexmle/rexmle/pipeline/fetch/fetchtest"
)

// The four PUMA tasks list one Zenodo record with overlapping file lists in
// one raw folder: every file lands once, the nuclei annotations included,
// and no source is refused.
func TestSharedFolderFetchesEveryFileOnce(t *testing.T) {
	srv := fetchtest.New()
	defer srv.Close()
	rois := fetchtest.Zip(fetchtest.Entry{Name: "01_training_dataset_tif_ROIs/a.tif", Data: []byte("tif")})
	tissue := fetchtest.Zip(fetchtest.Entry{Name: "01_training_dataset_geojson_tissue/a_tissue.geojson", Data: []byte("{}")})
	nuclei := fetchtest.Zip(fetchtest.Entry{Name: "01_training_dataset_geojson_nuclei/a_nuclei.geojson", Data: []byte("{}")})
	srv.AddZenodo("14869398",
		fetchtest.File{Name: "01_training_dataset_tif_ROIs.zip", Data: rois},
		fetchtest.File{Name: "01_training_dataset_geojson_tissue.zip", Data: tissue},
		fetchtest.File{Name: "01_training_dataset_geojson_nuclei.zip", Data: nuclei},
		fetchtest.File{Name: "unused.zip", Data: []byte("not wanted")})
	opts, _ := testOptions(t, srv)
	seg := []string{"01_training_dataset_tif_ROIs.zip", "01_training_dataset_geojson_tissue.zip"}
	det := []string{"01_training_dataset_tif_ROIs.zip", "01_training_dataset_geojson_nuclei.zip"}
	var src []fetch.Source
	for _, c := range []struct {
		id    string
		files []string
	}{{"puma-track1-task1", seg}, {"puma-track1-task2", det}, {"puma-track2-task1", seg}, {"puma-track2-task2", det}} {
		src = append(src, fetch.Source{Challenge: "puma-shared", For: c.id, Kind: fetch.KindZenodo, Record: "14869398", Files: c.files, Extract: true})
	}
	p, err := fetch.Plan(context.Background(), src, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Failed()) != 0 || len(p.Challenges) != 4 {
		t.Fatalf("plan: %d sources, failed %v", len(p.Challenges), p.Failed())
	}
	if n := len(p.Files()); n != 3 {
		t.Errorf("%d files to fetch, want 3", n)
	}
	sum, err := fetch.FetchPlan(context.Background(), p, opts)
	if err != nil || sum.Err() != nil {
		t.Fatalf("fetch: %v / %v", err, sum.Err())
	}
	for _, name := range []string{"01_training_dataset_tif_ROIs.zip", "01_training_dataset_geojson_tissue.zip", "01_training_dataset_geojson_nuclei.zip"} {
		if got := srv.Stats(name).Requests; got != 1 {
			t.Errorf("%s requested %d times, want 1", name, got)
		}
	}
	if srv.Stats("unused.zip").Requests != 0 {
		t.Error("a file no source asked for was downloaded")
	}
	for _, f := range []string{"01_training_dataset_geojson_nuclei/a_nuclei.geojson", "01_training_dataset_geojson_tissue/a_tissue.geojson", "01_training_dataset_tif_ROIs/a.tif"} {
		if !exists(filepath.Join(opts.RawDir("puma-shared"), f)) {
			t.Errorf("%s not unpacked", f)
		}
	}
	if lf := lockOf(t, opts, "puma-shared"); len(lf.Files) != 3 {
		t.Errorf("lock file lists %d files, want 3", len(lf.Files))
	}
	// A second plan finds everything verified.
	p, err = fetch.Plan(context.Background(), src, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range p.Files() {
		if f.Action != fetch.ActionSkip {
			t.Errorf("second plan: %s %v, want skip", f.Name, f.Action)
		}
	}
}

// A dry run reports an error when a source cannot be planned (saying so
// when none could), and none when every source was planned.
func TestPlanErrWhenEverySourceFails(t *testing.T) {
	srv := fetchtest.New()
	defer srv.Close()
	opts, _ := testOptions(t, srv)
	bad := []fetch.Source{
		{Challenge: "a", Kind: fetch.KindZenodo, Record: "404"},
		{Challenge: "b", Kind: fetch.KindFigshare, Record: "405"},
	}
	p, err := fetch.Plan(context.Background(), bad, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Err(); err == nil || !strings.Contains(err.Error(), "none of the 2 sources") || !strings.Contains(err.Error(), "a: zenodo record 404") {
		t.Errorf("Err() = %v", err)
	}
	srv.AddZenodo("7", fetchtest.File{Name: "x.bin", Data: []byte("x")})
	p, err = fetch.Plan(context.Background(), append(bad, fetch.Source{Challenge: "c", Kind: fetch.KindZenodo, Record: "7"}), opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Err(); err == nil || !strings.Contains(err.Error(), "2 of 3 sources could not be planned") || len(p.Failed()) != 2 {
		t.Errorf("partly planned: Err() = %v, %d failed", err, len(p.Failed()))
	}
	p, err = fetch.Plan(context.Background(), []fetch.Source{{Challenge: "c", Kind: fetch.KindZenodo, Record: "7"}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Err(); err != nil {
		t.Errorf("fully planned: Err() = %v", err)
	}
}

// A Google Drive file publishes no checksum: the first download records its
// size and checksums (trust on first use), and a later download of changed
// bytes is refused against that record instead of silently replacing it.
func TestGDriveTrustOnFirstUse(t *testing.T) {
	srv := fetchtest.New()
	defer srv.Close()
	first := fetchtest.RandomBytes(40_000, 31)
	srv.AddGDrive("1DbZ", fetchtest.File{Name: "t", Data: first}, true)
	opts, _ := testOptions(t, srv)
	src := []fetch.Source{{Challenge: "ldct-iqa", Kind: fetch.KindGDrive, Record: "1DbZ", Files: []string{"test_dataset.bin"}}}
	sum, err := fetch.Fetch(context.Background(), src, opts)
	if err != nil || sum.Err() != nil {
		t.Fatalf("first fetch: %v / %v", err, sum.Err())
	}
	e := lockOf(t, opts, "ldct-iqa").Entry("test_dataset.bin")
	if e == nil || e.Trust != fetch.TrustFirstUse || e.Size != int64(len(first)) || e.SHA256 != sha256hex(first) || e.FirstFetchedAt == nil {
		t.Fatalf("lock entry after the first download: %+v", e)
	}
	firstAt := *e.FirstFetchedAt

	// The copy is lost; Drive now serves other bytes of the same size.
	dest := filepath.Join(opts.RawDir("ldct-iqa"), "test_dataset.bin")
	os.Remove(dest)
	changed := fetchtest.RandomBytes(len(first), 32)
	srv.AddGDrive("1DbZ", fetchtest.File{Name: "t", Data: changed}, true)
	p, err := fetch.Plan(context.Background(), src, opts)
	if err != nil {
		t.Fatal(err)
	}
	pf := p.Files()[0]
	if !pf.Pinned || pf.SHA256 != sha256hex(first) || pf.Size != int64(len(first)) {
		t.Fatalf("planned file not pinned to the first download: %+v", pf)
	}
	var out bytes.Buffer
	p.Print(&out)
	if !strings.Contains(out.String(), "checked against the first download of") {
		t.Errorf("dry run does not say the file is pinned:\n%s", out.String())
	}
	sum, err = fetch.FetchPlan(context.Background(), p, opts)
	if err != nil {
		t.Fatal(err)
	}
	r := resultOf(t, sum, "ldct-iqa", "test_dataset.bin")
	var ce *fetch.ChecksumError
	if r.Status != fetch.StatusFailed || !errors.As(r.Err, &ce) || (ce.What != "sha256" && ce.What != "md5") || !strings.Contains(r.Err.Error(), "delete its entry") {
		t.Fatalf("changed Drive file: %+v", r)
	}
	if exists(dest) {
		t.Error("changed bytes were put in place")
	}

	// The original bytes again: accepted, and the first-use date is kept.
	srv.AddGDrive("1DbZ", fetchtest.File{Name: "t", Data: first}, true)
	sum, err = fetch.Fetch(context.Background(), src, opts)
	if err != nil || sum.Err() != nil {
		t.Fatalf("refetch: %v / %v", err, sum.Err())
	}
	if !bytes.Equal(readFile(t, dest), first) {
		t.Error("refetched content differs")
	}
	e = lockOf(t, opts, "ldct-iqa").Entry("test_dataset.bin")
	if e == nil || e.FirstFetchedAt == nil || !e.FirstFetchedAt.Equal(firstAt) {
		t.Errorf("first-use date not kept: %+v (want %v)", e, firstAt)
	}

	// A copy on disk changed to another size is re-downloaded and checked.
	os.WriteFile(dest, []byte("truncated"), 0o644)
	p, _ = fetch.Plan(context.Background(), src, opts)
	if a := p.Files()[0].Action; a != fetch.ActionAdopt {
		t.Errorf("changed copy on disk: action %v, want check existing", a)
	}
	sum, _ = fetch.FetchPlan(context.Background(), p, opts)
	if r := resultOf(t, sum, "ldct-iqa", "test_dataset.bin"); r.Status != fetch.StatusFetched || !bytes.Equal(readFile(t, dest), first) {
		t.Errorf("changed copy on disk: %+v", r)
	}
}
