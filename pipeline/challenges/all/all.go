// Package all imports every challenge package so that each registers itself.
package all

import (
	_ "github.com/rexmle/rexmle/pipeline/challenges/cellseg"
	_ "github.com/rexmle/rexmle/pipeline/challenges/dentex"
	_ "github.com/rexmle/rexmle/pipeline/challenges/isles22"
	_ "github.com/rexmle/rexmle/pipeline/challenges/ldctiqa"
	_ "github.com/rexmle/rexmle/pipeline/challenges/panthercommon"
	_ "github.com/rexmle/rexmle/pipeline/challenges/puma"
	_ "github.com/rexmle/rexmle/pipeline/challenges/sega"
	_ "github.com/rexmle/rexmle/pipeline/challenges/topcowcommon"
	_ "github.com/rexmle/rexmle/pipeline/challenges/usenhance"
)
