package browsertest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/rexmle/rexmle/pipeline/config"
)

// firstScreenJS measures the overview's opening in reading order: the
// one-line description, the paper's headline as printed, the recomputed
// line, Figure 1's chart and the banner (tops and bottoms in px from the
// page top; -1 when absent), and the recomputed line's links.
const firstScreenJS = `(() => {
  const leads = Array.from(document.querySelectorAll('main > p.lead'));
  const box = e => e ? {top: e.getBoundingClientRect().top + window.scrollY, bottom: e.getBoundingClientRect().bottom + window.scrollY} : {top: -1, bottom: -1};
  const what = leads.find(p => /^ReX-MLE is a benchmark/.test(p.textContent.trim()));
  const printed = leads.find(p => /as printed/.test(p.textContent));
  const recomputed = leads.find(p => /^Recomputed here/.test(p.textContent.trim()));
  const fig = document.querySelector('#rank figure.chart');
  const banner = document.getElementById('data-banner');
  return {what: box(what), printed: box(printed), recomputed: box(recomputed), figure: box(fig), banner: box(banner),
    recomputedText: recomputed ? recomputed.textContent : '', printedText: printed ? printed.textContent : '',
    links: recomputed ? Array.from(recomputed.querySelectorAll('a')).map(a => a.getAttribute('href')) : []};
})()`

type span struct {
	Top    float64 `json:"top"`
	Bottom float64 `json:"bottom"`
}

type firstScreen struct {
	What           span     `json:"what"`
	Printed        span     `json:"printed"`
	Recomputed     span     `json:"recomputed"`
	Figure         span     `json:"figure"`
	Banner         span     `json:"banner"`
	RecomputedText string   `json:"recomputedText"`
	PrintedText    string   `json:"printedText"`
	Links          []string `json:"links"`
}

// resultsFirstJS measures a challenge page: the top of the first results
// table, whether the key columns (Mean rank, Percentile, Paper) end inside
// the viewport without scrolling, and the page's task-card notes repeated
// in several metric cards.
const resultsFirstJS = `(() => {
  const t = document.querySelector('main table');
  const wrap = t ? t.parentElement : null;
  const heads = t ? Array.from(t.querySelectorAll('thead th')) : [];
  const key = ['Mean rank', 'Percentile', 'Paper'].map(n => heads.find(h => h.textContent.trim() === n));
  const hidden = key.map((h, i) => h ? (h.getBoundingClientRect().right > Math.min(window.innerWidth, wrap.getBoundingClientRect().right) + 1 ? ['Mean rank', 'Percentile', 'Paper'][i] : '') : 'missing ' + ['Mean rank', 'Percentile', 'Paper'][i]).filter(x => x);
  const seen = {}, repeated = [];
  for (const n of document.querySelectorAll('.card ul.metrics .note')) {
    for (const sentence of n.textContent.split(/(?<=\.)\s+/)) {
      if (sentence.length < 60) { continue; }
      seen[sentence] = (seen[sentence] || 0) + 1;
      if (seen[sentence] === 2) { repeated.push(sentence.slice(0, 80)); }
    }
  }
  const contradict = Array.from(document.querySelectorAll('.card ul.metrics li')).filter(li => li.querySelector('.badge.ok') && /reference-only|not ranked/i.test(li.textContent)).map(li => li.querySelector('strong').textContent);
  return {id: t ? t.id : '', top: t ? t.getBoundingClientRect().top + window.scrollY : -1, hidden: hidden, repeated: repeated, contradict: contradict,
    printedRows: Array.from(document.querySelectorAll('table[id^="t-paper-s"] tbody tr')).map(r => r.cells[0].textContent.trim())};
})()`

type resultsFirst struct {
	ID          string   `json:"id"`
	Top         float64  `json:"top"`
	Hidden      []string `json:"hidden"`
	Repeated    []string `json:"repeated"`
	Contradict  []string `json:"contradict"`
	PrintedRows []string `json:"printedRows"`
}

// stickyJS scrolls every table box that is wider than the screen to its far
// right and reports those whose first column left the screen, and how far
// the page itself scrolls sideways.
const stickyJS = `(() => {
  const bad = [];
  let wide = 0;
  for (const w of document.querySelectorAll('.table-wrap')) {
    if (w.scrollWidth <= w.clientWidth + 1) { continue; }
    wide++;
    w.scrollLeft = w.scrollWidth;
    const wl = w.getBoundingClientRect().left;
    const t = w.querySelector('table');
    for (const r of Array.from(t.rows).filter(r => !r.classList.contains('group')).slice(0, 5)) {
      const c = r.cells[0];
      if (c && Math.abs(c.getBoundingClientRect().left - wl) > 1.5) { bad.push((t.id || '?') + ': first column at ' + Math.round(c.getBoundingClientRect().left - wl) + ' px after scrolling'); break; }
    }
    w.scrollLeft = 0;
  }
  return {wide: wide, bad: bad};
})()`

// badgeFocusJS focuses the first badge with a reason and reports the
// reason's width before and after (hidden text is 1 px wide; shown, wider).
const badgeFocusJS = `(() => {
  const b = document.querySelector('.badge[tabindex] .why');
  if (!b) { return [-1, -1]; }
  const before = b.getBoundingClientRect().width;
  b.parentElement.focus();
  const after = b.getBoundingClientRect().width;
  b.parentElement.blur();
  return [before, after];
})()`

// proseJS finds log-style lines in the page text.
const proseJS = `(() => {
  const txt = document.querySelector('main').innerText;
  return ['QUIRK ', 'Without an interval —', ' bar(s).', 'paper row:'].filter(s => txt.includes(s));
})()`

// checkReader asserts what a reader sees first (issue 30 items 5, 6, 9 and
// the first screen): the overview's opening in order within the first
// screen, challenge pages leading with their results, wide tables with a
// sticky first column on a phone, badge reasons on focus, the paper's
// metric names in the as-printed S-tables, and no log lines as prose.
func checkReader(t *testing.T, ctx context.Context, url string, pages []string, shots string) {
	t.Helper()
	b, err := config.Load("../../../benchmark.toml")
	if err != nil {
		t.Fatal(err)
	}
	// The overview's first screen, in order.
	for _, vp := range [][2]int64{{1440, 900}, {390, 844}} {
		var f firstScreen
		err := chromedp.Do(ctx, chromedp.EmulateViewport(vp[0], vp[1]), chromedp.Navigate(url+"/index.html"), chromedp.WaitReady("body"))
		if err == nil {
			_, err = waitCharts(ctx)
		}
		if err == nil {
			f, err = chromedp.Run(ctx, chromedp.Evaluate[firstScreen](firstScreenJS))
		}
		if err != nil {
			t.Errorf("first screen at %d px: %v", vp[0], err)
			continue
		}
		screenShot(t, ctx, filepath.Join(shots, fmt.Sprintf("overview-first-screen-viewport-%d.png", vp[0])))
		order := []struct {
			name string
			s    span
		}{{"what ReX-MLE is", f.What}, {"the paper's headline as printed", f.Printed}, {"the recomputed line", f.Recomputed}, {"Figure 1", f.Figure}, {"the banner", f.Banner}}
		for i, o := range order {
			if o.s.Top < 0 {
				t.Errorf("%d px: %s is missing from the overview", vp[0], o.name)
				continue
			}
			if i > 0 && order[i-1].s.Top >= 0 && o.s.Top < order[i-1].s.Bottom {
				t.Errorf("%d px: %s (at %.0f px) comes before %s (ends %.0f px)", vp[0], o.name, o.s.Top, order[i-1].name, order[i-1].s.Bottom)
			}
		}
		screen := float64(vp[1])
		// Within the first screen: the headline as printed at both widths;
		// the recomputed line and Figure 1's top too on the wide screen.
		last := f.Printed.Bottom
		if vp[0] == 1440 {
			last = f.Figure.Top
			if f.Recomputed.Bottom > screen {
				t.Errorf("%d px: the recomputed line ends at %.0f px, below the first %0.f px screen", vp[0], f.Recomputed.Bottom, screen)
			}
		}
		if last < 0 || last > screen {
			t.Errorf("%d px: the first screen (%.0f px) does not reach %.0f px", vp[0], screen, last)
		}
		// Every recomputed value that differs from the print links to its
		// explanation on the Reproduction page.
		for _, agent := range []string{"AIDE", "ML-Master", "R&D-Agent"} {
			pv := valueAfter(f.PrintedText, agent+" ")
			cv := valueAfter(f.RecomputedText, agent+" ")
			if pv == "" || cv == "" {
				t.Errorf("%d px: %s's overall is missing (printed %q, recomputed %q)", vp[0], agent, pv, cv)
				continue
			}
			if pv != cv && !strings.Contains(f.RecomputedText, agent+" "+cv+" (printed "+pv) {
				t.Errorf("%d px: %s's recomputed %s differs from the printed %s without a link to why: %q", vp[0], agent, cv, pv, f.RecomputedText)
			}
		}
		for _, l := range f.Links {
			checkAnchor(t, ctx, url, l)
		}
	}
	// Challenge pages lead with their results at 1440 px.
	for _, p := range pages {
		if !strings.HasPrefix(p, "challenges/") || p == "challenges/index.html" {
			continue
		}
		var r resultsFirst
		err := chromedp.Do(ctx, chromedp.EmulateViewport(1440, 900), chromedp.Navigate(url+"/"+p), chromedp.WaitReady("body"))
		if err == nil {
			r, err = chromedp.Run(ctx, chromedp.Evaluate[resultsFirst](resultsFirstJS))
		}
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		if !strings.HasPrefix(r.ID, "t-s-") {
			t.Errorf("%s: the first table is %q, not the results table", p, r.ID)
		}
		if r.Top < 0 || r.Top > 900 {
			t.Errorf("%s: the results table starts at %.0f px, below the first 900 px screen", p, r.Top)
		}
		for _, h := range r.Hidden {
			t.Errorf("%s: the results table's %s column is not visible at 1440 px without scrolling sideways", p, h)
		}
		for _, s := range r.Repeated {
			t.Errorf("%s: a metric-card note is repeated in several cards: %q", p, s)
		}
		for _, m := range r.Contradict {
			t.Errorf("%s: metric %s is badged ranked but its note says otherwise", p, m)
		}
		// The as-printed S-table names the metrics as the paper does.
		id := strings.TrimSuffix(strings.TrimPrefix(p, "challenges/"), ".html")
		if c, ok := b.Challenge(id); ok && len(r.PrintedRows) > 0 {
			// The ranked metrics' rows, in order, by the paper's names (the
			// unranked rows, "(not ranked)", may stand between them).
			var ranked []string
			for _, row := range r.PrintedRows {
				if !strings.HasSuffix(row, "(not ranked)") && row != "Mean Rank" && row != "Percentile" && row != "Overall" {
					ranked = append(ranked, row)
				}
			}
			for i, m := range c.Metrics {
				if i >= len(ranked) || m.Label != "" && ranked[i] != m.Label {
					got := ""
					if i < len(ranked) {
						got = ranked[i]
					}
					t.Errorf("%s: the as-printed S-table's ranked row %d is %q, the paper prints %q", p, i+1, got, m.Label)
				}
			}
		}
		if p == "challenges/dentex.html" {
			screenShot(t, ctx, filepath.Join(shots, "challenge-dentex-first-screen-1440.png"))
		}
	}
	// Phones: wide tables keep their first column on screen when scrolled
	// sideways; the page itself never scrolls sideways.
	for _, p := range []string{"index.html", "challenges/dentex.html", "challenges/isles22.html", "agents/index.html", "ablations.html", "reproduction.html"} {
		var st struct {
			Wide int      `json:"wide"`
			Bad  []string `json:"bad"`
		}
		var over float64
		err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844), chromedp.Navigate(url+"/"+p), chromedp.WaitReady("body"))
		if err == nil {
			st, err = chromedp.Run(ctx, chromedp.Evaluate[struct {
				Wide int      `json:"wide"`
				Bad  []string `json:"bad"`
			}](stickyJS))
		}
		if err == nil {
			over, err = chromedp.Run(ctx, chromedp.Evaluate[float64](overflowJS))
		}
		if err != nil {
			t.Errorf("%s at 390 px: %v", p, err)
			continue
		}
		if st.Wide == 0 && p == "index.html" {
			t.Errorf("%s at 390 px: no table wider than the screen (Table 3 should be)", p)
		}
		for _, b := range st.Bad {
			t.Errorf("%s at 390 px: %s", p, b)
		}
		if over > 0.5 {
			t.Errorf("%s at 390 px: the page scrolls sideways by %.0f px", p, over)
		}
		if p == "index.html" {
			// Table 3 scrolled half-way: the challenge column stays.
			if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { const t = document.getElementById('t-table3'); t.scrollIntoView(); t.parentElement.scrollLeft = t.parentElement.scrollWidth / 2; return true; })()`)); err == nil {
				screenShot(t, ctx, filepath.Join(shots, "table3-390-scrolled.png"))
			}
		}
	}
	// Figure 4, for the record (a screenshot of the screen that shows it).
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1440, 900), chromedp.Navigate(url+"/capabilities.html"), chromedp.WaitReady("body")); err == nil {
		if _, err := waitCharts(ctx); err == nil {
			if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { const s = document.getElementById('paper'); if (s) { s.scrollIntoView(); } return !!s; })()`)); err == nil {
				screenShot(t, ctx, filepath.Join(shots, "figure4-1440.png"))
			}
		}
	}
	// Badge reasons show on keyboard focus (and tap), not on hover only.
	var bw []float64
	err = chromedp.Do(ctx, chromedp.EmulateViewport(1440, 900), chromedp.Navigate(url+"/index.html"), chromedp.WaitReady("body"))
	if err == nil {
		bw, err = chromedp.Run(ctx, chromedp.Evaluate[[]float64](badgeFocusJS))
	}
	switch {
	case err != nil:
		t.Errorf("badge focus: %v", err)
	case len(bw) != 2 || bw[0] < 0:
		t.Error("no badge with a reason on the overview")
	case bw[0] > 1.5 || bw[1] < 40:
		t.Errorf("a badge's reason is %.0f px wide before focus and %.0f px after: want hidden, then shown", bw[0], bw[1])
	}
	// No log lines as prose, on any page.
	for _, p := range pages {
		var found []string
		err := chromedp.Do(ctx, chromedp.Navigate(url+"/"+p), chromedp.WaitReady("body"))
		if err == nil {
			found, err = chromedp.Run(ctx, chromedp.Evaluate[[]string](proseJS))
		}
		if err != nil {
			t.Errorf("%s: %v", p, err)
		}
		for _, f := range found {
			t.Errorf("%s: log-style text %q in the page", p, f)
		}
	}
}

// valueAfter is the percentage ("9.05%") that follows name in text.
func valueAfter(text, name string) string {
	i := strings.Index(text, name)
	if i < 0 {
		return ""
	}
	rest := text[i+len(name):]
	j := strings.IndexByte(rest, '%')
	if j < 0 || j > 8 {
		return ""
	}
	return rest[:j+1]
}

// checkAnchor asserts that a relative link "page#id" from the overview
// names an element of its page.
func checkAnchor(t *testing.T, ctx context.Context, url, href string) {
	t.Helper()
	page, id, ok := strings.Cut(href, "#")
	if !ok || page == "" || strings.Contains(page, "://") {
		return
	}
	var found bool
	err := chromedp.Do(ctx, chromedp.Navigate(url+"/"+page), chromedp.WaitReady("body"))
	if err == nil {
		found, err = chromedp.Run(ctx, chromedp.Evaluate[bool](fmt.Sprintf(`!!document.getElementById(%q)`, id)))
	}
	if err != nil || !found {
		t.Errorf("overview link %s: no element #%s on %s (%v)", href, id, page, err)
	}
}

// TestReaderLayout opens a demo build (the paper's recorded results plus
// synthetic runs) in Chromium and checks what a reader sees first.
func TestReaderLayout(t *testing.T) {
	d := openDemo(t, needChromium(t, "browser test"))
	checkReader(t, d.ctx, d.srv.URL, d.pages, screenshotDir(t))
}

// screenShot saves what the screen shows now (the viewport, not the page).
func screenShot(t *testing.T, ctx context.Context, path string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err == nil {
		err = os.WriteFile(path, png, 0o644)
	}
	if err != nil {
		t.Errorf("screenshot %s: %v", path, err)
	}
}
