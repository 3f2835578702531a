package report

import "html/template"

// page is one HTML file of the site, rendered by templates/page.html.
type page struct {
	Path      string // relative to the site root, e.g. "challenges/isles22.html"
	Title     string
	Root      string          // relative prefix back to the site root: "" or "../"
	Lead      []template.HTML // the opening sentences, with links (built with leadHTML)
	Intro     []string
	TOC       bool
	Sections  []*section
	Nav       []navLink
	HasCharts bool
	Banner    string // the non-comparable-data notice; "" on a paper build
	// BannerLate puts the first section (the overview's Figure 1 of the
	// paper's own runs) between the lead and the banner, so that a reader's
	// first screen holds the paper's result before any notice.
	BannerLate bool
}

type navLink struct {
	Href, Text string
	Current    bool
}

// section is one titled part of a page.
type section struct {
	ID, Title  string
	Class      string // "section-demo" marks synthetic runs
	Paragraphs []string
	Card       *taskCard
	List       []listItem
	Charts     []chart
	Images     []image
	Tables     []*table
	Details    []detail
}

type listItem struct{ Text, Href, Note string }

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
	Class       string // extra CSS classes ("compact")
	Root        string // set when the page renders
	Page        string // the page it appears on
	Head        []string
	Rows        []row
	// Filter puts a text filter above the table; FilterCols names (comma
	// separated) the columns that also get a drop-down of their values.
	Filter     bool
	FilterCols string
	// DataHead and row.Data, when set, are what the downloads hold instead
	// of the display cells: plain numbers (nil for none) and strings.
	DataHead []string
}

type row struct {
	ID    string // an anchor (permalink) on the row
	Class string
	// Group, when set, makes the row a heading across the table (Table 3's
	// "Segmentation Tasks"); it has no cells and is not in the downloads.
	Group string
	Cells []cell
	Data  []any
}

// cell is one table cell. Sort, when set, is the numeric sort key.
// Printed, when set, marks a number the paper printed, shown in the cell
// (the browser test counts them); Note is a second, smaller line.
type cell struct {
	ID, Text, Href, Class, Title, Sort string
	Badge, BadgeClass, BadgeTitle      string
	Printed, Note                      string
}

type fact struct{ Name, Text, Href string }

// metricCard is one metric of a task card: Name is the paper's, ID the
// grader's; Card is the card's own note (links to quirks made safe).
type metricCard struct {
	Name, ID, Direction string
	Card                template.HTML
	Ranked, Primary     bool
}

// quirkCard is one departure of the reference grader, with its id in words.
type quirkCard struct{ ID, Name, Metrics, Reference, Official string }

// taskCard is the challenge summary on a challenge page. Shared is the note
// that ended every metric's card, stated once (SharedCount cards).
type taskCard struct {
	Facts       []fact
	Metrics     []metricCard
	Shared      template.HTML
	SharedCount int
	Quirks      []quirkCard
}
