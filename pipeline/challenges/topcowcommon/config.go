// Package topcowcommon implements the eight TopCoW 2024 and TopBrain 2025
// challenges of ReX-MLE (CTA and MRA; segmentation, ROI box detection and
// Circle-of-Willis variant classification). One Challenge value, configured
// per challenge id, does everything; the package registers the two families
// from its table, Variants.
package topcowcommon

import (
	"fmt"
	"path/filepath"

	"github.com/rexmle/rexmle/pipeline/challenge"
)

// Family is the challenge family.
type Family int

const (
	// TopCoW is TopCoW 2024 (Circle of Willis, 13 labels).
	TopCoW Family = iota
	// TopBrain is TopBrain 2025 (whole-brain vessels, 40/42 labels).
	TopBrain
)

// Task is what the agent must produce.
type Task int

const (
	// Segmentation is a multiclass label map per volume.
	Segmentation Task = iota
	// Box is one 3-D ROI box per volume.
	Box
	// Edges is the CoW edge list (variant) per volume.
	Edges
)

// Config identifies one challenge.
type Config struct {
	ID       string
	Name     string
	Family   Family
	Modality string // "ct" or "mr"
	Task     Task
}

// The eight challenges.
var (
	TopCoWT1T1 = Config{"topcow-track1-task1", "TopCoW Track 1 Task 1 - CTA Multi-class Segmentation", TopCoW, "ct", Segmentation}
	TopCoWT1T2 = Config{"topcow-track1-task2", "TopCoW Track 1 Task 2 - CTA 3D Bounding Box Detection", TopCoW, "ct", Box}
	TopCoWT1T3 = Config{"topcow-track1-task3", "TopCoW Track 1 Task 3 - CTA Graph Edge Classification", TopCoW, "ct", Edges}
	TopCoWT2T1 = Config{"topcow-track2-task1", "TopCoW Track 2 Task 1 - MRA Multi-class Segmentation", TopCoW, "mr", Segmentation}
	TopCoWT2T2 = Config{"topcow-track2-task2", "TopCoW Track 2 Task 2 - MRA 3D Bounding Box Detection", TopCoW, "mr", Box}
	TopCoWT2T3 = Config{"topcow-track2-task3", "TopCoW Track 2 Task 3 - MRA Graph Edge Classification", TopCoW, "mr", Edges}
	TopBrain1  = Config{"topbrain-track1", "TopBrain Track 1 - CTA Multiclass Brain Vessel Segmentation", TopBrain, "ct", Segmentation}
	TopBrain2  = Config{"topbrain-track2", "TopBrain Track 2 - MRA Multiclass Brain Vessel Segmentation", TopBrain, "mr", Segmentation}
)

// Variants is the table of the eight challenges, registered in this order
// as two families, "topcow" (TopCoW 2024) and "topbrain" (TopBrain 2025).
var Variants = []Config{TopCoWT1T1, TopCoWT1T2, TopCoWT1T3, TopCoWT2T1, TopCoWT2T2, TopCoWT2T3, TopBrain1, TopBrain2}

func init() {
	var topcow, topbrain []Challenge
	for _, c := range Variants {
		if c.Family == TopBrain {
			topbrain = append(topbrain, New(c))
		} else {
			topcow = append(topcow, New(c))
		}
	}
	challenge.RegisterFamily("topcow", topcow)
	challenge.RegisterFamily("topbrain", topbrain)
}

// ModalityName is "CTA" or "MRA", the value of the CSV modality column.
func (c Config) ModalityName() string {
	if c.Modality == "ct" {
		return "CTA"
	}
	return "MRA"
}

// Raw folder names of the TopCoW and TopBrain archives.
const (
	rawImagesTopCoW = "imagesTr"
	rawSegTopCoW    = "cow_seg_labelsTr"
	rawBoxTopCoW    = "roi_loc_labelsTr"
	rawEdgesTopCoW  = "antpos_edges_labelsTr"
)

// rawImagesDir is the archive folder of the input volumes.
func (c Config) rawImagesDir() string {
	if c.Family == TopBrain {
		return "imagesTr_topbrain_" + c.Modality
	}
	return rawImagesTopCoW
}

// rawLabelsDir is the archive folder of this task's labels.
func (c Config) rawLabelsDir() string {
	if c.Family == TopBrain {
		return "labelsTr_topbrain_" + c.Modality
	}
	switch c.Task {
	case Box:
		return rawBoxTopCoW
	case Edges:
		return rawEdgesTopCoW
	}
	return rawSegTopCoW
}

// stem is "topcow_ct_001" (TopBrain keeps the topcow_ prefix).
func (c Config) stem(pid string) string { return "topcow_" + c.Modality + "_" + pid }

// imageName is the input file name of a case.
func (c Config) imageName(pid string) string { return c.stem(pid) + "_0000.nii.gz" }

// rawLabelName is the archive label file name of a case.
func (c Config) rawLabelName(pid string) string {
	switch c.Task {
	case Box:
		return c.stem(pid) + ".txt"
	case Edges:
		return c.stem(pid) + ".yml"
	}
	return c.stem(pid) + ".nii.gz"
}

// privateLabelName is the answer file name in private/test/labels.
func (c Config) privateLabelName(pid string) string {
	if c.Task == Box {
		return c.stem(pid) + "_bbox.json"
	}
	return c.rawLabelName(pid)
}

// pathColumn is the submission column naming the prediction file.
func (c Config) pathColumn() string {
	switch c.Task {
	case Box:
		return "predicted_bbox_path"
	case Edges:
		return "predicted_edges_path"
	}
	return "predicted_mask_path"
}

// samplePath is the prediction path the sample submission names.
func (c Config) samplePath(pid string) string {
	switch c.Task {
	case Box:
		return "predictions/" + c.stem(pid) + "_bbox.json"
	case Edges:
		return "predictions/" + c.stem(pid) + "_edges.json"
	}
	return "predictions/" + c.imageName(pid)
}

// labelsDirOf joins the labels folder to root.
func (c Config) labelsDirOf(root string) string { return filepath.Join(root, c.rawLabelsDir()) }

func (c Config) String() string { return fmt.Sprintf("%s (%s)", c.ID, c.ModalityName()) }

// Challenge implements challenge.Challenge for one Config.
type Challenge struct{ Config }

// New returns the challenge for a config.
func New(c Config) Challenge { return Challenge{c} }

// ID is the challenge id.
func (c Challenge) ID() string { return c.Config.ID }
