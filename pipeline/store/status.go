package store

import "github.com/rexmle/rexmle/pipeline/runstatus"

// RunStatus is the status of a runs row (see pipeline/runstatus, where the
// words are defined once).
type RunStatus = runstatus.Status

// Run statuses, as the store's callers name them (the others are
// runstatus's own).
const (
	RunRunning  = runstatus.Running
	RunDone     = runstatus.Done
	RunFailed   = runstatus.Failed
	RunInvalid  = runstatus.Invalid
	RunRecorded = runstatus.Recorded
)

// rankPartial is the status of a ranks row where the rank stage knows only
// a range (some positions unknown); the others are rank.OK and rank.Fail.
const rankPartial = "partial"
