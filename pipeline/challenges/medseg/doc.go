// Package medseg holds the plumbing shared by the 3-D medical segmentation
// challenges (isles22, panther-task1/2, seg_a): safe file copies and zip
// extraction for preparers, submission-CSV parsing with the reference's id
// rules, the reference's suffix-dispatched image loader conventions, a
// bounded parallel loop, and the blob/tube painters the synthesizers use.
//
// It holds no metric math: overlap, distances, components and resizing come
// from the metrics packages.
package medseg
