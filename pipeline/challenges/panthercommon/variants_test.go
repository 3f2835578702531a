package panthercommon_test

import (
	"testing"

	"github.com/rexmle/rexmle/pipeline/challenges/panthercommon"
	"github.com/rexmle/rexmle/pipeline/challenges/panthercommon/panthertest"
)

// TestPanther runs the conformance kit and the PANTHER checks on each task.
func TestPanther(t *testing.T) {
	for _, c := range panthercommon.Variants {
		t.Run(c.ID(), func(t *testing.T) { panthertest.Run(t, c) })
	}
}

func BenchmarkGrade(b *testing.B) {
	for _, c := range panthercommon.Variants {
		b.Run(c.ID(), func(b *testing.B) { panthertest.BenchGrade(b, c) })
	}
}
