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

	"github.com/rexmle/rexmle/metrics/num"
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
	// Images are the per-image records (ImageRecord), one per
	// Params.ImageIDs (sorted), from which Pool re-accumulates a resample.
	Images []ImageRecord
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
	return num.Sum(vals) / float64(len(vals))
}

// maxThresholds bounds the IoU thresholds: the per-detection outcomes are
// bit masks over them.
const maxThresholds = 64

// ImageRecord is what COCOeval.accumulate uses of one image: evaluateImg's
// outcome at the first area range (COCO's "all") and the last maxDets, for
// every category with truth or detections on the image (ascending K). The
// outcome of an image does not depend on any other image, so a resample of
// images can be re-accumulated from these records alone (see Pool).
type ImageRecord struct {
	Categories []CategoryRecord
}

// CategoryRecord is one (image, category) of an ImageRecord.
type CategoryRecord struct {
	K    int         // index into Params.Categories
	NPos int         // truths that are not ignored
	Dets []DetRecord // evaluateImg's order: descending score (stable), at most the last maxDets
}

// DetRecord is one detection's outcome; bit t of a mask is IoU threshold t.
type DetRecord struct {
	Score  float64
	Match  uint64 // matched to a truth with a nonzero id (a true positive unless ignored)
	Ignore uint64 // ignored: matched to an ignored truth, or unmatched with an area outside the range
}

// Evaluate runs COCOeval(gt, dt, 'bbox').evaluate(), accumulate() and
// summarize() with params p. Detections whose category is not registered,
// and truths of unregistered categories, are ignored (pycocotools selects
// by catIds). A detection on an image that is not in p.ImageIDs is an error
// (pycocotools' loadRes assertion). Categories are evaluated in parallel.
//
// Each (image, category) is evaluated once for all area ranges (the IoUs do
// not depend on the range), and each category's detections are sorted once
// for all area ranges and maxDets: the order pycocotools' stable sort gives
// the per-image lists concatenated in image order is descending score, then
// image, then rank within the image, and the detections kept under a smaller
// maxDets are a subsequence of it.
func Evaluate(ctx context.Context, gts []GroundTruth, dts []Detection, p Params) (*Eval, error) {
	p.ImageIDs = sortedUnique(p.ImageIDs)
	p.Categories = sortedUnique(p.Categories)
	if err := p.check(); err != nil {
		return nil, err
	}
	cells, err := bucketCells(gts, dts, p)
	if err != nil {
		return nil, err
	}
	nI, K := len(p.ImageIDs), len(p.Categories)
	T, R := len(p.IoUThresholds), len(p.RecallThresholds)
	A, M := len(p.AreaRanges), len(p.MaxDets)
	e := &Eval{Params: p, Precision: make([]float64, T*R*K*A*M), Recall: make([]float64, T*K*A*M), Images: make([]ImageRecord, nI)}
	for i := range e.Precision {
		e.Precision[i] = -1
	}
	for i := range e.Recall {
		e.Recall[i] = -1
	}
	if err := e.evaluateCategories(ctx, gts, dts, cells); err != nil {
		return nil, err
	}
	e.summarizeAll()
	return e, nil
}

// check reports parameters Evaluate cannot work with.
func (p *Params) check() error {
	if len(p.IoUThresholds) == 0 || len(p.RecallThresholds) == 0 || len(p.MaxDets) == 0 || len(p.AreaRanges) == 0 || len(p.AreaNames) != len(p.AreaRanges) {
		return fmt.Errorf("detection: incomplete parameters")
	}
	if len(p.IoUThresholds) > maxThresholds {
		return fmt.Errorf("detection: %d IoU thresholds, at most %d supported", len(p.IoUThresholds), maxThresholds)
	}
	if !slices.IsSorted(p.MaxDets) {
		return fmt.Errorf("detection: maxDets %v not ascending", p.MaxDets)
	}
	return nil
}

// cellBuckets holds the truths and detections bucketed by cell
// k·nI + image (category k, image index), input order kept within a cell:
// cell c's truths are gtOrder[gtStart[c]:gtStart[c+1]], its detections
// likewise.
type cellBuckets struct {
	gtOrder, gtStart, dtOrder, dtStart []int32
}

// bucketCells buckets gts and dts by cell; truths of images or
// categories outside p are left out, as are detections of categories
// outside p, while a detection of an image outside p is an error.
func bucketCells(gts []GroundTruth, dts []Detection, p Params) (cellBuckets, error) {
	nI, K := len(p.ImageIDs), len(p.Categories)
	imgIndex := make(map[int64]int32, nI)
	for i, id := range p.ImageIDs {
		imgIndex[id] = int32(i)
	}
	catIndex := make(map[int64]int32, K)
	for i, c := range p.Categories {
		catIndex[c] = int32(i)
	}
	gtCell := make([]int32, len(gts))
	gtStart := make([]int32, K*nI+1)
	for i, g := range gts {
		gtCell[i] = -1
		ii, ok := imgIndex[g.ImageID]
		if !ok {
			continue
		}
		k, ok := catIndex[g.Category]
		if !ok {
			continue
		}
		c := k*int32(nI) + ii
		gtCell[i] = c
		gtStart[c+1]++
	}
	dtCell := make([]int32, len(dts))
	dtStart := make([]int32, K*nI+1)
	lastID, lastIdx := int64(0), int32(-1)
	for i := range dts {
		d := &dts[i]
		dtCell[i] = -1
		ii := lastIdx
		if ii < 0 || d.ImageID != lastID {
			var ok bool
			if ii, ok = imgIndex[d.ImageID]; !ok {
				return cellBuckets{}, fmt.Errorf("detection %d: image id %d is not among the evaluated images", i, d.ImageID)
			}
			lastID, lastIdx = d.ImageID, ii
		}
		k, ok := catIndex[d.Category]
		if !ok {
			continue
		}
		c := k*int32(nI) + ii
		dtCell[i] = c
		dtStart[c+1]++
	}
	return cellBuckets{gtOrder: bucket(gtCell, gtStart), gtStart: gtStart, dtOrder: bucket(dtCell, dtStart), dtStart: dtStart}, nil
}

// evaluateCategories matches and accumulates every category, a worker per
// core, then files each image's per-category records under e.Images in
// category order.
func (e *Eval) evaluateCategories(ctx context.Context, gts []GroundTruth, dts []Detection, cells cellBuckets) error {
	p := e.Params
	nI, K, A := len(p.ImageIDs), len(p.Categories), len(p.AreaRanges)
	records := make([][]CategoryRecord, K) // [k][n]: the category's records, images ascending
	recImg := make([][]int32, K)
	jobs := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(runtime.GOMAXPROCS(0), K); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var ev catEval
			for k := range jobs {
				ev.reset(nI, A)
				for i := 0; i < nI; i++ {
					c := k*nI + i
					ev.image(i, gts, cells.gtOrder[cells.gtStart[c]:cells.gtStart[c+1]], dts, cells.dtOrder[cells.dtStart[c]:cells.dtStart[c+1]], p)
				}
				records[k], recImg[k] = ev.records(k, A)
				ev.accumulate(e, k)
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
		return err
	}
	for k := range records {
		for n, r := range records[k] {
			im := &e.Images[recImg[k][n]]
			im.Categories = append(im.Categories, r)
		}
	}
	return nil
}

// summarizeAll fills e.Stats with pycocotools' twelve summary numbers
// (COCOeval.summarize's order).
func (e *Eval) summarizeAll() {
	p := e.Params
	M := len(p.MaxDets)
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
}

// bucket turns per-item cells (−1: none) and per-cell counts at start[c+1]
// into start offsets (in place) and the items ordered by cell, input order
// kept within a cell.
func bucket(cell, start []int32) []int32 {
	for c := 1; c < len(start); c++ {
		start[c] += start[c-1]
	}
	next := append([]int32(nil), start[:len(start)-1]...)
	out := make([]int32, start[len(start)-1])
	for i, c := range cell {
		if c >= 0 {
			out[next[c]] = int32(i)
			next[c]++
		}
	}
	return out
}

func sortedUnique(x []int64) []int64 {
	out := append([]int64(nil), x...)
	slices.Sort(out)
	return slices.Compact(out)
}

// catEval is one category's evaluateImg outcomes over all images and area
// ranges, in flat arrays reused from category to category.
type catEval struct {
	present []bool    // [i] the image has truth or detections of the category
	off     []int32   // [i] first detection of image i in scores (len nI+1)
	scores  []float64 // [j] detections, per image in evaluateImg's order
	match   []uint64  // [j·A+a] bit t: matched to a truth with nonzero id
	ignore  []uint64  // [j·A+a] bit t: ignored
	npig    []int32   // [i·A+a] truths not ignored
	// scratch for one image
	ds       []int32
	ious     []float64
	gtIgn    []bool
	perm     []int32
	gtUsed   []bool
	sortKeys []sortKey
	list     []int32
	rc, pr   []float64
}

type sortKey struct {
	score float64
	j     int32 // index into scores: ascending in (image, rank in image)
	d     int32 // rank in the image
}

func (c *catEval) reset(nI, A int) {
	c.present = grow(c.present, nI)
	clear(c.present)
	c.off = grow(c.off, nI+1)
	c.off[0] = 0
	c.scores = c.scores[:0]
	c.match = c.match[:0]
	c.ignore = c.ignore[:0]
	c.npig = grow(c.npig, nI*A)
	clear(c.npig)
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// image is COCOeval.evaluateImg for image i at every area range.
func (c *catEval) image(i int, gts []GroundTruth, gi []int32, dts []Detection, di []int32, p Params) {
	A := len(p.AreaRanges)
	c.off[i+1] = c.off[i]
	if len(gi) == 0 && len(di) == 0 {
		return
	}
	c.present[i] = true
	// Detections: descending score, stable, at most maxDets[-1].
	ds := append(c.ds[:0], di...)
	slices.SortStableFunc(ds, func(a, b int32) int { return cmp.Compare(dts[b].Score, dts[a].Score) })
	if maxDet := p.MaxDets[len(p.MaxDets)-1]; len(ds) > maxDet {
		ds = ds[:max(maxDet, 0)]
	}
	c.ds = ds
	D, G := len(ds), len(gi)
	c.ious = grow(c.ious, D*G)
	for x, d := range ds {
		for y, g := range gi {
			c.ious[x*G+y] = IoU(dts[d].Box, gts[g].Box, gts[g].Crowd)
		}
	}
	base := len(c.scores)
	for _, d := range ds {
		c.scores = append(c.scores, dts[d].Score)
	}
	c.off[i+1] = int32(len(c.scores))
	for range D * A {
		c.match = append(c.match, 0)
		c.ignore = append(c.ignore, 0)
	}
	c.gtIgn = grow(c.gtIgn, G)
	c.perm = grow(c.perm, G)
	c.gtUsed = grow(c.gtUsed, G)
	for a, rng := range p.AreaRanges {
		// Truths: not ignored first (stable).
		n := 0
		for y, g := range gi {
			ig := gts[g].Crowd || gts[g].Area < rng[0] || gts[g].Area > rng[1]
			c.gtIgn[y] = ig
			if !ig {
				c.perm[n] = int32(y)
				n++
			}
		}
		c.npig[i*A+a] = int32(n)
		for y := range gi {
			if c.gtIgn[y] {
				c.perm[n] = int32(y)
				n++
			}
		}
		for t, th := range p.IoUThresholds {
			clear(c.gtUsed)
			bit := uint64(1) << t
			for x, d := range ds {
				best := math.Min(th, 1-1e-10)
				m := int32(-1)
				for _, y := range c.perm {
					g := &gts[gi[y]]
					if c.gtUsed[y] && !g.Crowd {
						continue
					}
					if m > -1 && !c.gtIgn[m] && c.gtIgn[y] {
						break
					}
					if v := c.ious[x*G+int(y)]; v >= best {
						best = v
						m = y
					}
				}
				j := (base+x)*A + a
				if m == -1 {
					if ar := dts[d].Box.Area(); ar < rng[0] || ar > rng[1] {
						c.ignore[j] |= bit
					}
					continue
				}
				ig := c.gtIgn[m]
				c.gtUsed[m] = true
				if id := gts[gi[m]].ID; id != 0 {
					c.match[j] |= bit
				} else if ar := dts[d].Box.Area(); ar < rng[0] || ar > rng[1] {
					ig = true // pycocotools: matched to truth id 0 reads as unmatched
				}
				if ig {
					c.ignore[j] |= bit
				}
			}
		}
	}
}

// records returns the category's records at the first area range, and the
// images they belong to.
func (c *catEval) records(k, A int) ([]CategoryRecord, []int32) {
	var recs []CategoryRecord
	var imgs []int32
	n := 0
	for i, ok := range c.present {
		if ok {
			n += int(c.off[i+1] - c.off[i])
		}
	}
	all := make([]DetRecord, 0, n)
	for i, ok := range c.present {
		if !ok {
			continue
		}
		lo := len(all)
		for j := c.off[i]; j < c.off[i+1]; j++ {
			all = append(all, DetRecord{Score: c.scores[j], Match: c.match[int(j)*A], Ignore: c.ignore[int(j)*A]})
		}
		recs = append(recs, CategoryRecord{K: k, NPos: int(c.npig[i*A]), Dets: all[lo:len(all):len(all)]})
		imgs = append(imgs, int32(i))
	}
	return recs, imgs
}

// accumulate is COCOeval.accumulate for category k, every area range and
// maxDets.
func (c *catEval) accumulate(e *Eval, k int) {
	p := e.Params
	_, R, K, A, M := e.dims()
	keys := c.sortKeys[:0]
	for i, ok := range c.present {
		if !ok {
			continue
		}
		for j := c.off[i]; j < c.off[i+1]; j++ {
			keys = append(keys, sortKey{c.scores[j], j, j - c.off[i]})
		}
	}
	slices.SortFunc(keys, func(x, y sortKey) int {
		if r := cmp.Compare(y.score, x.score); r != 0 {
			return r
		}
		return cmp.Compare(x.j, y.j)
	})
	c.sortKeys = keys
	eps := math.Nextafter(1, 2) - 1 // np.spacing(1) = 2^-52
	for m, maxDet := range p.MaxDets {
		list := c.list[:0]
		for _, key := range keys {
			if int(key.d) < maxDet {
				list = append(list, key.j)
			}
		}
		c.list = list
		nd := len(list)
		c.rc, c.pr = grow(c.rc, nd), grow(c.pr, nd)
		rc, pr := c.rc, c.pr
		for a := 0; a < A; a++ {
			npig := 0
			for i, ok := range c.present {
				if ok {
					npig += int(c.npig[i*A+a])
				}
			}
			if npig == 0 {
				continue
			}
			for t := range p.IoUThresholds {
				bit := uint64(1) << t
				var tp, fp float64
				for x, j := range list {
					if c.ignore[int(j)*A+a]&bit == 0 {
						if c.match[int(j)*A+a]&bit != 0 {
							tp++
						} else {
							fp++
						}
					}
					rc[x] = tp / float64(npig)
					pr[x] = tp / (fp + tp + eps)
				}
				e.Recall[((t*K+k)*A+a)*M+m] = curve(rc, pr, p.RecallThresholds, e.Precision[((t*R)*K+k)*A*M+a*M+m:], K*A*M)
			}
		}
	}
}

// curve finishes one precision–recall curve as COCOeval.accumulate does:
// precision made monotone from the right, then sampled at each recall
// threshold (leftmost point reaching it; 0 when none does) into
// out[r·stride]. It returns the final recall (0 without detections).
func curve(rc, pr, thresholds []float64, out []float64, stride int) float64 {
	nd := len(rc)
	rec := 0.0
	if nd > 0 {
		rec = rc[nd-1]
	}
	for i := nd - 1; i > 0; i-- {
		if pr[i] > pr[i-1] {
			pr[i-1] = pr[i]
		}
	}
	for r, th := range thresholds {
		q := 0.0
		if idx := sort.SearchFloat64s(rc, th); idx < nd { // leftmost i with rc[i] >= th
			q = pr[idx]
		}
		out[r*stride] = q
	}
	return rec
}
