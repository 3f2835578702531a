package split

import (
	"reflect"
	"testing"
)

func TestMT19937FirstOutputs(t *testing.T) {
	m := NewMT19937(42)
	want := []uint32{1608637542, 3421126067, 4083286876}
	for i, w := range want {
		if got := m.Uint32(); got != w {
			t.Fatalf("output %d = %d, want %d", i, got, w)
		}
	}
}

func TestPermutationMatchesNumpy(t *testing.T) {
	// numpy.random.RandomState(42).permutation(10)
	want := []int{8, 1, 5, 0, 7, 2, 9, 4, 3, 6}
	if got := Permutation(42, 10); !reflect.DeepEqual(got, want) {
		t.Fatalf("Permutation(42, 10) = %v, want %v", got, want)
	}
}

func TestTrainTestMatchesSklearn(t *testing.T) {
	// Test index lists of train_test_split(range(n), test_size=0.2, random_state=42)
	// as listed in the project's specification of the reference preparers.
	cases := map[int][]int{
		92: {40, 22, 55, 72, 0, 26, 39, 67, 10, 44, 83, 35, 89, 62, 12, 4, 18, 28, 49},
		50: {13, 39, 30, 45, 17, 48, 26, 25, 32, 19},
		56: {0, 5, 33, 13, 19, 50, 36, 26, 44, 12, 54, 3},
	}
	for n, want := range cases {
		train, test := TrainTestIndices(n, 0.2, 42)
		if !reflect.DeepEqual(test, want) {
			t.Errorf("n=%d test = %v, want %v", n, test, want)
		}
		if len(train)+len(test) != n {
			t.Errorf("n=%d: %d train + %d test", n, len(train), len(test))
		}
		seen := map[int]bool{}
		for _, i := range append(append([]int{}, train...), test...) {
			if seen[i] || i < 0 || i >= n {
				t.Fatalf("n=%d: index %d repeated or out of range", n, i)
			}
			seen[i] = true
		}
	}
	_, test := TrainTestIndices(250, 0.2, 42)
	if len(test) != 50 || !reflect.DeepEqual(test[:6], []int{142, 6, 97, 60, 112, 181}) {
		t.Errorf("n=250 test starts %v (len %d)", test[:6], len(test))
	}
	_, test = TrainTestIndices(1500, 0.2, 42)
	if len(test) != 300 || !reflect.DeepEqual(test[:6], []int{1116, 1368, 422, 413, 451, 861}) {
		t.Errorf("n=1500 test starts %v (len %d)", test[:6], len(test))
	}
}

func TestTrainTestItems(t *testing.T) {
	items := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"}
	train, test := TrainTest(items, 0.2, 42)
	if !reflect.DeepEqual(test, []string{"i", "b"}) || len(train) != 8 || train[0] != "f" {
		t.Fatalf("train %v test %v", train, test)
	}
}
