package cellseg

import "github.com/rexmle/rexmle/pipeline/challenge"

const cellsegSource = "zenodo:10719375"

// Downloads are the record's labelled training, tuning and testing
// archives; its two unlabelled archives (most of its 21 GB) are not read.
func (Challenge) Downloads() []challenge.Download {
	return []challenge.Download{
		{Source: cellsegSource, Archive: trainDir + ".zip", Holds: []string{trainDir}},
		{Source: cellsegSource, Archive: tuningDir + ".zip", Holds: []string{tuningDir}},
		{Source: cellsegSource, Archive: testingDir + ".zip", Holds: []string{testingDir}},
		{Source: cellsegSource, Archive: "train-unlabeled-part1.zip", Holds: []string{"release-part1"}, Optional: true},
		{Source: cellsegSource, Archive: "train-unlabeled-part2.zip", Holds: []string{"train-unlabeled-part2"}, Optional: true},
	}
}
