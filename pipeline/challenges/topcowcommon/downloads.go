package topcowcommon

import "github.com/rexmle/rexmle/pipeline/challenge"

// Downloads is the family's single release archive, which wraps its
// folders in one top folder; they may also sit in the raw folder itself.
func (c Config) Downloads() []challenge.Download {
	src := "zenodo:15692630"
	if c.Family == TopBrain {
		src = "zenodo:16878417"
	}
	return []challenge.Download{{Source: src, Archive: c.archiveStem() + ".zip", Under: c.archiveStem(), Holds: []string{c.rawImagesDir()}}}
}
