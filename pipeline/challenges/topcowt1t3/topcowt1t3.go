// Package topcowt1t3 registers topcow-track1-task3, TopCoW 2024 CTA Circle-of-Willis variant (edge) classification (implemented in topcowcommon).
package topcowt1t3

import (
	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenges/topcowcommon"
)

// Challenge is topcow-track1-task3.
var Challenge = topcowcommon.New(topcowcommon.TopCoWT1T3)

func init() { challenge.Register(Challenge) }
