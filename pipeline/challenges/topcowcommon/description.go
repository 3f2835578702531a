package topcowcommon

import (
	_ "embed"
	"fmt"
	"strings"
	"text/template"
)

// descriptionText is the description.md every variant's agent reads, a
// text/template over descriptionData: the variants share one text.
//
//go:embed description.md
var descriptionText string

var descriptionTmpl = template.Must(template.New("description.md").Option("missingkey=error").Parse(descriptionText))

// descriptionData is what the description of one variant and split shows.
type descriptionData struct {
	Name, Mod, Modality, PathColumn string
	TopBrain                        bool
	Task                            string // "seg", "box" or "edges"
	Train, Test                     int
	Metrics                         []descriptionMetric
}

type descriptionMetric struct{ Name, Direction, Card string }

// description writes the task description the agent reads.
func (c Challenge) description(nTrain, nTest int) string {
	d := descriptionData{Name: c.Name, Mod: c.ModalityName(), Modality: c.Modality, PathColumn: c.pathColumn(),
		TopBrain: c.Family == TopBrain, Task: map[Task]string{Segmentation: "seg", Box: "box", Edges: "edges"}[c.Task],
		Train: nTrain, Test: nTest}
	for _, m := range c.Metrics() {
		dir := "higher is better"
		if m.Direction == down {
			dir = "lower is better"
		}
		d.Metrics = append(d.Metrics, descriptionMetric{m.Name, dir, m.Card})
	}
	var b strings.Builder
	if err := descriptionTmpl.Execute(&b, d); err != nil {
		// The data is fixed by the variant: a failure is a template bug,
		// which the description test finds for every variant.
		panic(fmt.Sprintf("topcowcommon: description of %s: %v", c.ID(), err))
	}
	return b.String()
}
