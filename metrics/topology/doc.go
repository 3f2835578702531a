// Package topology holds the vessel-topology metrics of the TopCoW 2024 and
// TopBrain 2025 challenges: centreline Dice (clDice), per-label detection
// F1, Circle-of-Willis edge lists and variant classes derived from a
// segmentation, 3-D box IoU (plain, boundary-shell and grown-box forms) and
// the TopBrain invalid-neighbour error.
//
// # Entry points
//
//   - ClDice (Lee skeletons from metrics/skeleton), ClDiceFromSkeletons and
//     ClScore.
//   - DetectionCounts (Add, F1) and MeanF1: per-label detection over cases.
//   - LabelAdjacency, Adjacency, NeighbourTable with ValidNeighboursCT and
//     ValidNeighboursMR, InvalidNeighbours: TopBrain's neighbour check.
//   - CoWEdges, VariantClass, IntStrings and the TopCoW label constants.
//   - BoundingBox, BoundaryBoxIoU (official TopCoW) and GrownBoxIoU (the
//     ReX-MLE reference's variant).
//
// # Reference behaviour
//
// The ReX-MLE TopCoW and TopBrain graders and, where they differ, the
// official TopCoW evaluation (named on each function: BoundaryBoxIoU vs
// GrownBoxIoU, the skeleton.Order ClDice is given). Skeletons are
// scikit-image 0.25.2's skeletonize; the valid-neighbour tables are copies of
// the TopBrain JSON files in testdata, checked by a test.
//
// # Conventions
//
//   - Masks and label maps are flat slices in volume.Grid storage order
//     (axis 0 fastest); shapes are [3]int in the same order.
//   - Counts are voxel counts; no spacing enters these metrics.
//   - Empty cases: an empty skeleton scores 0 in ClScore, and clDice is 0
//     when both centreline scores are 0 (so a thick object predicted
//     perfectly can score 0); a label never present on either side has
//     detection F1 0; BoundingBox of an empty mask reports false; a box IoU
//     with an empty union is 0.
//   - Adjacency is 26-connectivity between distinct non-zero labels; the
//     array border has no neighbours. A label missing from a
//     NeighbourTable allows nothing.
//   - Detection: a label present in the truth is a TP when its IoU reaches
//     the threshold (inclusive).
package topology
