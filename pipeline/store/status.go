package store

import "github.com/rexmle/rexmle/pipeline/rank"

// RunStatus is the status of a runs row: every value a stage writes is one
// of the constants below (run.json uses the same words; see runner.Status*).
type RunStatus string

// Run statuses.
const (
	RunRunning     RunStatus = "running"     // the agent is working
	RunDone        RunStatus = "done"        // the agent finished in time
	RunFailed      RunStatus = "failed"      // the agent or its sandbox failed
	RunTimedOut    RunStatus = "timed_out"   // stopped at the time limit
	RunInterrupted RunStatus = "interrupted" // the stage was stopped
	RunInvalid     RunStatus = "invalid"     // graded: the submission could not be scored
	RunRecorded    RunStatus = "recorded"    // a result the paper printed (no run here)
)

// Statuses of a ranks row: rank.OK and rank.Fail from the ranking, and
// partial where the rank stage knows only a range (some positions unknown).
const (
	RankOK      = rank.OK
	RankFail    = rank.Fail
	RankPartial = "partial"
)
