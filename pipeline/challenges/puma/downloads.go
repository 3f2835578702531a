package puma

import "github.com/rexmle/rexmle/pipeline/challenge"

const pumaSource = "zenodo:14869398"

// Downloads are the record's ROI images and the task's GeoJSON archive
// (its files may also lie loose in the raw folder, as the reference
// accepts); the other task's GeoJSON archive, in the same shared folder, is
// not read.
func (c Challenge) Downloads() []challenge.Download {
	tissue := challenge.Download{Source: pumaSource, Archive: tissueDir + ".zip", Holds: []string{tissueDir, "*_tissue.geojson"}}
	nuclei := challenge.Download{Source: pumaSource, Archive: nucleiDir + ".zip", Holds: []string{nucleiDir, "*_nuclei.geojson"}}
	if c.task == Tissue {
		nuclei.Optional = true
	} else {
		tissue.Optional = true
	}
	return []challenge.Download{{Source: pumaSource, Archive: roiDir + ".zip", Holds: []string{roiDir}}, tissue, nuclei}
}
