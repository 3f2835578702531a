package sega

import (
	"math"
	"testing"
)

// At the real size the volume is a 512 × 512 CTA and the anatomy keeps its
// size in millimetres: on a 40-slice slab of the real grid, the top slice
// (above the renal arteries) cuts only the aorta, whose cross-section is
// π·r² for the real 10–14 mm radius, whatever the pixel spacing drawn.
func TestRealGeometryAortaInMillimetres(t *testing.T) {
	geo := realGeometry
	geo.shape[2], geo.shapeSpan[2] = 40, 1
	for stream := uint64(1); stream <= 2; stream++ {
		img, lab := synthCase(5, stream, geo)
		if img.Shape != [3]int{512, 512, 40} || lab.Shape != img.Shape {
			t.Fatalf("shape %v / %v, want 512 × 512 × 40", img.Shape, lab.Shape)
		}
		if sp := img.Spacing; sp[0] < 0.6 || sp[0] > 0.9 || sp[1] != sp[0] || sp[2] < 1.25 || sp[2] > 2 {
			t.Errorf("spacing %v, want 0.6–0.9 mm pixels and 1.25–2 mm slices", sp)
		}
		top := 39 * 512 * 512
		n := 0
		for _, v := range lab.Data[top : top+512*512] {
			if v != 0 {
				n++
			}
		}
		area := float64(n) * img.Spacing[0] * img.Spacing[1]
		if lo, hi := 0.9*math.Pi*10*10, 1.1*math.Pi*14*14; area < lo || area > hi {
			t.Errorf("stream %d: aortic cross-section %.0f mm² (%d pixels), want %.0f–%.0f (radius 10–14 mm)", stream, area, n, lo, hi)
		}
	}
}
