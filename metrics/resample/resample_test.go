package resample

import (
	"slices"
	"testing"
)

func TestZoomIndexSpec(t *testing.T) {
	cases := []struct {
		n, m int
		want []int
	}{
		{3, 5, []int{0, 1, 1, 2, 2}},
		{4, 7, []int{0, 1, 1, 2, 2, 3, 3}},
		{10, 4, []int{0, 3, 6, 9}},
		{2, 4, []int{0, 0, 1, 1}},
		{5, 1, []int{0}},
		{1, 3, []int{0, 0, 0}},
		{4, 4, []int{0, 1, 2, 3}},
		// 19·(21/19) = 21.000000000000004 > 21: outside, scipy writes cval.
		{22, 20, []int{0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 17, 18, 19, 20, -1}},
	}
	for _, c := range cases {
		if got := ZoomIndex(c.n, c.m); !slices.Equal(got, c.want) {
			t.Errorf("ZoomIndex(%d,%d) = %v, want %v", c.n, c.m, got, c.want)
		}
	}
}

func TestZoomISLESVector(t *testing.T) {
	// 2×2×2 prediction with only voxel (1,1,1) set, zoomed to 4×4×4 → block [2:4]^3.
	src := make([]uint8, 8)
	src[7] = 1
	got, err := Zoom(src, [3]int{2, 2, 2}, [3]int{4, 4, 4})
	if err != nil {
		t.Fatal(err)
	}
	for k := 0; k < 4; k++ {
		for j := 0; j < 4; j++ {
			for i := 0; i < 4; i++ {
				want := uint8(0)
				if i >= 2 && j >= 2 && k >= 2 {
					want = 1
				}
				if v := got[i+4*(j+4*k)]; v != want {
					t.Fatalf("(%d,%d,%d) = %d, want %d", i, j, k, v, want)
				}
			}
		}
	}
}

func TestZoomPastTheEdgeIsZero(t *testing.T) {
	// A prediction of ones, 22 slices zoomed to 20: scipy's last slice reads
	// coordinate 21.000000000000004, past the input, and is 0 (cval).
	src := make([]uint8, 22*2*2)
	for i := range src {
		src[i] = 1
	}
	got, err := Zoom(src, [3]int{2, 2, 22}, [3]int{2, 2, 20})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range got {
		want := uint8(1)
		if i >= 19*4 {
			want = 0
		}
		if v != want {
			t.Fatalf("sample %d (slice %d) = %d, want %d", i, i/4, v, want)
		}
	}
	// The same on the fastest and the middle axis.
	for _, to := range [][3]int{{20, 2, 2}, {2, 20, 2}} {
		from := [3]int{2, 2, 2}
		for a := range to {
			if to[a] == 20 {
				from[a] = 22
			}
		}
		got, err := Zoom(src, from, to)
		if err != nil {
			t.Fatal(err)
		}
		zeros := 0
		for _, v := range got {
			if v == 0 {
				zeros++
			}
		}
		if zeros != 4 {
			t.Errorf("Zoom %v → %v: %d zero samples, want the 4 of the last index", from, to, zeros)
		}
	}
}

func TestZoomIdentityAndErrors(t *testing.T) {
	src := []int32{1, 2, 3, 4, 5, 6} // 3 columns × 2 rows
	// Doubling both axes: ZoomIndex(3, 6) = [0 0 1 1 2 2], ZoomIndex(2, 4) = [0 0 1 1].
	got, err := Zoom(src, [3]int{3, 2, 1}, [3]int{6, 4, 1})
	if err != nil {
		t.Fatal(err)
	}
	want := []int32{1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 4, 4, 5, 5, 6, 6}
	if !slices.Equal(got, want) {
		t.Errorf("Zoom = %v, want %v", got, want)
	}
	same, _ := Zoom(src, [3]int{3, 2, 1}, [3]int{3, 2, 1})
	if !slices.Equal(same, src) {
		t.Errorf("identity zoom changed data: %v", same)
	}
	if _, err := Zoom(src, [3]int{3, 3, 1}, [3]int{3, 2, 1}); err == nil {
		t.Errorf("length mismatch accepted")
	}
	if _, err := Zoom(src, [3]int{3, 2, 1}, [3]int{0, 2, 1}); err == nil {
		t.Errorf("zero target accepted")
	}
	if _, err := Zoom(src, [3]int{3, 2, 1}, [3]int{1 << 20, 1 << 20, 1 << 20}); err == nil {
		t.Errorf("huge target accepted")
	}
}
