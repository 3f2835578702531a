package puma

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rexmle/rexmle/pipeline/fsutil"

	"github.com/rexmle/rexmle/metrics/polygon"
	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenge/split"
)

// Private folder layout: the reference answers at the reference's paths,
// the answers the challenge meant under official/.
const (
	officialDir = "official"
	answersCSV  = "test_labels.csv"
)

// rawRoot finds the shared PUMA folder: rawDir itself when it holds the ROI
// folder or its archive (the raw folder rexmle fills, data/raw/puma-shared),
// else the reference's shared location <rawDir>/../../puma-shared/raw when
// that holds the ROI folder; it then makes the task's downloads available
// unpacked there (see challenge.EnsureDownloads).
func (c Challenge) rawRoot(rawDir string) (string, error) {
	root := rawDir
	if len(challenge.CheckDownloads(rawDir, c.Downloads())) > 0 {
		if alt := filepath.Join(rawDir, "..", "..", "puma-shared", "raw"); len(challenge.CheckDownloads(alt, c.Downloads())) == 0 {
			root = alt
		}
	}
	if err := challenge.EnsureDownloads(c.ID(), root, c.Downloads()); err != nil {
		return "", err
	}
	return root, nil
}

// labelSuffix is the GeoJSON suffix the task reads.
func (c Challenge) labelSuffix() string {
	if c.task == Tissue {
		return "_tissue.geojson"
	}
	return "_nuclei.geojson"
}

func (c Challenge) labelDir() string {
	if c.task == Tissue {
		return tissueDir
	}
	return nucleiDir
}

// findLabel returns the GeoJSON of a case: in the label folder, or loose in
// the raw root (the reference moves loose files into the folder).
func (c Challenge) findLabel(root, id string) (string, bool) {
	for _, p := range []string{filepath.Join(root, c.labelDir(), id+c.labelSuffix()), filepath.Join(root, id+c.labelSuffix())} {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			return p, true
		}
	}
	return "", false
}

// cases lists the case ids with an ROI and a label file, sorted bytewise.
func (c Challenge) cases(root string) ([]string, error) {
	ents, err := os.ReadDir(filepath.Join(root, roiDir))
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, e := range ents {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".tif") {
			continue
		}
		id := strings.TrimSuffix(e.Name(), ".tif")
		if _, ok := c.findLabel(root, id); ok {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	if len(ids) < 2 {
		return nil, fmt.Errorf("puma: %d cases with an ROI and a %s file in %s, need at least 2", len(ids), c.labelSuffix(), root)
	}
	return ids, nil
}

// Split returns the reference split of the sorted case ids:
// train_test_split(test_size=0.2, random_state=42, shuffle=True).
func Split(ids []string) (train, test []string) { return split.TrainTest(ids, 0.2, 42) }

func readFeatures(path string) ([]polygon.Feature, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fs, err := polygon.ReadFeatureCollection(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return fs, nil
}

// Prepare writes public/ and private/ as the reference preparer does, plus
// private/official/ with the answers rasterised or converted with the real
// class names.
func (c Challenge) Prepare(ctx context.Context, rawDir, dataDir string) error {
	root, err := c.rawRoot(rawDir)
	if err != nil {
		return err
	}
	ids, err := c.cases(root)
	if err != nil {
		return err
	}
	train, test := Split(ids)
	pub, priv := filepath.Join(dataDir, "public"), filepath.Join(dataDir, "private")
	for _, id := range train {
		if err := ctx.Err(); err != nil {
			return err
		}
		lab, _ := c.findLabel(root, id)
		if err := fsutil.CopyFile(filepath.Join(root, roiDir, id+".tif"), filepath.Join(pub, "train", "images", id+".tif")); err != nil {
			return err
		}
		if err := fsutil.CopyFile(lab, filepath.Join(pub, "train", "labels", id+c.labelSuffix())); err != nil {
			return err
		}
	}
	var sample, answers [][]string
	for _, id := range test {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fsutil.CopyFile(filepath.Join(root, roiDir, id+".tif"), filepath.Join(pub, "test", "images", id+".tif")); err != nil {
			return err
		}
		lab, _ := c.findLabel(root, id)
		feats, err := readFeatures(lab)
		if err != nil {
			return err
		}
		var labelRel string
		if c.task == Tissue {
			labelRel = "test/labels/" + id + ".tif"
			if err := writeMaskTIFF(filepath.Join(priv, labelRel), RasterizeTissue(feats, false)); err != nil {
				return err
			}
			if err := writeMaskTIFF(filepath.Join(priv, officialDir, labelRel), RasterizeTissue(feats, true)); err != nil {
				return err
			}
			sample = append(sample, []string{id, "predictions/" + id + ".tif"})
		} else {
			labelRel = "test/labels/" + id + "_nuclei.json"
			if err := writeJSON(filepath.Join(priv, labelRel), c.ConvertNuclei(feats, false)); err != nil {
				return err
			}
			if err := writeJSON(filepath.Join(priv, officialDir, labelRel), c.ConvertNuclei(feats, true)); err != nil {
				return err
			}
			sample = append(sample, []string{id, "predictions/" + id + ".json"})
		}
		answers = append(answers, []string{id, "test/images/" + id + ".tif", labelRel})
	}
	if err := challenge.WriteCSV(filepath.Join(priv, answersCSV), []string{"case_id", "image_path", "label_path"}, answers); err != nil {
		return err
	}
	if err := challenge.WriteCSV(filepath.Join(pub, "sample_submission.csv"), []string{"case_id", c.pathColumn()}, sample); err != nil {
		return err
	}
	return challenge.WriteFileAtomic(filepath.Join(pub, "description.md"), []byte(c.description()))
}

func (c Challenge) pathColumn() string {
	if c.task == Tissue {
		return "predicted_mask_path"
	}
	return "predicted_nuclei_path"
}

// Reference tissue table (lower-cased names) and the official one.
var (
	refTissueTable = map[string]uint8{"stroma": 1, "stromal": 1, "blood vessel": 2, "blood_vessel": 2, "tumor": 3, "epidermis": 4, "necrosis": 5}
	offTissueTable = map[string]uint8{"tissue_white_background": 0, "tissue_stroma": 1, "tissue_blood_vessel": 2, "tissue_tumor": 3, "tissue_epidermis": 4, "tissue_necrosis": 5}
	// officialTissueTable accepts the real names and the reference's.
	officialTissueTable = mergeTissue(offTissueTable, refTissueTable)
)

func mergeTissue(a, b map[string]uint8) map[string]uint8 {
	out := map[string]uint8{}
	for k, v := range b {
		out[k] = v
	}
	for k, v := range a {
		out[k] = v
	}
	return out
}

// RasterizeTissue draws the features into a 1024 × 1024 label mask in file
// order (later features overwrite earlier ones), exterior rings only, rings
// under 3 points skipped, with Pillow's polygon fill. The class comes from
// the lower-cased classification name (falling back to properties.name).
// official=false uses the reference table (stroma, blood vessel, tumor,
// epidermis, necrosis — which matches no real PUMA name, so real files give
// an all-zero mask); official=true uses the real tissue_* names (and also
// accepts the reference's names).
func RasterizeTissue(feats []polygon.Feature, official bool) *polygon.Mask {
	m := polygon.NewMask(Size, Size)
	table := refTissueTable
	if official {
		table = officialTissueTable
	}
	for _, f := range feats {
		name := strings.ToLower(f.ClassName)
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		lab, ok := table[name]
		if !ok {
			continue
		}
		if f.GeometryType != "Polygon" && f.GeometryType != "MultiPolygon" {
			continue
		}
		for _, p := range f.Polygons {
			if len(p) == 0 || len(p[0]) < 3 {
				continue
			}
			xs, ys := ringXY(p[0])
			m.FillPIL(xs, ys, lab)
		}
	}
	return m
}

// Reference nuclei tables (lower-cased raw name → truth name); names not
// in the table pass through unchanged.
var (
	refNucleiTrack1 = map[string]string{"nuclei_tumor": "tumor", "nuclei_lymphocytes": "TILs", "nuclei_plasma_cells": "TILs",
		"nuclei_histiocytes": "other", "nuclei_melanophages": "other", "nuclei_neutrophils": "other", "nuclei_stromal_cells": "other",
		"nuclei_epithelium": "other", "nuclei_endothelium": "other", "nuclei_apoptotic_cells": "other"}
	refNucleiTrack2 = map[string]string{"nuclei_tumor": "tumor", "nuclei_lymphocytes": "lymphocytes", "nuclei_plasma_cells": "plasma_cells",
		"nuclei_histiocytes": "histiocytes", "nuclei_melanophages": "melanophages", "nuclei_neutrophils": "neutrophils",
		"nuclei_stromal_cells": "stromal_cells", "nuclei_epithelium": "epithelium", "nuclei_endothelium": "endothelium",
		"nuclei_apoptotic_cells": "apoptotic_cells"}
	// Official: the real singular names (and the plural ones) mapped.
	offNucleiTrack1 = map[string]string{"nuclei_tumor": "tumor", "nuclei_lymphocyte": "TILs", "nuclei_plasma_cell": "TILs",
		"nuclei_histiocyte": "other", "nuclei_melanophage": "other", "nuclei_neutrophil": "other", "nuclei_stroma": "other",
		"nuclei_epithelium": "other", "nuclei_endothelium": "other", "nuclei_apoptosis": "other"}
	offNucleiTrack2 = map[string]string{"nuclei_tumor": "tumor", "nuclei_lymphocyte": "lymphocytes", "nuclei_plasma_cell": "plasma_cells",
		"nuclei_histiocyte": "histiocytes", "nuclei_melanophage": "melanophages", "nuclei_neutrophil": "neutrophils",
		"nuclei_stroma": "stromal_cells", "nuclei_epithelium": "epithelium", "nuclei_endothelium": "endothelium",
		"nuclei_apoptosis": "apoptotic_cells"}
)

// PolygonItem is one entry of the "Multiple Polygons" JSON.
type PolygonItem struct {
	Name       string       `json:"name"`
	PathPoints [][2]float64 `json:"path_points"`
	Score      float64      `json:"score"`
}

// PolygonFile is the "Multiple Polygons" JSON document.
type PolygonFile struct {
	Polygons []PolygonItem `json:"polygons"`
}

// ConvertNuclei turns a nuclei FeatureCollection into the truth JSON: per
// feature in order, the lower-cased classification name looked up in the
// track's table (reference: keyed on plural names, unknown names kept
// as they are; official: the real names mapped, the plural ones too),
// Polygon geometries only, the whole exterior ring (closing vertex
// included), rings under 3 points and empty names skipped, score 1.
func (c Challenge) ConvertNuclei(feats []polygon.Feature, official bool) PolygonFile {
	var table map[string]string
	switch {
	case c.track == 1 && official:
		table = mergeTables(offNucleiTrack1, refNucleiTrack1)
	case c.track == 1:
		table = refNucleiTrack1
	case official:
		table = mergeTables(offNucleiTrack2, refNucleiTrack2)
	default:
		table = refNucleiTrack2
	}
	out := PolygonFile{Polygons: []PolygonItem{}}
	for _, f := range feats {
		name := strings.ToLower(f.ClassName)
		if t, ok := table[name]; ok {
			name = t
		}
		if name == "" || f.GeometryType != "Polygon" || len(f.Polygons) != 1 || len(f.Polygons[0]) == 0 || len(f.Polygons[0][0]) < 3 {
			continue
		}
		out.Polygons = append(out.Polygons, PolygonItem{Name: name, PathPoints: f.Polygons[0][0], Score: 1})
	}
	return out
}

func mergeTables(a, b map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range b {
		out[k] = v
	}
	for k, v := range a {
		out[k] = v
	}
	return out
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return challenge.WriteFileAtomic(path, append(b, '\n'))
}

// testIDs reads the case ids from public/sample_submission.csv.
func testIDs(publicDir string) ([]string, error) {
	t, err := challenge.ReadCSV(filepath.Join(publicDir, "sample_submission.csv"))
	if err != nil {
		return nil, fmt.Errorf("read sample submission: %w", err)
	}
	return t.Column("case_id")
}
