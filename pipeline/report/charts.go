package report

import (
	"encoding/json"
	"html/template"
	"math"
	"strings"
)

// The site's charts are ECharts options built here as plain data and drawn
// by templates/assets/site.js, which also sets the tooltip texts (computed
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
		// Only plain maps, slices, strings and finite numbers (num) go in;
		// should anything else slip through, the chart draws nothing.
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

func title(text, sub string) map[string]any {
	t := map[string]any{"text": text, "left": 0, "top": 0, "textStyle": map[string]any{"fontSize": 14, "color": textColour, "width": 300, "overflow": "break"}}
	if sub != "" {
		t["subtext"] = sub
		t["subtextStyle"] = map[string]any{"color": "#4a525c"}
	}
	return t
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
	val := make([]any, len(bars))
	rng := make([]any, len(bars))
	fail := make([]any, len(bars))
	var printed [][2]any
	anyRange, anyFail := false, false
	for i, b := range bars {
		cats[i], tips[i] = b.Label, b.Tip
		switch {
		case b.Fail:
			val[i], rng[i] = nil, nil
			fail[i] = 0
			anyFail = true
		default:
			val[i] = jnum(b.Value)
			if b.Value == 0 && (math.IsNaN(b.Hi) || b.Hi <= 0) {
				// A 0 % bar has no length: say 0 % in words, unlike FAIL.
				val[i] = map[string]any{"value": 0, "label": map[string]any{"show": true, "position": "right", "formatter": "0 %", "color": "#4a525c"}}
			}
			fail[i] = nil
			if !math.IsNaN(b.Hi) && b.Hi > b.Value {
				rng[i] = jnum(b.Hi - b.Value)
				anyRange = true
			} else {
				rng[i] = nil
			}
		}
		if !math.IsNaN(b.Printed) {
			printed = append(printed, [2]any{jnum(b.Printed), i})
		}
	}
	series := []any{map[string]any{"name": "percentile", "type": "bar", "stack": "p", "data": val, "itemStyle": map[string]any{"color": seriesColours[0]}, "barMaxWidth": 22}}
	if anyRange {
		series = append(series, map[string]any{"name": "reachable range", "type": "bar", "stack": "p", "data": rng, "itemStyle": map[string]any{"color": "#9dbbe0"}, "barMaxWidth": 22})
	}
	if anyFail {
		series = append(series, map[string]any{"name": "FAIL (no valid submission)", "type": "bar", "stack": "p", "data": fail, "itemStyle": map[string]any{"color": failColour},
			"label": map[string]any{"show": true, "position": "right", "formatter": "FAIL", "color": failColour, "fontWeight": "bold"}})
	}
	if len(printed) > 0 {
		series = append(series, map[string]any{"name": "paper's printed value", "type": "scatter", "data": printed, "symbol": "diamond", "symbolSize": 12,
			"itemStyle": map[string]any{"color": "#d96c00", "borderColor": textColour, "borderWidth": 1}})
	}
	if ci := ciSeries(bars); ci != nil {
		series = append(series, ci)
	}
	opt := map[string]any{
		"animation": false,
		"title":     title(name, sub),
		"tooltip":   map[string]any{"trigger": "axis", "axisPointer": map[string]any{"type": "shadow"}, "confine": true},
		"legend":    map[string]any{"show": len(series) > 1, "bottom": 0, "textStyle": map[string]any{"color": textColour}},
		"grid":      map[string]any{"containLabel": true, "left": 4, "right": 40, "top": 48, "bottom": 36},
		"xAxis":     map[string]any{"type": "value", "min": 0, "max": 100, "axisLabel": map[string]any{"formatter": "{value} %", "color": textColour}},
		"yAxis":     map[string]any{"type": "category", "inverse": true, "data": cats, "axisLabel": map[string]any{"color": textColour, "width": 170, "overflow": "break", "lineHeight": 13}},
		"series":    series,
	}
	return chart{ID: id, Option: mustJSON(opt), Tips: mustJSON(tips), Height: 110 + 40*len(bars), Alt: alt}
}

// scoreBars draws grouped horizontal bars of scores in [0, 1]: one
// category per strategy, one series per profile; NaN values are not drawn.
func scoreBars(id, name string, cats []string, names []string, vals [][]float64, alt string) chart {
	var series []any
	for i, n := range names {
		data := make([]any, len(cats))
		for j := range cats {
			data[j] = jnum(vals[i][j])
		}
		series = append(series, map[string]any{"name": n, "type": "bar", "data": data, "itemStyle": map[string]any{"color": seriesColours[i%len(seriesColours)]}})
	}
	opt := map[string]any{
		"animation": false,
		"title":     title(name, ""),
		"tooltip":   map[string]any{"trigger": "axis", "axisPointer": map[string]any{"type": "shadow"}, "confine": true},
		"legend":    map[string]any{"bottom": 0, "textStyle": map[string]any{"color": textColour}},
		"grid":      map[string]any{"containLabel": true, "left": 4, "right": 16, "top": 40, "bottom": 20 + 24*((len(names)+1)/2)},
		"xAxis":     map[string]any{"type": "value", "min": 0, "max": 1, "name": "score", "axisLabel": map[string]any{"color": textColour}},
		"yAxis":     map[string]any{"type": "category", "inverse": true, "data": cats, "axisLabel": map[string]any{"color": textColour, "width": 150, "overflow": "break"}},
		"series":    series,
	}
	return chart{ID: id, Option: mustJSON(opt), Tips: mustJSON([]string{}), Height: 100 + len(cats)*(10+10*len(names)) + 24*((len(names)+1)/2), Alt: alt}
}

// radarChart draws one profile's strategy scores (0–1) with dark labels.
func radarChart(id, name string, axes []string, values []float64, alt string) chart {
	ind := make([]any, len(axes))
	for i, a := range axes {
		ind[i] = map[string]any{"name": a, "min": 0, "max": 1}
	}
	v := make([]any, len(values))
	for i, x := range values {
		if math.IsNaN(x) {
			v[i] = 0
		} else {
			v[i] = round4(x)
		}
	}
	opt := map[string]any{
		"animation": false,
		"title":     title(name, ""),
		"tooltip":   map[string]any{"confine": true},
		"radar": map[string]any{"indicator": ind, "radius": "52%", "center": []string{"50%", "56%"},
			"axisName": map[string]any{"color": textColour, "fontSize": 11, "width": 90, "overflow": "break"}},
		"series": []any{map[string]any{"name": name, "type": "radar", "areaStyle": map[string]any{"opacity": 0.2},
			"itemStyle": map[string]any{"color": seriesColours[0]}, "data": []any{map[string]any{"name": name, "value": v}}}},
	}
	return chart{ID: id, Option: mustJSON(opt), Tips: mustJSON([]string{}), Height: 440, Alt: alt}
}

// heatMap draws rows × columns of values in [0, 1]; NaN cells are left empty.
func heatMap(id, name string, rows, cols []string, val [][]float64, alt string) chart {
	var data []any
	for i := range rows {
		for j := range cols {
			if v := val[i][j]; !math.IsNaN(v) {
				data = append(data, []any{j, i, round4(v)})
			}
		}
	}
	opt := map[string]any{
		"animation": false,
		"title":     title(name, ""),
		"tooltip":   map[string]any{"confine": true},
		"grid":      map[string]any{"containLabel": true, "left": 4, "right": 8, "top": 40, "bottom": 64},
		"xAxis":     map[string]any{"type": "category", "data": cols, "axisLabel": map[string]any{"interval": 0, "rotate": 30, "color": textColour, "width": 110, "overflow": "truncate"}},
		"yAxis":     map[string]any{"type": "category", "data": rows, "inverse": true, "axisLabel": map[string]any{"color": textColour, "width": 150, "overflow": "break"}},
		"visualMap": map[string]any{"calculable": true, "min": 0, "max": 1, "orient": "horizontal", "left": "center", "bottom": 0,
			"inRange": map[string]any{"color": []string{"#f7fbff", "#08306b"}}, "textStyle": map[string]any{"color": textColour}},
		"series": []any{map[string]any{"name": "score", "type": "heatmap", "data": data, "label": map[string]any{"show": true}}},
	}
	return chart{ID: id, Option: mustJSON(opt), Tips: mustJSON([]string{}), Height: 170 + 30*len(rows), Alt: alt}
}

// lineSeries is one named line over elapsed minutes; NaN points are gaps.
type lineSeries struct {
	Name string
	X, Y []float64
}

// lineChart draws series (percent, 0–100) over elapsed time in minutes
// since the run started.
func lineChart(id, name string, series []lineSeries, alt string) chart {
	var ss []any
	for i, s := range series {
		var data []any
		for k := range s.X {
			if k < len(s.Y) {
				data = append(data, []any{round4(s.X[k]), jnum(s.Y[k])})
			}
		}
		ss = append(ss, map[string]any{"name": s.Name, "type": "line", "showSymbol": len(data) < 60, "data": data, "connectNulls": false,
			"itemStyle": map[string]any{"color": seriesColours[i%len(seriesColours)]}})
	}
	opt := map[string]any{
		"animation": false,
		"title":     title(name, ""),
		"tooltip":   map[string]any{"trigger": "axis", "confine": true},
		"legend":    map[string]any{"show": len(series) > 1, "bottom": 0, "textStyle": map[string]any{"color": textColour}},
		"grid":      map[string]any{"containLabel": true, "left": 4, "right": 24, "top": 48, "bottom": 40},
		"xAxis":     map[string]any{"type": "value", "name": "elapsed (min)", "nameLocation": "middle", "nameGap": 24, "min": 0, "axisLabel": map[string]any{"color": textColour}},
		"yAxis":     map[string]any{"type": "value", "min": 0, "max": 100, "axisLabel": map[string]any{"formatter": "{value} %", "color": textColour}},
		"series":    ss,
	}
	return chart{ID: id, Option: mustJSON(opt), Tips: mustJSON([]string{}), Height: 320, Unit: "%", Alt: alt}
}
