package detection

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sort"

	"github.com/rexmle/rexmle/metrics/num"
)

// Summary are the COCO statistics a resample is ranked on: Eval.Stats[0]
// (AP), [1] (AP50), [2] (AP75) and [8] (AR at the last maxDets), all at the
// first area range.
type Summary struct{ AP, AP50, AP75, AR float64 }

// Pool re-accumulates the Summary of a multiset of images from their
// ImageRecords, exactly as Evaluate would on a submission holding those
// images, each as many times as drawn: the images in the order they were
// given (the evaluation's image order), the copies of one image next to each
// other. With every image drawn once it reproduces Evaluate's statistics bit
// for bit. The records are sorted once by NewPool; a resample only walks
// them. A Pool is not safe for concurrent use.
type Pool struct {
	eval Eval // one area range and one maxDets; Precision, Recall reused
	nImg int
	cats []poolCat
	prs  [][]float64 // scratch: [t] precision at each true positive
	cr   []int       // scratch: [r] true positives reaching recall threshold r
	vals []float64   // scratch: the values a statistic averages
}

type poolCat struct {
	npos []int32   // [image] truths not ignored
	runs []poolRun // detections in accumulate order, as runs of one image and one score
	dets []poolDet
}

// poolRun is dets[lo:hi], all of image img with equal scores: a run the
// copies of img repeat as a block. plain: all of them unmatched and not
// ignored at every threshold.
type poolRun struct {
	img, lo, hi int32
	plain       bool
}

type poolDet struct{ match, ignore uint64 }

// NewPool prepares the re-accumulation of the records of an evaluation with
// parameters p (Params.Categories, IoU and recall thresholds, MaxDets and
// the first area range are used); images are in the evaluation's order.
func NewPool(p Params, images []ImageRecord) (*Pool, error) {
	T, R, K := len(p.IoUThresholds), len(p.RecallThresholds), len(p.Categories)
	if T == 0 || R == 0 || len(p.MaxDets) == 0 || len(p.AreaRanges) == 0 || len(p.AreaNames) == 0 {
		return nil, fmt.Errorf("detection: incomplete parameters")
	}
	if T > maxThresholds {
		return nil, fmt.Errorf("detection: %d IoU thresholds, at most %d supported", T, maxThresholds)
	}
	maxDet := p.MaxDets[len(p.MaxDets)-1]
	full := (uint64(1) << T) - 1
	if T == 64 {
		full = math.MaxUint64
	}
	pl := &Pool{nImg: len(images), cats: make([]poolCat, K)}
	pl.eval.Params = Params{
		ImageIDs:         nil,
		Categories:       p.Categories,
		IoUThresholds:    p.IoUThresholds,
		RecallThresholds: p.RecallThresholds,
		MaxDets:          []int{maxDet},
		AreaRanges:       p.AreaRanges[:1],
		AreaNames:        p.AreaNames[:1],
	}
	pl.eval.Precision = make([]float64, T*R*K)
	pl.eval.Recall = make([]float64, T*K)
	type entry struct {
		score float64
		img   int32
		rank  int32
		d     poolDet
	}
	per := make([][]entry, K)
	for k := range pl.cats {
		pl.cats[k].npos = make([]int32, len(images))
	}
	for i, im := range images {
		prev := -1
		for _, c := range im.Categories {
			if c.K < 0 || c.K >= K || c.K <= prev {
				return nil, fmt.Errorf("detection: image %d: category index %d out of range or out of order", i, c.K)
			}
			prev = c.K
			if c.NPos < 0 || c.NPos > math.MaxInt32 {
				return nil, fmt.Errorf("detection: image %d: %d truths", i, c.NPos)
			}
			pl.cats[c.K].npos[i] = int32(c.NPos)
			if len(c.Dets) > maxDet {
				return nil, fmt.Errorf("detection: image %d: %d detections of category index %d, more than maxDets %d", i, len(c.Dets), c.K, maxDet)
			}
			for r, d := range c.Dets {
				if d.Match&^full != 0 || d.Ignore&^full != 0 {
					return nil, fmt.Errorf("detection: image %d: invalid detection record %+v", i, d)
				}
				if r > 0 && cmp.Compare(d.Score, c.Dets[r-1].Score) > 0 { // NaN last, as numpy sorts it
					return nil, fmt.Errorf("detection: image %d: detections of category index %d not in descending score order", i, c.K)
				}
				per[c.K] = append(per[c.K], entry{d.Score, int32(i), int32(r), poolDet{d.Match, d.Ignore}})
			}
		}
	}
	for k, es := range per {
		// accumulate's stable sort of the per-image lists in image order.
		slices.SortFunc(es, func(x, y entry) int {
			if r := cmp.Compare(y.score, x.score); r != 0 {
				return r
			}
			if r := cmp.Compare(x.img, y.img); r != 0 {
				return r
			}
			return cmp.Compare(x.rank, y.rank)
		})
		c := &pl.cats[k]
		c.dets = make([]poolDet, len(es))
		for n, x := range es {
			c.dets[n] = x.d
			plain := x.d.match == 0 && x.d.ignore == 0
			if n > 0 && x.img == es[n-1].img && x.score == es[n-1].score {
				r := &c.runs[len(c.runs)-1]
				r.hi++
				r.plain = r.plain && plain
				continue
			}
			c.runs = append(c.runs, poolRun{x.img, int32(n), int32(n + 1), plain})
		}
	}
	return pl, nil
}

// Stats re-accumulates the multiset in which image i is drawn w[i] times
// (len(w) = the number of images the pool was built from).
//
// It gives accumulate's numbers without building its curves. Recall
// rc = tp/npig steps only at true positives, so the leftmost point reaching
// a recall threshold is where the true-positive count first reaches the
// smallest c with c/npig ≥ threshold; and precision tp/(fp+tp+ε) rises only
// at true positives (false positives lower it, ignored detections keep it),
// so the right-to-left maximum from that point is the maximum over the
// true positives from the c-th on. Only the precision at each true positive
// is computed, with accumulate's expression.
func (pl *Pool) Stats(w []int) (Summary, error) {
	if len(w) != pl.nImg {
		return Summary{}, fmt.Errorf("detection: %d weights for %d images", len(w), pl.nImg)
	}
	e := &pl.eval
	T, R, _, _, _ := e.dims()
	for i := range e.Precision {
		e.Precision[i] = -1
	}
	for i := range e.Recall {
		e.Recall[i] = -1
	}
	full := ^uint64(0) >> (64 - T)
	eps := math.Nextafter(1, 2) - 1 // np.spacing(1) = 2^-52
	if len(pl.prs) < T {
		pl.prs = make([][]float64, T)
	}
	pl.cr = grow(pl.cr, R)
	for k := range pl.cats {
		pl.categoryStats(k, w, full, eps)
	}
	nan := math.NaN()
	return Summary{
		AP:   pl.summarize(true, nan),
		AP50: pl.summarize(true, 0.5),
		AP75: pl.summarize(true, 0.75),
		AR:   pl.summarize(false, nan),
	}, nil
}

// categoryStats fills e.Precision and e.Recall for category k with image
// i counted w[i] times (Stats; full masks the T thresholds, eps is
// np.spacing(1)).
func (pl *Pool) categoryStats(k int, w []int, full uint64, eps float64) {
	e := &pl.eval
	p := e.Params
	T, R, K, _, _ := e.dims()
	c := &pl.cats[k]
	npig := 0
	for i, n := range c.npos {
		npig += w[i] * int(n)
	}
	if npig == 0 {
		return
	}
	// Per threshold t: true positives and ignored detections so far;
	// the false positives are the rest of the nd detections seen.
	var tp, ig [maxThresholds]int
	for t := 0; t < T; t++ {
		pl.prs[t] = pl.prs[t][:0]
	}
	nd := 0
	for _, r := range c.runs {
		n := w[r.img]
		if n == 0 {
			continue
		}
		if r.plain { // false positives at every threshold
			nd += n * int(r.hi-r.lo)
			continue
		}
		run := c.dets[r.lo:r.hi]
		for range n {
			for _, d := range run {
				nd++
				for m := d.ignore & full; m != 0; m &= m - 1 {
					ig[bits.TrailingZeros64(m)]++
				}
				for m := d.match &^ d.ignore & full; m != 0; m &= m - 1 {
					t := bits.TrailingZeros64(m)
					tp[t]++
					x, y := float64(tp[t]), float64(nd-ig[t]-tp[t])
					pl.prs[t] = append(pl.prs[t], x/(y+x+eps))
				}
			}
		}
	}
	// cr[r]: the smallest true-positive count whose recall reaches threshold r.
	fn := float64(npig)
	for r, th := range p.RecallThresholds {
		pl.cr[r] = sort.Search(npig+1, func(c int) bool { return float64(c)/fn >= th })
	}
	for t := 0; t < T; t++ {
		prs := pl.prs[t]
		for i := len(prs) - 1; i > 0; i-- { // precision made monotone from the right
			if prs[i] > prs[i-1] {
				prs[i-1] = prs[i]
			}
		}
		rec := 0.0
		if nd > 0 {
			rec = float64(tp[t]) / fn
		}
		e.Recall[t*K+k] = rec
		out := e.Precision[t*R*K+k:]
		for r, cr := range pl.cr {
			q := 0.0
			switch {
			case nd == 0:
			case cr == 0:
				if len(prs) > 0 {
					q = prs[0]
				}
			case cr <= len(prs):
				q = prs[cr-1]
			}
			out[r*K] = q
		}
	}
}

// summarize is Eval.Summarize over all categories of the pool's one area
// range and maxDets (same selection, order and sum), without allocating.
func (pl *Pool) summarize(ap bool, iouThr float64) float64 {
	e := &pl.eval
	T, R, K, _, _ := e.dims()
	vals := pl.vals[:0]
	for t := 0; t < T; t++ {
		if !math.IsNaN(iouThr) && e.Params.IoUThresholds[t] != iouThr {
			continue
		}
		if ap {
			for _, v := range e.Precision[t*R*K : (t+1)*R*K] { // [r][k]
				if v > -1 {
					vals = append(vals, v)
				}
			}
		} else {
			for _, v := range e.Recall[t*K : (t+1)*K] {
				if v > -1 {
					vals = append(vals, v)
				}
			}
		}
	}
	pl.vals = vals
	if len(vals) == 0 {
		return -1
	}
	return num.Sum(vals) / float64(len(vals))
}
