package panthercommon

import (
	_ "embed"

	"github.com/rexmle/rexmle/pipeline/challenge"
)

//go:embed description-task1.md
var task1Description string

//go:embed description-task2.md
var task2Description string

// Task1 is PANTHER Task 1: pancreatic tumour segmentation on diagnostic
// T1-weighted contrast-enhanced MRI (arterial phase).
var Task1 = Task{
	ID:          "panther-task1",
	Title:       "PANTHER Task 1: Pancreatic Tumor Segmentation on Diagnostic MRI",
	ArchiveName: "PANTHER_Task1.zip",
	Unpacked:    "ImagesTr/*_0001_0000.mha",
	ImageSuffix: "_0001_0000.mha",
	IDFields:    2,
	Unlabeled:   true,
	Description: task1Description,
	Synth: SynthConfig{
		Cases: 15, RealCases: 92, // 92 annotated arterial-phase cases, spec panther-task1.md §1
		FirstPID: 10000, Unlabeled: 2,
		Shape: [3]int{44, 38, 14}, Spacing: [3]float64{1.5, 1.5, 3.0},
		TumourGain: 0.62,
		// Real size: the 400 × 400 × 80 arterial-phase volume issue 34
		// timed the reference on (one real case); 0.94 mm in-plane and 2.5 mm
		// slices (a 375 mm abdominal field of view) are our estimate. The
		// unlabeled pool: 367 MRIs (panther.grand-challenge.org, Tasks).
		RealShape: [3]int{400, 400, 80}, RealSpacing: [3]float64{0.94, 0.94, 2.5}, RealUnlabeled: 367,
	},
}

// Task2 is PANTHER Task 2: pancreatic tumour segmentation on T2-weighted
// MRI from an MR-Linac (adaptive radiotherapy).
var Task2 = Task{
	ID:          "panther-task2",
	Title:       "PANTHER Task 2: Pancreatic Tumor Segmentation on MR-Linac MRI",
	ArchiveName: "PANTHER_Task2.zip",
	Unpacked:    "ImagesTr/?????_0000.mha", // five-digit patient ids; task 1's longer names do not match
	ImageSuffix: "_0000.mha",
	IDFields:    1,
	Unlabeled:   false,
	Description: task2Description,
	Synth: SynthConfig{
		Cases: 15, RealCases: 50, // 50 annotated cases, spec panther-task2.md: 40 train / 10 test
		FirstPID: 10303,
		Shape:    [3]int{40, 40, 16}, Spacing: [3]float64{1.6, 1.6, 2.5},
		TumourGain: 1.45,
		// Real size: a 3-D T2 MR-Linac (Elekta Unity) scan; no per-case
		// table is at hand, so 300 × 300 × 100 voxels of 1.2 × 1.2 × 2 mm
		// (360 × 360 × 200 mm) is our estimate of the median.
		RealShape: [3]int{300, 300, 100}, RealSpacing: [3]float64{1.2, 1.2, 2.0},
	},
}

// Variants is the family's table, registered in this order.
var Variants = []Challenge{{Task: Task1}, {Task: Task2}}

func init() { challenge.RegisterFamily("panther", Variants) }
