package overlap

import (
	"cmp"
	"fmt"
	"runtime"
	"slices"
)

// LabelCounts holds, for one label l of two label maps, Pred = |{pred == l}|,
// Truth = |{truth == l}| and Inter = |{pred == l and truth == l}|.
type LabelCounts struct {
	Label              int32
	Pred, Truth, Inter int
}

// Dice is 2·Inter / (Pred + Truth) for this label; bothEmpty when the label
// occurs in neither map.
func (c LabelCounts) Dice(bothEmpty float64) float64 {
	if c.Pred+c.Truth == 0 {
		return bothEmpty
	}
	return float64(2*c.Inter) / float64(c.Pred+c.Truth)
}

// IoU is Inter / (Pred + Truth − Inter); bothEmpty when the union is empty.
func (c LabelCounts) IoU(bothEmpty float64) float64 {
	u := c.Pred + c.Truth - c.Inter
	if u == 0 {
		return bothEmpty
	}
	return float64(c.Inter) / float64(u)
}

// denseLabels is the label range counted in arrays; other labels use maps.
const denseLabels = 1024

type labelTally struct {
	pred, truth, inter [denseLabels]int
	sparse             map[int32]*LabelCounts
}

func (t *labelTally) sparseEntry(l int32) *LabelCounts {
	if t.sparse == nil {
		t.sparse = map[int32]*LabelCounts{}
	}
	e := t.sparse[l]
	if e == nil {
		e = &LabelCounts{Label: l}
		t.sparse[l] = e
	}
	return e
}

// PerLabel counts, in one parallel pass over both maps, every non-zero label
// that occurs in pred or truth. The result is sorted by label; labels absent
// from both maps are not listed (add them with zero counts if a grader needs
// a fixed label list). It fails when the maps differ in length.
func PerLabel(pred, truth []int32) ([]LabelCounts, error) {
	if len(pred) != len(truth) {
		return nil, fmt.Errorf("per-label counts: prediction has %d voxels, truth has %d", len(pred), len(truth))
	}
	tallies := make([]*labelTally, runtime.GOMAXPROCS(0)+1)
	used := chunks(len(pred), func(part, lo, hi int) {
		t := &labelTally{}
		p, g := pred[lo:hi], truth[lo:hi]
		for i := range p {
			a, b := p[i], g[i]
			if uint32(a) < denseLabels {
				t.pred[a]++
			} else {
				t.sparseEntry(a).Pred++
			}
			if uint32(b) < denseLabels {
				t.truth[b]++
			} else {
				t.sparseEntry(b).Truth++
			}
			if a == b {
				if uint32(a) < denseLabels {
					t.inter[a]++
				} else {
					t.sparseEntry(a).Inter++
				}
			}
		}
		tallies[part] = t
	})
	total := map[int32]*LabelCounts{}
	get := func(l int32) *LabelCounts {
		e := total[l]
		if e == nil {
			e = &LabelCounts{Label: l}
			total[l] = e
		}
		return e
	}
	for _, t := range tallies[:used] {
		for l := 1; l < denseLabels; l++ {
			if t.pred[l]+t.truth[l] > 0 {
				e := get(int32(l))
				e.Pred += t.pred[l]
				e.Truth += t.truth[l]
				e.Inter += t.inter[l]
			}
		}
		for l, s := range t.sparse {
			e := get(l)
			e.Pred += s.Pred
			e.Truth += s.Truth
			e.Inter += s.Inter
		}
	}
	out := make([]LabelCounts, 0, len(total))
	for l, e := range total {
		if l != 0 {
			out = append(out, *e)
		}
	}
	slices.SortFunc(out, func(a, b LabelCounts) int { return cmp.Compare(a.Label, b.Label) })
	return out, nil
}

// Pair is the overlap of prediction instance Pred and truth instance Truth:
// Inter voxels carry both labels.
type Pair struct {
	Pred, Truth int32
	Inter       int
}

// Pairs lists every (pred label ≠ 0, truth label ≠ 0) combination that
// shares at least one voxel, with its intersection size, sorted by Truth then
// Pred. With the instance sizes from LabelSizes, IoU = Inter/(|p|+|g|−Inter).
// It fails when the maps differ in length.
func Pairs(pred, truth []int32) ([]Pair, error) {
	if len(pred) != len(truth) {
		return nil, fmt.Errorf("instance pairs: prediction has %d pixels, truth has %d", len(pred), len(truth))
	}
	maps := make([]map[uint64]int, runtime.GOMAXPROCS(0)+1)
	used := chunks(len(pred), func(part, lo, hi int) {
		m := map[uint64]int{}
		p, g := pred[lo:hi], truth[lo:hi]
		for i := range p {
			if p[i] != 0 && g[i] != 0 {
				m[uint64(uint32(g[i]))<<32|uint64(uint32(p[i]))]++
			}
		}
		maps[part] = m
	})
	total := maps[0]
	for _, m := range maps[1:used] {
		for k, v := range m {
			total[k] += v
		}
	}
	out := make([]Pair, 0, len(total))
	for k, v := range total {
		out = append(out, Pair{Truth: int32(uint32(k >> 32)), Pred: int32(uint32(k)), Inter: v})
	}
	slices.SortFunc(out, func(a, b Pair) int {
		if c := cmp.Compare(a.Truth, b.Truth); c != 0 {
			return c
		}
		return cmp.Compare(a.Pred, b.Pred)
	})
	return out, nil
}

// LabelSizes counts the voxels of every label value (0 included).
func LabelSizes(labels []int32) map[int32]int {
	m := map[int32]int{}
	for _, l := range labels {
		m[l]++
	}
	return m
}
