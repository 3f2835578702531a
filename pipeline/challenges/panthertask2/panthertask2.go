// Package panthertask2 registers PANTHER Task 2: pancreatic tumour
// segmentation on T2-weighted MRI from an MR-Linac (adaptive
// radiotherapy). The grader and preparer live in panthercommon.
package panthertask2

import (
	_ "embed"

	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenges/panthercommon"
)

//go:embed description.md
var description string

// Task is the task-2 configuration.
var Task = panthercommon.Task{
	ID:          "panther-task2",
	Title:       "PANTHER Task 2: Pancreatic Tumor Segmentation on MR-Linac MRI",
	ArchiveName: "PANTHER_Task2.zip",
	Unpacked:    "ImagesTr/?????_0000.mha", // five-digit patient ids; task 1's longer names do not match
	ImageSuffix: "_0000.mha",
	IDFields:    1,
	Unlabeled:   false,
	Description: description,
	Synth: panthercommon.SynthConfig{
		Cases: 15, RealCases: 50, // 50 annotated cases, spec panther-task2.md: 40 train / 10 test
		FirstPID: 10303,
		Shape:    [3]int{40, 40, 16}, Spacing: [3]float64{1.6, 1.6, 2.5},
		TumourGain: 1.45,
	},
}

// New returns the task-2 challenge.
func New() panthercommon.Challenge { return panthercommon.Challenge{Task: Task} }

func init() { challenge.Register(New()) }
