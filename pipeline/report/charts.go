package report

import (
	"encoding/json"
	"fmt"
	"html/template"
	"math"
	"strconv"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/go-echarts/go-echarts/v2/types"
)

// The site's charts are go-echarts v2 charts built here (the few options
// go-echarts lacks are added in echartsext.go), rendered to ECharts option
// JSON that the pages embed and templates/assets/site.js draws with the
// vendored ECharts; site.js, which also sets the tooltip texts (computed
// here, with units), the readable label colours and the resize handling.
// A chart is only built when it has something to show: a chart whose every
// value is 0 is replaced by a sentence (see nonZero).

// Colours with at least 4.5:1 contrast on white (WCAG AA) for text, and
// distinct series colours.
const (
	textColour = "#1b1f24"
	failColour = "#b3261e"
)

var seriesColours = []string{"#1f5fa8", "#d96c00", "#2e7d32", "#7b3fa0", "#00838f", "#8d6e00", "#c2185b", "#455a64"}

// chart is one chart: its element id, the ECharts option (JSON), the
// tooltip text per category, its height and its description.
type chart struct {
	ID     string
	Option template.JS
	Tips   template.JS // JSON array of tooltip strings per category ("" for the default)
	Height int
	Unit   string // appended to tooltip values when there are no Tips
	Alt    string
	// Table holds the chart's numbers for readers without JavaScript: the
	// page puts it in a <noscript> beside the chart.
	Table *chartTable
}

// chartTable is a chart's data as text: a caption, a header and rows.
type chartTable struct {
	Caption string
	Head    []string
	Rows    [][]string
}

// chartID turns a name into a deterministic JavaScript-safe element id.
func chartID(parts ...string) string {
	var b strings.Builder
	b.WriteString("c")
	for _, p := range parts {
		b.WriteByte('_')
		for _, r := range p {
			if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
				b.WriteRune(r)
			} else {
				b.WriteByte('_')
			}
		}
	}
	return b.String()
}

// round4 keeps chart data short and deterministic.
func round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }

func mustJSON(v any) template.JS {
	b, err := json.Marshal(v)
	if err != nil {
		// go-echarts options hold finite numbers only (jnum, barItem and
		// round4 of finite values); should a NaN slip through, the chart
		// draws nothing and the browser test reports it as not drawn.
		return template.JS("null")
	}
	return template.JS(b)
}

// jnum is a JSON number, or null for NaN.
func jnum(v float64) any {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return round4(v)
}

// echart is what every go-echarts chart type offers for rendering.
type echart interface {
	Accept(charts.ConfigurationVisitor)
	Validate()
	JSON() map[string]any
}

// optionJSON renders a go-echarts chart, with the knobs of ext
// (echartsext.go), to the option JSON a page embeds.
func optionJSON(c echart, ext *extensions) template.JS {
	c.Accept(ext)
	c.Validate()
	return mustJSON(c.JSON())
}

// title is a chart's title: dark, wrapping at the chart's width (site.js
// sets the width from the drawn chart), with an optional grey subtitle
// that wraps too; explicit line heights, as ECharts' own depend on the
// fonts installed.
func title(text, sub string) opts.Title {
	t := opts.Title{Title: text, Left: "0", Top: "0", TitleStyle: &opts.TextStyle{FontSize: 14, LineHeight: 18, Color: textColour, Width: 300, Overflow: "break"}}
	if sub != "" {
		t.Subtitle = sub
		t.SubtitleStyle = &opts.TextStyle{FontSize: 12, LineHeight: 15, Color: "#4a525c", Width: 300, Overflow: "break"}
	}
	return t
}

// common are the global options of every chart: no animation, the site's
// palette, a title, no toolbox.
func common(text, sub string) []charts.GlobalOpts {
	return []charts.GlobalOpts{
		charts.WithAnimation(false),
		charts.WithColorsOpts(seriesColours),
		charts.WithTitleOpts(title(text, sub)),
		charts.WithToolboxOpts(opts.Toolbox{Show: opts.Bool(false)}),
	}
}

// legend is a legend at the chart's bottom; where it wraps on a narrow
// chart, site.js makes room for its lines (issue 30 item 6).
func legend(show bool) opts.Legend {
	return opts.Legend{Show: opts.Bool(show), Bottom: "0", TextStyle: &opts.TextStyle{Color: textColour}}
}

// noLegend hides the legend go-echarts would otherwise emit.
func noLegend() opts.Legend { return opts.Legend{Show: opts.Bool(false)} }

// valueLabels are a value axis' labels: dark, and never drawn over each
// other (ECharts hides a label that would overlap its neighbour).
func valueLabels(formatter string) *opts.AxisLabel {
	return &opts.AxisLabel{Formatter: types.FuncStr(formatter), Color: textColour, HideOverlap: opts.Bool(true)}
}

// categoryLabels are a category axis' labels, broken onto lines at width px.
func categoryLabels(width int) *opts.AxisLabel {
	return &opts.AxisLabel{Color: textColour, Width: width, Overflow: "break"}
}

// barItem is a bar's value, or ECharts' empty value "-" for none.
func barItem(v float64) opts.BarData {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return opts.BarData{Value: "-"}
	}
	return opts.BarData{Value: round4(v)}
}

// barMaxWidth caps a bar's thickness (px).
func barMaxWidth(px string) charts.SeriesOpts {
	return charts.WithSeriesOpts(func(s *charts.SingleSeries) { s.BarMaxWidth = px })
}

// pctBar is one category of a percentile bar chart.
type pctBar struct {
	Label   string
	Value   float64 // percent, 0–100; the low end when Hi is set
	Hi      float64 // percent; NaN unless the value is a range
	Fail    bool    // no valid submission: drawn as a FAIL label, not a bar
	Printed float64 // the paper's printed value, percent; NaN for none
	Tip     string  // the tooltip text, with units
	// CI marks a 95 % bootstrap interval [CILo, CIHi] (percent), drawn as
	// an error bar (see ciSeries).
	CI         bool
	CILo, CIHi float64
	// ValueLabel writes the value beside the bar ("9.06 %"), as the
	// paper's Figure 1 does.
	ValueLabel bool
}

// nonZero reports whether any bar has something to draw (a positive value,
// a range, a FAIL or a printed marker).
func nonZero(bars []pctBar) bool {
	for _, b := range bars {
		if b.Value > 0 || !math.IsNaN(b.Hi) && b.Hi > 0 || b.Fail || !math.IsNaN(b.Printed) && b.Printed > 0 {
			return true
		}
	}
	return false
}

// pctChart draws horizontal percentile bars on a fixed 0–100 % axis: the
// value (or the low end of a range and the rest of the range, lighter), a
// red FAIL label for failed runs, and a marker for the paper's print.
func pctChart(id, name, sub string, bars []pctBar, alt string) chart {
	cats := make([]string, len(bars))
	tips := make([]string, len(bars))
	val := make([]opts.BarData, len(bars))
	rng := make([]opts.BarData, len(bars))
	fail := make([]opts.BarData, len(bars))
	empty := opts.BarData{Value: "-"}
	var printed []opts.ScatterData
	anyRange, anyFail := false, false
	for i, b := range bars {
		cats[i], tips[i] = b.Label, b.Tip
		val[i], rng[i], fail[i] = empty, empty, empty
		switch {
		case b.Fail:
			fail[i] = opts.BarData{Value: 0}
			anyFail = true
		default:
			val[i] = barItem(b.Value)
			if b.ValueLabel && b.Value > 0 && !math.IsInf(b.Value, 0) {
				val[i].Label = &opts.Label{Show: opts.Bool(true), Position: "right", Formatter: fmt.Sprintf("%.2f %%", b.Value), Color: textColour}
			}
			if b.Value == 0 && (math.IsNaN(b.Hi) || b.Hi <= 0) {
				// A 0 % bar has no length: say 0 % in words, unlike FAIL.
				val[i] = opts.BarData{Value: 0, Label: &opts.Label{Show: opts.Bool(true), Position: "right", Formatter: "0 %", Color: "#4a525c"}}
			}
			if !math.IsNaN(b.Hi) && b.Hi > b.Value {
				rng[i] = barItem(b.Hi - b.Value)
				anyRange = true
			}
		}
		if !math.IsNaN(b.Printed) {
			printed = append(printed, opts.ScatterData{Value: []any{jnum(b.Printed), i}})
		}
	}
	ci := ciSeries(bars)
	nSeries := 1
	for _, on := range []bool{anyRange, anyFail, len(printed) > 0, ci != nil} {
		if on {
			nSeries++
		}
	}
	ext := &extensions{confine: true}
	bar := charts.NewBar()
	bar.SetGlobalOptions(append(common(name, sub),
		charts.WithTooltipOpts(opts.Tooltip{Trigger: "axis", AxisPointer: &opts.AxisPointer{Type: "shadow"}}),
		charts.WithLegendOpts(legend(nSeries > 1)),
		charts.WithGridOpts(opts.Grid{ContainLabel: opts.Bool(true), Left: "4", Right: "40", Top: "48", Bottom: "36"}),
		charts.WithXAxisOpts(opts.XAxis{Type: "value", Min: 0, Max: 100, AxisLabel: valueLabels("{value} %")}),
		charts.WithYAxisOpts(opts.YAxis{Type: "category", Inverse: opts.Bool(true), AxisLabel: categoryLabels(170)}),
	)...)
	bar.SetXAxis(cats).XYReversal()
	bar.AddSeries("percentile", val, charts.WithBarChartOpts(opts.BarChart{Stack: "p"}), charts.WithItemStyleOpts(opts.ItemStyle{Color: seriesColours[0]}), barMaxWidth("22"))
	if anyRange {
		bar.AddSeries("reachable range", rng, charts.WithBarChartOpts(opts.BarChart{Stack: "p"}), charts.WithItemStyleOpts(opts.ItemStyle{Color: "#9dbbe0"}), barMaxWidth("22"))
	}
	if anyFail {
		bar.AddSeries("FAIL (no valid submission)", fail, charts.WithBarChartOpts(opts.BarChart{Stack: "p"}), charts.WithItemStyleOpts(opts.ItemStyle{Color: failColour}),
			charts.WithLabelOpts(opts.Label{Show: opts.Bool(true), Position: "right", Formatter: "FAIL", Color: failColour, FontWeight: "bold"}))
	}
	if len(printed) > 0 {
		sc := charts.NewScatter()
		sc.AddSeries("paper's printed value", printed, charts.WithScatterChartOpts(opts.ScatterChart{Symbol: "diamond", SymbolSize: 12}),
			charts.WithItemStyleOpts(opts.ItemStyle{Color: "#d96c00", BorderColor: textColour, BorderWidth: 1}))
		bar.Overlap(sc)
	}
	if ci != nil {
		bar.Overlap(ci)
		ext.withSeriesExtra(ciName, ciExtra)
	}
	return chart{ID: id, Option: optionJSON(bar, ext), Tips: mustJSON(tips), Height: 110 + 40*len(bars), Alt: alt, Table: pctTable(name, bars)}
}

// scoreBars draws grouped horizontal bars of scores in [0, 1]: one
// category per strategy, one series per profile; NaN values are not drawn.
// Each series carries its own pattern (ECharts' decals), so the series
// differ without colour.
func scoreBars(id, name string, cats []string, names []string, vals [][]float64, alt string) chart {
	bar := charts.NewBar()
	bar.SetGlobalOptions(append(common(name, ""),
		charts.WithTooltipOpts(opts.Tooltip{Trigger: "axis", AxisPointer: &opts.AxisPointer{Type: "shadow"}}),
		charts.WithLegendOpts(legend(true)),
		charts.WithGridOpts(opts.Grid{ContainLabel: opts.Bool(true), Left: "4", Right: "16", Top: "40", Bottom: "52"}),
		charts.WithXAxisOpts(opts.XAxis{Type: "value", Min: 0, Max: 1, Name: "score", NameLocation: "middle", NameGap: 24, AxisLabel: valueLabels("")}),
		charts.WithYAxisOpts(opts.YAxis{Type: "category", Inverse: opts.Bool(true), AxisLabel: categoryLabels(150)}),
		charts.WithAriaOpts(&opts.Aria{Enabled: opts.Bool(true), Label: &opts.AriaLabel{Enabled: opts.Bool(false)}, Decal: &opts.AriaDecal{Show: opts.Bool(true)}}),
	)...)
	bar.SetXAxis(cats).XYReversal()
	for i, n := range names {
		data := make([]opts.BarData, len(cats))
		for j := range cats {
			data[j] = barItem(vals[i][j])
		}
		bar.AddSeries(n, data, charts.WithItemStyleOpts(opts.ItemStyle{Color: seriesColours[i%len(seriesColours)]}))
	}
	tbl := &chartTable{Caption: name, Head: append([]string{""}, names...)}
	for j, c := range cats {
		r := []string{c}
		for i := range names {
			r = append(r, chartNum(vals[i][j], ""))
		}
		tbl.Rows = append(tbl.Rows, r)
	}
	return chart{ID: id, Option: optionJSON(bar, &extensions{confine: true}), Tips: mustJSON([]string{}), Height: 116 + len(cats)*(10+10*len(names)) + 24, Alt: alt, Table: tbl}
}

// radarChart draws one profile's strategy scores (0–1) with dark labels.
func radarChart(id, name string, axes []string, values []float64, alt string) chart {
	ind := make([]*opts.Indicator, len(axes))
	for i, a := range axes {
		ind[i] = &opts.Indicator{Name: a, Min: 0, Max: 1}
	}
	v := make([]float64, len(values))
	tbl := &chartTable{Caption: name, Head: []string{"Strategy", "Score (0–1)"}}
	for i, x := range values {
		if !math.IsNaN(x) {
			v[i] = round4(x)
		}
		tbl.Rows = append(tbl.Rows, []string{axes[i], chartNum(x, "")})
	}
	r := charts.NewRadar()
	r.SetGlobalOptions(append(common(name, ""),
		charts.WithTooltipOpts(opts.Tooltip{}),
		charts.WithLegendOpts(noLegend()),
		charts.WithRadarComponentOpts(opts.RadarComponent{Indicator: ind, Center: []string{"50%", "56%"},
			AxisName: &opts.AxisName{Color: textColour, FontSize: 11, LineHeight: 13, Width: 90, Overflow: "break"}}),
	)...)
	r.AddSeries(name, []opts.RadarData{{Name: name, Value: v}}, charts.WithAreaStyleOpts(opts.AreaStyle{Opacity: opts.Float(0.2)}),
		charts.WithItemStyleOpts(opts.ItemStyle{Color: seriesColours[0]}))
	return chart{ID: id, Option: optionJSON(r, &extensions{confine: true, radius: "52%"}), Tips: mustJSON([]string{}), Height: 440, Alt: alt, Table: tbl}
}

// heatMap draws rows × columns of values in [0, 1]; NaN cells are left empty.
func heatMap(id, name string, rows, cols []string, val [][]float64, alt string) chart {
	var data []opts.HeatMapData
	tbl := &chartTable{Caption: name, Head: append([]string{""}, cols...)}
	for i := range rows {
		r := []string{rows[i]}
		for j := range cols {
			if v := val[i][j]; !math.IsNaN(v) {
				data = append(data, opts.HeatMapData{Value: []any{j, i, round4(v)}})
			}
			r = append(r, chartNum(val[i][j], ""))
		}
		tbl.Rows = append(tbl.Rows, r)
	}
	hm := charts.NewHeatMap()
	hm.SetGlobalOptions(append(common(name, ""),
		charts.WithTooltipOpts(opts.Tooltip{}),
		charts.WithLegendOpts(noLegend()),
		charts.WithGridOpts(opts.Grid{ContainLabel: opts.Bool(true), Left: "4", Right: "8", Top: "40", Bottom: "64"}),
		charts.WithXAxisOpts(opts.XAxis{Type: "category", Data: cols, AxisLabel: &opts.AxisLabel{Interval: "0", Rotate: 30, Color: textColour, Width: 110, Overflow: "truncate"}}),
		charts.WithYAxisOpts(opts.YAxis{Type: "category", Data: rows, Inverse: opts.Bool(true), AxisLabel: categoryLabels(150)}),
		charts.WithVisualMapOpts(opts.VisualMap{Calculable: opts.Bool(true), Min: 0, Max: 1, Orient: "horizontal", Left: "center", Bottom: "0",
			InRange: &opts.VisualMapInRange{Color: []string{"#f7fbff", "#08306b"}}, TextStyle: &opts.TextStyle{Color: textColour}}),
	)...)
	hm.AddSeries("score", data, charts.WithLabelOpts(opts.Label{Show: opts.Bool(true)}))
	return chart{ID: id, Option: optionJSON(hm, &extensions{confine: true}), Tips: mustJSON([]string{}), Height: 170 + 30*len(rows), Alt: alt, Table: tbl}
}

// lineSeries is one named line over elapsed minutes; NaN points are gaps.
type lineSeries struct {
	Name string
	X, Y []float64
}

// lineSymbols and lineTypes tell the lines apart without colour.
var (
	lineSymbols = []string{"circle", "rect", "triangle", "diamond", "roundRect", "pin", "arrow", "emptyCircle"}
	lineTypes   = []string{"solid", "dashed", "dotted"}
)

// lineChart draws series (percent, 0–100) over elapsed time in minutes
// since the run started; each line has its own dash pattern and symbol.
func lineChart(id, name string, series []lineSeries, alt string) chart {
	ln := charts.NewLine()
	ln.SetGlobalOptions(append(common(name, ""),
		charts.WithTooltipOpts(opts.Tooltip{Trigger: "axis"}),
		charts.WithLegendOpts(legend(len(series) > 1)),
		charts.WithGridOpts(opts.Grid{ContainLabel: opts.Bool(true), Left: "4", Right: "24", Top: "48", Bottom: "40"}),
		charts.WithXAxisOpts(opts.XAxis{Type: "value", Name: "elapsed (min)", NameLocation: "middle", NameGap: 24, Min: 0, AxisLabel: valueLabels("")}),
		charts.WithYAxisOpts(opts.YAxis{Type: "value", Min: 0, Max: 100, AxisLabel: valueLabels("{value} %")}),
	)...)
	tbl := &chartTable{Caption: name, Head: []string{"Series", "Elapsed (min)", "Value (%)"}}
	for i, s := range series {
		var data []opts.LineData
		for k := range s.X {
			if k < len(s.Y) {
				data = append(data, opts.LineData{Value: []any{round4(s.X[k]), jnum(s.Y[k])}})
				tbl.Rows = append(tbl.Rows, []string{s.Name, chartNum(s.X[k], ""), chartNum(s.Y[k], "")})
			}
		}
		ln.AddSeries(s.Name, data, charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(len(data) < 60), ConnectNulls: opts.Bool(false), Symbol: lineSymbols[i%len(lineSymbols)]}),
			charts.WithItemStyleOpts(opts.ItemStyle{Color: seriesColours[i%len(seriesColours)]}),
			charts.WithLineStyleOpts(opts.LineStyle{Type: lineTypes[i%len(lineTypes)]}))
	}
	return chart{ID: id, Option: optionJSON(ln, &extensions{confine: true}), Tips: mustJSON([]string{}), Height: 320, Unit: "%", Alt: alt, Table: tbl}
}

// chartNum prints a chart value as the chart holds it (rounded to 4
// decimals), with unit; "—" for none.
func chartNum(v float64, unit string) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "—"
	}
	return strconv.FormatFloat(round4(v), 'f', -1, 64) + unit
}

// pctTable is a percentile chart's numbers as a table.
func pctTable(name string, bars []pctBar) *chartTable {
	t := &chartTable{Caption: name, Head: []string{"", "Percentile", "Paper's printed value", "95 % interval"}}
	for _, b := range bars {
		v := chartNum(b.Value, " %")
		switch {
		case b.Fail:
			v = "FAIL (no valid submission)"
		case !math.IsNaN(b.Hi) && b.Hi > b.Value:
			v = chartNum(b.Value, "") + "–" + chartNum(b.Hi, " %") + " (reachable range)"
		}
		ci := "—"
		if b.CI && !b.Fail && !math.IsNaN(b.CILo) && !math.IsNaN(b.CIHi) {
			ci = chartNum(b.CILo, "") + "–" + chartNum(b.CIHi, " %")
		}
		t.Rows = append(t.Rows, []string{b.Label, v, chartNum(b.Printed, " %"), ci})
	}
	return t
}
