package puma

import (
	"fmt"
	"math"

	"github.com/rexmle/rexmle/metrics/matching"
)

// matchNuclei is matching.MatchPoints with the PUMA options (radius 15,
// the first prediction with an equal centroid removed) and the two things
// the Python code does with the scores of the candidate matches, which it
// reads only there:
//
//   - a candidate (a same-class prediction within the radius) whose score
//     cannot be negated (BadScore) makes the evaluation fail, as
//     -x['pred_score'] raises TypeError for every candidate of the list;
//   - with a NaN score among the candidates, the choice is the first
//     element of CPython's list.sort of the candidates by (-score,
//     distance): NaN compares neither below nor above anything, so the
//     result is the sort algorithm's (pySortFirst). Without NaN it is the
//     highest score, then the smallest distance, then the earliest, as
//     matching.MatchPoints picks.
func matchNuclei(truth, pred []detection, inclusive bool) (map[string]matching.ClassCount, error) {
	const radius = 15.0
	out := map[string]matching.ClassCount{}
	pools := map[string][]detection{}
	for _, p := range pred {
		pools[p.Class] = append(pools[p.Class], p)
		c := out[p.Class]
		c.Pred++
		out[p.Class] = c
	}
	var cand []candidate
	for _, g := range truth {
		c := out[g.Class]
		c.Truth++
		pool := pools[g.Class]
		cand = cand[:0]
		hasNaN := false
		for k, p := range pool {
			d := math.Sqrt((p.X-g.X)*(p.X-g.X) + (p.Y-g.Y)*(p.Y-g.Y))
			if !(d < radius || (inclusive && d == radius)) {
				continue
			}
			if p.BadScore != "" {
				return nil, fmt.Errorf("a %s prediction within %v px of a truth nucleus has a score of type %s, which the evaluation cannot sort by (bad operand type for unary -: '%s')", p.Class, radius, p.BadScore, p.BadScore)
			}
			hasNaN = hasNaN || math.IsNaN(p.Score)
			cand = append(cand, candidate{k, p.Score, d})
		}
		if len(cand) > 0 {
			var best int
			if hasNaN {
				best = pySortFirst(cand).k
			} else {
				b := cand[0]
				for _, x := range cand[1:] {
					if x.score > b.score || (x.score == b.score && x.d < b.d) {
						b = x
					}
				}
				best = b.k
			}
			c.TP++
			remove := best
			for k, p := range pool {
				if p.X == pool[best].X && p.Y == pool[best].Y {
					remove = k
					break
				}
			}
			pools[g.Class] = append(pool[:remove:remove], pool[remove+1:]...)
		}
		out[g.Class] = c
	}
	return out, nil
}

// candidate is one eligible prediction: its pool index, score, distance.
type candidate struct {
	k     int
	score float64
	d     float64
}

// pyLess is the reference's sort-key order, (-score, distance) < (-score',
// distance') as CPython compares tuples: the first elements decide unless
// they are equal (NaN is equal to nothing and less than nothing).
func pyLess(a, b candidate) bool {
	if -a.score == -b.score {
		return a.d < b.d
	}
	return -a.score < -b.score
}

// pySortFirst returns the first element of CPython's list.sort of xs by
// pyLess. Below 64 elements that sort is count_run followed by a binary
// insertion sort, reproduced here step for step; longer lists (64
// candidates within 15 px of one nucleus) take the same binary insertion
// sort over all of them, where CPython would merge runs (a documented
// limit, reached only with a NaN score among them). xs is reordered.
func pySortFirst(xs []candidate) candidate {
	n := len(xs)
	if n < 2 {
		return xs[0]
	}
	// count_run
	run := 2
	if pyLess(xs[1], xs[0]) {
		for run < n && pyLess(xs[run], xs[run-1]) {
			run++
		}
		for i, j := 0, run-1; i < j; i, j = i+1, j-1 {
			xs[i], xs[j] = xs[j], xs[i]
		}
	} else {
		for run < n && !pyLess(xs[run], xs[run-1]) {
			run++
		}
	}
	// binarysort(lo, hi, start = lo + run)
	for start := run; start < n; start++ {
		pivot := xs[start]
		l, r := 0, start
		for l < r {
			p := l + (r-l)>>1
			if pyLess(pivot, xs[p]) {
				r = p
			} else {
				l = p + 1
			}
		}
		copy(xs[l+1:start+1], xs[l:start])
		xs[l] = pivot
	}
	return xs[0]
}
