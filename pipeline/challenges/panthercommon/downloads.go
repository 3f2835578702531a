package panthercommon

import "github.com/rexmle/rexmle/pipeline/challenge"

// Downloads is the task's own archive of the shared record.
func (t Task) Downloads() []challenge.Download {
	return []challenge.Download{{Source: "zenodo:15192302", Archive: t.ArchiveName, Holds: []string{t.Unpacked}}}
}

// Downloads implements challenge.Downloader.
func (c Challenge) Downloads() []challenge.Download { return c.Task.Downloads() }
