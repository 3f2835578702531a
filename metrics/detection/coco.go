// Package detection is a COCO bounding-box evaluator equivalent to
// pycocotools' COCOeval(…, 'bbox') (evaluate, accumulate, summarize): per
// image and category greedy matching in score order at each IoU threshold,
// 101-point interpolated precision, AP over IoU .50:.05:.95, AP50, AP75 and
// AR at maxDets {1, 10, 100}, over the four COCO area ranges, per category
// and averaged. Thresholds are computed as numpy.linspace computes them, so
// ties at a threshold resolve exactly as in pycocotools.
//
// Boxes are COCO [x, y, width, height] in float64 pixels.
package detection

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"sync"

	"github.com/rexmle/rexmle/metrics/stats"
)

// Box is a COCO box: X, Y of the top-left corner, W, H its size.
type Box [4]float64

// Area is W·H (what pycocotools' loadRes stores for a detection).
func (b Box) Area() float64 { return b[2] * b[3] }

// IoU is pycocotools' bbIou for one detection d and one truth g, in float64:
// the overlap width min(x_d+w_d, x_g+w_g) − max(x_d, x_g) and height likewise;
// 0 when either is ≤ 0; otherwise inter / (area_d + area_g − inter), or
// inter / area_d when the truth is a crowd region. No +1 pixel convention.
func IoU(d, g Box, crowd bool) float64 {
	w := math.Min(d[2]+d[0], g[2]+g[0]) - math.Max(d[0], g[0])
	if w <= 0 {
		return 0
	}
	h := math.Min(d[3]+d[1], g[3]+g[1]) - math.Max(d[1], g[1])
	if h <= 0 {
		return 0
	}
	i := float64(w * h) // explicit conversions: no fused multiply-add
	da := float64(d[2] * d[3])
	if crowd {
		return i / da
	}
	ga := float64(g[2] * g[3])
	return i / (da + ga - i)
}

// GroundTruth is one truth annotation. ID is the annotation id: pycocotools
// records a match by storing it, so a truth with ID 0 is consumed by a match
// but the matching detection counts as a false positive (as in pycocotools).
// Area is the annotation's area field (used for the area ranges).
type GroundTruth struct {
	ImageID  int64
	Category int64
	Box      Box
	Area     float64
	Crowd    bool
	ID       int64
}

// Detection is one scored box. Its area for the area ranges is Box.Area().
type Detection struct {
	ImageID  int64
	Category int64
	Box      Box
	Score    float64
}

// Params are COCOeval's parameters (iouType 'bbox', useCats 1).
type Params struct {
	ImageIDs         []int64 // images evaluated (sorted, deduplicated by Evaluate)
	Categories       []int64 // registered category ids (sorted, deduplicated by Evaluate)
	IoUThresholds    []float64
	RecallThresholds []float64
	MaxDets          []int        // ascending; the last one bounds the detections per image and category
	AreaRanges       [][2]float64 // inclusive [lo, hi] on the area
	AreaNames        []string
}

// Linspace is numpy.linspace(start, stop, num) (endpoint included):
// fl(fl(i·step) + start) with step = fl((stop − start)/(num − 1)), and the
// last value set to stop.
func Linspace(start, stop float64, num int) []float64 {
	if num <= 0 {
		return nil
	}
	if num == 1 {
		return []float64{start}
	}
	div := float64(num - 1)
	step := (stop - start) / div
	out := make([]float64, num)
	for i := range out {
		out[i] = float64(float64(i)*step) + start // conversion forbids FMA fusion
	}
	out[num-1] = stop
	return out
}

// COCOIoUThresholds are pycocotools' np.linspace(.5, .95, 10): 0.5, 0.55, …,
// 0.8999999999999999, 0.95.
func COCOIoUThresholds() []float64 { return Linspace(0.5, 0.95, 10) }

// COCORecallThresholds are pycocotools' np.linspace(0, 1, 101): fl(j·0.01),
// which is one ulp above j/100 for j = 35, 41, 47, 57, 69, 70, 82, 83, 94, 95.
func COCORecallThresholds() []float64 { return Linspace(0, 1, 101) }

// DefaultParams are COCOeval's bbox defaults for the given images and
// categories: the COCO IoU and recall thresholds, maxDets {1, 10, 100} and the
// area ranges all [0, 1e10], small [0, 32²], medium [32², 96²], large [96², 1e10].
func DefaultParams(imageIDs, categories []int64) Params {
	return Params{
		ImageIDs:         imageIDs,
		Categories:       categories,
		IoUThresholds:    COCOIoUThresholds(),
		RecallThresholds: COCORecallThresholds(),
		MaxDets:          []int{1, 10, 100},
		AreaRanges:       [][2]float64{{0, 1e5 * 1e5}, {0, 32 * 32}, {32 * 32, 96 * 96}, {96 * 96, 1e5 * 1e5}},
		AreaNames:        []string{"all", "small", "medium", "large"},
	}
}

// Eval is the result of Evaluate: COCOeval.eval's precision and recall
// arrays and the twelve summary statistics.
type Eval struct {
	Params Params
	// Precision[t][r][k][a][m] flattened (see PrecisionAt); −1 where the
	// category has no (non-ignored) truth.
	Precision []float64
	// Recall[t][k][a][m] flattened (see RecallAt); −1 likewise.
	Recall []float64
	// Stats are COCOeval.stats: AP, AP50, AP75, AP small/medium/large,
	// AR@1, AR@10, AR@100, AR small/medium/large (−1 when undefined).
	Stats [12]float64
}

func (e *Eval) dims() (T, R, K, A, M int) {
	p := e.Params
	return len(p.IoUThresholds), len(p.RecallThresholds), len(p.Categories), len(p.AreaRanges), len(p.MaxDets)
}

// PrecisionAt returns precision[t, r, k, a, m].
func (e *Eval) PrecisionAt(t, r, k, a, m int) float64 {
	_, R, K, A, M := e.dims()
	return e.Precision[(((t*R+r)*K+k)*A+a)*M+m]
}

// RecallAt returns recall[t, k, a, m].
func (e *Eval) RecallAt(t, k, a, m int) float64 {
	_, _, K, A, M := e.dims()
	return e.Recall[((t*K+k)*A+a)*M+m]
}

// Summarize is COCOeval._summarize for the selection: AP (ap true) or AR,
// at one IoU threshold (iouThr compared for equality with the thresholds;
// NaN for all of them), one area range by name and one maxDets value,
// restricted to category index k (k < 0: all categories). It is the numpy
// mean of the selected entries that are > −1, or −1 when there are none.
func (e *Eval) Summarize(ap bool, iouThr float64, area string, maxDets int, k int) float64 {
	T, R, K, _, _ := e.dims()
	a := slices.Index(e.Params.AreaNames, area)
	m := slices.Index(e.Params.MaxDets, maxDets)
	if a < 0 || m < 0 {
		return -1
	}
	var vals []float64
	for t := 0; t < T; t++ {
		if !math.IsNaN(iouThr) && e.Params.IoUThresholds[t] != iouThr {
			continue
		}
		if ap {
			for r := 0; r < R; r++ {
				for kk := 0; kk < K; kk++ {
					if k >= 0 && kk != k {
						continue
					}
					if v := e.PrecisionAt(t, r, kk, a, m); v > -1 {
						vals = append(vals, v)
					}
				}
			}
		} else {
			for kk := 0; kk < K; kk++ {
				if k >= 0 && kk != k {
					continue
				}
				if v := e.RecallAt(t, kk, a, m); v > -1 {
					vals = append(vals, v)
				}
			}
		}
	}
	if len(vals) == 0 {
		return -1
	}
	return stats.PairwiseSum(vals) / float64(len(vals))
}

// evalImg is COCOeval.evaluateImg's record for one (category, area, image).
type evalImg struct {
	scores   []float64 // detections sorted by score (stable), truncated to maxDets[-1]
	matched  [][]int64 // [t][d] id of the matched truth (0: none)
	dtIgnore [][]bool  // [t][d]
	gtIgnore []bool
}

type key struct {
	img int64
	cat int64
}

// Evaluate runs COCOeval(gt, dt, 'bbox').evaluate(), accumulate() and
// summarize() with params p. Detections whose category is not registered,
// and truths of unregistered categories, are ignored (pycocotools selects
// by catIds). A detection on an image that is not in p.ImageIDs is an error
// (pycocotools' loadRes assertion). Categories are evaluated in parallel.
func Evaluate(ctx context.Context, gts []GroundTruth, dts []Detection, p Params) (*Eval, error) {
	p.ImageIDs = sortedUnique(p.ImageIDs)
	p.Categories = sortedUnique(p.Categories)
	if len(p.IoUThresholds) == 0 || len(p.RecallThresholds) == 0 || len(p.MaxDets) == 0 || len(p.AreaRanges) == 0 || len(p.AreaNames) != len(p.AreaRanges) {
		return nil, fmt.Errorf("detection: incomplete parameters")
	}
	if !slices.IsSorted(p.MaxDets) {
		return nil, fmt.Errorf("detection: maxDets %v not ascending", p.MaxDets)
	}
	imgIndex := make(map[int64]int, len(p.ImageIDs))
	for i, id := range p.ImageIDs {
		imgIndex[id] = i
	}
	catIndex := make(map[int64]int, len(p.Categories))
	for i, c := range p.Categories {
		catIndex[c] = i
	}
	gtBy := map[key][]GroundTruth{}
	for _, g := range gts {
		if _, ok := imgIndex[g.ImageID]; !ok {
			continue
		}
		if _, ok := catIndex[g.Category]; !ok {
			continue
		}
		k := key{g.ImageID, g.Category}
		gtBy[k] = append(gtBy[k], g)
	}
	dtBy := map[key][]Detection{}
	for i, d := range dts {
		if _, ok := imgIndex[d.ImageID]; !ok {
			return nil, fmt.Errorf("detection %d: image id %d is not among the evaluated images", i, d.ImageID)
		}
		if math.IsNaN(d.Score) {
			return nil, fmt.Errorf("detection %d: score is NaN", i)
		}
		if _, ok := catIndex[d.Category]; !ok {
			continue
		}
		k := key{d.ImageID, d.Category}
		dtBy[k] = append(dtBy[k], d)
	}
	T, R := len(p.IoUThresholds), len(p.RecallThresholds)
	K, A, M := len(p.Categories), len(p.AreaRanges), len(p.MaxDets)
	e := &Eval{Params: p, Precision: make([]float64, T*R*K*A*M), Recall: make([]float64, T*K*A*M)}
	for i := range e.Precision {
		e.Precision[i] = -1
	}
	for i := range e.Recall {
		e.Recall[i] = -1
	}
	maxDet := p.MaxDets[M-1]

	jobs := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(runtime.GOMAXPROCS(0), K); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range jobs {
				cat := p.Categories[k]
				for a := 0; a < A; a++ {
					imgs := make([]*evalImg, 0, len(p.ImageIDs))
					for _, img := range p.ImageIDs {
						kk := key{img, cat}
						if ei := evaluateImg(gtBy[kk], dtBy[kk], p.AreaRanges[a], maxDet, p.IoUThresholds); ei != nil {
							imgs = append(imgs, ei)
						}
					}
					for m := 0; m < M; m++ {
						accumulate(e, imgs, k, a, m)
					}
				}
			}
		}()
	}
	for k := 0; k < K; k++ {
		if ctx.Err() != nil {
			break
		}
		jobs <- k
	}
	close(jobs)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	md := p.MaxDets[M-1]
	nan := math.NaN()
	e.Stats[0] = e.Summarize(true, nan, "all", md, -1)
	e.Stats[1] = e.Summarize(true, 0.5, "all", md, -1)
	e.Stats[2] = e.Summarize(true, 0.75, "all", md, -1)
	e.Stats[3] = e.Summarize(true, nan, "small", md, -1)
	e.Stats[4] = e.Summarize(true, nan, "medium", md, -1)
	e.Stats[5] = e.Summarize(true, nan, "large", md, -1)
	for i, m := range []int{0, min(1, M-1), M - 1} {
		e.Stats[6+i] = e.Summarize(false, nan, "all", p.MaxDets[m], -1)
	}
	e.Stats[9] = e.Summarize(false, nan, "small", md, -1)
	e.Stats[10] = e.Summarize(false, nan, "medium", md, -1)
	e.Stats[11] = e.Summarize(false, nan, "large", md, -1)
	return e, nil
}

func sortedUnique(x []int64) []int64 {
	out := append([]int64(nil), x...)
	slices.Sort(out)
	return slices.Compact(out)
}

// evaluateImg is COCOeval.evaluateImg: nil when the image has neither truth
// nor detections of the category.
func evaluateImg(gt []GroundTruth, dt []Detection, rng [2]float64, maxDet int, thr []float64) *evalImg {
	if len(gt) == 0 && len(dt) == 0 {
		return nil
	}
	// Truths: not-ignored first (stable).
	type g struct {
		GroundTruth
		ignore bool
	}
	gs := make([]g, len(gt))
	for i, x := range gt {
		gs[i] = g{x, x.Crowd || x.Area < rng[0] || x.Area > rng[1]}
	}
	sort.SliceStable(gs, func(i, j int) bool { return !gs[i].ignore && gs[j].ignore })
	// Detections: descending score, stable, at most maxDet.
	ds := append([]Detection(nil), dt...)
	slices.SortStableFunc(ds, func(a, b Detection) int { return cmp.Compare(b.Score, a.Score) })
	if len(ds) > maxDet {
		ds = ds[:maxDet]
	}
	D, G := len(ds), len(gs)
	ious := make([]float64, D*G)
	for di, d := range ds {
		for gi, x := range gs {
			ious[di*G+gi] = IoU(d.Box, x.Box, x.Crowd)
		}
	}
	ei := &evalImg{scores: make([]float64, D), matched: make([][]int64, len(thr)), dtIgnore: make([][]bool, len(thr)), gtIgnore: make([]bool, G)}
	for i, d := range ds {
		ei.scores[i] = d.Score
	}
	for i, x := range gs {
		ei.gtIgnore[i] = x.ignore
	}
	gtMatched := make([]bool, G)
	for t, th := range thr {
		clear(gtMatched)
		mt := make([]int64, D)
		ig := make([]bool, D)
		for di, d := range ds {
			best := math.Min(th, 1-1e-10)
			m := -1
			for gi := range gs {
				if gtMatched[gi] && !gs[gi].Crowd {
					continue
				}
				if m > -1 && !gs[m].ignore && gs[gi].ignore {
					break
				}
				if ious[di*G+gi] < best {
					continue
				}
				best = ious[di*G+gi]
				m = gi
			}
			if m == -1 {
				a := d.Box.Area()
				ig[di] = a < rng[0] || a > rng[1]
				continue
			}
			ig[di] = gs[m].ignore
			mt[di] = gs[m].ID
			gtMatched[m] = true
			if mt[di] == 0 { // pycocotools: matched to truth id 0 reads as unmatched
				a := d.Box.Area()
				ig[di] = ig[di] || a < rng[0] || a > rng[1]
			}
		}
		ei.matched[t], ei.dtIgnore[t] = mt, ig
	}
	return ei
}

// accumulate is COCOeval.accumulate for one (category k, area a, maxDets m).
func accumulate(e *Eval, imgs []*evalImg, k, a, m int) {
	if len(imgs) == 0 {
		return
	}
	p := e.Params
	maxDet := p.MaxDets[m]
	type det struct {
		score float64
		img   int
		idx   int
	}
	var all []det
	npig := 0
	for i, ei := range imgs {
		n := min(len(ei.scores), maxDet)
		for d := 0; d < n; d++ {
			all = append(all, det{ei.scores[d], i, d})
		}
		for _, ig := range ei.gtIgnore {
			if !ig {
				npig++
			}
		}
	}
	if npig == 0 {
		return
	}
	slices.SortStableFunc(all, func(x, y det) int { return cmp.Compare(y.score, x.score) })
	_, R, K, A, M := e.dims()
	nd := len(all)
	rc := make([]float64, nd)
	pr := make([]float64, nd)
	eps := math.Nextafter(1, 2) - 1 // np.spacing(1) = 2^-52
	for t := range p.IoUThresholds {
		var tp, fp float64
		for i, d := range all {
			ei := imgs[d.img]
			if !ei.dtIgnore[t][d.idx] {
				if ei.matched[t][d.idx] != 0 {
					tp++
				} else {
					fp++
				}
			}
			rc[i] = tp / float64(npig)
			pr[i] = tp / (fp + tp + eps)
		}
		rec := 0.0
		if nd > 0 {
			rec = rc[nd-1]
		}
		e.Recall[((t*K+k)*A+a)*M+m] = rec
		for i := nd - 1; i > 0; i-- {
			if pr[i] > pr[i-1] {
				pr[i-1] = pr[i]
			}
		}
		for r, th := range p.RecallThresholds {
			q := 0.0
			idx := sort.SearchFloat64s(rc, th) // leftmost i with rc[i] >= th
			if idx < nd {
				q = pr[idx]
			}
			e.Precision[(((t*R+r)*K+k)*A+a)*M+m] = q
		}
	}
}
