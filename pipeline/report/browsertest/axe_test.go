package browsertest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// axeScript finds axe-core's axe.min.js: REXMLE_AXE names the file;
// otherwise the places npm (global or .ci/run's pinned copy) and a Debian
// package would put it. "" when none is there.
func axeScript() string {
	if p := os.Getenv("REXMLE_AXE"); p != "" {
		return p
	}
	cands := []string{"../../../.ci/axe-core/axe.min.js", "/usr/share/nodejs/axe-core/axe.min.js",
		"/usr/lib/node_modules/axe-core/axe.min.js", "/usr/local/lib/node_modules/axe-core/axe.min.js"}
	if out, err := exec.Command("npm", "root", "-g").Output(); err == nil {
		cands = append(cands, filepath.Join(strings.TrimSpace(string(out)), "axe-core", "axe.min.js"))
	}
	for _, c := range cands {
		if _, err := os.Stat(c); err == nil {
			return c
		}
	}
	return ""
}

// axeRunJS runs axe-core on the page (WCAG 2.0/2.1 A and AA, plus the
// best-practice rules on landmarks and regions) and returns one line per
// violating element: rule, impact, target and axe's summary.
const axeRunJS = `(async () => {
  const r = await axe.run(document, {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']}, resultTypes: ['violations']});
  const out = [];
  for (const v of r.violations) {
    for (const n of v.nodes) {
      out.push(v.id + ' (' + v.impact + ') ' + n.target.join(' ') + ': ' + (n.failureSummary || v.help).replace(/\s+/g, ' ').slice(0, 300));
    }
  }
  return out;
})()`

// axePages is one page of each kind the site has, from a demo build (every
// kind of section, synthetic ones included).
func axePages(pages []string) []string {
	kinds := map[string]string{}
	for _, p := range pages {
		k := p
		switch {
		case strings.HasPrefix(p, "challenges/") && p != "challenges/index.html":
			k = "challenge"
		case strings.HasPrefix(p, "agents/") && p != "agents/index.html":
			k = "agent"
			if strings.Contains(p, "demo--") {
				k = "agent-demo"
			}
		}
		// The richest challenge page: DENTEX (16 metrics, quirks).
		if old, ok := kinds[k]; !ok || p == "challenges/dentex.html" && old != p {
			kinds[k] = p
		}
	}
	out := make([]string, 0, len(kinds))
	for _, p := range kinds {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// TestAccessibility runs axe-core in Chromium on one page of every kind at
// 1440 and 390 px and fails on any violation, listing each. axe-core is
// injected from a local file (no network): .ci/run installs a pinned copy.
func TestAccessibility(t *testing.T) {
	bin := needChromium(t, "accessibility test")
	axePath := axeScript()
	if axePath == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("axe-core's axe.min.js not found (.ci/run installs it under .ci/axe-core; or set REXMLE_AXE)")
		}
		t.Skip("axe-core's axe.min.js not found (set REXMLE_AXE, or run .ci/run which installs a pinned copy): accessibility test skipped")
	}
	axeJS, err := os.ReadFile(axePath)
	if err != nil {
		t.Fatal(err)
	}
	d := openDemo(t, bin)
	site, pages, srv, ctx := d.site, d.pages, d.srv, d.ctx
	// A control page with known violations: axe must find them, or this
	// test could not fail.
	if err := os.WriteFile(filepath.Join(site, "axe-control.html"), []byte(`<!DOCTYPE html><html><head><title>x</title></head><body><img src="data:,"><a href="#"></a></body></html>`), 0o644); err != nil {
		t.Fatal(err)
	}
	var control []string
	err = chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/axe-control.html"), chromedp.WaitReady("body"))
	if err == nil {
		_, err = chromedp.Run(ctx, chromedp.Evaluate[bool](string(axeJS)+";\ntrue"))
	}
	if err == nil {
		control, err = chromedp.Run(ctx, chromedp.Evaluate[[]string](axeRunJS, chromedp.EvalAwaitPromise))
	}
	if err != nil {
		t.Fatalf("axe on the control page: %v", err)
	}
	for _, rule := range []string{"image-alt", "html-has-lang", "link-name"} {
		if !containsPrefix(control, rule+" ") {
			t.Errorf("axe missed the control page's %s violation (found %v)", rule, control)
		}
	}
	// Every kind of page at 1440 px; at 390 px the pages whose layout
	// changes most (the overview's tables, a challenge page, Figure 4).
	type view struct {
		page  string
		width int64
	}
	var views []view
	for _, p := range axePages(pages) {
		views = append(views, view{p, 1440})
	}
	for _, p := range []string{"index.html", "challenges/isles22.html", "capabilities.html"} {
		views = append(views, view{p, 390})
	}
	checked := 0
	for _, v := range views {
		p, vp := v.page, [2]int64{v.width, 900}
		if v.width == 390 {
			vp[1] = 844
		}
		pctx, pcancel := context.WithTimeout(ctx, 180*time.Second)
		var viol []string
		err := chromedp.Do(pctx, chromedp.EmulateViewport(vp[0], vp[1]), chromedp.Navigate(srv.URL+"/"+p), chromedp.WaitReady("body"))
		if err == nil {
			_, err = waitCharts(pctx)
		}
		if err == nil {
			_, err = chromedp.Run(pctx, chromedp.Evaluate[bool](string(axeJS)+";\ntrue"))
		}
		if err == nil {
			viol, err = chromedp.Run(pctx, chromedp.Evaluate[[]string](axeRunJS, chromedp.EvalAwaitPromise))
		}
		pcancel()
		if err != nil {
			t.Errorf("%s at %d px: axe: %v", p, vp[0], err)
			continue
		}
		checked++
		for _, v := range viol {
			t.Errorf("%s at %d px: %s", p, vp[0], v)
		}
	}
	t.Logf("axe-core (%s) ran on %d page views", axePath, checked)
}

func containsPrefix(xs []string, p string) bool {
	for _, x := range xs {
		if strings.HasPrefix(x, p) {
			return true
		}
	}
	return false
}

// browser starts headless Chromium for a test.
func browser(t *testing.T, bin string) (context.Context, context.CancelFunc) {
	t.Helper()
	alloc, acancel := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(bin), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 900))
	ctx, cancel := chromedp.NewContext(alloc)
	if err := chromedp.Do(ctx); err != nil {
		cancel()
		acancel()
		t.Fatalf("start Chromium %s: %v", bin, err)
	}
	return ctx, func() { cancel(); acancel() }
}
