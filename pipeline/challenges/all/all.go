// Package all imports every challenge package so that each registers itself.
package all

import (
	_ "github.com/rexmle/rexmle/pipeline/challenges/cellseg"
	_ "github.com/rexmle/rexmle/pipeline/challenges/dentex"
	_ "github.com/rexmle/rexmle/pipeline/challenges/isles22"
	_ "github.com/rexmle/rexmle/pipeline/challenges/ldctiqa"
	_ "github.com/rexmle/rexmle/pipeline/challenges/panthertask1"
	_ "github.com/rexmle/rexmle/pipeline/challenges/panthertask2"
	_ "github.com/rexmle/rexmle/pipeline/challenges/puma"
	_ "github.com/rexmle/rexmle/pipeline/challenges/sega"
	_ "github.com/rexmle/rexmle/pipeline/challenges/topbrain1"
	_ "github.com/rexmle/rexmle/pipeline/challenges/topbrain2"
	_ "github.com/rexmle/rexmle/pipeline/challenges/topcowt1t1"
	_ "github.com/rexmle/rexmle/pipeline/challenges/topcowt1t2"
	_ "github.com/rexmle/rexmle/pipeline/challenges/topcowt1t3"
	_ "github.com/rexmle/rexmle/pipeline/challenges/topcowt2t1"
	_ "github.com/rexmle/rexmle/pipeline/challenges/topcowt2t2"
	_ "github.com/rexmle/rexmle/pipeline/challenges/topcowt2t3"
	_ "github.com/rexmle/rexmle/pipeline/challenges/usenhance"
)
