// Package assign solves the rectangular linear sum assignment problem the
// way scipy.optimize.linear_sum_assignment (scipy ≥ 1.6; the reference
// environment pins 1.13, see metrics/REFERENCE-VERSIONS.md) does, so that
// tie breaking, and therefore which pairs are matched, agrees with the
// reference graders exactly. Solve is the one entry point; metrics/matching
// uses it for the CellSeg instance matching.
//
// Conventions: the matrix is row-major; +Inf marks a forbidden pair, NaN
// and −Inf are ErrInvalid, a matrix with no finite complete assignment is
// ErrInfeasible, and an empty matrix gives empty results.
//
// The algorithm is the shortest augmenting path method of Crouse (2016,
// "On implementing 2D rectangular assignment algorithms"), one row at a
// time, with the same scan order and tie rules as scipy's implementation:
//   - a tall matrix (more rows than columns) is transposed first, solved, and
//     the pairs are reported sorted by row;
//   - maximisation negates the costs;
//   - inside one augmenting-path search the unvisited columns are scanned in
//     scipy's order (initially last column first, then the list order left
//     after swap-with-last removals); among columns with equal reduced path
//     cost the first one met wins unless a later one is still unassigned.
package assign

import (
	"errors"
	"fmt"
	"math"
	"sort"
)

// ErrInvalid is returned for a cost matrix holding NaN or −Inf (after the
// negation a maximisation applies), as scipy raises ValueError.
var ErrInvalid = errors.New("assign: cost matrix contains NaN or -inf")

// ErrInfeasible is returned when no complete assignment of finite cost
// exists (+Inf entries block it), as scipy raises ValueError.
var ErrInfeasible = errors.New("assign: cost matrix is infeasible")

// Solve returns the optimal assignment for the nr × nc cost matrix given
// row-major in cost (len(cost) must be nr·nc): row indices rows and column
// indices cols of equal length min(nr, nc), rows ascending, minimising
// Σ cost[rows[k]·nc + cols[k]] (maximising it when maximize is true). An
// empty matrix (nr or nc zero) yields empty slices. +Inf marks a forbidden
// pair; NaN and −Inf are ErrInvalid.
func Solve(nr, nc int, cost []float64, maximize bool) (rows, cols []int, err error) {
	if nr < 0 || nc < 0 || len(cost) != nr*nc {
		return nil, nil, fmt.Errorf("assign: cost has %d entries, want %d×%d", len(cost), nr, nc)
	}
	if nr == 0 || nc == 0 {
		return []int{}, []int{}, nil
	}
	transpose := nc < nr
	c := cost
	if transpose || maximize {
		c = make([]float64, nr*nc)
		if transpose {
			for i := 0; i < nr; i++ {
				for j := 0; j < nc; j++ {
					c[j*nr+i] = cost[i*nc+j]
				}
			}
			nr, nc = nc, nr
		} else {
			copy(c, cost)
		}
		if maximize {
			for i := range c {
				c[i] = -c[i]
			}
		}
	}
	for _, x := range c {
		if math.IsNaN(x) || math.IsInf(x, -1) {
			return nil, nil, ErrInvalid
		}
	}
	col4row, err := solveWide(nr, nc, c)
	if err != nil {
		return nil, nil, err
	}
	rows = make([]int, nr)
	cols = make([]int, nr)
	if transpose {
		// col4row maps original columns to original rows; report by row.
		idx := make([]int, nr)
		for k := range idx {
			idx[k] = k
		}
		sort.Slice(idx, func(a, b int) bool { return col4row[idx[a]] < col4row[idx[b]] })
		for k, v := range idx {
			rows[k] = col4row[v]
			cols[k] = v
		}
		return rows, cols, nil
	}
	for i := 0; i < nr; i++ {
		rows[i] = i
		cols[i] = col4row[i]
	}
	return rows, cols, nil
}

// solveWide solves nr ≤ nc and returns the column of every row.
func solveWide(nr, nc int, cost []float64) ([]int, error) {
	u := make([]float64, nr)
	v := make([]float64, nc)
	spc := make([]float64, nc) // shortest path costs
	path := make([]int, nc)
	col4row := make([]int, nr)
	row4col := make([]int, nc)
	for i := range path {
		path[i] = -1
		row4col[i] = -1
	}
	for i := range col4row {
		col4row[i] = -1
	}
	sr := make([]bool, nr)
	sc := make([]bool, nc)
	remaining := make([]int, nc)

	for cur := 0; cur < nr; cur++ {
		// Shortest augmenting path from row cur (Dijkstra over columns).
		minVal := 0.0
		nrem := nc
		for it := 0; it < nc; it++ {
			remaining[it] = nc - it - 1
		}
		for k := range sr {
			sr[k] = false
		}
		for k := range sc {
			sc[k] = false
			spc[k] = math.Inf(1)
		}
		sink := -1
		i := cur
		for sink == -1 {
			index := -1
			lowest := math.Inf(1)
			sr[i] = true
			row := cost[i*nc : (i+1)*nc]
			for it := 0; it < nrem; it++ {
				j := remaining[it]
				r := minVal + row[j] - u[i] - v[j]
				if r < spc[j] {
					path[j] = i
					spc[j] = r
				}
				if spc[j] < lowest || (spc[j] == lowest && row4col[j] == -1) {
					lowest = spc[j]
					index = it
				}
			}
			minVal = lowest
			if math.IsInf(minVal, 1) || index < 0 {
				return nil, ErrInfeasible
			}
			j := remaining[index]
			if row4col[j] == -1 {
				sink = j
			} else {
				i = row4col[j]
			}
			sc[j] = true
			nrem--
			remaining[index] = remaining[nrem]
		}
		// Dual update.
		u[cur] += minVal
		for r := 0; r < nr; r++ {
			if sr[r] && r != cur {
				u[r] += minVal - spc[col4row[r]]
			}
		}
		for j := 0; j < nc; j++ {
			if sc[j] {
				v[j] -= minVal - spc[j]
			}
		}
		// Augment along the path.
		j := sink
		for {
			r := path[j]
			row4col[j] = r
			col4row[r], j = j, col4row[r]
			if r == cur {
				break
			}
		}
	}
	return col4row, nil
}
