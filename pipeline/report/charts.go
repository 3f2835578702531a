package report

import (
	"fmt"
	"html/template"
	"math"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/go-echarts/go-echarts/v2/render"
)

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

func initOpts(id, height string) charts.GlobalOpts {
	return charts.WithInitializationOpts(opts.Initialization{ChartID: id, Width: "100%", Height: height, AssetsHost: "assets/"})
}

func snippet(r interface{ RenderSnippet() render.ChartSnippet }, alt string) chart {
	s := r.RenderSnippet()
	return chart{Element: template.HTML(s.Element), Script: template.HTML(s.Script), Alt: alt}
}

// round4 keeps chart data short and deterministic.
func round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }

// barSeries is one named series of a bar chart; NaN values are left out.
type barSeries struct {
	Name   string
	Values []float64
	Stack  string
}

// barChart draws horizontal bars (categories on the vertical axis) when
// horizontal is set, vertical bars otherwise. Values are percentages.
func barChart(id, title, unit string, cats []string, series []barSeries, horizontal bool, alt string) chart {
	bar := charts.NewBar()
	h := "420px"
	if horizontal {
		h = fmt.Sprintf("%dpx", 120+28*len(cats))
	}
	bar.SetGlobalOptions(
		initOpts(id, h),
		charts.WithTitleOpts(opts.Title{Title: title}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(len(series) > 1), Top: "bottom"}),
		charts.WithAnimation(false),
		charts.WithGridOpts(opts.Grid{ContainLabel: opts.Bool(true), Left: "2%", Right: "4%", Bottom: "40"}),
	)
	valAxis := opts.XAxis{Name: unit, Min: 0}
	if horizontal {
		bar.SetGlobalOptions(charts.WithXAxisOpts(valAxis), charts.WithYAxisOpts(opts.YAxis{Type: "category", Inverse: opts.Bool(true)}))
	} else {
		bar.SetGlobalOptions(charts.WithYAxisOpts(opts.YAxis{Name: unit, Min: 0}), charts.WithXAxisOpts(opts.XAxis{AxisLabel: &opts.AxisLabel{Rotate: 30, Interval: "0"}}))
	}
	bar.SetXAxis(cats)
	for _, s := range series {
		data := make([]opts.BarData, len(s.Values))
		for i, v := range s.Values {
			if math.IsNaN(v) {
				data[i] = opts.BarData{Value: "-"}
			} else {
				data[i] = opts.BarData{Value: round4(v)}
			}
		}
		var so []charts.SeriesOpts
		if s.Stack != "" {
			so = append(so, charts.WithBarChartOpts(opts.BarChart{Stack: s.Stack}))
		}
		bar.AddSeries(s.Name, data, so...)
	}
	if horizontal {
		bar.XYReversal()
	}
	return snippet(bar, alt)
}

// radarChart draws one agent's capability profile (scores 0–1).
func radarChart(id, title string, axes []string, values []float64, alt string) chart {
	r := charts.NewRadar()
	ind := make([]*opts.Indicator, len(axes))
	for i, a := range axes {
		ind[i] = &opts.Indicator{Name: a, Min: 0, Max: 1}
	}
	r.SetGlobalOptions(
		initOpts(id, "420px"),
		charts.WithTitleOpts(opts.Title{Title: title}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true)}),
		charts.WithAnimation(false),
		charts.WithRadarComponentOpts(opts.RadarComponent{Indicator: ind}),
	)
	v := make([]any, len(values))
	for i, x := range values {
		if math.IsNaN(x) {
			v[i] = 0
		} else {
			v[i] = round4(x)
		}
	}
	r.AddSeries(title, []opts.RadarData{{Name: title, Value: v}}, charts.WithAreaStyleOpts(opts.AreaStyle{Opacity: opts.Float(0.2)}))
	return snippet(r, alt)
}

// heatMap draws rows × columns of values in [0, 1]; NaN cells are left empty.
func heatMap(id, title string, rows, cols []string, val [][]float64, alt string) chart {
	hm := charts.NewHeatMap()
	hm.SetGlobalOptions(
		initOpts(id, fmt.Sprintf("%dpx", 160+30*len(rows))),
		charts.WithTitleOpts(opts.Title{Title: title}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true)}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(false)}),
		charts.WithAnimation(false),
		charts.WithGridOpts(opts.Grid{ContainLabel: opts.Bool(true), Left: "2%", Right: "2%", Top: "40", Bottom: "60"}),
		charts.WithXAxisOpts(opts.XAxis{Type: "category", Data: cols, AxisLabel: &opts.AxisLabel{Interval: "0"}}),
		charts.WithYAxisOpts(opts.YAxis{Type: "category", Data: rows, Inverse: opts.Bool(true)}),
		charts.WithVisualMapOpts(opts.VisualMap{Calculable: opts.Bool(true), Min: 0, Max: 1, Orient: "horizontal", Left: "center", Bottom: "0",
			InRange: &opts.VisualMapInRange{Color: []string{"#f7fbff", "#08306b"}}}),
	)
	var data []opts.HeatMapData
	for i := range rows {
		for j := range cols {
			if v := val[i][j]; !math.IsNaN(v) {
				data = append(data, opts.HeatMapData{Value: [3]any{j, i, round4(v)}})
			}
		}
	}
	hm.SetXAxis(cols).AddSeries("score", data, charts.WithLabelOpts(opts.Label{Show: opts.Bool(true)}))
	return snippet(hm, alt)
}

// lineChart draws series over elapsed time in minutes.
func lineChart(id, title, unit string, xs []float64, series []barSeries, alt string) chart {
	l := charts.NewLine()
	l.SetGlobalOptions(
		initOpts(id, "320px"),
		charts.WithTitleOpts(opts.Title{Title: title}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(len(series) > 1), Top: "bottom"}),
		charts.WithAnimation(false),
		charts.WithXAxisOpts(opts.XAxis{Name: "minutes", Type: "category"}),
		charts.WithYAxisOpts(opts.YAxis{Name: unit, Min: 0}),
	)
	cats := make([]string, len(xs))
	for i, x := range xs {
		cats[i] = fmt.Sprintf("%.1f", x)
	}
	l.SetXAxis(cats)
	for _, s := range series {
		data := make([]opts.LineData, len(s.Values))
		for i, v := range s.Values {
			if math.IsNaN(v) {
				data[i] = opts.LineData{Value: "-"}
			} else {
				data[i] = opts.LineData{Value: round4(v)}
			}
		}
		l.AddSeries(s.Name, data)
	}
	return snippet(l, alt)
}
