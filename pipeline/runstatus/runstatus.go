// Package runstatus names the statuses of an agent run, the words run.json
// and the store's runs table use: one place, with no dependencies, so the
// agent binary (which writes run.json) links neither the store nor SQLite.
package runstatus

// Status is the status of a run.
type Status string

// Run statuses.
const (
	Running     Status = "running"     // the agent is working
	Done        Status = "done"        // the agent finished in time
	Failed      Status = "failed"      // the agent or its sandbox failed
	TimedOut    Status = "timed_out"   // stopped at the time limit
	Interrupted Status = "interrupted" // the stage was stopped
	Invalid     Status = "invalid"     // graded: the submission could not be scored
	Recorded    Status = "recorded"    // a result the paper printed (no run here)
)
