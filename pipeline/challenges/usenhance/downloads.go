package usenhance

import "github.com/rexmle/rexmle/pipeline/challenge"

// Downloads is the training set on Google Drive (the reference also takes
// another *train* folder when train_datasets/ is absent).
func (Challenge) Downloads() []challenge.Download {
	return []challenge.Download{{Source: "gdrive:1RrM8YIwAENxzONSEaVZCzDkiiPMSmDxH", Archive: "train_dataset.zip",
		Holds: []string{rawTrainDir, "*train*", "*Train*"}}}
}
