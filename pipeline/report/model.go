package report

import "html/template"

// page is one HTML file of the site, rendered by templates/page.html.
type page struct {
	Path      string // relative to the site root, e.g. "challenges/isles22.html"
	Title     string
	Root      string // relative prefix back to the site root: "" or "../"
	Intro     []string
	TOC       bool
	Sections  []*section
	Nav       []navLink
	HasCharts bool
}

type navLink struct {
	Href, Text string
	Current    bool
}

// section is one titled part of a page.
type section struct {
	ID, Title  string
	Paragraphs []string
	Card       *taskCard
	List       []listItem
	Charts     []chart
	Images     []image
	Tables     []*table
	Details    []detail
}

type listItem struct{ Text, Href, Note string }

// chart is a go-echarts snippet: the element and its script.
type chart struct {
	Element, Script template.HTML
	Alt             string
}

// image is a static PNG plot with its alternative text.
type image struct {
	Src, Alt      string
	Width, Height int
}

// detail is a collapsible list (evidence drill-down).
type detail struct {
	Summary string
	Items   []string
}

// table is a sortable table; tables with an ID are also written as
// data/<ID>.csv and data/<ID>.json and listed on the downloads page.
type table struct {
	ID, Caption string
	Root        string // set when the page renders
	Page        string // the page it appears on
	Head        []string
	Rows        []row
}

type row struct {
	Class string
	Cells []cell
}

// cell is one table cell. Sort, when set, is the numeric sort key.
type cell struct {
	Text, Href, Class, Title, Sort string
	Badge, BadgeClass, BadgeTitle  string
}

type fact struct{ Name, Text, Href string }

type metricCard struct {
	Name, Direction, Card string
	Ranked, Primary       bool
}

type quirkCard struct{ ID, Metrics, Reference, Official string }

// taskCard is the challenge summary at the top of a challenge page.
type taskCard struct {
	Facts   []fact
	Metrics []metricCard
	Quirks  []quirkCard
}
