// Package cellseg implements the neurips-cellseg challenge (NeurIPS 2022
// Cell Segmentation in multi-modality microscopy, Zenodo record 10719375):
// 2-D cell instance segmentation scored by the per-image F1 of instances
// matched at IoU thresholds 0.5 to 0.9, cells touching the 2-pixel image
// border removed from truth and prediction alike.
package cellseg

import (
	"github.com/rexmle/rexmle/pipeline/challenge"
)

// ID is the reference challenge id.
const ID = "neurips-cellseg"

// Thresholds are the IoU thresholds of the leaderboard columns.
var Thresholds = []float64{0.5, 0.6, 0.7, 0.8, 0.9}

// MetricNames are the leaderboard columns, in Thresholds order.
var MetricNames = []string{"f1_0.5", "f1_0.6", "f1_0.7", "f1_0.8", "f1_0.9"}

// Challenge is neurips-cellseg.
type Challenge struct{}

func init() { challenge.Register(Challenge{}) }

// ID returns "neurips-cellseg".
func (Challenge) ID() string { return ID }

// Metrics lists the five ranked F1 columns.
func (Challenge) Metrics() []challenge.MetricCard {
	cards := make([]challenge.MetricCard, len(MetricNames))
	for i, n := range MetricNames {
		cards[i] = challenge.MetricCard{Name: n, Direction: challenge.HigherBetter, Ranked: true,
			Card: "Mean over submitted rows of the per-image instance F1 at IoU ≥ " + n[3:] + ": cells with a pixel in the 2-px border band removed from truth and prediction, one-to-one Hungarian matching, F1 = 0 when no true positive (also for an empty truth); images of ≥ 25 M pixels scored in 2000-px tiles. Official mode rounds each image's F1 to 4 decimals before averaging. Both modes read a .tif/.tiff mask as TIFF (all pages; content must be TIFF, as tifffile) and any other file by content as Pillow does (PNG, BMP, JPEG, GIF first frame, binary PBM/PGM/PPM, still WebP; palette images as indices; PNGs accepted as Pillow accepts them: IDAT and later CRCs unchecked, data after the last row ignored); other formats are refused."}
	}
	return cards
}

// Quirks lists where the reference departs from the official script.
func (Challenge) quirks() []challenge.Quirk {
	return []challenge.Quirk{{ID: "per-image-f1-rounding", Metrics: MetricNames,
		Reference: "per-image F1 averaged unrounded",
		Official:  "each image's F1 rounded with np.round(f1, 4) (compute_metric.py) before averaging"}, {
		ID: "resize-mismatched-mask", Metrics: MetricNames,
		Reference: "a mask of another size than its image is cast to uint16 and resized to the image's size with Pillow's nearest neighbour (16-bit mode), then scored",
		Official:  "the organisers' script has no resize: a mask of another size raises in its Dice (shapes that do not broadcast), which drops the image from its mean, or is read out of bounds by its overlap count (shapes that broadcast, e.g. H×1); official mode refuses such a submission instead"}}
}

// Quirks lists where the reference grader departs from the official
// evaluation, the id rule included.
func (c Challenge) Quirks() []challenge.Quirk {
	return append(c.quirks(), challenge.IDRuleQuirk("every row is scored, so a repeated id weighs more; ids that are not test images and missing test images make the submission invalid", challenge.RankedNames(c.Metrics())))
}
