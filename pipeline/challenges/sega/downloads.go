package sega

import "github.com/rexmle/rexmle/pipeline/challenge"

// Downloads are the article's per-hospital archives, each unpacked into a
// folder named after it (the article's single "download all" zip, holding
// the three, is unpacked first by extract).
func (Challenge) Downloads() []challenge.Download {
	var ds []challenge.Download
	for _, inst := range institutions {
		ds = append(ds, challenge.Download{Source: "figshare:14806362", Archive: inst.Name + ".zip", Holds: []string{inst.Name}, ToStem: true})
	}
	return ds
}
