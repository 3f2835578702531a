// Package ldctiqa is the LDCTIQAC 2023 challenge (id "ldct-iqa"):
// no-reference perceptual quality assessment of low-dose CT slices. Agents
// regress the radiologists' mean quality score of each test slice; the grader
// correlates predictions with the truth (|PLCC| + |SROCC| + |KROCC|).
package ldctiqa

import (
	"github.com/rexmle/rexmle/pipeline/challenge"
)

// ID is the challenge id.
const ID = "ldct-iqa"

// Raw layout (the Zenodo training archive and the Drive test archive).
const (
	trainDir   = "LDCTIQAG2023_train"
	trainJSON  = "train.json"
	trainImage = "image"
	testDir    = "LDCTIQAC_test"
	testJSON   = "test.json"
	testImages = "images"
)

// Column names of every CSV.
const (
	colID    = "image_id"
	colScore = "quality_score"
)

// Challenge implements challenge.Challenge for ldct-iqa.
type Challenge struct{}

func init() { challenge.Register(Challenge{}) }

// ID returns "ldct-iqa".
func (Challenge) ID() string { return ID }

// Metrics lists score (the only leaderboard column) then its three parts.
func (Challenge) Metrics() []challenge.MetricCard {
	return []challenge.MetricCard{
		{Name: "score", Direction: challenge.HigherBetter, Ranked: true,
			Card: "|PLCC| + |SROCC| + |KROCC (tau-b)| between predicted and radiologist scores, pooled over all test slices (0–3); NaN when the predictions (or truths) are constant — the reference still counts such a submission as valid"},
		{Name: "plcc", Direction: challenge.HigherBetter,
			Card: "|Pearson r| (scipy pearsonr, float64); NaN for constant input"},
		{Name: "srocc", Direction: challenge.HigherBetter,
			Card: "|Spearman rho|, ties given their average rank (scipy spearmanr); NaN for constant input"},
		{Name: "krocc", Direction: challenge.HigherBetter,
			Card: "|Kendall tau-b| (scipy kendalltau default, ties corrected); NaN when all values of one side tie"},
	}
}

// Quirks is empty: the reference formula (absolute PLCC + SROCC + KROCC with
// scipy defaults) is the challenge's own.
func (c Challenge) Quirks() []challenge.Quirk {
	return []challenge.Quirk{challenge.IDRuleQuirk("ids that are not test cases are ignored and the merge must give one pair per test case (pandas inner merge): a missing test id makes the submission invalid unless a repeated one makes up the count, and then the repeated id is scored once per row; a repeated id alone is invalid; text ids are matched exactly as written, blanks included", challenge.RankedNames(c.Metrics()))}
}
