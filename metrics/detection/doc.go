// Package detection is a COCO bounding-box evaluator equivalent to
// pycocotools' COCOeval(…, 'bbox'): evaluate, accumulate and summarize, with
// per-image and per-category greedy matching in score order at each IoU
// threshold, 101-point interpolated precision, AP over IoU .50:.05:.95,
// AP50, AP75 and AR at maxDets {1, 10, 100}, over the four COCO area
// ranges, per category and averaged.
//
// # Entry points
//
// DefaultParams builds COCOeval's default parameters for a set of images and
// categories; Evaluate runs the evaluation and returns an Eval with
// COCOeval.stats (Eval.Stats), the precision and recall arrays and
// Eval.Summarize for any single statistic. IoU is pycocotools' bbIou. Pool
// re-accumulates the statistics of a resample of images (bootstrap) from the
// per-image records of one evaluation, without evaluating again.
//
// # Reference behaviour
//
// pycocotools 2.0.8 (metrics/REFERENCE-VERSIONS.md), the DENTEX grader's
// evaluator, number for number: the IoU and recall thresholds are computed
// as numpy.linspace computes them (Linspace; recall threshold 0.70 is
// 0.7000000000000001), so ties at a threshold resolve as in pycocotools, and
// the means are numpy's.
//
// # Conventions
//
//   - Boxes are COCO [x, y, width, height] in float64 pixels, with no +1
//     pixel convention. A detection's area is width·height; a truth's area
//     is its annotation's Area field (used for the area ranges).
//   - Ties: detections are sorted by descending score with a stable sort, so
//     equal scores keep their input order. A detection takes the unmatched
//     truth of highest IoU at or above the threshold, preferring truths that
//     are not ignored (crowd, or area outside the range) over ignored ones;
//     a crowd truth can absorb several detections, which are then ignored.
//   - Undefined statistics (a category with no truth, an area range with no
//     box) are −1, as in COCOeval.stats, and are left out of the means.
//   - A truth with ID 0 is consumed by a match but the detection counts as a
//     false positive, as in pycocotools.
//   - A detection on an image that is not evaluated is an error; detections
//     and truths of unregistered categories are ignored.
package detection
