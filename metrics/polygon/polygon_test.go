package polygon

import (
	"bytes"
	"strings"
	"testing"
)

func count(m *Mask, v uint8) int {
	n := 0
	for _, p := range m.Pix {
		if p == v {
			n++
		}
	}
	return n
}

func TestFillPIL(t *testing.T) {
	cases := []struct {
		name   string
		xs, ys []float64
		// want lists, per row 0..len-1, the inclusive filled column range (−1,−1 for none).
		want [][2]int
	}{
		// puma-track1-task1 §3.4: fractional square fills rows/cols 0–3 (truncation, not rounding).
		{"fractional square truncates", []float64{0.5, 3.4, 3.4, 0.5}, []float64{0.5, 0.5, 3.4, 3.4}, [][2]int{{0, 3}, {0, 3}, {0, 3}, {0, 3}, {-1, -1}}},
		{"closed integer square", []float64{2, 5, 5, 2, 2}, []float64{1, 1, 4, 4, 1}, [][2]int{{-1, -1}, {2, 5}, {2, 5}, {2, 5}, {2, 5}, {-1, -1}}},
		// Right triangle: every row filled from x=0 to the diagonal, inclusive.
		{"triangle", []float64{0, 4, 0}, []float64{0, 0, 4}, [][2]int{{0, 4}, {0, 3}, {0, 2}, {0, 1}, {0, 0}, {-1, -1}}},
		{"clipped at negative coordinates", []float64{-3, 2, 2, -3}, []float64{-3, -3, 1, 1}, [][2]int{{0, 2}, {0, 2}, {-1, -1}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := NewMask(8, 8)
			m.FillPIL(tc.xs, tc.ys, 3)
			for y, r := range tc.want {
				for x := 0; x < 8; x++ {
					in := x >= r[0] && x <= r[1] && r[0] >= 0
					got := m.Pix[y*8+x] == 3
					if got != in {
						t.Errorf("pixel (x=%d,y=%d) filled=%v, want %v", x, y, got, in)
					}
				}
			}
		})
	}
}

func TestFillPILOverwritesAndIgnoresShortRings(t *testing.T) {
	m := NewMask(10, 10)
	m.FillPIL([]float64{0, 9, 9, 0}, []float64{0, 0, 9, 9}, 1)
	m.FillPIL([]float64{2, 3, 3, 2}, []float64{2, 2, 3, 3}, 5)
	m.FillPIL([]float64{7}, []float64{7}, 4)
	if count(m, 1) != 96 || count(m, 5) != 4 || count(m, 4) != 0 {
		t.Errorf("counts 1:%d 5:%d 4:%d, want 96 4 0", count(m, 1), count(m, 5), count(m, 4))
	}
}

const sample = `{"type":"FeatureCollection","features":[
 {"type":"Feature","geometry":{"type":"Polygon","coordinates":[[[0,0],[10,0],[10,10],[0,0]],[[1,1],[2,1],[2,2],[1,1]]]},
  "properties":{"objectType":"annotation","classification":{"name":"tissue_stroma","color":[1,2,3]}}},
 {"type":"Feature","geometry":{"type":"MultiPolygon","coordinates":[[[[0,0,5],[1,0],[1,1]]],[[[5,5],[6,5],[6,6]]]]},
  "properties":{"name":"Tumor"}},
 {"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":{}}
]}`

func TestReadFeatureCollection(t *testing.T) {
	fs, err := ReadFeatureCollection(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 3 {
		t.Fatalf("%d features", len(fs))
	}
	if fs[0].ClassName != "tissue_stroma" || fs[0].GeometryType != "Polygon" || len(fs[0].Polygons) != 1 || len(fs[0].Polygons[0]) != 2 || len(fs[0].Polygons[0][0]) != 4 {
		t.Errorf("feature 0: %+v", fs[0])
	}
	if fs[1].ClassName != "" || fs[1].Name != "Tumor" || len(fs[1].Polygons) != 2 || fs[1].Polygons[0][0][0] != [2]float64{0, 0} {
		t.Errorf("feature 1: %+v", fs[1])
	}
	if fs[2].GeometryType != "Point" || len(fs[2].Polygons) != 0 {
		t.Errorf("feature 2: %+v", fs[2])
	}
	if _, err := ReadFeatureCollection(strings.NewReader(`{"features":[{"geometry":{"type":"Polygon","coordinates":"x"}}]}`)); err == nil {
		t.Error("bad coordinates accepted")
	}
}

func TestWriteReadRoundTrip(t *testing.T) {
	in := []Feature{{ClassName: "tissue_tumor", GeometryType: "Polygon", Polygons: [][]Ring{{{{1, 2}, {3, 4}, {5, 6}, {1, 2}}}}}}
	var b bytes.Buffer
	if err := WriteFeatureCollection(&b, in); err != nil {
		t.Fatal(err)
	}
	out, err := ReadFeatureCollection(&b)
	if err != nil || len(out) != 1 || out[0].ClassName != "tissue_tumor" || out[0].Polygons[0][0][2] != [2]float64{5, 6} {
		t.Errorf("round trip: %+v %v", out, err)
	}
}

func TestVertexMean(t *testing.T) {
	x, y, ok := Ring{{0, 0}, {10, 0}, {10, 10}, {0, 10}, {0, 0}}.VertexMean()
	if !ok || x != 4 || y != 4 {
		t.Errorf("closed square: (%v, %v, %v), want (4, 4)", x, y, ok)
	}
	x, y, ok = Ring{{0, 0}, {10, 0}, {10, 10}, {0, 10}}.VertexMean()
	if !ok || x != 5 || y != 5 {
		t.Errorf("open square: (%v, %v, %v), want (5, 5)", x, y, ok)
	}
	if _, _, ok := (Ring{}).VertexMean(); ok {
		t.Error("empty ring gave a centroid")
	}
}
