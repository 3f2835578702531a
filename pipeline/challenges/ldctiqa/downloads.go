package ldctiqa

import "github.com/rexmle/rexmle/pipeline/challenge"

// Downloads are the training set on Zenodo and the labelled test set on
// Google Drive, each a zip holding one top folder.
func (Challenge) Downloads() []challenge.Download {
	return []challenge.Download{
		{Source: "zenodo:7833096", Archive: trainDir + ".zip", Holds: []string{trainDir}},
		{Source: "gdrive:1DbZfTj4it-3QRTuJO73r1iQyHLRwPS6H", Archive: "test_dataset.zip", Holds: []string{testDir}},
	}
}
