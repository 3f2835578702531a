// Package topcowt1t2 registers topcow-track1-task2, TopCoW 2024 CTA 3-D ROI box detection (implemented in topcowcommon).
package topcowt1t2

import (
	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenges/topcowcommon"
)

// Challenge is topcow-track1-task2.
var Challenge = topcowcommon.New(topcowcommon.TopCoWT1T2)

func init() { challenge.Register(Challenge) }
