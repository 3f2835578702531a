// Package topcowt1t1 registers topcow-track1-task1, TopCoW 2024 CTA
// multiclass Circle-of-Willis segmentation (implemented in topcowcommon).
package topcowt1t1

import (
	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenges/topcowcommon"
)

// Challenge is topcow-track1-task1.
var Challenge = topcowcommon.New(topcowcommon.TopCoWT1T1)

func init() { challenge.Register(Challenge) }
