// Package polygon rasterises polygon rings into label masks the way
// Pillow's ImageDraw.polygon does, and reads and writes the QuPath GeoJSON
// FeatureCollections that carry such polygons (PUMA annotations and
// submissions).
//
// # Entry points
//
// NewMask and Mask.FillPIL draw filled polygons into an 8-bit label image;
// ReadFeatureCollection and WriteFeatureCollection convert GeoJSON to and
// from Feature values (class name, name, geometry type, rings);
// Ring.VertexMean is the centroid the PUMA graders use.
//
// # Reference behaviour
//
// Pillow 11.1.0 (metrics/REFERENCE-VERSIONS.md; the rules hold from Pillow
// 10 on): ImageDraw.polygon(points, fill=v, outline=v) on an "L" image,
// including its float32 scan conversion, end-point and corner rules, and the
// absence of a separate outline when outline equals fill.
//
// # Conventions
//
//   - Pixel (x, y) is Mask.Pix[y*W+x]; vertices are truncated toward zero
//     (a C int cast) before drawing; pixels outside the mask are clipped;
//     later fills overwrite earlier ones; fewer than two vertices draw
//     nothing.
//   - Rings may be open or closed; VertexMean averages the listed vertices,
//     so a repeated closing vertex counts twice (ok is false for an empty
//     ring).
//   - GeoJSON vertices keep their first two numbers; geometries other than
//     Polygon and MultiPolygon keep no polygons; malformed JSON is an error
//     naming the feature.
package polygon
