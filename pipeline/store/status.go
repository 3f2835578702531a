package store

import (
	"github.com/rexmle/rexmle/pipeline/rank"
	"github.com/rexmle/rexmle/pipeline/runstatus"
)

// RunStatus is the status of a runs row (see pipeline/runstatus, where the
// words are defined once).
type RunStatus = runstatus.Status

// Run statuses, as the store's API names them.
const (
	RunRunning     = runstatus.Running
	RunDone        = runstatus.Done
	RunFailed      = runstatus.Failed
	RunTimedOut    = runstatus.TimedOut
	RunInterrupted = runstatus.Interrupted
	RunInvalid     = runstatus.Invalid
	RunRecorded    = runstatus.Recorded
)

// Statuses of a ranks row: rank.OK and rank.Fail from the ranking, and
// partial where the rank stage knows only a range (some positions unknown).
const (
	RankOK      = rank.OK
	RankFail    = rank.Fail
	RankPartial = "partial"
)
