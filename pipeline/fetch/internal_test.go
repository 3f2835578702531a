package fetch

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		in     string
		want   time.Duration
		wantOK bool
	}{
		{"1", time.Second, true},
		{" 120 ", 2 * time.Minute, true},
		{"0", 0, true},
		{"-3", 0, false},
		{"", 0, false},
		{"soon", 0, false},
		{"Sun, 22 Nov 2026 03:00:30 GMT", 30 * time.Second, true},
		{"Sun, 22 Nov 2026 02:59:00 GMT", 0, true}, // in the past: no wait
	} {
		got, ok := parseRetryAfter(tc.in, now)
		if got != tc.want || ok != tc.wantOK {
			t.Errorf("parseRetryAfter(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.wantOK)
		}
	}
}

func TestParseContentRange(t *testing.T) {
	for _, tc := range []struct {
		in                string
		start, end, total int64
		ok                bool
	}{
		{"bytes 100-199/200", 100, 199, 200, true},
		{"bytes 0-0/1", 0, 0, 1, true},
		{"bytes 5-9/*", 5, 9, -1, true},
		{"bytes */200", 0, 0, 0, false},
		{"bytes 9-5/10", 0, 0, 0, false},
		{"items 0-1/2", 0, 0, 0, false},
		{"", 0, 0, 0, false},
	} {
		s, e, tot, ok := parseContentRange(tc.in)
		if ok != tc.ok || ok && (s != tc.start || e != tc.end || tot != tc.total) {
			t.Errorf("parseContentRange(%q) = %d %d %d %v", tc.in, s, e, tot, ok)
		}
	}
}

func TestCheckName(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"ISLES-2022.zip", true}, {"center_ids.xlsx", true}, {"a b.txt", true},
		{"", false}, {".", false}, {"..", false}, {"../x", false}, {"a/b", false}, {`a\b`, false}, {"/abs", false}, {"nul\x00", false},
	} {
		if err := checkName(tc.name); (err == nil) != tc.ok {
			t.Errorf("checkName(%q) = %v, want ok=%v", tc.name, err, tc.ok)
		}
	}
}

func TestArchiveNames(t *testing.T) {
	for _, tc := range []struct {
		name, stem string
		archive    bool
	}{
		{"Dongyang.zip", "Dongyang", true},
		{"x.TAR.GZ", "x", true},
		{"y.tgz", "y", true},
		{"z.tar", "z", true},
		{"center_ids.xlsx", "center_ids.xlsx", false},
		{"file.gz", "file.gz", false},
		{".zip", ".zip", true}, // no stem left: keep the name
	} {
		if got := isArchive(tc.name); got != tc.archive {
			t.Errorf("isArchive(%q) = %v", tc.name, got)
		}
		if got := archiveStem(tc.name); got != tc.stem {
			t.Errorf("archiveStem(%q) = %q, want %q", tc.name, got, tc.stem)
		}
	}
}

func TestGDriveConfirmURL(t *testing.T) {
	page, _ := url.Parse("https://drive.google.com/uc?export=download&id=ABC")
	form := `<form id="download-form" action="https://drive.usercontent.google.com/download" method="get">
<input type="submit" value="Download anyway"/><input type="hidden" name="id" value="ABC">
<input type="hidden" name="export" value="download"><input type="hidden" name="confirm" value="t">
<input type="hidden" name="uuid" value="u-1&amp;2"></form>`
	got, ok := gdriveConfirmURL(page, form)
	want := "https://drive.usercontent.google.com/download?confirm=t&export=download&id=ABC&uuid=u-1%262"
	if !ok || got != want {
		t.Errorf("form page: %q %v, want %q", got, ok, want)
	}
	old := `<a id="uc-download-link" href="/uc?export=download&amp;confirm=Xy_z&amp;id=ABC">Download anyway</a>`
	got, ok = gdriveConfirmURL(page, old)
	if want := "https://drive.google.com/uc?export=download&confirm=Xy_z&id=ABC"; !ok || got != want {
		t.Errorf("old page: %q %v, want %q", got, ok, want)
	}
	if _, ok := gdriveConfirmURL(page, "<html><title>Quota exceeded</title></html>"); ok {
		t.Error("quota page yielded a download URL")
	}
}

func TestFormatBytes(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		want string
	}{
		{0, "0 B"}, {1023, "1023 B"}, {1024, "1.0 KiB"}, {1536, "1.5 KiB"}, {3 << 20, "3.0 MiB"}, {15 << 30, "15.0 GiB"}, {5 << 40, "5.0 TiB"},
	} {
		if got := FormatBytes(tc.n); got != tc.want {
			t.Errorf("FormatBytes(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

func TestRetryableAndBackoff(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{&HTTPStatusError{StatusCode: 500}, true},
		{&HTTPStatusError{StatusCode: 503}, true},
		{&HTTPStatusError{StatusCode: 429}, true},
		{&HTTPStatusError{StatusCode: 408}, true},
		{&HTTPStatusError{StatusCode: 404}, false},
		{&HTTPStatusError{StatusCode: 403}, false},
		{permanent(&HTTPStatusError{StatusCode: 410}), false},
		{permanent(errors.New("disk full")), false},
		{fmt.Errorf("read: %w", io.ErrUnexpectedEOF), true},
		{fmt.Errorf("read: %w", syscall.ECONNRESET), true},
		{errStalled, true},
	} {
		if got := retryable(tc.err); got != tc.want {
			t.Errorf("retryable(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
	f := &fetcher{opts: Options{Retry: RetryPolicy{BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second, MaxRetryAfter: 3 * time.Second}}}
	plain := errors.New("reset")
	for attempt, maxWant := range map[int]time.Duration{1: 100 * time.Millisecond, 2: 200 * time.Millisecond, 3: 400 * time.Millisecond, 5: time.Second, 30: time.Second} {
		for i := 0; i < 50; i++ {
			d := f.backoff(attempt, plain)
			if d < maxWant/2 || d > maxWant {
				t.Fatalf("backoff(%d) = %v, want within [%v, %v]", attempt, d, maxWant/2, maxWant)
			}
		}
	}
	if d := f.backoff(1, &HTTPStatusError{StatusCode: 429, RetryAfter: 2 * time.Second, HasRetryAfter: true}); d != 2*time.Second {
		t.Errorf("Retry-After 2s gave %v", d)
	}
	if d := f.backoff(1, &HTTPStatusError{StatusCode: 503, RetryAfter: time.Hour, HasRetryAfter: true}); d != 3*time.Second {
		t.Errorf("Retry-After 1h gave %v, want the 3s cap", d)
	}
}

func TestTTYProgressDrawsInPlace(t *testing.T) {
	var buf bytes.Buffer
	p := newTTYProgress(&buf, 1000, time.Hour) // no timed redraw: only stop() draws
	p.start("c/a.bin", 1000, 250)
	p.add("c/a.bin", 250)
	p.drawLocked()
	first := buf.String()
	if !strings.Contains(first, "c/a.bin") || !strings.Contains(first, " 50%") || !strings.Contains(first, "[============>           ]") || !strings.Contains(first, "total 250 B / 1000 B") {
		t.Errorf("first frame:\n%q", first)
	}
	p.finish("c/a.bin", nil)
	p.stop()
	rest := buf.String()[len(first):]
	if !strings.HasPrefix(rest, "\x1b[2F") { // back over the bar and the total line
		t.Errorf("second frame does not move up two lines: %q", rest)
	}
	if !strings.Contains(rest, "✓ c/a.bin") {
		t.Errorf("finished line missing: %q", rest)
	}
}

func TestTTYProgressPrintsLogLinesAboveBars(t *testing.T) {
	var buf bytes.Buffer
	p := newTTYProgress(&buf, 10, time.Hour)
	p.start("c/x", 10, 0)
	fmt.Fprintf(p, "level=WARN msg=retrying\n")
	p.stop()
	out := buf.String()
	i, j := strings.Index(out, "msg=retrying"), strings.Index(out, "c/x")
	if i < 0 || j < 0 || i > j {
		t.Errorf("log line not printed above the bar:\n%q", out)
	}
}
