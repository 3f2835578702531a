package dentex

import (
	"fmt"

	"github.com/rexmle/rexmle/internal/challenge"
)

// CaseStatistic reports that no DENTEX metric can be recomputed over a
// resample of images: COCO AP and AR rank every detection of every image
// together (per category and IoU threshold), and Grade stores only the box
// counts per image, not the per-detection scores and matches a resample
// would re-accumulate.
func (Challenge) CaseStatistic(metric string, cases []challenge.Case) (func(idx []int) float64, error) {
	return nil, fmt.Errorf("%s: %w (COCO %s pools the detections of all images; per-detection scores and matches are not stored per image)", ID, challenge.ErrNotAMean, metric)
}
