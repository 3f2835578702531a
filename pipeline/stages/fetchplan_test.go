package stages

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/fetch"
)

// TestFetchDryRunOfflineShowsTheFullPlan: with every metadata host refusing
// connections, the dry run over the repository's challenge files prints
// the whole plan (browser page, files, sizes, licences, target folders,
// disk total) in under a second, then one line saying the live check was
// skipped, and succeeds.
func TestFetchDryRunOfflineShowsTheFullPlan(t *testing.T) {
	b, err := config.Load(filepath.Join("..", "..", "benchmark.toml"))
	if err != nil {
		t.Fatal(err)
	}
	sources := fetchSources(b.Challenges)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := l.Addr().String()
	l.Close()
	opts := fetch.Options{RawRoot: "data/raw", ZenodoBaseURL: "http://" + refused, FigshareBaseURL: "http://" + refused, GDriveBaseURL: "http://" + refused}
	var out strings.Builder
	start := time.Now()
	if err := fetchDryRun(context.Background(), &out, sources, opts); err != nil {
		t.Fatalf("offline dry run: %v\n%s", err, out.String())
	}
	if took := time.Since(start); took > time.Second {
		t.Fatalf("offline dry run took %s, want under 1s", took)
	}
	got := out.String()
	for _, c := range b.Challenges {
		if !strings.Contains(got, c.ID+" (") {
			t.Errorf("plan does not list %s", c.ID)
		}
	}
	for _, want := range []string{
		// a record, its page, a size from the reference, the licence and folder
		"topcow-track1-task1 (zenodo 15692630) → data/raw/topcow-shared\n  open:     https://zenodo.org/records/15692630\n  page:     https://topcow24.grand-challenge.org/\n  files:    TopCoW2024_Data_Release.zip, about 13.4 GiB (the whole record; the files taken may be less)\n  licence:  https://opendata.swiss/en/terms-of-use\n",
		"ldct-iqa (gdrive 1DbZfTj4it-3QRTuJO73r1iQyHLRwPS6H) → data/raw/ldct-iqa\n  open:     https://drive.google.com/file/d/1DbZfTj4it-3QRTuJO73r1iQyHLRwPS6H/view\n",
		"  files:    test_dataset.zip, size unknown\n  licence:  CC BY-NC-SA 4.0\n",
		"  licence:  CC-BY-NC-ND\n",
		"  files:    every file of the record (listed when the network answers), about 14.0 GiB\n", // SEG.A: 15 GB
		"  files:    every file of the record (listed when the network answers), size unknown\n",   // PANTHER
		// 11 distinct downloads; known: 11+1.7+21.3+14.8+15+2.0+14.4 = 80.2 GB = 74.7 GiB;
		// unknown: ldct-iqa's record and Drive file, PANTHER, USenhance.
		"21 sources, 11 downloads; disk needed: about 74.7 GiB for the downloads + 4 of unknown size, and about as much again to unpack the archives",
		"To download by hand instead: README \"Placing downloads by hand\" lists each file",
		"live check skipped: " + refused + " does not answer: connection refused; the plan above is from the challenge files alone\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("plan lacks %q", want)
		}
	}
	if t.Failed() {
		t.Logf("plan:\n%s", got)
	}
}

// TestFetchVerifyNamesHandPlacedFolders: files placed by hand (no
// FETCHED.lock record) make fetchVerify fail naming the folder and how to
// record them, instead of "0 files checked, 0 bad" and success.
func TestFetchVerifyNamesHandPlacedFolders(t *testing.T) {
	o := testBench(t)
	o.Profile, o.Challenges = "paper", []string{"ldct-iqa"}
	dir := filepath.Join(filepath.Dir(o.Config), "data", "raw", "ldct-iqa", "LDCTIQAC_test")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"test.json", "0001.tif"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	stdout, err := stdoutOf(func() error { return FetchVerify(context.Background(), o) })
	if err == nil || !strings.Contains(err.Error(), filepath.Join("raw", "ldct-iqa")+": 2 files never checked against the sources (no FETCHED.lock record)") {
		t.Errorf("hand-placed files: err %v, want one naming the folder", err)
	}
	for _, want := range []string{"UNVERIFIED ", "ldct-iqa: 2 files placed without a FETCHED.lock record", "0 files checked, 0 bad, 1 folders unverified\n", "To record them:"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
}
