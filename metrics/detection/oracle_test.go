package detection

// The evaluator as it was before the single-pass rewrite (one evaluateImg
// per area range, one stable sort per area and maxDets), kept verbatim as
// the oracle the rewrite is compared with bit for bit.

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"sync"
)

// evalImg is COCOeval.evaluateImg's record for one (category, area, image).
type oracleImg struct {
	scores   []float64 // detections sorted by score (stable), truncated to maxDets[-1]
	matched  [][]int64 // [t][d] id of the matched truth (0: none)
	dtIgnore [][]bool  // [t][d]
	gtIgnore []bool
}

type oracleKey struct {
	img int64
	cat int64
}

// Evaluate runs COCOeval(gt, dt, 'bbox').evaluate(), oracleAccumulate() and
// summarize() with params p. Detections whose category is not registered,
// and truths of unregistered categories, are ignored (pycocotools selects
// by catIds). A detection on an image that is not in p.ImageIDs is an error
// (pycocotools' loadRes assertion). Categories are evaluated in parallel.
func evaluateOracle(ctx context.Context, gts []GroundTruth, dts []Detection, p Params) (*Eval, error) {
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
	gtBy := map[oracleKey][]GroundTruth{}
	for _, g := range gts {
		if _, ok := imgIndex[g.ImageID]; !ok {
			continue
		}
		if _, ok := catIndex[g.Category]; !ok {
			continue
		}
		k := oracleKey{g.ImageID, g.Category}
		gtBy[k] = append(gtBy[k], g)
	}
	dtBy := map[oracleKey][]Detection{}
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
		k := oracleKey{d.ImageID, d.Category}
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
					imgs := make([]*oracleImg, 0, len(p.ImageIDs))
					for _, img := range p.ImageIDs {
						kk := oracleKey{img, cat}
						if ei := oracleEvaluateImg(gtBy[kk], dtBy[kk], p.AreaRanges[a], maxDet, p.IoUThresholds); ei != nil {
							imgs = append(imgs, ei)
						}
					}
					for m := 0; m < M; m++ {
						oracleAccumulate(e, imgs, k, a, m)
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

// evaluateImg is COCOeval.evaluateImg: nil when the image has neither truth
// nor detections of the category.
func oracleEvaluateImg(gt []GroundTruth, dt []Detection, rng [2]float64, maxDet int, thr []float64) *oracleImg {
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
	ei := &oracleImg{scores: make([]float64, D), matched: make([][]int64, len(thr)), dtIgnore: make([][]bool, len(thr)), gtIgnore: make([]bool, G)}
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
func oracleAccumulate(e *Eval, imgs []*oracleImg, k, a, m int) {
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
