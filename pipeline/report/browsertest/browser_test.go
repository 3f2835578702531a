package browsertest

import (
	"context"
	"errors"
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

	"github.com/BurntSushi/toml"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/rexmle/rexmle/pipeline/rankstage"
	"github.com/rexmle/rexmle/pipeline/report"
	"github.com/rexmle/rexmle/pipeline/report/reporttest"
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
// synthetic runs of the demo profile (with per-case values, capability
// scores and GPU telemetry, so every kind of chart appears) and builds the
// site for the demo profile.
func buildSite(t *testing.T) (string, []string) {
	t.Helper()
	ctx := context.Background()
	b, st, dir := reporttest.Benchmark(t), reporttest.Store(t), t.TempDir()
	if err := reporttest.Fill(ctx, st, b, reporttest.Spec{Source: "demo", Agents: 2, Seeds: 2, Cases: 6, MeanCases: true, Strategies: 5, GPUSamples: 5, RandSeed: 2}); err != nil {
		t.Fatal(err)
	}
	if _, err := rankstage.Run(ctx, b, st); err != nil {
		t.Fatal(err)
	}
	site := filepath.Join(dir, "site")
	res, err := report.Build(ctx, report.Options{Store: st, Benchmark: b, OutDir: site, GitCommit: "test", Profile: "demo",
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	// The same store built for the paper profile: a paper build whose store
	// also holds the demo runs (issue 30 item 8).
	if _, err := report.Build(ctx, report.Options{Store: st, Benchmark: b, OutDir: filepath.Join(dir, "site-paper-mixed"), GitCommit: "test", Profile: "paper",
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}); err != nil {
		t.Fatal(err)
	}
	return site, res.Pages
}

// buildPaperSite builds the site of a store holding only the paper's
// recorded results, for the paper profile.
func buildPaperSite(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	b, st, dir := reporttest.Benchmark(t), reporttest.Store(t), t.TempDir()
	if _, err := rankstage.Run(ctx, b, st); err != nil {
		t.Fatal(err)
	}
	site := filepath.Join(dir, "site")
	if _, err := report.Build(ctx, report.Options{Store: st, Benchmark: b, OutDir: site, GitCommit: "test", Profile: "paper",
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}); err != nil {
		t.Fatal(err)
	}
	return site
}

// printedSTableNumbers counts the numbers results/paper/appendix.toml says
// the paper prints in Tables S1–S20: per agent column every ranked value,
// position, FAIL, unranked value, mean rank, percentile and overall, and the
// human column's values, positions, mean rank, percentile and overall.
func printedSTableNumbers(t *testing.T) int {
	t.Helper()
	var ap struct {
		Runs []struct {
			Table     string            `toml:"table"`
			Values    map[string]string `toml:"values"`
			Failed    []string          `toml:"failed"`
			Unranked  map[string]string `toml:"unranked"`
			Positions map[string]int    `toml:"printed_positions"`
			MeanRank  string            `toml:"printed_mean_rank"`
			Pct       string            `toml:"printed_percentile"`
			Overall   string            `toml:"printed_overall"`
		} `toml:"run"`
		Human []struct {
			Values    map[string]string `toml:"values"`
			Positions map[string]int    `toml:"printed_positions"`
			MeanRank  string            `toml:"printed_mean_rank"`
			Pct       string            `toml:"printed_percentile"`
			Overall   string            `toml:"printed_overall"`
		} `toml:"human"`
	}
	if _, err := toml.DecodeFile("../../../results/paper/appendix.toml", &ap); err != nil {
		t.Fatal(err)
	}
	n := 0
	tables := map[string]bool{}
	for _, r := range ap.Runs {
		tables[r.Table] = true
		n += len(r.Values) + len(r.Failed) + len(r.Unranked) + len(r.Positions)
		for _, x := range []string{r.MeanRank, r.Pct, r.Overall} {
			if x != "" {
				n++
			}
		}
	}
	// The human columns, as printed.
	for _, h := range ap.Human {
		n += len(h.Values) + len(h.Positions)
		for _, x := range []string{h.MeanRank, h.Pct, h.Overall} {
			if x != "" {
				n++
			}
		}
	}
	if len(ap.Human) != len(tables) {
		t.Errorf("results/paper/appendix.toml: %d human columns for %d S-tables", len(ap.Human), len(tables))
	}
	return n
}

const chartsJS = `(() => {
  const items = Array.from(document.querySelectorAll('figure.chart .chart-box'));
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

// overflowJS is how far the page is wider than the viewport (px).
const overflowJS = `Math.max(document.documentElement.scrollWidth, document.body.scrollWidth) - window.innerWidth`

// table3FitsJS reports whether Table 3 fits its container (no scrolling).
const table3FitsJS = `(() => { const t = document.getElementById('t-table3'); if (!t) { return false; } const w = t.parentElement; return w.scrollWidth <= w.clientWidth + 1; })()`

// bannerJS reports whether the page carries the synthetic-data banner.
const bannerJS = `(() => { const b = document.getElementById('data-banner'); return !!b && b.offsetHeight > 0 && /synthetic/i.test(b.textContent); })()`

// paperNumbersJS sums the printed numbers the page marks (data-paper).
const paperNumbersJS = `Array.from(document.querySelectorAll('[data-paper]')).reduce((n, e) => n + Number(e.getAttribute('data-paper')), 0)`

// chartAuditJS checks every drawn chart's option: label colours (axis
// labels, radar names, legend, title) set and at least 4.5:1 against the
// white page, and data that is not all zero unless a labelled series (FAIL)
// says why.
const chartAuditJS = `(() => {
  const lum = (hex) => {
    const m = /^#([0-9a-f]{6})$/i.exec(hex || '');
    if (!m) { return null; }
    const c = [0, 2, 4].map(i => parseInt(m[1].slice(i, i + 2), 16) / 255).map(v => v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4));
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
  };
  const contrast = (hex) => { const l = lum(hex); return l === null ? 0 : 1.05 / (l + 0.05); };
  const out = {contrast: [], zero: [], n: 0};
  for (const el of document.querySelectorAll('.chart-box')) {
    const c = echarts.getInstanceByDom(el);
    if (!c) { out.zero.push(el.id + ': not drawn'); continue; }
    out.n++;
    const o = c.getOption();
    const colours = [];
    for (const a of [].concat(o.xAxis || [], o.yAxis || [])) { colours.push(['axis label', a.axisLabel && a.axisLabel.color]); }
    for (const r of (o.radar || [])) { colours.push(['radar name', r.axisName && r.axisName.color]); }
    for (const l of (o.legend || [])) { if (l.show !== false) { colours.push(['legend', l.textStyle && l.textStyle.color]); } }
    for (const t of (o.title || [])) { colours.push(['title', t.textStyle && t.textStyle.color]); }
    for (const [what, col] of colours) {
      const k = contrast(col);
      if (k < 4.5) { out.contrast.push(el.id + ': ' + what + ' colour ' + col + ' contrast ' + k.toFixed(2)); }
    }
    let any = false, labelled = false;
    for (const s of (o.series || [])) {
      if (s.label && s.label.show && s.label.formatter) { labelled = true; }
      for (const d of (s.data || [])) {
        let vs = [];
        if (d === null || d === undefined) { continue; }
        if (typeof d === 'number') { vs = [d]; }
        const a = Array.isArray(d) ? d : (s.type === 'scatter' || s.type === 'line' || s.type === 'boxplot') && Array.isArray(d.value) ? d.value : null;
        if (a) { vs = s.type === 'scatter' ? [a[0]] : s.type === 'line' ? [a[1]] : [a[a.length - 1]]; }
        else if (Array.isArray(d.value)) { vs = d.value; }
        else if (typeof d.value === 'number') { vs = [d.value]; }
        if (vs.some(v => typeof v === 'number' && v !== 0)) { any = true; }
      }
    }
    if (!any && !labelled) { out.zero.push(el.id + ': every value is 0 and nothing says why'); }
  }
  return out;
})()`

// bootDrawnJS checks that chart %q is drawn with its uncertainty series:
// error bars (a boxplot with at least one interval), heat-map cells or blobs.
const bootDrawnJS = `(() => {
  const el = document.getElementById(%q);
  const c = el && echarts.getInstanceByDom(el);
  if (!c || !el.querySelector('canvas')) { return false; }
  return (c.getOption().series || []).some(s =>
    (s.type === 'boxplot' && (s.data || []).some(d => d && (Array.isArray(d) ? d : d.value || []).length === 5)) ||
    ((s.type === 'heatmap' || s.type === 'scatter') && (s.data || []).some(d => d && Array.isArray(d.value))));
})()`

// overlapJS measures every text ECharts drew on the page's charts (axis
// ticks and labels, legend items, titles, value labels: zrender's text
// spans, one per line, each as its rotated box in page pixels) and reports
// each pair of texts less than 2 px apart (issue 30 item 6), with the
// number of texts measured.
const overlapJS = `(() => {
  // A text's box: ECharts' measured width, and the font's size as its
  // height around the line's middle (ECharts' own height is that of a CJK
  // glyph, which varies with the fonts installed); 1 px more on every side,
  // so that two texts need a 2 px gap.
  const quad = (d) => {
    const r = d.getBoundingRect();
    const m = /(\d+(?:\.\d+)?)px/.exec(d.style.font || '');
    const fs = m ? Number(m[1]) : r.height;
    const y0 = r.y + r.height / 2 - fs / 2;
    const t = d.transform || [1, 0, 0, 1, 0, 0];
    return [[r.x - 1, y0 - 1], [r.x + r.width + 1, y0 - 1], [r.x + r.width + 1, y0 + fs + 1], [r.x - 1, y0 + fs + 1]]
      .map(([x, y]) => [t[0] * x + t[2] * y + t[4], t[1] * x + t[3] * y + t[5]]);
  };
  const apart = (p, q) => {
    for (const poly of [p, q]) {
      for (let i = 0; i < 4; i++) {
        const [x1, y1] = poly[i], [x2, y2] = poly[(i + 1) % 4];
        const len = Math.hypot(x2 - x1, y2 - y1) || 1;
        const nx = (y1 - y2) / len, ny = (x2 - x1) / len;
        const pr = (pts) => pts.map(([x, y]) => x * nx + y * ny);
        const a = pr(p), b = pr(q);
        if (Math.min(Math.max(...a), Math.max(...b)) - Math.max(Math.min(...a), Math.min(...b)) <= 0) { return true; }
      }
    }
    return false;
  };
  const out = [];
  let n = 0;
  for (const el of document.querySelectorAll('.chart-box')) {
    const c = echarts.getInstanceByDom(el);
    if (!c) { continue; }
    const texts = c.getZr().storage.getDisplayList(true).filter(d => d.type === 'tspan' && !d.invisible && d.style && String(d.style.text || '').trim() !== '');
    const boxes = texts.map(d => ({t: String(d.style.text).trim(), q: quad(d)}));
    n += boxes.length;
    for (let i = 0; i < boxes.length; i++) {
      for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i], b = boxes[j];
        if (!apart(a.q, b.q)) { out.push(el.id + ': "' + a.t + '" overlaps "' + b.t + '"'); }
      }
    }
  }
  return {n: n, overlaps: out};
})()`

// overlapProbeJS draws a chart with two texts on top of each other, to
// show that overlapJS finds an overlap where there is one.
const overlapProbeJS = `(() => {
  const el = document.createElement('div');
  el.className = 'chart-box';
  el.style.cssText = 'width:300px;height:100px';
  document.body.appendChild(el);
  const c = echarts.init(el, null, {renderer: 'canvas'});
  c.setOption({animation: false, graphic: [{type: 'text', left: 10, top: 10, style: {text: '80 %', fontSize: 12}}, {type: 'text', left: 20, top: 12, style: {text: '100 %', fontSize: 12}}]});
  return true;
})()`

// noJSFallbackJS counts a page's charts, their visible <noscript> tables
// and its canvases (none when scripts are off).
const noJSFallbackJS = `({figs: document.querySelectorAll('figure.chart').length,
  tables: Array.from(document.querySelectorAll('figure.chart table.chart-data')).filter(t => t.offsetHeight > 0).length,
  canvas: document.querySelectorAll('canvas').length})`

type noJSCount struct {
	Figs   int `json:"figs"`
	Tables int `json:"tables"`
	Canvas int `json:"canvas"`
}

// resizeJS reads the first chart's canvas width.
const resizeJS = `(() => { const el = document.querySelector('.chart-box'); if (!el) { return -1; } const c = el.querySelector('canvas'); return c ? c.getBoundingClientRect().width : -1; })()`

const linksJS = `Array.from(document.querySelectorAll('a[href], link[href], script[src], img[src]'))
  .map(e => e.href || e.src)`

func TestSiteInBrowser(t *testing.T) {
	d := openDemo(t, needChromium(t, "browser test"))
	site, pages, srv, ctx := d.site, d.pages, d.srv, d.ctx
	shots := screenshotDir(t)

	type chartsResult struct {
		N   int      `json:"n"`
		Bad []string `json:"bad"`
	}
	type audit struct {
		Contrast []string `json:"contrast"`
		Zero     []string `json:"zero"`
		N        int      `json:"n"`
	}
	// Screenshots at both widths of these pages.
	shotPages := map[string]string{"index.html": "overview", "challenges/isles22.html": "challenge-isles22", "challenges/puma-track1-task1.html": "challenge-puma-t1-seg",
		"capabilities.html": "capabilities", "ablations.html": "ablations", "reproduction.html": "reproduction", "agents/paper-printed--24h--gpt-5--rd-agent.html": "agent-rd-agent",
		"compute.html": "compute", "challenges/ldct-iqa.html": "challenge-ldct-iqa", "agents/demo--24h--test-llm--agent-00.html": "agent-demo"}
	// The bootstrap views (issue 18) drawn: error bars, significance map, rank blobs.
	bootCharts := map[string][]string{"index.html": {"c_synthetic", "c_sigmap_synthetic", "c_blobs_synthetic"},
		"challenges/isles22.html": {"c_synthetic_pct_isles22"}, "agents/demo--24h--test-llm--agent-00.html": {"c_seeds_demo__24h__test_llm__agent_00"}}
	links := map[string][]string{} // URL → pages linking to it
	totalCharts, paperNumbers, textsMeasured := 0, 0, 0
	type overlaps struct {
		N        int      `json:"n"`
		Overlaps []string `json:"overlaps"`
	}
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
		err := chromedp.Do(pctx, chromedp.EmulateViewport(1440, 900), chromedp.Navigate(url), chromedp.WaitReady("body"))
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
		// The demo build's banner is on every page.
		if err == nil {
			var banner bool
			if banner, err = chromedp.Run(pctx, chromedp.Evaluate[bool](bannerJS)); err == nil && !banner {
				t.Errorf("%s: no synthetic-data banner on a demo build", p)
			}
		}
		if err == nil && charts.N > 0 {
			var a audit
			if a, err = chromedp.Run(pctx, chromedp.Evaluate[audit](chartAuditJS)); err == nil {
				for _, c := range a.Contrast {
					t.Errorf("%s: %s (want at least 4.5:1)", p, c)
				}
				for _, z := range a.Zero {
					t.Errorf("%s: chart %s", p, z)
				}
			}
		}
		for _, id := range bootCharts[p] {
			if err != nil {
				break
			}
			var drawn bool
			if drawn, err = chromedp.Run(pctx, chromedp.Evaluate[bool](fmt.Sprintf(bootDrawnJS, id))); err == nil && !drawn {
				t.Errorf("%s: bootstrap chart %s not drawn (or without its error bars / cells)", p, id)
			}
		}
		if err == nil && strings.HasPrefix(p, "challenges/") {
			var n int
			if n, err = chromedp.Run(pctx, chromedp.Evaluate[int](paperNumbersJS)); err == nil {
				paperNumbers += n
			}
		}
		if err == nil {
			var over float64
			if over, err = chromedp.Run(pctx, chromedp.Evaluate[float64](overflowJS)); err == nil && over > 0.5 {
				t.Errorf("%s: scrolls sideways by %.0f px at 1440 px", p, over)
			}
		}
		// Table 3 fits a 1440 px screen without scrolling in its container.
		if err == nil && p == "index.html" {
			var fits bool
			if fits, err = chromedp.Run(pctx, chromedp.Evaluate[bool](table3FitsJS)); err == nil && !fits {
				t.Errorf("%s: Table 3 is wider than its container at 1440 px", p)
			}
		}
		if name, ok := shotPages[p]; ok && err == nil {
			shot(t, pctx, filepath.Join(shots, name+"-1440.png"))
		}
		// After the screenshot, so that it shows the default order.
		if err == nil && p == "index.html" {
			var sorted bool
			if sorted, err = chromedp.Run(pctx, chromedp.Evaluate[bool](sortJS)); err == nil && !sorted {
				t.Errorf("%s: clicking the ReX-MLE rank header does not sort the table ascending", p)
			}
		}
		// The phone width: nothing scrolls sideways.
		if err == nil {
			err = chromedp.Do(pctx, chromedp.EmulateViewport(390, 844), chromedp.Navigate(url), chromedp.WaitReady("body"))
		}
		if err == nil {
			_, err = waitCharts(pctx)
		}
		if err == nil {
			var over float64
			if over, err = chromedp.Run(pctx, chromedp.Evaluate[float64](overflowJS)); err == nil && over > 0.5 {
				t.Errorf("%s: scrolls sideways by %.0f px at 390 px", p, over)
			}
		}
		if name, ok := shotPages[p]; ok && err == nil {
			shot(t, pctx, filepath.Join(shots, name+"-390.png"))
		}
		// No drawn text of a chart overlaps another at either width.
		for _, w := range []int64{390, 1440} {
			if err != nil || charts.N == 0 {
				break
			}
			if w == 1440 { // the charts redraw on resize (tested below)
				err = chromedp.Do(pctx, chromedp.EmulateViewport(1440, 900), chromedp.Sleep(300*time.Millisecond))
			}
			var ov overlaps
			if err == nil {
				if ov, err = chromedp.Run(pctx, chromedp.Evaluate[overlaps](overlapJS)); err == nil {
					textsMeasured += ov.N
					for _, o := range ov.Overlaps {
						t.Errorf("%s at %d px: chart text %s", p, w, o)
					}
				}
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
	if textsMeasured < 10*totalCharts {
		t.Errorf("%d chart texts measured on %d charts: the overlap check reads too little of what ECharts drew", textsMeasured, totalCharts)
	}
	// The overlap check finds an overlap where there is one.
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/index.html"), chromedp.WaitReady("body")); err != nil {
		t.Errorf("overlap probe: %v", err)
	} else if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](overlapProbeJS)); err != nil {
		t.Errorf("overlap probe: %v", err)
	} else if ov, err := chromedp.Run(ctx, chromedp.Evaluate[overlaps](overlapJS)); err != nil || len(ov.Overlaps) == 0 {
		t.Errorf("the overlap check misses two texts drawn on top of each other (%v, %v)", ov.Overlaps, err)
	}
	// Every number the paper prints in Tables S1–S20 is on a challenge page.
	if want := printedSTableNumbers(t); paperNumbers != want {
		t.Errorf("challenge pages show %d of the paper's S-table numbers, the paper prints %d", paperNumbers, want)
	}
	// Charts redraw when the window changes size.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1440, 900), chromedp.Navigate(srv.URL+"/index.html"), chromedp.WaitReady("body")); err != nil {
		t.Errorf("resize: %v", err)
	} else if _, err := waitCharts(ctx); err != nil {
		t.Errorf("resize: %v", err)
	} else {
		wide, err1 := chromedp.Run(ctx, chromedp.Evaluate[float64](resizeJS))
		err2 := chromedp.Do(ctx, chromedp.EmulateViewport(700, 900), chromedp.Sleep(400*time.Millisecond))
		narrow, err3 := chromedp.Run(ctx, chromedp.Evaluate[float64](resizeJS))
		if err := errors.Join(err1, err2, err3); err != nil {
			t.Errorf("resize: %v", err)
		} else if wide <= 0 || narrow <= 0 || narrow > 700 || narrow >= wide-100 {
			t.Errorf("the overview chart does not follow the window: %.0f px wide at 1440, %.0f px at 700", wide, narrow)
		}
	}
	// Without JavaScript every chart shows its <noscript> table (issue 30
	// item 10): a tab with script execution off, every page.
	nctx, ncancel := chromedp.NewContext(ctx)
	scriptsOff := chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
		return err
	})
	fallbacks := 0
	for i, p := range pages {
		acts := []chromedp.Action[chromedp.Void]{chromedp.Navigate(srv.URL + "/" + p), chromedp.WaitReady("body")}
		if i == 0 {
			acts = append([]chromedp.Action[chromedp.Void]{scriptsOff}, acts...)
		}
		var nj noJSCount
		err := chromedp.Do(nctx, acts...)
		if err == nil {
			nj, err = chromedp.Run(nctx, chromedp.Evaluate[noJSCount](noJSFallbackJS))
		}
		if err != nil {
			t.Errorf("%s without JavaScript: %v", p, err)
			continue
		}
		if nj.Canvas > 0 {
			t.Errorf("%s: scripts ran in the tab without JavaScript", p)
		}
		if nj.Tables != nj.Figs {
			t.Errorf("%s without JavaScript: %d chart(s), %d with a visible table of their numbers", p, nj.Figs, nj.Tables)
		}
		fallbacks += nj.Tables
	}
	ncancel()
	if fallbacks != totalCharts {
		t.Errorf("%d chart tables shown without JavaScript, %d charts drawn with it", fallbacks, totalCharts)
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
	checkWorldsApart(t, ctx, srv.URL, filepath.Join(filepath.Dir(site), "site-paper-mixed"), shots)
	// A paper build carries no banner.
	paperSite := buildPaperSite(t)
	psrv := httptest.NewServer(http.FileServer(http.Dir(paperSite)))
	defer psrv.Close()
	for _, p := range []string{"index.html", "challenges/isles22.html", "capabilities.html"} {
		err := chromedp.Do(ctx, chromedp.Navigate(psrv.URL+"/"+p), chromedp.WaitReady("body"))
		var banner bool
		if err == nil {
			banner, err = chromedp.Run(ctx, chromedp.Evaluate[bool](bannerJS))
		}
		if err != nil {
			t.Errorf("paper build %s: %v", p, err)
		} else if banner {
			t.Errorf("paper build %s: carries the synthetic-data banner", p)
		}
		if p == "index.html" {
			shot(t, ctx, filepath.Join(shots, "overview-paper-build-1440.png"))
		}
	}
	t.Logf("%d pages, %d charts (%d drawn texts measured for overlaps), %d paper S-table numbers, %d distinct internal links checked; screenshots in %s", len(pages), totalCharts, textsMeasured, paperNumbers, len(urls), shots)
}

// shot saves a full-page screenshot.
func shot(t *testing.T, ctx context.Context, path string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100)) // quality 100: PNG (any other quality gives JPEG)
	if err != nil {
		t.Errorf("screenshot %s: %v", path, err)
		return
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Error(err)
	}
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

// headlineJS finds the paper's headline as printed on the overview: its
// text, its top and the banner's top (px from the page top; -1 if absent).
const headlineJS = `(() => {
  const l = Array.from(document.querySelectorAll('p.lead')).find(p => /as printed/.test(p.textContent));
  const b = document.getElementById('data-banner');
  const top = e => e ? e.getBoundingClientRect().top + window.scrollY : -1;
  const firstBold = document.querySelector('main strong');
  return {text: l ? l.textContent : '', top: top(l), bottom: l ? top(l) + l.offsetHeight : -1, banner: top(b), bold: top(firstBold)};
})()`

// fig4JS reads Figure 4's chart: its series names, whether the section
// mentions synthetic runs, and the marked synthetic section's visibility.
const fig4JS = `(() => {
  const opt = document.querySelector('script.chart-opt[data-for="c_capabilities_paper"]');
  const names = opt ? (JSON.parse(opt.textContent).series || []).map(x => x.name) : [];
  const sec = document.getElementById('paper');
  const syn = document.getElementById('paper-synthetic');
  const mark = syn ? syn.querySelector('.demo-mark') : null;
  const drawn = !!(sec && sec.querySelector('.chart-box canvas, .chart-box svg'));
  return {names: names, synthetic: sec ? /synthetic/i.test(sec.textContent) : true, marked: !!mark && mark.offsetHeight > 0, drawn: drawn};
})()`

// rankWorldJS reads a rank table's Source and Challenges columns and
// whether the column beside the rank is Challenges.
const rankWorldJS = `(id => {
  const t = document.getElementById(id);
  if (!t) { return null; }
  const heads = Array.from(t.querySelectorAll('thead th')).map(h => h.textContent.trim());
  const r = heads.findIndex(h => h.startsWith('ReX-MLE rank'));
  const src = heads.indexOf('Source'), n = heads.indexOf('Challenges');
  const rows = Array.from(t.tBodies[0].rows).map(x => [src >= 0 ? x.cells[src].textContent.trim() : '', n >= 0 ? x.cells[n].textContent.trim() : '']);
  return {rows: rows, beside: heads[r - 1] === 'Challenges' || heads[r + 1] === 'Challenges'};
})`

// checkWorldsApart asserts issue 30's items 1, 2, 3 and 8 as a reader sees
// them: the paper's headline as printed on the first screen before any
// banner, Figure 4 with the paper's agents only, rank tables holding one
// world each with the number of challenges beside the rank, and a paper
// build of a store with demo runs carrying no banner but marked synthetic
// sections.
func checkWorldsApart(t *testing.T, ctx context.Context, demoURL, mixedSite, shots string) {
	t.Helper()
	ph, err := reporttest.ReadPrintedHeadline("../../../results/paper/summary.toml")
	if err != nil {
		t.Fatal(err)
	}
	want := append([]string(nil), ph.Overall...)
	want = append(want, fmt.Sprintf("%d of %d", ph.Zero, ph.Cells))
	for _, vp := range [][2]int64{{1440, 900}, {390, 844}} {
		var h struct {
			Text   string  `json:"text"`
			Top    float64 `json:"top"`
			Bottom float64 `json:"bottom"`
			Banner float64 `json:"banner"`
			Bold   float64 `json:"bold"`
		}
		err := chromedp.Do(ctx, chromedp.EmulateViewport(vp[0], vp[1]), chromedp.Navigate(demoURL+"/index.html"), chromedp.WaitReady("body"))
		if err == nil {
			h, err = chromedp.Run(ctx, chromedp.Evaluate[struct {
				Text   string  `json:"text"`
				Top    float64 `json:"top"`
				Bottom float64 `json:"bottom"`
				Banner float64 `json:"banner"`
				Bold   float64 `json:"bold"`
			}](headlineJS))
		}
		if err != nil {
			t.Errorf("headline at %d px: %v", vp[0], err)
			continue
		}
		for _, w := range want {
			if !strings.Contains(h.Text, w) {
				t.Errorf("%d px: the paper's headline lacks %q: %q", vp[0], w, h.Text)
			}
		}
		if h.Top < 0 || h.Bottom > float64(vp[1]) {
			t.Errorf("%d px: the paper's headline (%.0f–%.0f px) is not on the first %d px screen", vp[0], h.Top, h.Bottom, vp[1])
		}
		if h.Banner < 0 || h.Banner < h.Bottom {
			t.Errorf("%d px: the synthetic-data banner (at %.0f px) comes before the paper's headline (ends %.0f px)", vp[0], h.Banner, h.Bottom)
		}
		if h.Bold >= 0 && h.Bold < h.Top {
			t.Errorf("%d px: bold text at %.0f px before the paper's headline at %.0f px", vp[0], h.Bold, h.Top)
		}
		shot(t, ctx, filepath.Join(shots, fmt.Sprintf("overview-first-screen-%d.png", vp[0])))
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1440, 900)); err != nil {
		t.Fatal(err)
	}
	// Figure 4: the paper's agents only; the synthetic runs apart, marked.
	type fig4 struct {
		Names     []string `json:"names"`
		Synthetic bool     `json:"synthetic"`
		Marked    bool     `json:"marked"`
		Drawn     bool     `json:"drawn"`
	}
	var f fig4
	err = chromedp.Do(ctx, chromedp.Navigate(demoURL+"/capabilities.html"), chromedp.WaitReady("body"))
	if err == nil {
		_, err = waitCharts(ctx)
	}
	if err == nil {
		f, err = chromedp.Run(ctx, chromedp.Evaluate[fig4](fig4JS))
	}
	if err != nil {
		t.Errorf("Figure 4: %v", err)
	} else {
		if len(f.Names) == 0 || !f.Drawn {
			t.Errorf("Figure 4 not drawn (series %v)", f.Names)
		}
		for _, n := range f.Names {
			if !strings.HasSuffix(n, "(paper)") {
				t.Errorf("Figure 4 holds the series %q beside the paper's agents", n)
			}
		}
		if f.Synthetic {
			t.Error("Figure 4's section mentions synthetic runs")
		}
		if !f.Marked {
			t.Error("the synthetic runs' scores on Figure 4's strategies are not in their own marked section")
		}
	}
	// Rank tables: one world each, the number of challenges beside the rank.
	type world struct {
		Rows   [][]string `json:"rows"`
		Beside bool       `json:"beside"`
	}
	for _, c := range []struct{ page, id, source string }{
		{"index.html", "t-overall", "paper"}, {"agents/index.html", "t-agents", "paper"},
		{"index.html", "t-overall-other", ""}, {"agents/index.html", "t-agents-other", ""},
		{"index.html", "t-synthetic-overall", "demo"}, {"agents/index.html", "t-agents-synthetic", "demo"},
	} {
		var w *world
		err := chromedp.Do(ctx, chromedp.Navigate(demoURL+"/"+c.page), chromedp.WaitReady("body"))
		if err == nil {
			w, err = chromedp.Run(ctx, chromedp.Evaluate[*world](`(`+rankWorldJS+`)('`+c.id+`')`))
		}
		if err != nil || w == nil || len(w.Rows) == 0 {
			t.Errorf("%s #%s: no rows (%v)", c.page, c.id, err)
			continue
		}
		if !w.Beside {
			t.Errorf("%s #%s: the number of challenges is not beside the rank", c.page, c.id)
		}
		for _, r := range w.Rows {
			switch {
			case c.source == "paper" && (r[0] != "paper" || r[1] != "20"):
				t.Errorf("%s #%s (the paper's world) holds %s over %s challenges", c.page, c.id, r[0], r[1])
			case c.source == "" && r[1] == "20":
				t.Errorf("%s #%s (fewer challenges) holds a 20-challenge configuration from %s", c.page, c.id, r[0])
			case c.source == "demo" && (r[0] == "paper"):
				t.Errorf("%s #%s (synthetic) holds a paper configuration", c.page, c.id)
			}
		}
	}
	// A paper build whose store also holds demo runs: no banner on any
	// page; the synthetic sections are marked, the paper's are not.
	msrv := httptest.NewServer(http.FileServer(http.Dir(mixedSite)))
	defer msrv.Close()
	type marks struct {
		Banner  bool `json:"banner"`
		Demo    int  `json:"demo"`
		Marked  int  `json:"marked"`
		RankMrk bool `json:"rankMarked"`
	}
	const marksJS = `(() => ({banner: !!document.getElementById('data-banner'),
  demo: document.querySelectorAll('section.section-demo').length,
  marked: Array.from(document.querySelectorAll('section.section-demo > .demo-mark')).filter(m => m.offsetHeight > 0).length,
  rankMarked: !!document.querySelector('#rank .demo-mark, #paper .demo-mark')}))()`
	totalMarked := 0
	for _, p := range []string{"index.html", "capabilities.html", "agents/index.html", "challenges/isles22.html", "provenance.html"} {
		var m marks
		err := chromedp.Do(ctx, chromedp.Navigate(msrv.URL+"/"+p), chromedp.WaitReady("body"))
		if err == nil {
			m, err = chromedp.Run(ctx, chromedp.Evaluate[marks](marksJS))
		}
		if err != nil {
			t.Errorf("paper build with demo runs, %s: %v", p, err)
			continue
		}
		if m.Banner {
			t.Errorf("paper build with demo runs, %s: carries the page banner", p)
		}
		if m.Demo != m.Marked {
			t.Errorf("paper build with demo runs, %s: %d synthetic sections, %d visibly marked", p, m.Demo, m.Marked)
		}
		if m.RankMrk {
			t.Errorf("paper build with demo runs, %s: a paper section is marked synthetic", p)
		}
		totalMarked += m.Marked
	}
	if totalMarked == 0 {
		t.Error("paper build with demo runs: no marked synthetic section")
	}
}
