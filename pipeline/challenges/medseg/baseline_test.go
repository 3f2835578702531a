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

func TestBandSearch(t *testing.T) {
	fg := []float64{10, 20, 30, 40, 50}
	// Score prefers the band closest to [20, 41): quantile 0.25 → 20, quantile 0.75 → 40, pad 1.
	lo, hi, best, ok, err := BandSearch(fg, []float64{0, 0.25}, []float64{0.75, 1}, 1, func(lo, hi float64) (float64, error) {
		return -math.Abs(lo-20) - math.Abs(hi-41), nil
	})
	if err != nil || !ok || lo != 20 || hi != 41 || best != 0 {
		t.Fatalf("got [%v, %v) score %v ok %v err %v", lo, hi, best, ok, err)
	}
	if _, _, _, ok, _ := BandSearch(nil, []float64{0}, []float64{1}, 0, nil); ok {
		t.Error("an empty foreground must report ok = false")
	}
}

func TestHoldOut(t *testing.T) {
	cases := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	sum := func(cs []int) (int, float64, error) {
		s := 0
		for _, c := range cs {
			s += c
		}
		return s, float64(len(cs)), nil
	}
	m, train, held, nVal, err := HoldOut(cases, sum, func(cs []int, m int) (float64, error) { return float64(len(cs) * 1000), nil })
	// the first fifth (1, 2) is held out; the model is fitted on 3..10
	if err != nil || nVal != 2 || m != 52 || train != 8 || held != 2000 {
		t.Fatalf("m %d train %v held %v nVal %d err %v", m, train, held, nVal, err)
	}
	if _, _, _, nVal, _ := HoldOut(cases[:4], sum, func([]int, int) (float64, error) { return 0, nil }); nVal != 0 {
		t.Errorf("4 cases: nVal %d", nVal)
	}
}
