package topology

import "math"

// Box is an axis-aligned voxel box: Size voxels along each image axis
// (x, y, z) starting at the 0-based minimum corner Location. It covers the
// indices Location[i] … Location[i]+Size[i]−1.
type Box struct {
	Size     [3]int
	Location [3]int
}

// span is an inclusive integer range per axis; empty when hi < lo.
type span struct{ lo, hi [3]int }

func (s span) count() float64 {
	v := 1.0
	for i := 0; i < 3; i++ {
		n := s.hi[i] - s.lo[i] + 1
		if n <= 0 {
			return 0
		}
		v *= float64(n)
	}
	return v
}

func intersect(a, b span) span {
	var r span
	for i := 0; i < 3; i++ {
		r.lo[i] = max(a.lo[i], b.lo[i])
		r.hi[i] = min(a.hi[i], b.hi[i])
	}
	return r
}

func (b Box) span() span {
	var s span
	for i := 0; i < 3; i++ {
		s.lo[i] = b.Location[i]
		s.hi[i] = b.Location[i] + b.Size[i] - 1
	}
	return s
}

// Margins returns ceil(Size[i]·ratio) per axis, the float64 product of the
// integer size and ratio (so 3·0.2 = 0.6000000000000001 → 1, 5·0.2 → 1).
func (b Box) Margins(ratio float64) [3]int {
	var m [3]int
	for i := 0; i < 3; i++ {
		m[i] = int(math.Ceil(float64(b.Size[i]) * ratio))
	}
	return m
}

// Grown returns the inclusive index range of the box grown outward by
// its Margins(ratio) on both sides of every axis.
func (b Box) grown(ratio float64) span {
	s := b.span()
	m := b.Margins(ratio)
	for i := 0; i < 3; i++ {
		s.lo[i] -= m[i]
		s.hi[i] += m[i]
	}
	return s
}

// GrownBoxIoU is the ReX-MLE reference's box "IoU": both boxes are grown
// outward by ceil(ratio·size) voxels on each side of each axis (margins from
// each box's own size) and the IoU of the two filled lattice boxes is
// returned; 0 when the union is empty. The reference uses ratio 0.2 for its
// "boundary_iou" and 0.5 for its "iou".
func GrownBoxIoU(a, b Box, ratio float64) float64 {
	ga, gb := a.grown(ratio), b.grown(ratio)
	inter := intersect(ga, gb).count()
	union := ga.count() + gb.count() - inter
	if union == 0 {
		return 0
	}
	return inter / union
}

// shell returns the box and its inner box (voxels farther than the margin
// from every face); the shell is box \ inner.
func (b Box) shell(ratio float64) (outer, inner span) {
	outer = b.span()
	inner = outer
	m := b.Margins(ratio)
	for i := 0; i < 3; i++ {
		inner.lo[i] += m[i]
		inner.hi[i] -= m[i]
	}
	return outer, inner
}

// BoundaryBoxIoU is the official TopCoW box metric: each box is replaced by
// its hollow shell of voxels within ceil(ratio·size[i]) of a face along axis
// i (margins from each box's own size), and the IoU of the two voxel sets is
// returned; 0 when the union is empty. With ratio 0.5 the shell is the whole
// box and the value is the plain box IoU (the official "IoU"); the official
// "Boundary IoU" uses ratio 0.2. (The official code refuses a box with a
// zero margin; here such a box is simply empty.)
func BoundaryBoxIoU(a, b Box, ratio float64) float64 {
	oa, ia := a.shell(ratio)
	ob, ib := b.shell(ratio)
	// |SA ∩ SB| with SA = OA \ IA (IA ⊂ OA), by inclusion–exclusion.
	inter := intersect(oa, ob).count() - intersect(ia, ob).count() - intersect(oa, ib).count() + intersect(ia, ib).count()
	sa := oa.count() - ia.count()
	sb := ob.count() - ib.count()
	union := sa + sb - inter
	if union <= 0 {
		return 0
	}
	return inter / union
}

// BoundingBox returns the tight box around the true voxels of a mask of the
// given storage shape, and false when the mask is empty.
func BoundingBox(mask []bool, shape [3]int) (Box, bool) {
	lo := [3]int{math.MaxInt, math.MaxInt, math.MaxInt}
	hi := [3]int{-1, -1, -1}
	i := 0
	for z := 0; z < shape[2]; z++ {
		for y := 0; y < shape[1]; y++ {
			for x := 0; x < shape[0]; x++ {
				if mask[i] {
					c := [3]int{x, y, z}
					for d := 0; d < 3; d++ {
						lo[d] = min(lo[d], c[d])
						hi[d] = max(hi[d], c[d])
					}
				}
				i++
			}
		}
	}
	if hi[0] < 0 {
		return Box{}, false
	}
	var b Box
	for d := 0; d < 3; d++ {
		b.Location[d] = lo[d]
		b.Size[d] = hi[d] - lo[d] + 1
	}
	return b, true
}
