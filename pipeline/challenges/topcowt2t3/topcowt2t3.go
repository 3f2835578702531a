// Package topcowt2t3 registers topcow-track2-task3, TopCoW 2024 MRA Circle-of-Willis variant (edge) classification (implemented in topcowcommon).
package topcowt2t3

import (
	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenges/topcowcommon"
)

// Challenge is topcow-track2-task3.
var Challenge = topcowcommon.New(topcowcommon.TopCoWT2T3)

func init() { challenge.Register(Challenge) }
