package puma

import (
	"fmt"
	"strings"
)

func (c Challenge) description() string {
	var b strings.Builder
	track := fmt.Sprintf("Track %d", c.track)
	if c.task == Tissue {
		fmt.Fprintf(&b, "# PUMA %s, Task 1: tissue segmentation in melanoma H&E\n\n", track)
		b.WriteString(`You get regions of interest (ROIs) cut from H&E-stained whole-slide images of
primary and metastatic melanoma (40x, about 0.23 µm per pixel). Each ROI is a
1024 × 1024 RGB(A) TIFF. Label every pixel with its tissue class.

## Data

- ` + "`train/images/<case_id>.tif`" + ` — training ROIs.
- ` + "`train/labels/<case_id>_tissue.geojson`" + ` — the tissue annotations as exported
  by QuPath: a GeoJSON FeatureCollection whose features carry a Polygon or
  MultiPolygon in pixel coordinates and a class in
  ` + "`properties.classification.name`" + `. You rasterise them yourself. Names:
  ` + "`tissue_white_background`, `tissue_stroma`, `tissue_blood_vessel`, `tissue_tumor`, `tissue_epidermis`, `tissue_necrosis`" + `.
- ` + "`test/images/<case_id>.tif`" + ` — the ROIs to segment.
- ` + "`sample_submission.csv`" + ` — one row per test case.

## Labels to predict

0 background, 1 stroma, 2 blood vessel, 3 tumor, 4 epidermis, 5 necrosis.

## Submission

` + "`submission.csv`" + ` with columns ` + "`case_id`" + ` and ` + "`predicted_mask_path`" + ` (a path relative
to the submission folder, e.g. ` + "`predictions/<case_id>.tif`" + `), one row per test case.
Each mask is a single-channel 8-bit PNG or TIFF of 1024 × 1024 pixels holding
the labels 0–5 (other sizes are resized by nearest neighbour; a value above 5
makes the submission invalid in reference grading; official grading counts it
as background).
`)
		if c.track == 1 {
			b.WriteString("Only the first channel of a multi-channel mask is read and values are cast to 8 bits.\n")
		} else {
			b.WriteString("The mask is used exactly as decoded: it must have a single channel.\n")
		}
		b.WriteString(`
## Metric

Micro Dice: for each class 1–5 the pixels of all test cases are pooled and
Dice = (2·|P∩T| + 1e-5) / (|P| + |T| + 1e-5); the score is the mean over the
five classes (a class absent from both prediction and truth counts 0).
`)
		return b.String()
	}
	fmt.Fprintf(&b, "# PUMA %s, Task 2: nuclei detection and classification in melanoma H&E\n\n", track)
	b.WriteString(`You get 1024 × 1024 H&E regions of interest (ROIs) of primary and metastatic
melanoma (40x). Find every nucleus and give its class.

## Data

- ` + "`train/images/<case_id>.tif`" + ` — training ROIs (RGB(A) TIFF).
- ` + "`train/labels/<case_id>_nuclei.geojson`" + ` — one GeoJSON Polygon feature per nucleus
  (pixel coordinates), class in ` + "`properties.classification.name`" + `, one of
  ` + "`nuclei_tumor`, `nuclei_lymphocyte`, `nuclei_plasma_cell`, `nuclei_histiocyte`, `nuclei_melanophage`, `nuclei_neutrophil`, `nuclei_stroma`, `nuclei_endothelium`, `nuclei_epithelium`, `nuclei_apoptosis`" + `.
- ` + "`test/images/<case_id>.tif`" + ` — the ROIs to analyse.
- ` + "`sample_submission.csv`" + ` — one row per test case.

## Classes to predict

`)
	if c.track == 1 {
		b.WriteString("Three classes: `tumor` (tumour nuclei), `TILs` (lymphocytes and plasma cells) and `other` (every other nucleus).\n")
	} else {
		b.WriteString("Ten classes, written exactly so: `tumor`, `lymphocytes`, `plasma_cells`, `histiocytes`, `melanophages`, `neutrophils`, `stromal_cells`, `epithelium`, `endothelium`, `apoptotic_cells`. Items with other names are ignored.\n")
	}
	b.WriteString(`
## Submission

` + "`submission.csv`" + ` with columns ` + "`case_id`" + ` and ` + "`predicted_nuclei_path`" + ` (relative path,
e.g. ` + "`predictions/<case_id>.json`" + `). Each JSON file is an object
` + "`{\"polygons\": [{\"name\": <class>, \"path_points\": [[x, y], ...], \"score\": <confidence>}, ...]}`" + `;
the nucleus position is the mean of its points (at least 3 points). Instead
of path_points an item may give ` + "`\"centroid\": [x, y]`" + `.

## Metric

A predicted nucleus is a hit when it has the same class as a true nucleus
and its centre lies within 15 pixels of it; each true nucleus (in file order)
takes the highest-scoring unused prediction in range. Per image and class,
F1 = 2·precision·recall/(precision+recall); per-class values are averaged over
images and the score is the mean over the classes (macro F1).
`)
	return b.String()
}
