// Package topbrain1 registers topbrain-track1, TopBrain 2025 CTA multiclass brain vessel segmentation (implemented in topcowcommon).
package topbrain1

import (
	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenges/topcowcommon"
)

// Challenge is topbrain-track1.
var Challenge = topcowcommon.New(topcowcommon.TopBrain1)

func init() { challenge.Register(Challenge) }
