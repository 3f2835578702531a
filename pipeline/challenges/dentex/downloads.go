package dentex

import "github.com/rexmle/rexmle/pipeline/challenge"

// Downloads is the record's training archive (its validation and test
// archives are not used).
func (Challenge) Downloads() []challenge.Download {
	return []challenge.Download{{Source: "zenodo:7812323", Archive: trainingDir + ".zip", Holds: []string{trainingDir}}}
}
