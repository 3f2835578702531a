package polygon

import (
	"encoding/json"
	"fmt"
	"io"
)

// Ring is a closed or open list of (x, y) vertices in pixel coordinates.
type Ring [][2]float64

// Feature is one GeoJSON feature reduced to what the graders read.
type Feature struct {
	// ClassName is properties.classification.name ("" when absent or not a string).
	ClassName string
	// Name is properties.name ("" when absent or not a string).
	Name string
	// GeometryType is geometry.type ("Polygon", "MultiPolygon", …).
	GeometryType string
	// Polygons holds, for a Polygon one entry and for a MultiPolygon one per
	// member, the polygon's rings (exterior first, then holes). Other
	// geometry types have no polygons.
	Polygons [][]Ring
}

type rawFeature struct {
	Geometry *struct {
		Type        string          `json:"type"`
		Coordinates json.RawMessage `json:"coordinates"`
	} `json:"geometry"`
	Properties map[string]json.RawMessage `json:"properties"`
}

// ReadFeatureCollection decodes a GeoJSON FeatureCollection (a bare
// feature list is also accepted). Vertices keep only their first two
// numbers. Malformed JSON is an error naming the feature.
func ReadFeatureCollection(r io.Reader) ([]Feature, error) {
	var raw json.RawMessage
	if err := json.NewDecoder(r).Decode(&raw); err != nil {
		return nil, fmt.Errorf("geojson: %w", err)
	}
	var fc struct {
		Features []rawFeature `json:"features"`
	}
	if len(raw) > 0 && raw[0] == '[' {
		if err := json.Unmarshal(raw, &fc.Features); err != nil {
			return nil, fmt.Errorf("geojson: %w", err)
		}
	} else if err := json.Unmarshal(raw, &fc); err != nil {
		return nil, fmt.Errorf("geojson: %w", err)
	}
	out := make([]Feature, 0, len(fc.Features))
	for i, rf := range fc.Features {
		var f Feature
		if c, ok := rf.Properties["classification"]; ok {
			var cl struct {
				Name any `json:"name"`
			}
			if json.Unmarshal(c, &cl) == nil {
				f.ClassName, _ = cl.Name.(string)
			}
		}
		if n, ok := rf.Properties["name"]; ok {
			var s any
			if json.Unmarshal(n, &s) == nil {
				f.Name, _ = s.(string)
			}
		}
		if rf.Geometry != nil {
			f.GeometryType = rf.Geometry.Type
			switch rf.Geometry.Type {
			case "Polygon":
				var rings [][][]float64
				if err := json.Unmarshal(rf.Geometry.Coordinates, &rings); err != nil {
					return nil, fmt.Errorf("geojson: feature %d: polygon coordinates: %w", i, err)
				}
				f.Polygons = [][]Ring{toRings(rings)}
			case "MultiPolygon":
				var polys [][][][]float64
				if err := json.Unmarshal(rf.Geometry.Coordinates, &polys); err != nil {
					return nil, fmt.Errorf("geojson: feature %d: multipolygon coordinates: %w", i, err)
				}
				for _, p := range polys {
					f.Polygons = append(f.Polygons, toRings(p))
				}
			}
		}
		out = append(out, f)
	}
	return out, nil
}

func toRings(rings [][][]float64) []Ring {
	out := make([]Ring, len(rings))
	for i, r := range rings {
		ring := make(Ring, 0, len(r))
		for _, pt := range r {
			if len(pt) < 2 {
				continue
			}
			ring = append(ring, [2]float64{pt[0], pt[1]})
		}
		out[i] = ring
	}
	return out
}

// WriteFeatureCollection writes features as a QuPath-style GeoJSON
// FeatureCollection: each feature with a Polygon (one polygon) or
// MultiPolygon geometry, properties.objectType "annotation" and
// properties.classification {name, color}.
func WriteFeatureCollection(w io.Writer, features []Feature) error {
	type classification struct {
		Name  string `json:"name"`
		Color [3]int `json:"color"`
	}
	type props struct {
		ObjectType     string         `json:"objectType"`
		Classification classification `json:"classification"`
	}
	type geom struct {
		Type        string `json:"type"`
		Coordinates any    `json:"coordinates"`
	}
	type feat struct {
		Type       string `json:"type"`
		Geometry   geom   `json:"geometry"`
		Properties props  `json:"properties"`
	}
	fc := struct {
		Type     string `json:"type"`
		Features []feat `json:"features"`
	}{Type: "FeatureCollection", Features: []feat{}}
	for _, f := range features {
		g := geom{Type: f.GeometryType}
		switch f.GeometryType {
		case "Polygon":
			if len(f.Polygons) != 1 {
				return fmt.Errorf("geojson: Polygon feature with %d polygons", len(f.Polygons))
			}
			g.Coordinates = f.Polygons[0]
		case "MultiPolygon":
			g.Coordinates = f.Polygons
		default:
			return fmt.Errorf("geojson: cannot write geometry %q", f.GeometryType)
		}
		fc.Features = append(fc.Features, feat{Type: "Feature", Geometry: g,
			Properties: props{ObjectType: "annotation", Classification: classification{Name: f.ClassName, Color: [3]int{128, 128, 128}}}})
	}
	enc := json.NewEncoder(w)
	return enc.Encode(fc)
}

// VertexMean returns the arithmetic mean of the ring's listed vertices (x
// summed in listed order and divided by the count; same for y), the
// centroid the PUMA graders use: a repeated closing vertex counts twice,
// so the closed square (0,0),(10,0),(10,10),(0,10),(0,0) gives (4, 4).
// ok is false for an empty ring.
func (r Ring) VertexMean() (x, y float64, ok bool) {
	if len(r) == 0 {
		return 0, 0, false
	}
	for _, p := range r {
		x += p[0]
		y += p[1]
	}
	return x / float64(len(r)), y / float64(len(r)), true
}
