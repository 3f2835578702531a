package polygon_test

import (
	"fmt"
	"strings"

	"github.com/rexmle/rexmle/metrics/polygon"
)

func show(m *polygon.Mask) {
	for y := 0; y < m.H; y++ {
		var b strings.Builder
		for _, v := range m.Pix[y*m.W : (y+1)*m.W] {
			fmt.Fprint(&b, v)
		}
		fmt.Println(b.String())
	}
}

// Pillow draws a polygon with its outline: the rectangle with corners
// (1, 1) and (4, 3) covers columns 1–4 of rows 1–3, both ends included. A
// later fill overwrites; vertices are truncated toward zero first, so the
// right triangle (0, 0), (3.9, 0), (0, 3.9) is the one with legs of 3.
func ExampleMask_FillPIL() {
	m := polygon.NewMask(7, 5)
	m.FillPIL([]float64{1, 4, 4, 1}, []float64{1, 1, 3, 3}, 1)
	m.FillPIL([]float64{0, 3.9, 0}, []float64{0, 0, 3.9}, 2)
	show(m)
	// Output:
	// 2222000
	// 2221100
	// 2211100
	// 2111100
	// 0000000
}

// A QuPath GeoJSON export: the classification name and the rings are what
// the PUMA graders read; VertexMean is their centroid, which counts the
// repeated closing vertex twice.
func ExampleReadFeatureCollection() {
	const geojson = `{"type": "FeatureCollection", "features": [{
	  "type": "Feature",
	  "geometry": {"type": "Polygon", "coordinates": [[[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]]]},
	  "properties": {"objectType": "annotation", "classification": {"name": "nuclei_tumor"}}
	}]}`
	fs, err := polygon.ReadFeatureCollection(strings.NewReader(geojson))
	if err != nil {
		fmt.Println(err)
		return
	}
	f := fs[0]
	x, y, _ := f.Polygons[0][0].VertexMean()
	fmt.Println(f.ClassName, f.GeometryType, len(f.Polygons[0][0]), x, y)
	// Output: nuclei_tumor Polygon 5 4 4
}
