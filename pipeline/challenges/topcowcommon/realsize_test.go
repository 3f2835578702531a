package topcowcommon

import "testing"

// At the real size the Circle of Willis keeps its size in millimetres (it
// is drawn in mm): the ROI box of the same case, on the real grid and the
// demo's, spans the same extent to within the boxes' 2–4-voxel margins and
// the demo's field-of-view clipping, and the edge lists agree (the anatomy
// is the same draw).
func TestRealGridKeepsTheAnatomy(t *testing.T) {
	if testing.Short() {
		t.Skip("a real-size volume: seconds")
	}
	c := TopBrain2 // the smallest real volume: 512 × 512 × 180 MRA
	demo, err := c.makeCase(2, 1, false)
	if err != nil {
		t.Fatal(err)
	}
	full, err := c.makeCase(2, 1, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range []*synthCase{demo, full} {
		fill, img := sc.imageSlices(), make([]int16, sc.g.Shape[0]*sc.g.Shape[1])
		for z := 0; z < sc.g.Shape[2]; z++ {
			fill(z, img) // the box is drawn after the image
		}
		sc.drawBox()
	}
	shape, spacing := c.realGrid()
	if full.g.Shape != shape || full.g.Spacing != spacing {
		t.Fatalf("real-size case %v at %v mm, want %v at %v", full.g.Shape, full.g.Spacing, shape, spacing)
	}
	_, demoSpacing := c.grid()
	for a := 0; a < 3; a++ {
		realMM := float64(full.box.Size[a]) * spacing[a]
		demoMM := float64(demo.box.Size[a]) * demoSpacing[a]
		if realMM < demoMM-4*demoSpacing[a]-2 || realMM > 90 {
			t.Errorf("axis %d: ROI %.1f mm on the real grid, %.1f mm on the demo's: the anatomy changed size", a, realMM, demoMM)
		}
	}
	if full.ant != demo.ant || full.pos != demo.pos {
		t.Errorf("edges: real size %v %v, demo %v %v: the same draw gave another anatomy", full.ant, full.pos, demo.ant, demo.pos)
	}
}
