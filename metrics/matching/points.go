package matching

import "math"

// Point is one detected or annotated object: a centroid, a class name and a
// confidence score (truth points conventionally carry 1).
type Point struct {
	X, Y  float64
	Class string
	Score float64
}

// PointOptions configures MatchPoints.
type PointOptions struct {
	// Radius is the distance limit in pixels.
	Radius float64
	// Inclusive accepts d ≤ Radius; otherwise only d < Radius matches.
	Inclusive bool
	// RemoveFirstEqualCentroid reproduces the PUMA evaluation's removal
	// rule: after choosing a prediction, the first pool element whose
	// centroid equals the chosen one's exactly is removed (which may be a
	// different prediction, leaving the chosen one available again). When
	// false the chosen prediction itself is removed (strict one-to-one).
	RemoveFirstEqualCentroid bool
}

// ClassCount holds the counts of one class in one image.
type ClassCount struct {
	TP, Pred, Truth int
}

// FP is Pred − TP and FN is Truth − TP.
func (c ClassCount) FP() int { return c.Pred - c.TP }

// FN is the number of unmatched truth objects.
func (c ClassCount) FN() int { return c.Truth - c.TP }

// MatchPoints matches truth to predictions greedily, truth-driven, as the
// PUMA nuclei evaluation does. Predictions are pooled per class in the
// given order; truth points are visited in the given order; a truth point
// takes, among the same-class pool members within the radius (Euclidean
// distance sqrt(dx²+dy²)), the one with the highest score, then the
// smallest distance, then the earliest in the pool, and that counts one
// true positive for the class. The returned map has an entry for every
// class seen in truth or predictions. NaN coordinates never match.
func MatchPoints(truth, pred []Point, opt PointOptions) map[string]ClassCount {
	out := map[string]ClassCount{}
	pools := map[string][]Point{}
	for _, p := range pred {
		pools[p.Class] = append(pools[p.Class], p)
		c := out[p.Class]
		c.Pred++
		out[p.Class] = c
	}
	for _, g := range truth {
		c := out[g.Class]
		c.Truth++
		pool := pools[g.Class]
		best := -1
		var bestD float64
		for k, p := range pool {
			d := math.Sqrt((p.X-g.X)*(p.X-g.X) + (p.Y-g.Y)*(p.Y-g.Y))
			if !(d < opt.Radius || (opt.Inclusive && d == opt.Radius)) {
				continue
			}
			if best < 0 || p.Score > pool[best].Score || (p.Score == pool[best].Score && d < bestD) {
				best, bestD = k, d
			}
		}
		if best >= 0 {
			c.TP++
			remove := best
			if opt.RemoveFirstEqualCentroid {
				for k, p := range pool {
					if p.X == pool[best].X && p.Y == pool[best].Y {
						remove = k
						break
					}
				}
			}
			pools[g.Class] = append(pool[:remove:remove], pool[remove+1:]...)
		}
		out[g.Class] = c
	}
	return out
}

// F1 returns 2PR/(P+R) with precision P = TP/(TP+FP) and recall
// R = TP/(TP+FN), each 0 when its denominator is 0, and F1 0 when P+R is 0.
// A class absent from both sides (all counts 0) scores 0, as the PUMA
// graders do.
func F1(c ClassCount) float64 {
	tp, fp, fn := float64(c.TP), float64(c.FP()), float64(c.FN())
	if c.TP == 0 && c.FP() == 0 && c.FN() == 0 {
		return 0
	}
	var p, r float64
	if tp+fp > 0 {
		p = tp / (tp + fp)
	}
	if tp+fn > 0 {
		r = tp / (tp + fn)
	}
	if p+r == 0 {
		return 0
	}
	return 2 * p * r / (p + r)
}
