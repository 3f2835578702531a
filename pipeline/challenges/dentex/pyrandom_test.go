package dentex

import (
	"slices"
	"testing"
)

// Spec dentex §3.1: seed 42 outputs and the 705-image split.
func TestPythonShuffle(t *testing.T) {
	r := newPyRandom(42)
	for i, want := range []uint32{2746317213, 478163327, 107420369} {
		if got := r.uint32(); got != want {
			t.Errorf("output %d = %d, want %d", i, got, want)
		}
	}
	pos := make([]int, 705)
	for i := range pos {
		pos[i] = i
	}
	pyShuffle(pos, 42)
	if want := []int{354, 699, 431, 644, 680, 380, 577, 446, 115, 209}; !slices.Equal(pos[:10], want) {
		t.Errorf("first shuffled positions %v, want %v", pos[:10], want)
	}
	split := int(float64(705) * 0.8)
	if split != 564 {
		t.Fatalf("split %d", split)
	}
	if want := []int{512, 597, 3, 636, 161, 445, 651, 703, 671, 630}; !slices.Equal(pos[split:split+10], want) {
		t.Errorf("test part starts %v, want %v", pos[split:split+10], want)
	}
	test := append([]int(nil), pos[split:]...)
	slices.Sort(test)
	want := []int{3, 6, 11, 25, 27, 30, 32, 44, 46, 48, 57, 65, 67, 71, 73, 80, 81, 89, 93, 94, 95, 99, 103, 104, 112, 114, 117, 127, 141, 142, 146, 156, 159, 161, 163, 166, 167, 175, 196, 203, 214, 216, 217, 220, 223, 224, 225, 228, 233, 234, 238, 250, 252, 257, 269, 270, 271, 273, 274, 276, 281, 284, 296, 300, 322, 323, 332, 344, 348, 352, 363, 367, 370, 373, 379, 387, 388, 389, 390, 394, 405, 408, 410, 429, 432, 438, 445, 459, 464, 469, 470, 473, 479, 505, 511, 512, 517, 521, 541, 546, 549, 551, 558, 565, 566, 570, 574, 580, 591, 597, 603, 604, 616, 618, 619, 623, 630, 633, 636, 643, 648, 651, 654, 656, 664, 665, 670, 671, 672, 673, 675, 683, 687, 691, 692, 695, 696, 697, 698, 700, 703}
	if !slices.Equal(test, want) {
		t.Errorf("sorted test positions %v, want %v", test, want)
	}
}
