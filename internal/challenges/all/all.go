// Package all imports every challenge package so that each registers itself.
package all

import (
	_ "github.com/rexmle/rexmle/internal/challenges/cellseg"
	_ "github.com/rexmle/rexmle/internal/challenges/dentex"
	_ "github.com/rexmle/rexmle/internal/challenges/isles22"
	_ "github.com/rexmle/rexmle/internal/challenges/ldctiqa"
	_ "github.com/rexmle/rexmle/internal/challenges/panthertask1"
	_ "github.com/rexmle/rexmle/internal/challenges/panthertask2"
	_ "github.com/rexmle/rexmle/internal/challenges/puma"
	_ "github.com/rexmle/rexmle/internal/challenges/sega"
	_ "github.com/rexmle/rexmle/internal/challenges/topbrain1"
	_ "github.com/rexmle/rexmle/internal/challenges/topbrain2"
	_ "github.com/rexmle/rexmle/internal/challenges/topcowt1t1"
	_ "github.com/rexmle/rexmle/internal/challenges/topcowt1t2"
	_ "github.com/rexmle/rexmle/internal/challenges/topcowt1t3"
	_ "github.com/rexmle/rexmle/internal/challenges/topcowt2t1"
	_ "github.com/rexmle/rexmle/internal/challenges/topcowt2t2"
	_ "github.com/rexmle/rexmle/internal/challenges/topcowt2t3"
	_ "github.com/rexmle/rexmle/internal/challenges/usenhance"
)
