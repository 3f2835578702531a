package fetch_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rexmle/rexmle/pipeline/fetch"
	"github.com/rexmle/rexmle/pipeline/fetch/fetchtest"
)

func TestFetchZenodoThenSecondRunSkipsEverything(t *testing.T) {
	srv := fetchtest.New()
	defer srv.Close()
	a := fetchtest.RandomBytes(300_000, 1)
	b := fetchtest.RandomBytes(12_345, 2)
	other := fetchtest.RandomBytes(999, 3)
	srv.AddZenodo("7960856", fetchtest.File{Name: "ISLES-2022.zip.bin", Data: a}, fetchtest.File{Name: "center_ids.xlsx", Data: b}, fetchtest.File{Name: "unused.txt", Data: other})
	opts, _ := testOptions(t, srv)
	src := []fetch.Source{{Challenge: "isles22", Kind: fetch.KindZenodo, Record: "7960856", Files: []string{"ISLES-2022.zip.bin", "center_ids.xlsx"}}}

	sum, err := fetch.Fetch(context.Background(), src, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := sum.Err(); err != nil {
		t.Fatal(err)
	}
	if got := sum.Count(fetch.StatusFetched); got != 2 {
		t.Fatalf("fetched %d files, want 2", got)
	}
	if sum.BytesTransferred != int64(len(a)+len(b)) {
		t.Errorf("transferred %d bytes, want %d", sum.BytesTransferred, len(a)+len(b))
	}
	if !bytes.Equal(readFile(t, filepath.Join(opts.RawDir("isles22"), "ISLES-2022.zip.bin")), a) {
		t.Error("ISLES-2022.zip.bin content differs")
	}
	if exists(filepath.Join(opts.RawDir("isles22"), "unused.txt")) {
		t.Error("a file not in the Files list was downloaded")
	}
	lf := lockOf(t, opts, "isles22")
	if len(lf.Files) != 2 {
		t.Fatalf("lock has %d entries, want 2", len(lf.Files))
	}
	e := lf.Entry("center_ids.xlsx")
	if e == nil || e.Size != int64(len(b)) || e.SHA256 != sha256hex(b) || e.MD5 != fetchtest.MD5(b) || !strings.Contains(e.URL, "/api/records/7960856/files/center_ids.xlsx/content") {
		t.Errorf("lock entry = %+v", e)
	}
	served := srv.TotalBytesServed()

	sum2, err := fetch.Fetch(context.Background(), src, opts)
	if err != nil {
		t.Fatal(err)
	}
	if sum2.BytesTransferred != 0 || srv.TotalBytesServed() != served {
		t.Errorf("second run transferred %d bytes (server served %d more), want 0", sum2.BytesTransferred, srv.TotalBytesServed()-served)
	}
	if got := sum2.Count(fetch.StatusSkipped); got != 2 {
		t.Errorf("second run skipped %d, want 2", got)
	}
}

func TestResumeAfterDroppedConnection(t *testing.T) {
	const size = 4 << 20
	srv := fetchtest.New()
	defer srv.Close()
	data := fetchtest.RandomBytes(size, 7)
	srv.AddZenodo("1", fetchtest.File{Name: "big.bin", Data: data, Fault: fetchtest.Fault{DropAt: size / 2}})
	opts, _ := testOptions(t, srv)
	opts.Retry.MaxAttempts = 1 // the first run gives up at the drop, like a killed process
	src := []fetch.Source{{Challenge: "c", Kind: fetch.KindZenodo, Record: "1"}}

	sum, err := fetch.Fetch(context.Background(), src, opts)
	if err != nil {
		t.Fatal(err)
	}
	if r := resultOf(t, sum, "c", "big.bin"); r.Status != fetch.StatusFailed {
		t.Fatalf("first run status %s, want failed", r.Status)
	}
	part := filepath.Join(opts.RawDir("c"), "big.bin.part")
	st, err := os.Stat(part)
	if err != nil {
		t.Fatalf("no .part after the drop: %v", err)
	}
	if st.Size() <= 0 || st.Size() > size/2 {
		t.Fatalf(".part holds %d bytes, want (0, %d]", st.Size(), size/2)
	}
	p, err := fetch.Plan(context.Background(), src, opts)
	if err != nil {
		t.Fatal(err)
	}
	if f := p.Files()[0]; f.Action != fetch.ActionResume || f.PartBytes != st.Size() {
		t.Errorf("plan after drop: action %v from %d, want resume from %d", f.Action, f.PartBytes, st.Size())
	}

	sum, err = fetch.Fetch(context.Background(), src, opts)
	if err != nil {
		t.Fatal(err)
	}
	r := resultOf(t, sum, "c", "big.bin")
	if r.Status != fetch.StatusFetched || r.ResumedFrom != st.Size() {
		t.Fatalf("second run: %+v", r)
	}
	stats := srv.Stats("big.bin")
	if len(stats.RangeStarts) != 1 || stats.RangeStarts[0] != st.Size() {
		t.Errorf("range requests started at %v, want [%d]", stats.RangeStarts, st.Size())
	}
	redownloaded := stats.BytesServed - size
	if redownloaded < 0 || float64(redownloaded) >= 0.05*size {
		t.Errorf("re-downloaded %d bytes (%.2f%% of the file), want < 5%%", redownloaded, 100*float64(redownloaded)/size)
	}
	t.Logf("drop at %d, .part kept %d, second run fetched %d, re-downloaded %d bytes", size/2, st.Size(), r.Bytes, redownloaded)
	if !bytes.Equal(readFile(t, filepath.Join(opts.RawDir("c"), "big.bin")), data) {
		t.Error("resumed file differs from the original")
	}
	if exists(part) {
		t.Error(".part left behind after success")
	}
}

func TestResumeWithinOneRun(t *testing.T) {
	const size = 1 << 20
	srv := fetchtest.New()
	defer srv.Close()
	data := fetchtest.RandomBytes(size, 8)
	srv.AddFigshare("14806362", fetchtest.File{Name: "Rider.bin", Data: data, Fault: fetchtest.Fault{DropAt: size / 4, DropTimes: 2}})
	opts, _ := testOptions(t, srv)
	sum, err := fetch.Fetch(context.Background(), []fetch.Source{{Challenge: "seg_a", Kind: fetch.KindFigshare, Record: "14806362"}}, opts)
	if err != nil || sum.Err() != nil {
		t.Fatalf("fetch: %v / %v", err, sum.Err())
	}
	st := srv.Stats("Rider.bin")
	// request 1 drops at 256 KiB; request 2 resumes there (and is dropped
	// again only if it starts before the drop point, which it does not).
	if st.Requests != 2 || st.BytesServed != size {
		t.Errorf("requests %d, served %d bytes; want 2 requests and exactly %d bytes", st.Requests, st.BytesServed, size)
	}
	if !bytes.Equal(readFile(t, filepath.Join(opts.RawDir("seg_a"), "Rider.bin")), data) {
		t.Error("content differs")
	}
}

func TestServerErrorThenSuccess(t *testing.T) {
	srv := fetchtest.New()
	defer srv.Close()
	data := fetchtest.RandomBytes(50_000, 9)
	srv.AddZenodo("2", fetchtest.File{Name: "x.bin", Data: data, Fault: fetchtest.Fault{Status500: 2}})
	opts, logs := testOptions(t, srv)
	sum, err := fetch.Fetch(context.Background(), []fetch.Source{{Challenge: "c", Kind: fetch.KindZenodo, Record: "2"}}, opts)
	if err != nil || sum.Err() != nil {
		t.Fatalf("fetch: %v / %v", err, sum.Err())
	}
	if st := srv.Stats("x.bin"); st.Requests != 3 {
		t.Errorf("requests = %d, want 3 (two 500s, then success)", st.Requests)
	}
	t.Logf("observed: %d requests (500, 500, 200), %d bytes transferred", srv.Stats("x.bin").Requests, sum.BytesTransferred)
	if n := strings.Count(logs.String(), "retrying"); n != 2 {
		t.Errorf("%d retry log lines, want 2", n)
	}
}

func TestServerErrorsExhaustRetries(t *testing.T) {
	srv := fetchtest.New()
	defer srv.Close()
	srv.AddZenodo("2", fetchtest.File{Name: "x.bin", Data: []byte("abc"), Fault: fetchtest.Fault{Status500: 100}})
	srv.AddZenodo("3", fetchtest.File{Name: "y.bin", Data: []byte("fine")})
	opts, _ := testOptions(t, srv)
	sum, err := fetch.Fetch(context.Background(), []fetch.Source{
		{Challenge: "bad", Kind: fetch.KindZenodo, Record: "2"},
		{Challenge: "good", Kind: fetch.KindZenodo, Record: "3"},
	}, opts)
	if err != nil {
		t.Fatal(err)
	}
	r := resultOf(t, sum, "bad", "x.bin")
	var se *fetch.HTTPStatusError
	if r.Status != fetch.StatusFailed || !errors.As(r.Err, &se) || se.StatusCode != 500 {
		t.Errorf("bad: %+v", r)
	}
	if st := srv.Stats("x.bin"); st.Requests != opts.Retry.MaxAttempts {
		t.Errorf("requests = %d, want MaxAttempts = %d", st.Requests, opts.Retry.MaxAttempts)
	}
	if r := resultOf(t, sum, "good", "y.bin"); r.Status != fetch.StatusFetched {
		t.Errorf("one failing challenge stopped another: %+v", r)
	}
}

func TestTooManyRequestsHonoursRetryAfter(t *testing.T) {
	srv := fetchtest.New()
	defer srv.Close()
	srv.AddZenodo("4", fetchtest.File{Name: "x.bin", Data: []byte("payload"), Fault: fetchtest.Fault{Status429: 1, RetryAfter: "1"}})
	opts, _ := testOptions(t, srv)
	began := time.Now()
	sum, err := fetch.Fetch(context.Background(), []fetch.Source{{Challenge: "c", Kind: fetch.KindZenodo, Record: "4"}}, opts)
	if err != nil || sum.Err() != nil {
		t.Fatalf("fetch: %v / %v", err, sum.Err())
	}
	el := time.Since(began)
	t.Logf("observed: 429 with Retry-After: 1, then success; whole fetch took %v (backoff alone would be 1 ms)", el.Round(time.Millisecond))
	if el < time.Second {
		t.Errorf("finished after %v; Retry-After: 1 asks for at least 1 s (backoff alone is 1 ms)", el)
	}
	if el > 5*time.Second {
		t.Errorf("took %v, far longer than the 1 s asked for", el)
	}
	if st := srv.Stats("x.bin"); st.Requests != 2 {
		t.Errorf("requests = %d, want 2", st.Requests)
	}
}

func TestWrongChecksumDeletesPartial(t *testing.T) {
	srv := fetchtest.New()
	defer srv.Close()
	srv.AddZenodo("5", fetchtest.File{Name: "x.bin", Data: fetchtest.RandomBytes(10_000, 5), Fault: fetchtest.Fault{BadMD5: true}})
	opts, logs := testOptions(t, srv)
	sum, err := fetch.Fetch(context.Background(), []fetch.Source{{Challenge: "c", Kind: fetch.KindZenodo, Record: "5"}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	r := resultOf(t, sum, "c", "x.bin")
	var ce *fetch.ChecksumError
	if r.Status != fetch.StatusFailed || !errors.As(r.Err, &ce) || ce.What != "md5" || !ce.PartRemove {
		t.Fatalf("result %+v, want an md5 ChecksumError with the partial removed", r)
	}
	t.Logf("observed: %v", r.Err)
	dir := opts.RawDir("c")
	if exists(filepath.Join(dir, "x.bin.part")) || exists(filepath.Join(dir, "x.bin")) {
		t.Error("partial or final file left after a checksum mismatch")
	}
	if len(lockOf(t, opts, "c").Files) != 0 {
		t.Error("mismatching file recorded in the lock file")
	}
	if !strings.Contains(logs.String(), "md5 mismatch") {
		t.Error("mismatch not logged")
	}
	var out bytes.Buffer
	sum.Print(&out)
	if !strings.Contains(out.String(), "FAILED    c/x.bin") || !strings.Contains(out.String(), "partial download deleted") {
		t.Errorf("summary does not report the mismatch:\n%s", out.String())
	}
}

func TestServerWithoutRangeRestartsCleanly(t *testing.T) {
	const size = 1 << 20
	srv := fetchtest.New()
	defer srv.Close()
	data := fetchtest.RandomBytes(size, 11)
	srv.AddZenodo("6", fetchtest.File{Name: "x.bin", Data: data, Fault: fetchtest.Fault{DropAt: size / 2, NoRange: true}})
	opts, _ := testOptions(t, srv)
	opts.Retry.MaxAttempts = 1
	src := []fetch.Source{{Challenge: "c", Kind: fetch.KindZenodo, Record: "6"}}
	if _, err := fetch.Fetch(context.Background(), src, opts); err != nil {
		t.Fatal(err)
	}
	sum, err := fetch.Fetch(context.Background(), src, opts)
	if err != nil || sum.Err() != nil {
		t.Fatalf("fetch: %v / %v", err, sum.Err())
	}
	st := srv.Stats("x.bin")
	if st.RangeHeaders != 1 {
		t.Errorf("client sent %d Range headers, want 1 (the resume attempt)", st.RangeHeaders)
	}
	if sum.BytesTransferred != size {
		t.Errorf("second run transferred %d, want the whole %d after a 200 answer", sum.BytesTransferred, size)
	}
	t.Logf("observed: Range headers sent %d, server answered 200, second run transferred %d of %d bytes", st.RangeHeaders, sum.BytesTransferred, size)
	if !bytes.Equal(readFile(t, filepath.Join(opts.RawDir("c"), "x.bin")), data) {
		t.Error("restarted file differs (old prefix not discarded?)")
	}
}

func TestTokenSentButNeverLogged(t *testing.T) {
	const secret = "s3cr3t-T0KEN-value-42"
	srv := fetchtest.New()
	defer srv.Close()
	other := fetchtest.New() // a different host: must not receive the token
	defer other.Close()
	fig := fetchtest.New() // Figshare on its own host: its own header form
	defer fig.Close()
	srv.AddZenodo("7", fetchtest.File{Name: "z.bin", Data: []byte("zenodo"), Fault: fetchtest.Fault{Status500: 1}})
	fig.AddFigshare("8", fetchtest.File{Name: "f.bin", Data: []byte("figshare"), Fault: fetchtest.Fault{BadMD5: true}})
	u := other.AddURL("/data/u.bin", fetchtest.File{Name: "u.bin", Data: []byte("plain")})
	opts, logs := testOptions(t, srv)
	opts.Token = secret
	opts.FigshareBaseURL = fig.URL
	var prog bytes.Buffer
	opts.Progress, opts.IsTTY = &prog, true
	sum, err := fetch.Fetch(context.Background(), []fetch.Source{
		{Challenge: "z", Kind: fetch.KindZenodo, Record: "7"},
		{Challenge: "f", Kind: fetch.KindFigshare, Record: "8"},
		{Challenge: "u", Kind: fetch.KindURL, URL: u},
	}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := srv.AuthHeaders(); len(got) == 0 || got[0] != "Bearer "+secret {
		t.Errorf("Zenodo host did not get the bearer token (%d headers)", len(got))
	}
	if got := fig.AuthHeaders(); len(got) == 0 || got[0] != "token "+secret {
		t.Errorf("Figshare host did not get the token (%d headers)", len(got))
	}
	if n := len(other.AuthHeaders()); n != 0 {
		t.Errorf("token sent to a foreign host %d times", n)
	}
	var report bytes.Buffer
	sum.Print(&report)
	p, _ := fetch.Plan(context.Background(), nil, opts)
	p.Print(&report)
	for name, text := range map[string]string{"log": logs.String(), "progress": prog.String(), "summary": report.String()} {
		if strings.Contains(text, secret) {
			t.Errorf("token appears in the %s output", name)
		}
	}
	for _, dir := range []string{"z", "f", "u"} {
		if b, err := os.ReadFile(filepath.Join(opts.RawDir(dir), fetch.LockFileName)); err == nil && strings.Contains(string(b), secret) {
			t.Errorf("token written into %s's lock file", dir)
		}
	}
	if !strings.Contains(logs.String(), "retrying") || !strings.Contains(logs.String(), "md5 mismatch") {
		t.Error("expected retry and mismatch log lines to check for leaks")
	}
}

func TestSharedRecordDownloadedOnceAndLinked(t *testing.T) {
	srv := fetchtest.New()
	defer srv.Close()
	data := fetchtest.RandomBytes(200_000, 12)
	srv.AddZenodo("15692630", fetchtest.File{Name: "TopCoW2024_Data_Release.bin", Data: data})
	opts, _ := testOptions(t, srv)
	var src []fetch.Source
	for _, c := range []string{"topcow-track1-task1", "topcow-track1-task2", "topcow-track2-task1"} {
		src = append(src, fetch.Source{Challenge: c, Kind: fetch.KindZenodo, Record: "15692630", Files: []string{"TopCoW2024_Data_Release.bin"}})
	}
	p, err := fetch.Plan(context.Background(), src, opts)
	if err != nil {
		t.Fatal(err)
	}
	if p.ToDownload() != int64(len(data)) {
		t.Errorf("plan counts %d bytes to download, want one copy (%d)", p.ToDownload(), len(data))
	}
	var out bytes.Buffer
	p.Print(&out)
	if n := strings.Count(out.String(), "link to the copy of topcow-track1-task1"); n != 2 {
		t.Errorf("dry run shows %d links, want 2:\n%s", n, out.String())
	}
	sum, err := fetch.FetchPlan(context.Background(), p, opts)
	if err != nil || sum.Err() != nil {
		t.Fatalf("fetch: %v / %v", err, sum.Err())
	}
	if got := srv.Stats("TopCoW2024_Data_Release.bin").BytesServed; got != int64(len(data)) {
		t.Errorf("served %d bytes for three challenges, want one copy (%d)", got, len(data))
	}
	if srv.MetadataRequests() != 1 {
		t.Errorf("record metadata fetched %d times, want 1", srv.MetadataRequests())
	}
	for _, s := range src {
		if !bytes.Equal(readFile(t, filepath.Join(opts.RawDir(s.Challenge), "TopCoW2024_Data_Release.bin")), data) {
			t.Errorf("%s: content differs", s.Challenge)
		}
		if e := lockOf(t, opts, s.Challenge).Entry("TopCoW2024_Data_Release.bin"); e == nil || e.SHA256 != sha256hex(data) {
			t.Errorf("%s: lock entry %+v", s.Challenge, e)
		}
	}
}

func TestPlanDryRunOutput(t *testing.T) {
	srv := fetchtest.New()
	defer srv.Close()
	srv.AddZenodo("7960856", fetchtest.File{Name: "ISLES-2022.zip", Data: make([]byte, 3<<20)}, fetchtest.File{Name: "center_ids.xlsx", Data: make([]byte, 2048)})
	srv.AddFigshare("14806362", fetchtest.File{Name: "Dongyang.zip", Data: make([]byte, 1536)})
	opts, _ := testOptions(t, srv)
	src := []fetch.Source{
		{Challenge: "isles22", Kind: fetch.KindZenodo, Record: "7960856", Extract: true},
		{Challenge: "seg_a", Kind: fetch.KindFigshare, Record: "14806362", Extract: true, ExtractToStem: true},
		{Challenge: "ldct-iqa", Kind: fetch.KindGDrive, Record: "1DbZ", Files: []string{"test.zip"}},
		{Challenge: "missing", Kind: fetch.KindZenodo, Record: "404404"},
		{Challenge: "hand", Kind: fetch.KindManual, Files: []string{"data.zip"}, Instructions: "Register at example.org\nand download data.zip"},
	}
	// center_ids.xlsx is already verified: it must show as skipped.
	if _, err := fetch.Fetch(context.Background(), []fetch.Source{{Challenge: "isles22", Kind: fetch.KindZenodo, Record: "7960856", Files: []string{"center_ids.xlsx"}}}, opts); err != nil {
		t.Fatal(err)
	}
	p, err := fetch.Plan(context.Background(), src, opts)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := p.Print(&out); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{
		"isles22 (zenodo 7960856) → " + opts.RawDir("isles22"),
		"ISLES-2022.zip", "3.0 MiB  download + extract",
		"center_ids.xlsx", "2.0 KiB  skip (verified)",
		"total 3.0 MiB, to download 3.0 MiB",
		"seg_a (figshare 14806362)", "1.5 KiB  download + extract",
		"ldct-iqa (gdrive 1DbZ)", "?  download",
		"missing (zenodo 404404)", "ERROR: zenodo record 404404", "HTTP 404",
		"hand (manual)", "manual download needed", "| Register at example.org", "| and download data.zip", "| then put data.zip in " + opts.RawDir("hand"),
		"5 sources (1 could not be planned), 5 files, 3.0 MiB in all, 3.0 MiB to download (+2 files of unknown size)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("dry-run output lacks %q:\n%s", want, text)
		}
	}
	t.Logf("dry run:\n%s", text)
	if got, want := p.ToDownload(), int64(3<<20+1536); got != want {
		t.Errorf("ToDownload = %d, want %d", got, want)
	}
}

func TestManualSource(t *testing.T) {
	srv := fetchtest.New()
	defer srv.Close()
	opts, _ := testOptions(t, srv)
	data := []byte("hand-downloaded content")
	src := []fetch.Source{{Challenge: "m", Kind: fetch.KindManual, Files: []string{"d.bin"}, SHA256: sha256hex(data), Instructions: "get d.bin from the portal"}}
	sum, err := fetch.Fetch(context.Background(), src, opts)
	if err != nil {
		t.Fatal(err)
	}
	r := resultOf(t, sum, "m", "d.bin")
	if r.Status != fetch.StatusManual || sum.Err() != nil || !strings.Contains(r.Note, filepath.Join(opts.RawDir("m"), "d.bin")) || !strings.Contains(r.Note, "get d.bin from the portal") {
		t.Fatalf("absent manual file: %+v (err %v)", r, sum.Err())
	}
	os.WriteFile(filepath.Join(opts.RawDir("m"), "d.bin"), []byte("wrong"), 0o644)
	sum, _ = fetch.Fetch(context.Background(), src, opts)
	var ce *fetch.ChecksumError
	if r := resultOf(t, sum, "m", "d.bin"); r.Status != fetch.StatusFailed || !errors.As(r.Err, &ce) {
		t.Fatalf("wrong manual file: %+v", r)
	}
	os.WriteFile(filepath.Join(opts.RawDir("m"), "d.bin"), data, 0o644)
	sum, _ = fetch.Fetch(context.Background(), src, opts)
	if r := resultOf(t, sum, "m", "d.bin"); r.Status != fetch.StatusSkipped || r.Err != nil {
		t.Fatalf("right manual file: %+v", r)
	}
	if e := lockOf(t, opts, "m").Entry("d.bin"); e == nil || e.SHA256 != sha256hex(data) {
		t.Errorf("manual file not recorded: %+v", e)
	}
}

func TestGDriveConfirmPage(t *testing.T) {
	srv := fetchtest.New()
	defer srv.Close()
	big := fetchtest.RandomBytes(70_000, 13)
	small := fetchtest.RandomBytes(700, 14)
	srv.AddGDrive("1DbZfTj4", fetchtest.File{Name: "ldct", Data: big}, true)
	srv.AddGDrive("1RrM8YIw", fetchtest.File{Name: "us", Data: small}, false)
	opts, _ := testOptions(t, srv)
	sum, err := fetch.Fetch(context.Background(), []fetch.Source{
		{Challenge: "ldct-iqa", Kind: fetch.KindGDrive, Record: "1DbZfTj4", Files: []string{"test_set.bin"}, SHA256: sha256hex(big)},
		{Challenge: "usenhance", Kind: fetch.KindGDrive, Record: "1RrM8YIw"},
	}, opts)
	if err != nil || sum.Err() != nil {
		t.Fatalf("fetch: %v / %v", err, sum.Err())
	}
	if !bytes.Equal(readFile(t, filepath.Join(opts.RawDir("ldct-iqa"), "test_set.bin")), big) {
		t.Error("confirmed download differs")
	}
	if !bytes.Equal(readFile(t, filepath.Join(opts.RawDir("usenhance"), "1RrM8YIw")), small) {
		t.Error("direct download differs")
	}
}

func TestVerifyDetectsChangedFile(t *testing.T) {
	srv := fetchtest.New()
	defer srv.Close()
	srv.AddZenodo("9", fetchtest.File{Name: "a.bin", Data: []byte("aaaa")}, fetchtest.File{Name: "b.bin", Data: []byte("bbbb")})
	opts, _ := testOptions(t, srv)
	src := []fetch.Source{{Challenge: "c", Kind: fetch.KindZenodo, Record: "9"}}
	if _, err := fetch.Fetch(context.Background(), src, opts); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(opts.RawDir("c"), "b.bin"), []byte("bbbX"), 0o644) // same size, other content
	rep, err := fetch.Verify(context.Background(), nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != 2 || rep.Results[0].Err != nil || rep.Results[1].Err == nil {
		t.Fatalf("verify results %+v, want a.bin ok and b.bin bad", rep.Results)
	}
	if rep.Err() == nil || !strings.Contains(rep.Err().Error(), "c/b.bin: b.bin: sha256 mismatch") {
		t.Errorf("Err() = %v", rep.Err())
	}
	// A plain second fetch trusts the size; with Verify it re-hashes and repairs.
	opts.Verify = true
	sum, err := fetch.Fetch(context.Background(), src, opts)
	if err != nil || sum.Err() != nil {
		t.Fatalf("fetch: %v / %v", err, sum.Err())
	}
	if r := resultOf(t, sum, "c", "b.bin"); r.Status != fetch.StatusFetched || r.Bytes != 4 {
		t.Errorf("repair: %+v", r)
	}
	if got := string(readFile(t, filepath.Join(opts.RawDir("c"), "b.bin"))); got != "bbbb" {
		t.Errorf("repaired content %q", got)
	}
}

func TestDiskSpaceCheck(t *testing.T) {
	srv := fetchtest.New()
	defer srv.Close()
	srv.AddZenodo("10", fetchtest.File{Name: "a.bin", Data: make([]byte, 5000)})
	opts, _ := testOptions(t, srv)
	opts.FreeSpace = func(string) (uint64, error) { return 4999, nil }
	_, err := fetch.Fetch(context.Background(), []fetch.Source{{Challenge: "c", Kind: fetch.KindZenodo, Record: "10"}}, opts)
	if !errors.Is(err, fetch.ErrNoSpace) || !strings.Contains(err.Error(), "4.9 KiB") {
		t.Fatalf("err = %v, want ErrNoSpace naming the need", err)
	}
	if srv.Stats("a.bin").Requests != 0 {
		t.Error("download started despite too little space")
	}
	opts.FreeSpace = func(string) (uint64, error) { return 5000, nil }
	if sum, err := fetch.Fetch(context.Background(), []fetch.Source{{Challenge: "c", Kind: fetch.KindZenodo, Record: "10"}}, opts); err != nil || sum.Err() != nil {
		t.Fatalf("exactly enough space: %v / %v", err, sum.Err())
	}
}

func TestCancelKeepsPartial(t *testing.T) {
	const size = 2 << 20
	srv := fetchtest.New()
	defer srv.Close()
	data := fetchtest.RandomBytes(size, 15)
	srv.AddZenodo("11", fetchtest.File{Name: "x.bin", Data: data})
	opts, _ := testOptions(t, srv)
	ctx, cancel := context.WithCancel(context.Background())
	// Cancel from the HTTP layer once some bytes flowed: wrap the client transport.
	opts.HTTPClient = cancellingClient(512<<10, cancel)
	src := []fetch.Source{{Challenge: "c", Kind: fetch.KindZenodo, Record: "11"}}
	sum, err := fetch.Fetch(ctx, src, opts)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	st, serr := os.Stat(filepath.Join(opts.RawDir("c"), "x.bin.part"))
	if serr != nil || st.Size() == 0 {
		t.Fatalf("no partial kept after cancel: %v", serr)
	}
	t.Logf("observed: cancelled after %d bytes received, .part holds %d", sum.BytesTransferred, st.Size())
	if st.Size() != sum.BytesTransferred {
		t.Errorf(".part has %d bytes but %d were received: bytes lost", st.Size(), sum.BytesTransferred)
	}
	opts.HTTPClient = nil
	sum, err = fetch.Fetch(context.Background(), src, opts)
	if err != nil || sum.Err() != nil {
		t.Fatalf("resume: %v / %v", err, sum.Err())
	}
	if got := resultOf(t, sum, "c", "x.bin"); got.ResumedFrom != st.Size() || got.Bytes != size-st.Size() {
		t.Errorf("resume: %+v, want from %d", got, st.Size())
	}
}

func TestStalledResponseIsAbandonedAndResumed(t *testing.T) {
	const size = 1 << 20
	srv := fetchtest.New()
	defer srv.Close()
	data := fetchtest.RandomBytes(size, 16)
	srv.AddZenodo("12", fetchtest.File{Name: "x.bin", Data: data, Fault: fetchtest.Fault{StallAt: size / 2, StallFor: 20 * time.Second}})
	opts, _ := testOptions(t, srv)
	opts.StallTimeout = 200 * time.Millisecond
	began := time.Now()
	sum, err := fetch.Fetch(context.Background(), []fetch.Source{{Challenge: "c", Kind: fetch.KindZenodo, Record: "12"}}, opts)
	if err != nil || sum.Err() != nil {
		t.Fatalf("fetch: %v / %v", err, sum.Err())
	}
	t.Logf("observed: stalled at %d, resumed with Range from %v after %v", size/2, srv.Stats("x.bin").RangeStarts, time.Since(began).Round(time.Millisecond))
	if el := time.Since(began); el > 5*time.Second {
		t.Errorf("took %v: the stall was not cut short", el)
	}
	st := srv.Stats("x.bin")
	if st.Requests != 2 || len(st.RangeStarts) != 1 || st.RangeStarts[0] != size/2 {
		t.Errorf("requests %d, range starts %v; want a resume at %d", st.Requests, st.RangeStarts, size/2)
	}
	if !bytes.Equal(readFile(t, filepath.Join(opts.RawDir("c"), "x.bin")), data) {
		t.Error("content differs")
	}
}

func TestGDriveBlockedTellsUserWhatToDo(t *testing.T) {
	srv := fetchtest.New()
	defer srv.Close()
	srv.AddGDriveBlocked("1RrM8YIw")
	opts, _ := testOptions(t, srv)
	sum, err := fetch.Fetch(context.Background(), []fetch.Source{{Challenge: "usenhance", Kind: fetch.KindGDrive, Record: "1RrM8YIw", Files: []string{"train.zip"}, Extract: true}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	r := resultOf(t, sum, "usenhance", "train.zip")
	want := "download it by hand from https://drive.google.com/file/d/1RrM8YIw/view and save it as " + filepath.Join(opts.RawDir("usenhance"), "train.zip")
	if r.Status != fetch.StatusFailed || r.Err == nil || !strings.Contains(r.Err.Error(), want) {
		t.Fatalf("result %+v, want an error containing %q", r, want)
	}
	if exists(filepath.Join(opts.RawDir("usenhance"), "train.zip")) {
		t.Error("the HTML page was saved as the file")
	}
}

func TestCompletePartOfUnknownSizeIsNotRefetched(t *testing.T) {
	srv := fetchtest.New()
	defer srv.Close()
	data := fetchtest.RandomBytes(30_000, 17)
	u := srv.AddURL("/mirror/archive.bin", fetchtest.File{Name: "archive.bin", Data: data})
	opts, _ := testOptions(t, srv)
	os.MkdirAll(opts.RawDir("c"), 0o755)
	os.WriteFile(filepath.Join(opts.RawDir("c"), "archive.bin.part"), data, 0o644)
	sum, err := fetch.Fetch(context.Background(), []fetch.Source{{Challenge: "c", Kind: fetch.KindURL, URL: u, SHA256: sha256hex(data)}}, opts)
	if err != nil || sum.Err() != nil {
		t.Fatalf("fetch: %v / %v", err, sum.Err())
	}
	if sum.BytesTransferred != 0 || srv.Stats("archive.bin").BytesServed != 0 {
		t.Errorf("transferred %d bytes for a complete .part (server answered 416)", sum.BytesTransferred)
	}
	if !bytes.Equal(readFile(t, filepath.Join(opts.RawDir("c"), "archive.bin")), data) {
		t.Error("content differs")
	}
}

func TestTwoSourcesShareOneChallengeFolder(t *testing.T) {
	srv := fetchtest.New()
	defer srv.Close()
	train := fetchtest.Zip(fetchtest.Entry{Name: "LDCTIQAG2023_train/train.json", Data: []byte(`{"0000.tif": 1.5}`)})
	test := fetchtest.Zip(fetchtest.Entry{Name: "LDCTIQAC_test/test.json", Data: []byte(`{"0000.tiff": 2.0}`)})
	srv.AddZenodo("7833096", fetchtest.File{Name: "LDCTIQAG2023_train.zip", Data: train})
	srv.AddGDrive("1DbZ", fetchtest.File{Name: "t", Data: test}, true)
	opts, _ := testOptions(t, srv)
	src := []fetch.Source{
		{Challenge: "ldct-iqa", Kind: fetch.KindZenodo, Record: "7833096", Extract: true},
		{Challenge: "ldct-iqa", Kind: fetch.KindGDrive, Record: "1DbZ", Files: []string{"test_dataset.zip"}, Extract: true},
	}
	sum, err := fetch.Fetch(context.Background(), src, opts)
	if err != nil || sum.Err() != nil {
		t.Fatalf("fetch: %v / %v", err, sum.Err())
	}
	raw := opts.RawDir("ldct-iqa")
	for _, p := range []string{"LDCTIQAG2023_train/train.json", "LDCTIQAC_test/test.json"} {
		if !exists(filepath.Join(raw, p)) {
			t.Errorf("%s missing", p)
		}
	}
	lf := lockOf(t, opts, "ldct-iqa")
	if len(lf.Files) != 2 || lf.Files[0].Name != "LDCTIQAG2023_train.zip" || lf.Files[1].Name != "test_dataset.zip" || lf.Files[0].ExtractedTo != "." || lf.Files[1].ExtractedTo != "." {
		t.Errorf("lock %+v", lf.Files)
	}
}

func TestNoProgressWithoutRangeGivesUp(t *testing.T) {
	const size = 100_000
	srv := fetchtest.New()
	defer srv.Close()
	srv.AddZenodo("13", fetchtest.File{Name: "x.bin", Data: fetchtest.RandomBytes(size, 18), Fault: fetchtest.Fault{DropAt: size / 2, DropTimes: 1000, NoRange: true}})
	opts, _ := testOptions(t, srv)
	sum, err := fetch.Fetch(context.Background(), []fetch.Source{{Challenge: "c", Kind: fetch.KindZenodo, Record: "13"}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if r := resultOf(t, sum, "c", "x.bin"); r.Status != fetch.StatusFailed {
		t.Fatalf("result %+v, want failure", r)
	}
	// The first attempt makes progress (0 → 50 %); every restart from zero
	// reaches the same 50 % and counts as an attempt without progress.
	if got := srv.Stats("x.bin").Requests; got != opts.Retry.MaxAttempts {
		t.Errorf("requests = %d, want MaxAttempts = %d", got, opts.Retry.MaxAttempts)
	}
}

func TestArchiveFormatSniffedFromContent(t *testing.T) {
	srv := fetchtest.New()
	defer srv.Close()
	// A Drive archive saved under a .zip name that is really a tar.gz.
	srv.AddGDrive("1RrM", fetchtest.File{Name: "t", Data: fetchtest.TarGz(fetchtest.Entry{Name: "train_datasets/liver/low_quality/1.png", Data: []byte("png")})}, false)
	opts, _ := testOptions(t, srv)
	sum, err := fetch.Fetch(context.Background(), []fetch.Source{{Challenge: "usenhance", Kind: fetch.KindGDrive, Record: "1RrM", Files: []string{"train_dataset.zip"}, Extract: true}}, opts)
	if err != nil || sum.Err() != nil {
		t.Fatalf("fetch: %v / %v", err, sum.Err())
	}
	if !exists(filepath.Join(opts.RawDir("usenhance"), "train_datasets", "liver", "low_quality", "1.png")) {
		t.Error("tar.gz content under a .zip name was not unpacked")
	}
}

func TestDifferentFilesUnderOneNameAreRefused(t *testing.T) {
	srv := fetchtest.New()
	defer srv.Close()
	srv.AddZenodo("14", fetchtest.File{Name: "a.zip", Data: []byte("zenodo")})
	u := srv.AddURL("/m/a.zip", fetchtest.File{Name: "a.zip", Data: []byte("mirror")})
	opts, _ := testOptions(t, srv)
	sum, err := fetch.Fetch(context.Background(), []fetch.Source{
		{Challenge: "c", Kind: fetch.KindZenodo, Record: "14"},
		{Challenge: "c", Kind: fetch.KindURL, URL: u},
	}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if r := resultOf(t, sum, "c", "a.zip"); r.Status != fetch.StatusFetched {
		t.Errorf("first source: %+v", r)
	}
	if f := sum.Failed(); len(f) != 1 || f[0].Name != "" || !strings.Contains(f[0].Err.Error(), "a.zip (already planned by c from zenodo)") ||
		!strings.Contains(f[0].Err.Error(), "different content") {
		t.Errorf("failures %+v, want the second source refused", f)
	}
	if got := string(readFile(t, filepath.Join(opts.RawDir("c"), "a.zip"))); got != "zenodo" {
		t.Errorf("content %q", got)
	}
}

func TestSharedRecordResumesTheLargestPartial(t *testing.T) {
	const size = 1 << 20
	srv := fetchtest.New()
	defer srv.Close()
	data := fetchtest.RandomBytes(size, 19)
	srv.AddZenodo("16878417", fetchtest.File{Name: "TopBrain.bin", Data: data})
	opts, _ := testOptions(t, srv)
	// The second challenge holds 3/4 of the file from an interrupted run.
	os.MkdirAll(opts.RawDir("topbrain-track2"), 0o755)
	os.WriteFile(filepath.Join(opts.RawDir("topbrain-track2"), "TopBrain.bin.part"), data[:3*size/4], 0o644)
	sum, err := fetch.Fetch(context.Background(), []fetch.Source{
		{Challenge: "topbrain-track1", Kind: fetch.KindZenodo, Record: "16878417"},
		{Challenge: "topbrain-track2", Kind: fetch.KindZenodo, Record: "16878417"},
	}, opts)
	if err != nil || sum.Err() != nil {
		t.Fatalf("fetch: %v / %v", err, sum.Err())
	}
	if sum.BytesTransferred != size/4 {
		t.Errorf("transferred %d bytes, want the missing quarter %d", sum.BytesTransferred, size/4)
	}
	for _, c := range []string{"topbrain-track1", "topbrain-track2"} {
		if !bytes.Equal(readFile(t, filepath.Join(opts.RawDir(c), "TopBrain.bin")), data) {
			t.Errorf("%s: content differs", c)
		}
	}
}

func TestSharedFileFailureIsNotRepeated(t *testing.T) {
	srv := fetchtest.New()
	defer srv.Close()
	srv.AddZenodo("15", fetchtest.File{Name: "x.bin", Data: fetchtest.RandomBytes(20_000, 20), Fault: fetchtest.Fault{BadMD5: true}})
	opts, _ := testOptions(t, srv)
	var src []fetch.Source
	for _, c := range []string{"a", "b", "c"} {
		src = append(src, fetch.Source{Challenge: c, Kind: fetch.KindZenodo, Record: "15"})
	}
	sum, err := fetch.Fetch(context.Background(), src, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := sum.Count(fetch.StatusFailed); got != 3 {
		t.Errorf("%d failures, want 3", got)
	}
	if got := srv.Stats("x.bin").Requests; got != 1 {
		t.Errorf("a file failing its checksum was requested %d times, want 1", got)
	}
	var ce *fetch.ChecksumError
	if r := resultOf(t, sum, "c", "x.bin"); !errors.As(r.Err, &ce) || !strings.Contains(r.Err.Error(), "same file as a/x.bin") {
		t.Errorf("c: %v", r.Err)
	}
}
