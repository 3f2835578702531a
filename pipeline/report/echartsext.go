package report

import (
	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// The site's charts are go-echarts v2 charts (its charts, opts and Overlap).
// go-echarts v2.6.7 models every option the site draws except these few,
// which this file adds through the library's own extension points — its
// ConfigurationVisitor (called on every part of an option while the option
// is rendered: "allow to visit and modify/enhance chart options ... even
// though the option structure isn't built-in") and WithSeriesOpts (the
// series hook "if the WithXXX helper method is not good enough"):
//
//   - tooltip.confine: opts.Tooltip has no Confine; without it a tooltip
//     runs off a phone-width chart.
//   - series z and boxplot boxWidth: charts.SingleSeries has neither; the
//     error bars (a boxplot overlaid on the bars) need both to sit on top
//     of the bars at a fixed width.
//   - radar.radius: opts.RadarComponent has Center but no Radius.
//   - heat-map cells with their own label and border: opts.HeatMapData
//     has only Name and Value (heatCell below).
//   - a numeric axis-label lineHeight: opts.AxisLabel types lineHeight as
//     a string, which ECharts adds to a position as text ("13" puts every
//     wrapped line of a label on top of the first), so the visitor writes
//     every y axis' wrapped labels with a number (labelLineHeight).
//
// Nothing else in the package builds chart options by hand (see
// TestChartOptionsAreTyped).

// extensions is the ConfigurationVisitor that adds the knobs above.
type extensions struct {
	charts.BaseConfigurationVisitor
	confine bool                   // tooltip.confine
	radius  string                 // radar.radius ("" for ECharts' default)
	series  map[string]seriesExtra // by series name
}

// seriesExtra are the series options go-echarts does not model.
type seriesExtra struct {
	Z        int   `json:"z,omitempty"`
	BoxWidth []int `json:"boxWidth,omitempty"`
}

// labelLineHeight is the line height (px) of wrapped axis labels (12 px text).
const labelLineHeight = 14

// extendedAxisLabel is an axis label with a numeric lineHeight, which
// shadows go-echarts' string one in the JSON.
type extendedAxisLabel struct {
	*opts.AxisLabel
	LineHeight int `json:"lineHeight,omitempty"`
}

// extendedYAxis is a y axis whose label has a numeric lineHeight.
type extendedYAxis struct {
	opts.YAxis
	AxisLabel *extendedAxisLabel `json:"axisLabel,omitempty"`
}

// VisitYAxis gives wrapped y-axis labels a numeric line height.
func (e *extensions) VisitYAxis(ys []opts.YAxis) any {
	out := make([]extendedYAxis, len(ys))
	for i, y := range ys {
		out[i].YAxis = y
		if y.AxisLabel != nil {
			l := &extendedAxisLabel{AxisLabel: y.AxisLabel}
			if y.AxisLabel.Overflow == "break" {
				l.LineHeight = labelLineHeight
			}
			out[i].AxisLabel = l
		}
	}
	return out
}

// extendedSeries is a go-echarts series with its extra options.
type extendedSeries struct {
	charts.SingleSeries
	seriesExtra
}

// VisitTooltipOpt adds confine to the chart's tooltip.
func (e *extensions) VisitTooltipOpt(t opts.Tooltip) any {
	return struct {
		opts.Tooltip
		Confine bool `json:"confine,omitempty"`
	}{t, e.confine}
}

// VisitSeriesOpt adds z and boxWidth to the series named in e.series.
func (e *extensions) VisitSeriesOpt(ms charts.MultiSeries) any {
	out := make([]extendedSeries, len(ms))
	for i, s := range ms {
		out[i] = extendedSeries{s, e.series[s.Name]}
	}
	return out
}

// VisitRadar adds radius to the radar component.
func (e *extensions) VisitRadar(r opts.RadarComponent) any {
	return struct {
		opts.RadarComponent
		Radius string `json:"radius,omitempty"`
	}{r, e.radius}
}

// withSeriesExtra records a series' z and boxWidth for the visitor.
func (e *extensions) withSeriesExtra(name string, x seriesExtra) {
	if e.series == nil {
		e.series = map[string]seriesExtra{}
	}
	e.series[name] = x
}

// heatCell is a heat-map data item with its own label and border (a cell
// the reader should notice).
type heatCell struct {
	opts.HeatMapData
	ItemStyle *opts.ItemStyle `json:"itemStyle,omitempty"`
	Label     *opts.Label     `json:"label,omitempty"`
}

// withHeatCells sets a heat-map series' data to cells.
func withHeatCells(cells []heatCell) charts.SeriesOpts {
	return charts.WithSeriesOpts(func(s *charts.SingleSeries) { s.Data = cells })
}
