package sega

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/rexmle/rexmle/metrics/imageio"
)

// At the real size the volume is a 512 × 512 CTA and the anatomy keeps its
// size in millimetres: on a 40-slice slab of the real grid, written to disk
// and read back, the top slice (above the renal arteries) cuts only the
// aorta, whose cross-section is π·r² for the real 10–14 mm radius, whatever
// the pixel spacing drawn. The intensities are a CTA's: air at −1000 HU, the
// contrast-filled aorta at its drawn 200–450 HU, and the noise (150 × a
// 3×3×3 mean of unit normals plus 60 × a unit normal) has a standard
// deviation of √(150²/27 + 60²) ≈ 66.6 HU inside a flat region.
func TestRealGeometryAortaInMillimetres(t *testing.T) {
	geo := realGeometry
	geo.shape[2], geo.shapeSpan[2] = 40, 1
	d := t.TempDir()
	for stream := uint64(1); stream <= 2; stream++ {
		c := drawCase(5, stream, geo)
		stem := filepath.Join(d, "case")
		if err := c.write(stem); err != nil {
			t.Fatal(err)
		}
		img, err := imageio.Read(stem + ".nrrd")
		if err != nil {
			t.Fatal(err)
		}
		lab, err := imageio.Read(stem + ".seg.nrrd")
		if err != nil {
			t.Fatal(err)
		}
		if img.Shape != [3]int{512, 512, 40} || lab.Shape != img.Shape {
			t.Fatalf("shape %v / %v, want 512 × 512 × 40", img.Shape, lab.Shape)
		}
		if img.DType != "int16" || lab.DType != "uint8" {
			t.Errorf("element types %s / %s, want int16 / uint8", img.DType, lab.DType)
		}
		if sp := img.Spacing; sp[0] < 0.6 || sp[0] > 0.9 || sp[1] != sp[0] || sp[2] < 1.25 || sp[2] > 2 || lab.Spacing != sp {
			t.Errorf("spacing %v / %v, want 0.6–0.9 mm pixels and 1.25–2 mm slices", sp, lab.Spacing)
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
		var aorta, aortaN float64
		for i, v := range lab.Data {
			if v == 1 {
				aorta += img.Data[i]
				aortaN++
			}
		}
		if m := aorta / aortaN; m < 200 || m > 450 {
			t.Errorf("stream %d: mean %.0f HU in the aorta, want the drawn contrast, 200–450", stream, m)
		}
		// Air: a 20 × 20 corner of the middle slices, away from the body.
		var s, s2, m float64
		for k := 10; k < 30; k++ {
			for j := 0; j < 20; j++ {
				for i := 0; i < 20; i++ {
					v := img.Data[img.Index(i+2, j+2, k)]
					s += v
					s2 += v * v
					m++
				}
			}
		}
		mean := s / m
		sd := math.Sqrt(s2/m - mean*mean)
		t.Logf("stream %d: air %.1f ± %.1f, aorta %.0f", stream, mean, sd, aorta/aortaN)
		if math.Abs(mean+1000) > 10 || sd < 60 || sd > 73 {
			t.Errorf("stream %d: air %.1f ± %.1f HU, want −1000 ± 66.6", stream, mean, sd)
		}
	}
}
