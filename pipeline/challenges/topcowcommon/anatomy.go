package topcowcommon

import (
	"math"
	"math/rand/v2"
	"sort"
)

// vec is a point in millimetres relative to the centre of the field of
// view: +x towards the patient's left, +y posterior, +z superior (LPS).
type vec [3]float64

// segment is a labelled tube: a polyline with a radius (mm). Label 0 marks
// an unlabelled vessel that only appears in the image.
type segment struct {
	label  int
	pts    []vec
	radius float64
}

// variant is the synthetic anatomy's Circle-of-Willis configuration.
type variant struct {
	acom, thirdA2         bool
	lA1, rA1              bool // A1 segments (ACA reaches the ICA)
	lP1, rP1              bool // P1 segments (PCA reaches the BA)
	lPcom, rPcom          bool
	scale                 float64
	shift                 vec
	radiusScale           float64
	vesselHU, noise, tilt float64
}

// drawVariant draws a plausible variant: most CoWs are complete on the
// anterior side; missing Pcoms are common; a missing A1 or P1 forces the
// collateral (Acom or Pcom) that feeds the vessel.
func drawVariant(rng *rand.Rand) variant {
	v := variant{
		acom:    rng.Float64() < 0.85,
		thirdA2: rng.Float64() < 0.15,
		lA1:     rng.Float64() < 0.9,
		rA1:     rng.Float64() < 0.9,
		lP1:     rng.Float64() < 0.85,
		rP1:     rng.Float64() < 0.85,
		lPcom:   rng.Float64() < 0.55,
		rPcom:   rng.Float64() < 0.55,
	}
	if !v.lA1 && !v.rA1 {
		v.rA1 = true
	}
	if !v.lA1 || !v.rA1 {
		v.acom = true
	}
	if !v.lP1 {
		v.lPcom = true
	}
	if !v.rP1 {
		v.rPcom = true
	}
	v.scale = 0.92 + 0.16*rng.Float64()
	v.shift = vec{rng.Float64()*3 - 1.5, rng.Float64()*3 - 1.5, rng.Float64()*2 - 1}
	v.radiusScale = 0.9 + 0.2*rng.Float64()
	v.vesselHU = 0.85 + 0.3*rng.Float64()
	v.noise = 0.8 + 0.4*rng.Float64()
	v.tilt = (rng.Float64() - 0.5) * 0.12
	return v
}

// labelSet maps anatomical names to the label ids of a family/modality.
type labelSet struct {
	ba, pca, ica, mca, pcom, acom, aca, thirdA2 [2]int // [right, left] (single labels repeat)
	// TopBrain extras (0 = not labelled; drawn unlabelled for TopCoW).
	a3, m2, m3, p3p4, va, sca, aica, pica, acha, oa [2]int
	veins                                           bool // CTA venous labels 35–40
	externals                                       bool // MRA external carotid labels 35–42
}

func topCoWLabels() labelSet {
	return labelSet{
		ba: [2]int{1, 1}, pca: [2]int{2, 3}, ica: [2]int{4, 6}, mca: [2]int{5, 7},
		pcom: [2]int{8, 9}, acom: [2]int{10, 10}, aca: [2]int{11, 12}, thirdA2: [2]int{15, 15},
	}
}

func topBrainLabels(modality string) labelSet {
	l := topCoWLabels()
	l.a3 = [2]int{13, 14}
	l.m2 = [2]int{17, 19}
	l.m3 = [2]int{18, 20}
	l.p3p4 = [2]int{21, 22}
	l.va = [2]int{23, 24}
	l.sca = [2]int{25, 26}
	l.aica = [2]int{27, 28}
	l.pica = [2]int{29, 30}
	l.acha = [2]int{31, 32}
	l.oa = [2]int{33, 34}
	l.veins = modality == "ct"
	l.externals = modality == "mr"
	return l
}

// side mirrors a right-side point (negative x) to side s (0 right, 1 left).
func side(p vec, s int) vec {
	if s == 1 {
		p[0] = -p[0]
	}
	return p
}

func sidePts(s int, pts ...vec) []vec {
	out := make([]vec, len(pts))
	for i, p := range pts {
		out[i] = side(p, s)
	}
	return out
}

// buildAnatomy lays out the labelled tubes (and unlabelled distractor
// vessels) of one case. Geometry is given for the right side and mirrored.
func buildAnatomy(v variant, ls labelSet, modality string) []segment {
	var segs []segment
	add := func(label int, r float64, pts ...vec) {
		segs = append(segs, segment{label: label, pts: pts, radius: r * v.radiusScale})
	}
	addS := func(label int, s int, r float64, pts ...vec) {
		segs = append(segs, segment{label: label, pts: sidePts(s, pts...), radius: r * v.radiusScale})
	}
	// Vertebral arteries join into the basilar artery.
	for s := 0; s < 2; s++ {
		addS(ls.va[s], s, 1.3, vec{-4, 12, -15}, vec{-2.5, 10, -13.5}, vec{-0.6, 8.3, -12.2})
	}
	add(ls.ba[0], 1.5, vec{0, 8.2, -12.5}, vec{0, 7.6, -7}, vec{0, 7, -2})
	for s := 0; s < 2; s++ {
		p1 := v.rP1
		pcom := v.rPcom
		a1 := v.rA1
		if s == 1 {
			p1, pcom, a1 = v.lP1, v.lPcom, v.lA1
		}
		// Internal carotid artery up to its terminus.
		addS(ls.ica[s], s, 1.8, vec{-7, -2, -14}, vec{-7.5, -1.5, -6}, vec{-7, -0.5, -2}, vec{-7, 0, -1})
		// Middle cerebral artery (M1), then unlabelled or labelled M2/M3.
		addS(ls.mca[s], s, 1.3, vec{-8.2, 0, -1}, vec{-12, -0.5, -0.2}, vec{-16, 0.5, 1})
		addS(ls.m2[s], s, 1.0, vec{-16, 0.5, 1}, vec{-18.5, 2, 5}, vec{-19.5, 3.5, 9})
		addS(ls.m3[s], s, 0.8, vec{-19.5, 3.5, 9}, vec{-18.5, 6, 12.5})
		// Posterior cerebral artery: P1 from the BA tip (absent in a fetal
		// configuration), P2 onwards from the Pcom junction.
		if p1 {
			addS(ls.pca[s], s, 1.1, vec{-0.5, 7, -2}, vec{-3.5, 7.6, -1.6}, vec{-6, 8, -1})
		}
		addS(ls.pca[s], s, 1.1, vec{-6, 8, -1}, vec{-10, 11.5, 0.2}, vec{-13, 15, 1.5})
		addS(ls.p3p4[s], s, 0.9, vec{-13, 15, 1.5}, vec{-14, 18.5, 3.5})
		if pcom {
			addS(ls.pcom[s], s, 0.7, vec{-7, 1.2, -1.2}, vec{-6.6, 4, -1.2}, vec{-6.1, 7.2, -1})
		}
		// Anterior cerebral artery: A1 from the ICA terminus (if present),
		// A2 upwards from the Acom junction; A3 further up.
		if a1 {
			addS(ls.aca[s], s, 1.0, vec{-5.8, -0.8, -0.8}, vec{-4.5, -4, -0.3}, vec{-2.6, -7, 0})
		}
		addS(ls.aca[s], s, 1.0, vec{-2.6, -7, 0}, vec{-2.7, -10, 3.5}, vec{-2.8, -12, 7})
		addS(ls.a3[s], s, 0.85, vec{-2.8, -12, 7}, vec{-2.9, -11, 11})
		// Cerebellar and small branches (labelled in TopBrain only).
		addS(ls.sca[s], s, 0.7, vec{-0.8, 7.3, -3.5}, vec{-5, 9.5, -4.5}, vec{-9, 13, -5})
		addS(ls.aica[s], s, 0.6, vec{-0.9, 7.9, -9}, vec{-5, 10, -10}, vec{-8, 12, -11})
		addS(ls.pica[s], s, 0.6, vec{-2.6, 10.2, -13.6}, vec{-6, 13, -14}, vec{-9, 16, -13})
		addS(ls.acha[s], s, 0.5, vec{-8.3, -1.2, -4}, vec{-11, 2, -3.5}, vec{-12, 5, -3})
		// Ophthalmic artery: leaves the ICA; the CTA table forbids any
		// contact for it, so there it starts just off the ICA wall.
		if ls.veins {
			addS(ls.oa[s], s, 0.5, vec{-9.5, -6, -7}, vec{-10, -10, -6.5}, vec{-11, -14, -6})
		} else {
			addS(ls.oa[s], s, 0.5, vec{-7.8, -3, -7}, vec{-10, -10, -6.5}, vec{-11, -14, -6})
		}
		if ls.externals {
			// External carotid and its branches (MRA only).
			addS(35+s, s, 1.1, vec{-12, -4, -15}, vec{-14, -5, -11}, vec{-15, -6, -8})
			addS(37+s, s, 0.7, vec{-15, -6, -8}, vec{-18, -4, -4}, vec{-19.5, -3, 0})
			addS(39+s, s, 0.7, vec{-14.5, -5.5, -10}, vec{-12.5, -10, -11.5}, vec{-11, -13, -12})
			addS(41+s, s, 0.6, vec{-14, -5, -11}, vec{-17.5, -1, -9}, vec{-18.5, 3, -7})
		}
	}
	if v.acom {
		add(ls.acom[0], 0.8, vec{-2.6, -7, 0}, vec{2.6, -7, 0})
	}
	if v.thirdA2 {
		add(ls.thirdA2[0], 0.75, vec{0, -7.2, 0.4}, vec{0, -10, 4}, vec{0, -11.5, 8})
	}
	if ls.veins {
		// Deep veins and the superior sagittal sinus (CTA only).
		add(35, 1.2, vec{0, 16, 4}, vec{0, 17.5, 5})
		add(36, 1.4, vec{0, 18.2, 5.5}, vec{0, 19.5, 9}, vec{0, 19.5, 12})
		add(37, 0.7, vec{0, 15.2, 3.6}, vec{-1, 12, 6}, vec{-1, 8, 7})
		add(38, 0.8, vec{-1.6, 15.4, 3.6}, vec{-5, 15, 3}, vec{-8, 11, 4})
		add(39, 0.8, vec{1.6, 15.4, 3.6}, vec{5, 15, 3}, vec{8, 11, 4})
		add(40, 1.8, vec{0, -16, 14.5}, vec{0, 0, 14.8}, vec{0, 12, 14.8})
	}
	// Trunks (ICA, BA) are drawn last so that their lumen overwrites the
	// roots of the branches: branches then touch the trunk only, never each
	// other, at a bifurcation.
	trunk := func(l int) bool { return l == ls.ica[0] || l == ls.ica[1] || l == ls.ba[0] }
	sort.SliceStable(segs, func(i, j int) bool { return !trunk(segs[i].label) && trunk(segs[j].label) })
	// Apply the case's scale, tilt (about z) and shift.
	c, s := math.Cos(v.tilt), math.Sin(v.tilt)
	for i := range segs {
		for j, p := range segs[i].pts {
			x, y := p[0]*c-p[1]*s, p[0]*s+p[1]*c
			segs[i].pts[j] = vec{x*v.scale + v.shift[0], y*v.scale + v.shift[1], p[2]*v.scale + v.shift[2]}
		}
	}
	return segs
}

// raster is a rasterised case: a label map, a soft vessel membership in
// [0, 1] (for the image) on a grid with the given spacing.
type raster struct {
	shape   [3]int
	spacing [3]float64
	labels  []uint8
	member  []float32
}

// rasterise draws the segments: a voxel belongs to a tube when its centre
// lies within the radius of the polyline (mm); later segments overwrite
// earlier ones at junctions. Membership falls off linearly over one voxel
// around the wall.
func rasterise(segs []segment, shape [3]int, spacing [3]float64) *raster {
	r := &raster{shape: shape, spacing: spacing, labels: make([]uint8, shape[0]*shape[1]*shape[2]), member: make([]float32, shape[0]*shape[1]*shape[2])}
	h := min(spacing[0], spacing[1], spacing[2])
	var centre [3]float64
	for a := 0; a < 3; a++ {
		centre[a] = float64(shape[a]-1) / 2 * spacing[a]
	}
	for _, sg := range segs {
		for k := 0; k+1 < len(sg.pts); k++ {
			a, b := sg.pts[k], sg.pts[k+1]
			var lo, hi [3]int
			for d := 0; d < 3; d++ {
				mn := math.Min(a[d], b[d]) - sg.radius - h
				mx := math.Max(a[d], b[d]) + sg.radius + h
				lo[d] = max(0, int(math.Floor((mn+centre[d])/spacing[d])))
				hi[d] = min(shape[d]-1, int(math.Ceil((mx+centre[d])/spacing[d])))
			}
			ab := vec{b[0] - a[0], b[1] - a[1], b[2] - a[2]}
			ab2 := ab[0]*ab[0] + ab[1]*ab[1] + ab[2]*ab[2]
			for z := lo[2]; z <= hi[2]; z++ {
				for y := lo[1]; y <= hi[1]; y++ {
					for x := lo[0]; x <= hi[0]; x++ {
						p := vec{float64(x)*spacing[0] - centre[0], float64(y)*spacing[1] - centre[1], float64(z)*spacing[2] - centre[2]}
						ap := vec{p[0] - a[0], p[1] - a[1], p[2] - a[2]}
						t := 0.0
						if ab2 > 0 {
							t = math.Max(0, math.Min(1, (ap[0]*ab[0]+ap[1]*ab[1]+ap[2]*ab[2])/ab2))
						}
						dx, dy, dz := ap[0]-t*ab[0], ap[1]-t*ab[1], ap[2]-t*ab[2]
						d := math.Sqrt(dx*dx + dy*dy + dz*dz)
						idx := x + shape[0]*(y+shape[1]*z)
						if m := float32(math.Max(0, math.Min(1, (sg.radius-d)/h+0.5))); m > r.member[idx] {
							r.member[idx] = m
						}
						if d <= sg.radius && sg.label > 0 {
							r.labels[idx] = uint8(sg.label)
						}
					}
				}
			}
		}
	}
	return r
}
