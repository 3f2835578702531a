package components

import (
	"bytes"
	"fmt"

	"github.com/rexmle/rexmle/metrics/bytescan"
	"github.com/rexmle/rexmle/metrics/internal/boolbytes"
	"github.com/rexmle/rexmle/metrics/volume"
)

// runs is a mask as maximal runs of true voxels along axis 0: row r (axis-1
// index j, axis-2 index k, r = j + k·n1) holds the runs start[r] ≤ q <
// start[r+1], each covering axis-0 positions lo[q] … hi[q]. Sparse masks
// (lesions, vessels) have a few runs per row, so labelling the runs instead
// of the voxels touches each voxel once, to find the runs, and then works
// on a few thousand runs. rows lists the rows that hold runs, in increasing
// order (labelling visits only them).
type runs struct {
	start  []int32 // per row, index of its first run; one extra entry at the end
	lo, hi []int32
	rows   []int32
}

// findRuns collects the runs of mask on grid g.
func findRuns(mask []bool, g volume.Grid) runs {
	return scanRuns(boolbytes.Of(mask), g, nextOne)
}

// findRunsNonZero collects the runs of the non-zero bytes of b on grid g
// (voxel i is in the mask when b[i] != 0).
func findRunsNonZero(b []byte, g volume.Grid) runs {
	return scanRuns(b, g, nextNonZero)
}

// nextOne is the index of the first byte 1 at or after pos in the bytes
// of a bool mask, −1 when there is none.
func nextOne(b []byte, pos int) int {
	if k := bytes.IndexByte(b[pos:], 1); k >= 0 {
		return pos + k
	}
	return -1
}

// nextNonZero is the index of the first non-zero byte at or after pos, −1
// when there is none.
func nextNonZero(b []byte, pos int) int {
	if k := bytescan.FirstOther(b[pos:], 0); pos+k < len(b) {
		return pos + k
	}
	return -1
}

// scanRuns collects the runs of the non-zero bytes of b on grid g; next
// finds the next non-zero byte (nextOne where b holds only 0 and 1). One
// scan over the whole mask, not a call per row: most rows of a sparse mask
// are empty. A run ends at the first zero byte or at the end of its row.
func scanRuns(b []byte, g volume.Grid, next func(b []byte, pos int) int) runs {
	n0 := g.Shape[0]
	nrows := g.Shape[1] * g.Shape[2]
	rs := runs{start: make([]int32, nrows+1)}
	r := 0 // rows before r have their start set
	for pos := 0; ; {
		if pos = next(b, pos); pos < 0 {
			break
		}
		row := pos / n0
		if r <= row {
			for ; r <= row; r++ {
				rs.start[r] = int32(len(rs.lo))
			}
			rs.rows = append(rs.rows, int32(row))
		}
		end := (row + 1) * n0
		if k := bytes.IndexByte(b[pos:end], 0); k >= 0 {
			end = pos + k
		}
		rs.lo = append(rs.lo, int32(pos-row*n0))
		rs.hi = append(rs.hi, int32(end-1-row*n0))
		pos = end
	}
	for ; r < nrows; r++ {
		rs.start[r] = int32(len(rs.lo))
	}
	rs.start[nrows] = int32(len(rs.lo))
	return rs
}

// voxels is the number of voxels of the runs.
func (rs runs) voxels() int {
	n := 0
	for q := range rs.lo {
		n += int(rs.hi[q]-rs.lo[q]) + 1
	}
	return n
}

// rowNeighbour is a row displacement (axes 1 and 2) to an earlier row with
// the axis-0 displacements d0min … d0max that connect along it.
type rowNeighbour struct {
	d1, d2       int
	d0min, d0max int32
}

// rowNeighbours groups the backward neighbour offsets of a connectivity by
// row; the same-row offset (−1, 0, 0) is left out, since runs are maximal.
func rowNeighbours(nbrs []offset) []rowNeighbour {
	var out []rowNeighbour
	for _, o := range nbrs {
		if o.d1 == 0 && o.d2 == 0 {
			continue
		}
		found := false
		for i := range out {
			if out[i].d1 == o.d1 && out[i].d2 == o.d2 {
				out[i].d0min = min(out[i].d0min, int32(o.d0))
				out[i].d0max = max(out[i].d0max, int32(o.d0))
				found = true
			}
		}
		if !found {
			out = append(out, rowNeighbour{o.d1, o.d2, int32(o.d0), int32(o.d0)})
		}
	}
	return out
}

// label joins the runs into connected components: it returns each run's
// component root (a run index; runs of one component share it) and the
// number of components. Backward offsets of every connectivity differ by
// consecutive axis-0 displacements within a row, so run a in row r touches
// run b in an earlier row r' when b, widened to b.lo − d0max … b.hi − d0min,
// overlaps a.
func (rs runs) label(g volume.Grid, nbrs []rowNeighbour) ([]int32, int) {
	n1 := g.Shape[1]
	uf := unionFind{parent: make([]int32, len(rs.lo))}
	for i := range uf.parent {
		uf.parent[i] = int32(i)
	}
	for _, r32 := range rs.rows {
		r := int(r32)
		j, k := r%n1, r/n1
		a0, a1 := rs.start[r], rs.start[r+1]
		for _, nb := range nbrs {
			jj, kk := j+nb.d1, k+nb.d2
			if jj < 0 || jj >= n1 || kk < 0 {
				continue
			}
			rr := jj + kk*n1
			b, b1 := rs.start[rr], rs.start[rr+1]
			a := a0
			for a < a1 && b < b1 {
				// b widened: the positions of row r that b touches.
				wlo, whi := rs.lo[b]-nb.d0max, rs.hi[b]-nb.d0min
				switch {
				case rs.hi[a] < wlo:
					a++
					continue
				case whi < rs.lo[a]:
					b++
					continue
				}
				uf.union(a, b)
				// Widened runs of one row meet at most at one position
				// (runs are separated by a gap), so on a tie the next b
				// may still touch a: advance b.
				if rs.hi[a] < whi {
					a++
				} else {
					b++
				}
			}
		}
	}
	n := 0
	for q := range uf.parent {
		if uf.find(int32(q)) == int32(q) {
			n++
		}
	}
	return uf.parent, n
}

// countRuns is Count through runs.
func countRuns(mask []bool, g volume.Grid, connectivity int) (int, error) {
	nbrs, err := checkInput(len(mask), g, connectivity)
	if err != nil {
		return 0, err
	}
	_, n := findRuns(mask, g).label(g, rowNeighbours(nbrs))
	return n, nil
}

// labelled is a mask's runs joined into components: root[q] is run q's
// component root (see runs.label), n the number of components.
type labelled struct {
	rs   runs
	root []int32
	n    int
}

// labelRuns labels the runs of a mask with the backward row neighbours rn.
func labelRuns(rs runs, g volume.Grid, rn []rowNeighbour) labelled {
	root, n := rs.label(g, rn)
	return labelled{rs: rs, root: root, n: n}
}

// matchLabelled compares a labelled prediction with a labelled truth of
// the same grid (see LesionMatch): a truth and a prediction component meet
// when a truth run and a prediction run of one row overlap.
func matchLabelled(p, t labelled) LesionMatch {
	tr, pr := t.rs, p.rs
	hitTruth := make([]bool, len(t.root))
	touchPred := make([]bool, len(p.root))
	overlap := 0
	for _, r := range tr.rows { // a row without truth has no overlap
		a, a1 := tr.start[r], tr.start[r+1]
		b, b1 := pr.start[r], pr.start[r+1]
		for a < a1 && b < b1 {
			switch {
			case tr.hi[a] < pr.lo[b]:
				a++
				continue
			case pr.hi[b] < tr.lo[a]:
				b++
				continue
			}
			hitTruth[t.root[a]] = true
			touchPred[p.root[b]] = true
			overlap += int(min(tr.hi[a], pr.hi[b]) - max(tr.lo[a], pr.lo[b]) + 1)
			if tr.hi[a] < pr.hi[b] {
				a++
			} else {
				b++
			}
		}
	}
	m := LesionMatch{TruthCount: t.n, PredCount: p.n, TruthVoxels: tr.voxels(), PredVoxels: pr.voxels(), OverlapVoxels: overlap}
	for q, root := range t.root {
		if root != int32(q) {
			continue
		}
		if hitTruth[q] {
			m.TP++
		} else {
			m.FN++
		}
	}
	for q, root := range p.root {
		if root == int32(q) && !touchPred[q] {
			m.FP++
		}
	}
	return m
}

// matchLesionRuns is MatchLesions through runs: the components come from
// the runs of each mask.
func matchLesionRuns(pred, truth []bool, g volume.Grid, connectivity int) (LesionMatch, error) {
	nbrs, err := checkInput(len(truth), g, connectivity)
	if err != nil {
		return LesionMatch{}, fmt.Errorf("lesion matching, truth: %w", err)
	}
	if _, err := checkInput(len(pred), g, connectivity); err != nil {
		return LesionMatch{}, fmt.Errorf("lesion matching, prediction: %w", err)
	}
	rn := rowNeighbours(nbrs)
	t := labelRuns(findRuns(truth, g), g, rn)
	p := labelRuns(findRuns(pred, g), g, rn)
	return matchLabelled(p, t), nil
}
