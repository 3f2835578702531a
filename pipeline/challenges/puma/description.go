package puma

import (
	"embed"
	"fmt"
	"strings"
	"text/template"
)

// descriptionFiles are the description.md texts the agents read, one per
// task, each a text/template over the track ({{.Track}}): the two tracks
// share one text.
//
//go:embed description-tissue.md description-nuclei.md
var descriptionFiles embed.FS

var descriptionTmpl = template.Must(template.New("").Option("missingkey=error").ParseFS(descriptionFiles, "description-*.md"))

func (c Challenge) description() string {
	name := "description-tissue.md"
	if c.task == Nuclei {
		name = "description-nuclei.md"
	}
	var b strings.Builder
	if err := descriptionTmpl.ExecuteTemplate(&b, name, struct{ Track int }{c.track}); err != nil {
		// The data is fixed by the variant: a failure is a template bug,
		// which the description test finds for every variant.
		panic(fmt.Sprintf("puma: description of %s: %v", c.id, err))
	}
	return b.String()
}
