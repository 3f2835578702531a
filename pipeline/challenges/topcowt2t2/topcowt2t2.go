// Package topcowt2t2 registers topcow-track2-task2, TopCoW 2024 MRA 3-D ROI box detection (implemented in topcowcommon).
package topcowt2t2

import (
	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenges/topcowcommon"
)

// Challenge is topcow-track2-task2.
var Challenge = topcowcommon.New(topcowcommon.TopCoWT2T2)

func init() { challenge.Register(Challenge) }
