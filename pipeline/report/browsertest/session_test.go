package browsertest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
)

// needChromium is the Chromium binary; where none is installed it skips
// the test, saying what is skipped.
func needChromium(t *testing.T, what string) string {
	t.Helper()
	bin := chromium()
	if bin == "" {
		t.Skip("no Chromium binary found (install the Debian package chromium, or set REXMLE_CHROMIUM): " + what + " skipped")
	}
	return bin
}

// demo is a demo build (buildSite) served over HTTP and a headless Chromium
// (bin) to open it in; both stop when the test ends.
type demo struct {
	site  string
	pages []string
	srv   *httptest.Server
	ctx   context.Context
}

func openDemo(t *testing.T, bin string) *demo {
	t.Helper()
	site, pages := buildSite(t)
	srv := httptest.NewServer(http.FileServer(http.Dir(site)))
	t.Cleanup(srv.Close)
	ctx, cancel := browser(t, bin)
	t.Cleanup(cancel)
	return &demo{site: site, pages: pages, srv: srv, ctx: ctx}
}

// screenshotDir is where a test saves its screenshots: REXMLE_SCREENSHOTS
// (made if missing), else a temporary folder.
func screenshotDir(t *testing.T) string {
	t.Helper()
	shots := os.Getenv("REXMLE_SCREENSHOTS")
	if shots == "" {
		return t.TempDir()
	}
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	return shots
}
