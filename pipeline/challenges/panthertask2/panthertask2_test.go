package panthertask2

import (
	"testing"

	"github.com/rexmle/rexmle/pipeline/challenges/panthercommon/panthertest"
)

func TestPanther(t *testing.T) { panthertest.Run(t, New()) }

func BenchmarkGrade(b *testing.B) { panthertest.BenchGrade(b, New()) }
