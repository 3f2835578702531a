package isles22

import "github.com/rexmle/rexmle/pipeline/challenge"

// Downloads is the record's dataset archive; its unpacked tree may also sit
// under the other names the reference accepts, or loose in the raw folder.
func (Challenge) Downloads() []challenge.Download {
	return []challenge.Download{{Source: "zenodo:7960856", Archive: archiveName,
		Holds: []string{"ISLES-2022", "ISLES", "isles22", "dataset", "sub-strokecase*"}}}
}
