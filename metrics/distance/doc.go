// Package distance computes the surface-distance measures of segmentation
// evaluation on exact Euclidean distance transforms: MONAI-style edge
// distances (Hausdorff distance and its percentile forms) and DeepMind
// surface-distance style surfel distances with surfel areas (robust
// Hausdorff, average surface distance, surface Dice).
//
// # Entry points
//
// EdgeDistances and MONAIHausdorff reproduce MONAI get_mask_edges +
// get_surface_distance and the (percentile) Hausdorff distance the SEG.A.,
// TopCoW and TopBrain graders take from them. DeepMindSurfaceDistances
// reproduces compute_surface_distances, and its SurfaceDistances methods the
// DeepMind measures PANTHER reports (RobustHausdorff,
// AverageSurfaceDistance, MeanAverageSurfaceDistance, SurfaceDice).
// SurfelArea is one entry of DeepMind's neighbour-code area table.
//
// # Reference behaviour
//
// MONAI 1.4.0 and scipy 1.13 (metrics/REFERENCE-VERSIONS.md): edges are the
// mask minus its scipy binary_erosion (border value 0), distances come from
// an exact EDT (Felzenszwalb–Huttenlocher, separable) whose squared terms
// are summed in numpy axis order like scipy's distance_transform_edt, and
// are rounded to float32 as MONAI ≥ 1.3 does (MONAIOptions.Float32).
// Percentiles are numpy's linear ones (numpy 1.x rules on float32 data).
// The DeepMind measures follow google-deepmind/surface-distance (not
// pinned): surfels on the lattice of voxel corners, areas from its
// marching-cubes lookup table (normals_table.go, Apache-2.0, see NOTICE).
//
// # Conventions
//
//   - Masks are flat []bool in metrics/volume storage order (axis 0
//     fastest); the grid gives shape and spacing. Distances are in spacing
//     units (millimetres for medical images); UnitSpacing, or
//     MONAIOptions.VoxelUnits, gives voxel units.
//   - Where a reference library works on the numpy view (axes reversed), the
//     arithmetic is done in numpy axis order, so results agree to the bit.
//   - Empty masks: MONAI-style lists are empty when neither mask has an
//     edge (MONAIHausdorff → NaN) and hold +Inf when one side is empty
//     (the maximum is +Inf; a percentile below 100 is NaN, as numpy's
//     interpolation of Inf gives). DeepMind sides are empty for an empty
//     mask: Percentile → +Inf, Mean → NaN, SurfaceDice of two empty masks →
//     NaN. Graders decide these cases themselves before calling.
//   - Ties: DeepMind sides are sorted by distance, then area; a percentile
//     takes the first surfel whose cumulative area fraction reaches it.
//   - A mask whose length does not match the grid, or an invalid
//     connectivity, is an error; nothing panics.
package distance
