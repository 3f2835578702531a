package cellseg

import _ "embed"

// description is the agent-facing description.md.
//
//go:embed description.md
var description string
