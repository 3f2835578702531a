// Package components labels the connected components of binary masks,
// counts them (Betti-0) and matches lesions as the ISLES'22 evaluation does.
//
// # Entry points
//
// Label numbers the components of a mask, Sizes counts their voxels, Count
// gives only their number, and MatchLesions compares a prediction with a
// truth lesion by lesion (LesionMatch: TP, FN, FP, F1, count difference).
// FindLesions and MatchFound split MatchLesions in two: each mask's lesions
// found on their own (say, as soon as that mask is read, while the other
// is), then matched; FindLesionsNonZero finds them on an 8-bit mask's
// bytes as stored (voxel i in the mask when byte i is not 0), with no bool
// copy.
//
// # Reference behaviour
//
// Label numbers components exactly as scipy.ndimage.label (scipy 1.13, see
// metrics/REFERENCE-VERSIONS.md) with the structure of the same
// connectivity: in the order of each component's first voxel in storage
// order, which is numpy's C order of the reversed-axes array. The ISLES'22
// lesion counts follow its evaluation, which labels with cc3d
// (connected-components-3d, connectivity 26, not pinned; the component sets
// do not depend on the numbering).
//
// # Conventions
//
//   - Masks are flat []bool in metrics/volume storage order (axis 0
//     fastest), laid out by a volume.Grid; a length that does not match the
//     grid is an error, as is an unknown connectivity.
//   - Connectivity is 4 or 8 on a 2-D grid (Shape[2] == 1), or 6 (faces),
//     18 (faces and edges) or 26 (faces, edges and corners) on any grid; on
//     a 2-D grid 6 acts as 4 and 18/26 as 8.
//   - Spacing is irrelevant to connectivity and ignored.
//   - An empty mask has no component: Count 0, Label all zero with n = 0.
//     Two empty masks match with F1 = 1 (TP + FP + FN = 0).
//   - Label 0 is background; labels run 1..n without gaps.
package components
