// Package topbrain2 registers topbrain-track2, TopBrain 2025 MRA multiclass brain vessel segmentation (implemented in topcowcommon).
package topbrain2

import (
	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenges/topcowcommon"
)

// Challenge is topbrain-track2.
var Challenge = topcowcommon.New(topcowcommon.TopBrain2)

func init() { challenge.Register(Challenge) }
