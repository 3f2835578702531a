package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/pipeline/report/reporttest"
)

// Issue 30 items 5, 6 and 9 on the built pages (the browser test measures
// the layout; these read the files).

func TestSharedNote(t *testing.T) {
	shared := " Known issue: class 0 is never scored in reference mode, and the corner heuristic applies too."
	for _, c := range []struct {
		name  string
		cards []string
		want  string
	}{
		{"one card", []string{"AP at 0.5." + shared}, ""},
		{"shared sentence", []string{"AP at 0.5." + shared, "AR at 100 detections." + shared}, shared},
		// The common suffix starts mid-sentence: cut at the next sentence.
		{"mid sentence", []string{"the mean of AP values. Class 0 is never scored in reference mode, nor in the official evaluation at all.", "the mean of AR values. Class 0 is never scored in reference mode, nor in the official evaluation at all."},
			" Class 0 is never scored in reference mode, nor in the official evaluation at all."},
		{"short", []string{"AP. Lower is better.", "AR. Lower is better."}, ""},
		{"different", []string{"AP at 0.5 over every class of the three levels.", "AR at 100 over every class of the three levels, in the reference."}, ""},
	} {
		if got := sharedNote(c.cards); got != c.want {
			t.Errorf("%s: sharedNote = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestQuirkProse(t *testing.T) {
	got := string(quirkProse("mean of AP. QUIRK category-ids: class 0 <never> scored. Quirk corner-box-heuristic also applies. Done."))
	want := `mean of AP. Known issue <a href="#quirk-category-ids">Category ids</a>: class 0 &lt;never&gt; scored. The known issue <a href="#quirk-corner-box-heuristic">Corner box heuristic</a> also applies. Done.`
	if got != want {
		t.Errorf("quirkProse:\n got %s\nwant %s", got, want)
	}
}

func TestOrdinal(t *testing.T) {
	for p, want := range map[float64]string{0: "0th", 0.01: "1st", 0.02: "2nd", 0.03: "3rd", 0.11: "11th", 0.12: "12th", 0.13: "13th", 0.21: "21st", 0.555: "56th", 1: "100th"} {
		if got := ordinal(p); got != want {
			t.Errorf("ordinal(%v) = %q, want %q", p, got, want)
		}
	}
}

func TestCategoryTitles(t *testing.T) {
	for cat, want := range map[string]string{"segmentation": "Segmentation Tasks", "quality": "Image Quality & Enhancement Tasks", "generation": "Generation Tasks", "": "Other Tasks"} {
		if got := categoryTitle(cat); got != want {
			t.Errorf("categoryTitle(%q) = %q, want %q", cat, got, want)
		}
	}
}

// The challenge pages: the results first, the paper's names, the printed
// human column, DENTEX's shared note once; the challenges index counts runs
// per world; Table 3 has the paper's category rows, not in its download.
func TestReaderPages(t *testing.T) {
	site := filepath.Join(paperSite(t), "site")
	b := reporttest.Benchmark(t)
	page := func(p string) []byte {
		bs, err := os.ReadFile(filepath.Join(site, p))
		if err != nil {
			t.Fatal(err)
		}
		return bs
	}
	isles := page("challenges/isles22.html")
	order := []string{`<section id="values"`, `<section id="percentiles"`, `<section id="paper"`, `<section id="task"`, `<section id="leaderboard"`}
	last := -1
	for _, s := range order {
		at := bytes.Index(isles, []byte(s))
		if at < last {
			t.Errorf("isles22: %s at byte %d, before the section ahead of it (%d)", s, at, last)
		}
		last = at
	}
	// S2 as printed: the paper's metric names and its human column (Overall 2.0).
	s2 := string(sectionHTML(t, isles, "paper"))
	for _, want := range []string{"<td>Lesion Count Difference</td>", "<td>Absolute Volume Difference</td>", `data-paper="2">2.1200 (4)</td>`, `data-paper="1">2.0</td>`, `data-paper="1">3.5</td>`} {
		if !strings.Contains(s2, want) {
			t.Errorf("isles22's Table S2 as printed lacks %q", want)
		}
	}
	if strings.Contains(s2, "<td>lesion_count_diff</td>") {
		t.Error("isles22's Table S2 as printed shows the metric id lesion_count_diff")
	}
	// S3 in the paper's row order: the unranked rows first.
	s3 := string(sectionHTML(t, page("challenges/ldct-iqa.html"), "paper"))
	if p, sc := strings.Index(s3, "<td>PLCC (not ranked)</td>"), strings.Index(s3, "<td>Score</td>"); p < 0 || sc < 0 || p > sc {
		t.Errorf("LDCT-IQA's Table S3 as printed: PLCC at %d, Score at %d; the paper prints PLCC first", p, sc)
	}
	// DENTEX: the note shared by its 16 metric cards is stated once.
	dentex := string(page("challenges/dentex.html"))
	if n := strings.Count(dentex, "pycocotools&#39; loadRes"); n != 1 {
		t.Errorf("DENTEX states its shared metric note %d times, want once", n)
	}
	if strings.Contains(dentex, "QUIRK") || strings.Contains(dentex, "reference-only column") {
		t.Error("DENTEX's cards carry a log-style QUIRK line or contradict their ranked badge")
	}
	if !strings.Contains(dentex, `id="quirk-category-ids"`) || !strings.Contains(dentex, `href="#quirk-category-ids"`) {
		t.Error("DENTEX's card does not link its quirk to the one explanation")
	}
	// Runs per world on the challenges index.
	idx := readTable(t, site, "challenges")
	for _, r := range idx.Rows {
		if r["paper_runs"] == nil || r["synthetic_runs"] == nil || r["new_real_runs"] == nil {
			t.Fatalf("challenges index row %v lacks a per-world count", r)
		}
		if r["challenge"] == "isles22" && (r["paper_runs"].(float64) < 3 || r["synthetic_runs"].(float64) == 0) {
			t.Errorf("isles22: %v paper and %v synthetic runs counted", r["paper_runs"], r["synthetic_runs"])
		}
	}
	// Table 3: the paper's category rows on the page, not in the download.
	ov := string(page("index.html"))
	t3 := string(sectionHTML(t, []byte(ov), "table3"))
	for _, g := range []string{"Segmentation Tasks", "Detection Tasks", "Classification Tasks", "Image Quality &amp; Enhancement Tasks"} {
		if !strings.Contains(t3, `scope="colgroup">`+g+`</th>`) {
			t.Errorf("Table 3 lacks its category row %q", g)
		}
	}
	if n := len(readTable(t, site, "table3").Rows); n != len(b.Challenges)+1 {
		t.Errorf("table3's download has %d rows, want %d challenges and the overall row", n, len(b.Challenges)+1)
	}
	// The overview: the recomputed line links each difference to its check.
	if !strings.Contains(ov, `href="reproduction.html#check-`) {
		t.Error("the overview's recomputed line links no difference to the Reproduction page")
	}
	repro := string(page("reproduction.html"))
	for _, part := range strings.Split(ov, `href="reproduction.html#`)[1:] {
		id, _, _ := strings.Cut(part, `"`)
		if id != "disagreements" && !strings.Contains(repro, `id="`+id+`"`) {
			t.Errorf("the overview links reproduction.html#%s, which does not exist", id)
		}
	}
}
