// Package panthertask1 registers PANTHER Task 1: pancreatic tumour
// segmentation on diagnostic T1-weighted contrast-enhanced MRI (arterial
// phase). The grader and preparer live in panthercommon.
package panthertask1

import (
	_ "embed"

	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenges/panthercommon"
)

//go:embed description.md
var description string

// Task is the task-1 configuration.
var Task = panthercommon.Task{
	ID:          "panther-task1",
	Title:       "PANTHER Task 1: Pancreatic Tumor Segmentation on Diagnostic MRI",
	ArchiveName: "PANTHER_Task1.zip",
	Unpacked:    "ImagesTr/*_0001_0000.mha",
	ImageSuffix: "_0001_0000.mha",
	IDFields:    2,
	Unlabeled:   true,
	Description: description,
	Synth: panthercommon.SynthConfig{
		Cases: 15, RealCases: 92, // 92 annotated arterial-phase cases, spec panther-task1.md §1
		FirstPID: 10000, Unlabeled: 2,
		Shape: [3]int{44, 38, 14}, Spacing: [3]float64{1.5, 1.5, 3.0},
		TumourGain: 0.62,
	},
}

// New returns the task-1 challenge.
func New() panthercommon.Challenge { return panthercommon.Challenge{Task: Task} }

func init() { challenge.Register(New()) }
