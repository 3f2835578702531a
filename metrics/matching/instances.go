package matching

import (
	"context"
	"fmt"
	"slices"

	"github.com/rexmle/rexmle/metrics/assign"
)

// CellSeg constants: the border band width, the image size from which the
// tiled path is taken, and the tile size.
const (
	BorderBand     = 2
	PatchMinPixels = 25_000_000
	PatchSize      = 2000
)

// InstanceCounts is the outcome of matching one image at several IoU
// thresholds: the instance counts after border removal and the true
// positives per threshold (same order as the thresholds given).
type InstanceCounts struct {
	Truth, Pred int
	TP          []int
}

// RemoveBorderInstances zeroes, in place, every instance of the h × w
// row-major label image that has a pixel in the band of width band along
// the image edge, as the CellSeg evaluation does: the distinct values of
// mask × band (interior pixels counting as 0) are sorted, the smallest is
// kept and every pixel carrying one of the others is set to 0. With an
// interior present the smallest is 0, so exactly the border-touching
// instances go; for an image without interior (h or w ≤ 2·band) whose band
// holds no 0, the smallest label survives, as in the reference.
func RemoveBorderInstances(mask []int32, h, w, band int) {
	vals := map[int32]bool{}
	hasInterior := h > 2*band && w > 2*band
	if hasInterior {
		vals[0] = true
	}
	for y := 0; y < h; y++ {
		row := mask[y*w : (y+1)*w]
		if y < band || y >= h-band {
			for _, v := range row {
				vals[v] = true
			}
			continue
		}
		for x := 0; x < min(band, w); x++ {
			vals[row[x]] = true
		}
		for x := max(w-band, band); x < w; x++ {
			vals[row[x]] = true
		}
	}
	if len(vals) <= 1 {
		return
	}
	keys := make([]int32, 0, len(vals))
	for v := range vals {
		keys = append(keys, v)
	}
	slices.Sort(keys)
	keep := keys[0]
	drop := keys[1:]
	if lo, hi := drop[0], drop[len(drop)-1]; lo >= 0 && hi < 1<<24 {
		// Lookup table over the label range.
		table := make([]bool, int(hi)+1)
		for _, v := range drop {
			table[v] = true
		}
		for i, v := range mask {
			if v > 0 && v <= hi && table[v] {
				mask[i] = 0
			}
		}
		return
	}
	for i, v := range mask {
		if v != keep && v != 0 {
			if _, found := slices.BinarySearch(drop, v); found {
				mask[i] = 0
			}
		}
	}
}

// RelabelSequential maps the distinct positive values of mask, in
// increasing order, to 1..K in place and returns K. A negative value is an
// error (as skimage's relabel_sequential raises).
func RelabelSequential(mask []int32) (int, error) {
	var maxV int32
	for i, v := range mask {
		if v < 0 {
			return 0, fmt.Errorf("negative label %d at pixel %d", v, i)
		}
		maxV = max(maxV, v)
	}
	if maxV == 0 {
		return 0, nil
	}
	seen := make([]bool, int(maxV)+1)
	for _, v := range mask {
		seen[v] = true
	}
	lut := make([]int32, int(maxV)+1)
	k := int32(0)
	for v := 1; v <= int(maxV); v++ {
		if seen[v] {
			k++
			lut[v] = k
		}
	}
	for i, v := range mask {
		mask[i] = lut[v]
	}
	return int(k), nil
}

// MatchInstances scores one h × w image the CellSeg way. truth and pred are
// row-major label images (0 background; copies are modified, not the
// inputs). Images of at least PatchMinPixels pixels are zero-padded to
// multiples of PatchSize and cut into PatchSize tiles scored independently
// with counts summed; smaller images are scored whole. Per (tile) image:
// border-band instances are removed (RemoveBorderInstances with
// BorderBand), labels made sequential, IoU(g,p) = |g∩p|/(|g|+|p|−|g∩p|)
// computed for every overlapping pair, and TP at threshold t is the size of
// a maximum one-to-one matching among pairs with IoU ≥ t, found with the
// reference's Hungarian cost −[IoU ≥ t] − IoU/(2·min(nT,nP)) on each
// connected group of candidate pairs (identical TP to the full matrix since
// the IoU term never outweighs one thresholded match). A negative label is
// an error.
func MatchInstances(ctx context.Context, truth, pred []int32, h, w int, thresholds []float64) (InstanceCounts, error) {
	if len(truth) != h*w || len(pred) != h*w {
		return InstanceCounts{}, fmt.Errorf("matching: masks have %d and %d pixels, want %d×%d", len(truth), len(pred), h, w)
	}
	if h*w < PatchMinPixels {
		return matchTile(slices.Clone(truth), slices.Clone(pred), h, w, thresholds)
	}
	ph := (h + PatchSize - 1) / PatchSize * PatchSize
	pw := (w + PatchSize - 1) / PatchSize * PatchSize
	total := InstanceCounts{TP: make([]int, len(thresholds))}
	for ty := 0; ty < ph; ty += PatchSize {
		for tx := 0; tx < pw; tx += PatchSize {
			if err := ctx.Err(); err != nil {
				return InstanceCounts{}, err
			}
			tt := make([]int32, PatchSize*PatchSize)
			tp := make([]int32, PatchSize*PatchSize)
			for y := 0; y < PatchSize && ty+y < h; y++ {
				x1 := min(pw, w) - tx
				if x1 <= 0 {
					break
				}
				x1 = min(x1, PatchSize)
				copy(tt[y*PatchSize:y*PatchSize+x1], truth[(ty+y)*w+tx:(ty+y)*w+tx+x1])
				copy(tp[y*PatchSize:y*PatchSize+x1], pred[(ty+y)*w+tx:(ty+y)*w+tx+x1])
			}
			c, err := matchTile(tt, tp, PatchSize, PatchSize, thresholds)
			if err != nil {
				return InstanceCounts{}, err
			}
			total.Truth += c.Truth
			total.Pred += c.Pred
			for i := range c.TP {
				total.TP[i] += c.TP[i]
			}
		}
	}
	return total, nil
}

func matchTile(truth, pred []int32, h, w int, thresholds []float64) (InstanceCounts, error) {
	RemoveBorderInstances(truth, h, w, BorderBand)
	RemoveBorderInstances(pred, h, w, BorderBand)
	nT, err := RelabelSequential(truth)
	if err != nil {
		return InstanceCounts{}, fmt.Errorf("truth: %w", err)
	}
	nP, err := RelabelSequential(pred)
	if err != nil {
		return InstanceCounts{}, fmt.Errorf("prediction: %w", err)
	}
	out := InstanceCounts{Truth: nT, Pred: nP, TP: make([]int, len(thresholds))}
	if nP == 0 || nT == 0 {
		return out, nil
	}
	areaT := make([]int64, nT+1)
	areaP := make([]int64, nP+1)
	// Overlap counts: per truth instance a short list of (prediction, count),
	// scanned linearly (an instance overlaps only a few predictions).
	type pc struct {
		p int32
		n int64
	}
	lists := make([][]pc, nT+1)
	for i, g := range truth {
		p := pred[i]
		areaT[g]++
		areaP[p]++
		if g == 0 || p == 0 {
			continue
		}
		l := lists[g]
		found := false
		for k := range l {
			if l[k].p == p {
				l[k].n++
				found = true
				break
			}
		}
		if !found {
			lists[g] = append(l, pc{p, 1})
		}
	}
	var pairs []pair
	for g, l := range lists {
		slices.SortFunc(l, func(a, b pc) int { return int(a.p - b.p) })
		for _, e := range l {
			iou := float64(e.n) / float64(areaT[g]+areaP[e.p]-e.n)
			pairs = append(pairs, pair{int32(g), e.p, iou})
		}
	}
	nmin := float64(min(nT, nP))
	for ti, t := range thresholds {
		var cand []pair
		for _, pr := range pairs {
			if pr.iou >= t {
				cand = append(cand, pr)
			}
		}
		out.TP[ti] = maxMatching(cand, nmin)
	}
	return out, nil
}

// pair is a truth/prediction instance pair that overlaps.
type pair struct {
	g, p int32
	iou  float64
}

// maxMatching returns the size of a maximum matching among candidate
// edges, solving each connected group with the reference's cost.
func maxMatching(cand []pair, nmin float64) int {
	n := len(cand)
	edge := func(k int) (int32, int32, float64) { return cand[k].g, cand[k].p, cand[k].iou }
	if n == 0 {
		return 0
	}
	// Union-find over truth nodes (positive ids) and prediction nodes
	// (negative ids) joined by edges.
	parent := map[int64]int64{}
	var find func(int64) int64
	find = func(x int64) int64 {
		p, ok := parent[x]
		if !ok || p == x {
			parent[x] = x
			return x
		}
		r := find(p)
		parent[x] = r
		return r
	}
	for k := 0; k < n; k++ {
		g, p, _ := edge(k)
		a, b := find(int64(g)), find(-int64(p))
		if a != b {
			parent[a] = b
		}
	}
	groups := map[int64][]int{}
	var order []int64
	for k := 0; k < n; k++ {
		g, _, _ := edge(k)
		r := find(int64(g))
		if _, ok := groups[r]; !ok {
			order = append(order, r)
		}
		groups[r] = append(groups[r], k)
	}
	tp := 0
	for _, r := range order {
		ks := groups[r]
		if len(ks) == 1 {
			tp++
			continue
		}
		var gs, ps []int32
		gi, pi := map[int32]int{}, map[int32]int{}
		for _, k := range ks {
			g, p, _ := edge(k)
			if _, ok := gi[g]; !ok {
				gi[g] = len(gs)
				gs = append(gs, g)
			}
			if _, ok := pi[p]; !ok {
				pi[p] = len(ps)
				ps = append(ps, p)
			}
		}
		nr, nc := len(gs), len(ps)
		cost := make([]float64, nr*nc)
		hit := make([]bool, nr*nc)
		for _, k := range ks {
			g, p, iou := edge(k)
			cost[gi[g]*nc+pi[p]] = -1 - iou/(2*nmin)
			hit[gi[g]*nc+pi[p]] = true
		}
		rows, cols, err := assign.Solve(nr, nc, cost, false)
		if err != nil {
			continue // cannot happen: finite costs
		}
		for k := range rows {
			if hit[rows[k]*nc+cols[k]] {
				tp++
			}
		}
	}
	return tp
}

// InstanceF1 is the CellSeg per-image F1: 0 when tp is 0 (also when the
// truth is empty); otherwise precision tp/nPred, recall tp/nTruth and
// 2PR/(P+R).
func InstanceF1(tp, nTruth, nPred int) float64 {
	if tp == 0 || nTruth == 0 || nPred == 0 {
		return 0
	}
	p := float64(tp) / float64(nPred)
	r := float64(tp) / float64(nTruth)
	return 2 * p * r / (p + r)
}
