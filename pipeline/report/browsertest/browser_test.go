package browsertest

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/rankstage"
	"github.com/rexmle/rexmle/pipeline/report"
	"github.com/rexmle/rexmle/pipeline/report/reporttest"
	"github.com/rexmle/rexmle/pipeline/store"
)

// chromium finds a Chromium or Chrome binary; "" if none is installed.
func chromium() string {
	if p := os.Getenv("REXMLE_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// buildSite fills a store with the paper's recorded results and a few
// synthetic runs (with per-case values, capability scores and GPU
// telemetry, so every kind of chart appears) and builds the site.
func buildSite(t *testing.T) (string, []string) {
	t.Helper()
	ctx := context.Background()
	b, err := config.Load("../../../benchmark.toml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	st, err := store.Open(ctx, filepath.Join(dir, "store.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := reporttest.Fill(ctx, st, b, reporttest.Spec{Agents: 2, Seeds: 2, Cases: 3, Strategies: 5, GPUSamples: 5, RandSeed: 2}); err != nil {
		t.Fatal(err)
	}
	if _, err := rankstage.Run(ctx, b, st); err != nil {
		t.Fatal(err)
	}
	site := filepath.Join(dir, "site")
	res, err := report.Build(ctx, report.Options{DB: st.DB, Benchmark: b, OutDir: site, GitCommit: "test",
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	return site, res.Pages
}

// pageProblems is what one page's check found.
type pageProblems struct {
	Console []string
	Charts  []string
	Anchors []string
	Links   []string // absolute URLs of links and resources on the page
	NCharts int
}

const chartsJS = `(() => {
  const items = Array.from(document.querySelectorAll('figure.chart .item'));
  const bad = [];
  for (const el of items) {
    const c = el.querySelector('canvas');
    if (!c || c.width === 0 || c.height === 0) { bad.push(el.id + ': no canvas'); continue; }
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let drawn = 0;
    for (let i = 3; i < d.length; i += 4 * 31) { if (d[i] !== 0) { drawn++; } }
    if (drawn === 0) { bad.push(el.id + ': blank canvas'); }
  }
  return {n: items.length, bad: bad};
})()`

const anchorsJS = `Array.from(document.querySelectorAll('a[href^="#"]'))
  .map(a => a.getAttribute('href').slice(1))
  .filter(id => id !== '' && !document.getElementById(id))`

const noAltJS = `document.querySelectorAll('img:not([alt]), img[alt=""]').length`

// sortJS clicks the rank column's header of the overall table and reports
// whether the column's numeric keys are then ascending.
const sortJS = `(() => {
  const t = document.getElementById('t-overall');
  if (!t) { return false; }
  const heads = Array.from(t.querySelectorAll('thead th'));
  const col = heads.findIndex(h => h.textContent.trim() === 'ReX-MLE rank');
  if (col < 0) { return false; }
  heads[col].click();
  const v = Array.from(t.tBodies[0].rows).map(r => r.cells[col].getAttribute('data-sort')).filter(x => x !== null && x !== '').map(Number);
  for (let i = 1; i < v.length; i++) { if (v[i] < v[i - 1]) { return false; } }
  return v.length > 1;
})()`

const linksJS = `Array.from(document.querySelectorAll('a[href], link[href], script[src], img[src]'))
  .map(e => e.href || e.src)`

func TestSiteInBrowser(t *testing.T) {
	bin := chromium()
	if bin == "" {
		t.Skip("no Chromium binary found (install the Debian package chromium, or set REXMLE_CHROMIUM): browser test skipped")
	}
	site, pages := buildSite(t)
	srv := httptest.NewServer(http.FileServer(http.Dir(site)))
	defer srv.Close()

	shots := os.Getenv("REXMLE_SCREENSHOTS")
	if shots == "" {
		shots = t.TempDir()
	}
	if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}

	alloc, cancel := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(bin),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	)
	defer cancel()
	ctx, cancel := chromedp.NewContext(alloc)
	defer cancel()
	if err := chromedp.Do(ctx); err != nil { // starts the browser
		t.Fatalf("start Chromium %s: %v", bin, err)
	}

	type chartsResult struct {
		N   int      `json:"n"`
		Bad []string `json:"bad"`
	}
	links := map[string][]string{} // URL → pages linking to it
	totalCharts := 0
	for _, p := range pages {
		url := srv.URL + "/" + p
		pctx, pcancel := context.WithTimeout(ctx, 30*time.Second)
		var mu sync.Mutex
		var console []string
		done := make(chan struct{})
		msgs := chromedp.Console(pctx)
		go func() {
			defer close(done)
			for m, err := range msgs {
				if err != nil {
					return
				}
				if m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleException || m.Type == chromedp.ConsoleWarning {
					mu.Lock()
					console = append(console, m.String()+" "+m.URL)
					mu.Unlock()
				}
			}
		}()
		err := chromedp.Do(pctx, chromedp.Navigate(url), chromedp.WaitReady("body"))
		var charts chartsResult
		if err == nil {
			charts, err = waitCharts(pctx)
		}
		var anchors, pageLinks []string
		if err == nil {
			anchors, err = chromedp.Run(pctx, chromedp.Evaluate[[]string](anchorsJS))
		}
		if err == nil {
			pageLinks, err = chromedp.Run(pctx, chromedp.Evaluate[[]string](linksJS))
		}
		if err == nil {
			var noAlt int
			if noAlt, err = chromedp.Run(pctx, chromedp.Evaluate[int](noAltJS)); err == nil && noAlt > 0 {
				t.Errorf("%s: %d image(s) without alt text", p, noAlt)
			}
		}
		if err == nil {
			if name, ok := map[string]string{"index.html": "overview.png", "challenges/isles22.html": "challenge-isles22.png"}[p]; ok {
				png, serr := chromedp.Run(pctx, chromedp.FullScreenshot(100))
				if serr != nil {
					t.Errorf("screenshot %s: %v", p, serr)
				} else if werr := os.WriteFile(filepath.Join(shots, name), png, 0o644); werr != nil {
					t.Error(werr)
				}
			}
		}
		// After the screenshot, so that it shows the default order.
		if err == nil && p == "index.html" {
			var sorted bool
			if sorted, err = chromedp.Run(pctx, chromedp.Evaluate[bool](sortJS)); err == nil && !sorted {
				t.Errorf("%s: clicking the ReX-MLE rank header does not sort the table ascending", p)
			}
		}
		time.Sleep(50 * time.Millisecond) // let late console messages arrive
		pcancel()
		<-done
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		totalCharts += charts.N
		mu.Lock()
		for _, c := range console {
			t.Errorf("%s: console: %s", p, c)
		}
		mu.Unlock()
		for _, c := range charts.Bad {
			t.Errorf("%s: chart %s", p, c)
		}
		for _, a := range anchors {
			t.Errorf("%s: anchor #%s has no target", p, a)
		}
		for _, l := range pageLinks {
			if strings.HasPrefix(l, srv.URL+"/") {
				u := l
				if i := strings.IndexByte(u, '#'); i >= 0 {
					u = u[:i]
				}
				links[u] = append(links[u], p)
			} else if !strings.HasPrefix(l, "http://") && !strings.HasPrefix(l, "https://") && !strings.HasPrefix(l, "data:") {
				t.Errorf("%s: odd link %q", p, l)
			}
		}
	}
	if totalCharts == 0 {
		t.Error("no charts found on any page")
	}
	// A phone-sized view of the overview.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844), chromedp.Navigate(srv.URL+"/index.html"), chromedp.WaitReady("body"),
		chromedp.Sleep(300*time.Millisecond)); err != nil {
		t.Errorf("phone view: %v", err)
	} else if png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot()); err != nil {
		t.Errorf("phone screenshot: %v", err)
	} else if err := os.WriteFile(filepath.Join(shots, "overview-phone.png"), png, 0o644); err != nil {
		t.Error(err)
	}
	// Every internal link and resource resolves.
	urls := make([]string, 0, len(links))
	for u := range links {
		urls = append(urls, u)
	}
	sort.Strings(urls)
	for _, u := range urls {
		resp, err := http.Get(u)
		if err != nil {
			t.Errorf("GET %s: %v", u, err)
			continue
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s (linked from %s): %s", u, strings.Join(links[u][:min(3, len(links[u]))], ", "), resp.Status)
		}
	}
	t.Logf("%d pages, %d charts, %d distinct internal links checked; screenshots in %s", len(pages), totalCharts, len(urls), shots)
}

// waitCharts polls until every chart's canvas is drawn or 5 s pass, then
// reports the charts still missing.
func waitCharts(ctx context.Context) (struct {
	N   int      `json:"n"`
	Bad []string `json:"bad"`
}, error) {
	type res = struct {
		N   int      `json:"n"`
		Bad []string `json:"bad"`
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		r, err := chromedp.Run(ctx, chromedp.Evaluate[res](chartsJS))
		if err != nil {
			return r, fmt.Errorf("check charts: %w", err)
		}
		if len(r.Bad) == 0 || time.Now().After(deadline) {
			return r, nil
		}
		time.Sleep(100 * time.Millisecond)
	}
}
