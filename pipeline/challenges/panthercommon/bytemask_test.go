package panthercommon

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/rexmle/rexmle/metrics/volume"
	"github.com/rexmle/rexmle/pipeline/challenges/medseg"
)

// byteVolume is one generated 8-bit mask of a differential case.
type byteVolume struct {
	what string
	b    []uint8
}

// byteVolumes generates masks on grid g: every corner case the byte path
// must get right (empty, one voxel, every voxel, a voxel on each face and
// edge, runs that wrap from one row or plane into the next) and random
// blobs and noise over several label sets, PANTHER's {0, 1, 2} included.
func byteVolumes(rng *rand.Rand, g volume.Grid) []byteVolume {
	n := g.Len()
	n0, n1, n2 := g.Shape[0], g.Shape[1], g.Shape[2]
	filled := func(what string, fn func(b []uint8)) byteVolume {
		b := make([]uint8, n)
		fn(b)
		return byteVolume{what, b}
	}
	out := []byteVolume{
		filled("empty", func([]uint8) {}),
		filled("one voxel", func(b []uint8) { b[rng.IntN(n)] = 1 }),
		filled("one voxel of 2", func(b []uint8) { b[rng.IntN(n)] = 2 }),
		filled("first and last voxel", func(b []uint8) { b[0], b[n-1] = 1, 1 }),
		filled("every voxel 1", func(b []uint8) {
			for i := range b {
				b[i] = 1
			}
		}),
		filled("every voxel 2 but one 1", func(b []uint8) {
			for i := range b {
				b[i] = 2
			}
			b[rng.IntN(n)] = 1
		}),
		filled("faces", func(b []uint8) { // x = 0, y = n1-1 and z = n2-1 faces
			for k := 0; k < n2; k++ {
				for j := 0; j < n1; j++ {
					for i := 0; i < n0; i++ {
						if i == 0 || j == n1-1 || k == n2-1 {
							b[g.Index(i, j, k)] = 1
						}
					}
				}
			}
		}),
		filled("run across rows and planes", func(b []uint8) {
			lo := rng.IntN(n)
			hi := min(n, lo+n0*n1+rng.IntN(2*n0+1))
			for i := lo; i < hi; i++ {
				b[i] = 1
			}
		}),
		filled("edge voxels x max", func(b []uint8) {
			for k := 0; k < n2; k++ {
				b[g.Index(n0-1, rng.IntN(n1), k)] = 1
			}
		}),
	}
	sets := [][]uint8{{0, 1}, {0, 1, 2}, {0, 2}, {0, 255}, {1, 2}, {0, 1, 3}, {0, 3, 4}, {0, 1, 2, 7}, {2}, {0, 1, 2, 1, 1}}
	for r := 0; r < 6; r++ {
		set := sets[rng.IntN(len(sets))]
		c := [3]int{rng.IntN(n0), rng.IntN(n1), rng.IntN(n2)}
		rad := 1 + rng.IntN(4)
		out = append(out, filled(fmt.Sprintf("blob %v", set), func(b []uint8) {
			for k := 0; k < n2; k++ {
				for j := 0; j < n1; j++ {
					for i := 0; i < n0; i++ {
						x := set[0]
						if abs(i-c[0])+abs(j-c[1])+abs(k-c[2]) < rad && len(set) > 1 {
							x = set[1+rng.IntN(len(set)-1)]
						}
						b[g.Index(i, j, k)] = x
					}
				}
			}
		}))
		out = append(out, filled(fmt.Sprintf("noise %v", set), func(b []uint8) {
			for i := range b {
				b[i] = set[rng.IntN(len(set))]
			}
		}))
	}
	return out
}

// plainScore is the straightforward computation the byte path replaces:
// whole-volume masks from the value rules (officialTruthBytes, MaskOf,
// officialPredictionMask, predictionMask) scored by Score.
func plainScore(gt, pred []uint8, g volume.Grid, official bool) (CaseValues, error) {
	truth := medseg.MaskOf(gt, func(x uint8) bool { return x == 1 })
	if official {
		truth = officialTruthBytes(gt)
	}
	var pm []bool
	var err error
	if official {
		pm, err = officialPredictionMask(pred)
	} else {
		pm, err = predictionMask(pred)
	}
	if err != nil {
		return CaseValues{}, invalidMask{err}
	}
	return Score(pm, truth, g)
}

func sameBits(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || (math.IsNaN(a) && math.IsNaN(b))
}

// TestScoreBytesMatchesPlain: on generated 8-bit volumes (random grids
// from one voxel up, anisotropic spacing, every pair of the masks
// byteVolumes makes) the byte path gives bit-identical values, and the
// same error, as whole-volume masks scored by Score, in both modes.
func TestScoreBytesMatchesPlain(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 34))
	grids := []volume.Grid{volume.NewGrid(1, 1, 1), volume.NewGrid(1, 7, 1), volume.NewGrid(9, 1, 4), volume.NewGrid(33, 2, 3)}
	for range 14 {
		grids = append(grids, volume.NewGrid(1+rng.IntN(19), 1+rng.IntN(12), 1+rng.IntN(7)))
	}
	cases := 0
	for gi, g := range grids {
		g.Spacing = [3]float64{0.5 + rng.Float64(), 0.3 + 2*rng.Float64(), 2.5 + rng.Float64()}
		vols := byteVolumes(rng, g)
		for _, gt := range vols {
			for _, pred := range vols {
				for _, official := range []bool{false, true} {
					want, wantErr := plainScore(gt.b, pred.b, g, official)
					c := &caseFiles{gtBytes: gt.b, gtStats: scanValues(gt.b, g), pred: &medseg.Loaded{Bytes: pred.b}, predStats: scanValues(pred.b, g)}
					got, gotErr := scoreBytes(c, g, official)
					name := fmt.Sprintf("grid %d %v, GT %s, prediction %s, official %v", gi, g.Shape, gt.what, pred.what, official)
					if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
						t.Fatalf("%s: error %v, want %v", name, gotErr, wantErr)
					}
					for _, f := range []struct {
						name      string
						got, want float64
					}{{"dsc", got.DSC, want.DSC}, {"msd", got.MSD, want.MSD}, {"hd95", got.HD95, want.HD95}, {"masd", got.MASD, want.MASD}, {"burden", got.Burden, want.Burden}} {
						if !sameBits(f.got, f.want) {
							t.Fatalf("%s: %s = %v, want %v (bit-identical)", name, f.name, f.got, f.want)
						}
					}
					cases++
				}
			}
		}
	}
	t.Logf("%d cases compared", cases)
}

// TestScanValues: scanValues against a voxel-by-voxel count, box and
// order of first appearance.
func TestScanValues(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for it := 0; it < 40; it++ {
		g := volume.NewGrid(1+rng.IntN(20), 1+rng.IntN(9), 1+rng.IntN(6))
		for _, v := range byteVolumes(rng, g) {
			got := scanValues(v.b, g)
			var count [256]int
			var order []uint8
			boxes := map[uint8]box{}
			for idx, x := range v.b {
				if count[x] == 0 {
					order = append(order, x)
				}
				count[x]++
				i, j, k := g.Coords(idx)
				bx, ok := boxes[x]
				if !ok {
					bx = emptyBox(g)
				}
				boxes[x] = bx.union(box{lo: [3]int{i, j, k}, hi: [3]int{i, j, k}})
			}
			if got.count != count || !slices.Equal(got.order, order) {
				t.Fatalf("%v %s: counts/order %v, want %v", g.Shape, v.what, got.order, order)
			}
			for x := 1; x < 256; x++ {
				want, ok := boxes[uint8(x)]
				if !ok {
					want = emptyBox(g)
				}
				if got.box[x] != want {
					t.Fatalf("%v %s: box of %d %v, want %v", g.Shape, v.what, x, got.box[x], want)
				}
			}
		}
	}
}
