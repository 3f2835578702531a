package medseg

import (
	"math"
	"reflect"
	"testing"

	"github.com/rexmle/rexmle/metrics/volume"
)

func TestLargestComponent(t *testing.T) {
	g := volume.NewGrid(8, 1, 1)
	// components of sizes 1, 3, 2 along a line
	m := []bool{true, false, true, true, true, false, true, true}
	got, err := LargestComponent(m, g)
	want := []bool{false, false, true, true, true, false, false, false}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, %v", got, err)
	}
	one := []bool{false, true, true, false}
	if got, _ := LargestComponent(append([]bool(nil), one...), volume.NewGrid(4, 1, 1)); !reflect.DeepEqual(got, one) {
		t.Errorf("a single component changed: %v", got)
	}
}

func TestMeanDice(t *testing.T) {
	type c struct{ p, t []bool }
	cases := []c{
		{[]bool{true, true, false}, []bool{true, false, false}}, // 2·1/(2+1) = 2/3
		{[]bool{false, false}, []bool{false, false}},            // both empty: 1
	}
	got, err := MeanDice(cases, func(x c) ([]bool, []bool, error) { return x.p, x.t, nil })
	if err != nil || math.Abs(got-5.0/6) > 1e-15 {
		t.Fatalf("MeanDice = %v, %v", got, err)
	}
	if got, _ := MeanDice([]c{}, func(x c) ([]bool, []bool, error) { return x.p, x.t, nil }); got != 0 {
		t.Errorf("no cases: %v", got)
	}
}
