// Package topcowt2t1 registers topcow-track2-task1, TopCoW 2024 MRA multiclass Circle-of-Willis segmentation (implemented in topcowcommon).
package topcowt2t1

import (
	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenges/topcowcommon"
)

// Challenge is topcow-track2-task1.
var Challenge = topcowcommon.New(topcowcommon.TopCoWT2T1)

func init() { challenge.Register(Challenge) }
