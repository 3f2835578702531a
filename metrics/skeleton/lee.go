// Package skeleton thins binary rasters to one-voxel-wide skeletons exactly
// as scikit-image's skeletonize does (0.12–0.25; the reference environment
// pins 0.25.2, see metrics/REFERENCE-VERSIONS.md) with Lee et al. (1994)
// 3-D thinning, in Lee3D:
// the algorithm skimage runs for every 3-D input, and for a 2-D image with
// method="lee" (pass it as a volume with one plane, Shape {w, h, 1}, ZYX).
// skimage's 2-D default (method="zhang") is not provided.
//
// Masks are stored as the rest of the project stores rasters: axis 0 varies
// fastest (volume.Grid order). scikit-image works on numpy arrays indexed
// (p, r, c) with c fastest, and the Lee result depends on which physical axis
// plays p, r and c, so every call names an Order.
//
// Conventions: the array is padded with background; solid blobs without a
// line-like core (2×2×2 and 4×4×4 cubes) thin to nothing, an isolated voxel
// stays, and an empty mask gives an empty skeleton, all as in skimage.
package skeleton

import (
	"context"
	"fmt"
	"math/bits"
)

// Order says which storage axes (axis 0 fastest) play the numpy array axes
// (p, r, c) that scikit-image sees.
type Order int

const (
	// ZYX is the array SimpleITK's GetArrayFromImage returns for an (x, y, z)
	// image: p = storage axis 2 (z), r = axis 1 (y), c = axis 0 (x). The
	// storage layout is then exactly numpy's C order.
	ZYX Order = iota
	// XYZ is that array transposed, as nibabel returns it: p = axis 0 (x),
	// r = axis 1 (y), c = axis 2 (z).
	XYZ
)

// axes returns the storage axis of p, r and c.
func (o Order) axes() ([3]int, error) {
	switch o {
	case ZYX:
		return [3]int{2, 1, 0}, nil
	case XYZ:
		return [3]int{0, 1, 2}, nil
	}
	return [3]int{}, fmt.Errorf("skeleton: unknown axis order %d", int(o))
}

// eulerLUT is column δG26 of Lee et al. (1994), Table 2: the change of the
// Euler characteristic contributed by one 2×2×2 octant configuration, for the
// odd octant codes n = 2i+1 (even codes contribute 0).
var eulerLUT = [128]int8{
	1, -1, -1, 1, -3, -1, -1, 1, -1, 1, 1, -1, 3, 1, 1, -1,
	-3, -1, 3, 1, 1, -1, 3, 1, -1, 1, 1, -1, 3, 1, 1, -1,
	-3, 3, -1, 1, 1, 3, -1, 1, -1, 1, 1, -1, 3, 1, 1, -1,
	1, 3, 3, 1, 5, 3, 3, 1, -1, 1, 1, -1, 3, 1, 1, -1,
	-7, -1, -1, 1, -3, -1, -1, 1, -1, 1, 1, -1, 3, 1, 1, -1,
	-3, -1, 3, 1, 1, -1, 3, 1, -1, 1, 1, -1, 3, 1, 1, -1,
	-3, 3, -1, 1, 1, 3, -1, 1, -1, 1, 1, -1, 3, 1, 1, -1,
	1, 3, 3, 1, 5, 3, 3, 1, -1, 1, 1, -1, 3, 1, 1, -1,
}

// octants lists, for each of the eight 2×2×2 octants around the centre, the
// neighbourhood indices weighted 128, 64, …, 2 in the octant code.
var octants = [8][7]uint8{
	{2, 1, 11, 10, 5, 4, 14},
	{0, 9, 3, 12, 1, 10, 4},
	{8, 7, 17, 16, 5, 4, 14},
	{6, 15, 7, 16, 3, 12, 4},
	{20, 23, 19, 22, 11, 14, 10},
	{18, 21, 9, 12, 19, 22, 10},
	{26, 23, 17, 14, 25, 22, 16},
	{24, 25, 15, 16, 21, 22, 12},
}

// nbOffset returns (dp, dr, dc) of neighbourhood index k, where
// k = 9(dp+1) + 3(dc+1) + (dr+1).
func nbOffset(k int) (dp, dr, dc int) {
	return k/9 - 1, k%3 - 1, (k/3)%3 - 1
}

// adjacency[k] is the bit set of neighbourhood positions (centre excluded)
// 26-adjacent to position k inside the 3×3×3 block.
var adjacency [27]uint32

func init() {
	for a := 0; a < 27; a++ {
		pa, ra, ca := nbOffset(a)
		for b := 0; b < 27; b++ {
			if a == b || b == 13 {
				continue
			}
			pb, rb, cb := nbOffset(b)
			if abs(pa-pb) <= 1 && abs(ra-rb) <= 1 && abs(ca-cb) <= 1 {
				adjacency[a] |= 1 << b
			}
		}
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

const centreBit = 1 << 13

// isEndpoint: exactly one of the 26 neighbours is set.
func isEndpoint(nb uint32) bool { return bits.OnesCount32(nb&^centreBit) == 1 }

// isEulerInvariant: the octant contributions of Lee's δG26 table sum to 0.
func isEulerInvariant(nb uint32) bool {
	sum := 0
	for _, o := range octants {
		n := 1
		for j, k := range o {
			if nb&(1<<k) != 0 {
				n |= 1 << (7 - j)
			}
		}
		sum += int(eulerLUT[(n-1)/2])
	}
	return sum == 0
}

// isSimple: the set neighbours (centre excluded) form at most one
// 26-connected component inside the 3×3×3 block.
func isSimple(nb uint32) bool {
	rest := nb &^ centreBit
	if rest == 0 {
		return true
	}
	comp := rest & -rest
	for {
		grown := comp
		for m := comp; m != 0; m &= m - 1 {
			grown |= adjacency[bits.TrailingZeros32(m)] & rest
		}
		if grown == comp {
			break
		}
		comp = grown
	}
	return comp == rest
}

// Lee3D thins a 3-D binary mask with the Lee et al. (1994) algorithm exactly
// as skimage.morphology.skeletonize does for a 3-D array (skimage 0.12–0.25).
//
// mask holds shape[0]·shape[1]·shape[2] samples in storage order (axis 0
// fastest); order says which storage axes form skimage's (p, r, c). The
// result is a new mask of the same layout, true on skeleton voxels.
// Conventions: the array is padded with background (nothing outside touches
// the object); passes sweep the six border directions W, E, S, N, U, B (only
// the first four when the p axis has length 1), each collecting simple,
// Euler-invariant non-endpoint border voxels in lexicographic (p, r, c) order
// and then deleting them one by one if still simple. Solid blobs without a
// line-like core (2×2×2, 4×4×4 cubes) thin to nothing, as in skimage. An
// empty mask gives an empty skeleton. Cancelling ctx stops the work.
func Lee3D(ctx context.Context, mask []bool, shape [3]int, order Order) ([]bool, error) {
	ax, err := order.axes()
	if err != nil {
		return nil, err
	}
	n := shape[0] * shape[1] * shape[2]
	if shape[0] <= 0 || shape[1] <= 0 || shape[2] <= 0 || len(mask) != n {
		return nil, fmt.Errorf("skeleton: mask has %d samples, shape %v needs %d", len(mask), shape, n)
	}
	out := make([]bool, n)
	lo, hi := boundingBox(mask, shape)
	if hi[0] < 0 {
		return out, nil
	}
	c := newLeeCrop(mask, shape, ax, lo, hi)
	if err := c.thin(ctx, shape[ax[0]] == 1); err != nil {
		return nil, err
	}
	c.scatter(out)
	return out, nil
}

// boundingBox returns the smallest and largest index along each storage
// axis of mask's true voxels; hi[0] is −1 when there is none.
func boundingBox(mask []bool, shape [3]int) (lo, hi [3]int) {
	lo = [3]int{shape[0], shape[1], shape[2]}
	hi = [3]int{-1, -1, -1}
	for k := 0; k < shape[2]; k++ {
		for j := 0; j < shape[1]; j++ {
			base := shape[0] * (j + shape[1]*k)
			for i, v := range mask[base : base+shape[0]] {
				if v {
					lo[0], hi[0] = min(lo[0], i), max(hi[0], i)
					lo[1], hi[1] = min(lo[1], j), max(hi[1], j)
					lo[2], hi[2] = min(lo[2], k), max(hi[2], k)
				}
			}
		}
	}
	return lo, hi
}

// leeCrop is Lee3D's working image: the object's bounding box with a
// one-voxel border of background, in (p, r, c) layout (c fastest, the
// order's axes ax), one byte per voxel, and the object's voxels in scan
// order.
type leeCrop struct {
	img     []byte
	sp, sr  int     // strides of p and r (c's is 1)
	objects []int32 // indices into img of the voxels still set
	offs    [27]int // index offsets of the 3×3×3 neighbours, nbOffset order
	shape   [3]int  // the mask's shape
	ax      [3]int  // storage axis of p, r, c
	lo      [3]int  // the bounding box's first index per storage axis
}

func newLeeCrop(mask []bool, shape, ax, lo, hi [3]int) *leeCrop {
	var ext [3]int // extent of p, r, c inside the crop
	for d := 0; d < 3; d++ {
		ext[d] = hi[ax[d]] - lo[ax[d]] + 1
	}
	c := &leeCrop{sr: ext[2] + 2, shape: shape, ax: ax, lo: lo}
	c.sp = c.sr * (ext[1] + 2)
	c.img = make([]byte, c.sp*(ext[0]+2))
	stride := [3]int{1, shape[0], shape[0] * shape[1]}
	var q [3]int
	for q[0] = 0; q[0] < ext[0]; q[0]++ {
		for q[1] = 0; q[1] < ext[1]; q[1]++ {
			for q[2] = 0; q[2] < ext[2]; q[2]++ {
				var s [3]int
				for d := 0; d < 3; d++ {
					s[ax[d]] = q[d] + lo[ax[d]]
				}
				if mask[s[0]+stride[1]*s[1]+stride[2]*s[2]] {
					idx := (q[0]+1)*c.sp + (q[1]+1)*c.sr + q[2] + 1
					c.img[idx] = 1
					c.objects = append(c.objects, int32(idx))
				}
			}
		}
	}
	for k := 0; k < 27; k++ {
		dp, dr, dc := nbOffset(k)
		c.offs[k] = dp*c.sp + dr*c.sr + dc
	}
	return c
}

// neighbourhood is the 27-bit occupancy of voxel idx's 3×3×3
// neighbourhood (bit k: neighbour nbOffset(k)).
func neighbourhood(img []byte, offs *[27]int, idx int) uint32 {
	var nb uint32
	for k, o := range offs {
		if img[idx+o] != 0 {
			nb |= 1 << k
		}
	}
	return nb
}

// thin runs Lee's passes until one deletes nothing: per border direction
// (W, E, S, N, then U, B unless the image is one plane along p), the
// object voxels open on that side that are no endpoint, keep the Euler
// characteristic and are simple are collected, then deleted one by one
// where they are still simple.
func (c *leeCrop) thin(ctx context.Context, flat bool) error {
	img, offs := c.img, &c.offs
	borders := []int{-c.sr, c.sr, 1, -1, c.sp, -c.sp} // W, E, S, N, U, B
	if flat {
		borders = borders[:4]
	}
	var cands []int32
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		changed := false
		for _, b := range borders {
			cands = cands[:0]
			for _, idx := range c.objects {
				i := int(idx)
				if img[i] == 0 || img[i+b] != 0 {
					continue
				}
				nb := neighbourhood(img, offs, i)
				if isEndpoint(nb) || !isEulerInvariant(nb) || !isSimple(nb) {
					continue
				}
				cands = append(cands, idx)
			}
			for _, idx := range cands {
				i := int(idx)
				if isSimple(neighbourhood(img, offs, i)) {
					img[i] = 0
					changed = true
				}
			}
		}
		// Drop deleted voxels from the object list, keeping scan order.
		kept := c.objects[:0]
		for _, idx := range c.objects {
			if img[idx] != 0 {
				kept = append(kept, idx)
			}
		}
		c.objects = kept
		if !changed {
			return nil
		}
	}
}

// scatter sets the voxels of out (the mask's layout) that are still in
// the crop.
func (c *leeCrop) scatter(out []bool) {
	stride := [3]int{1, c.shape[0], c.shape[0] * c.shape[1]}
	for _, idx := range c.objects {
		i := int(idx)
		q := [3]int{i/c.sp - 1, (i%c.sp)/c.sr - 1, i%c.sr - 1}
		var s [3]int
		for d := 0; d < 3; d++ {
			s[c.ax[d]] = q[d] + c.lo[c.ax[d]]
		}
		out[s[0]+stride[1]*s[1]+stride[2]*s[2]] = true
	}
}
