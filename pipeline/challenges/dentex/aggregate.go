package dentex

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/rexmle/rexmle/metrics/detection"
	"github.com/rexmle/rexmle/pipeline/challenge"
)

// Every DENTEX metric is a COCO statistic pooled over all images, so none
// is a mean of per-image values. Grade stores per image (Case.Detail) what
// COCO's accumulate uses of it — evaluateImg's outcome at area "all" and
// maxDets 100, which depends on that image alone — and CaseStatistic
// re-accumulates a resample of images from these records.
//
// A resample is graded as a submission holding the drawn images, each as
// many times as drawn, ordered by image id with the copies of an image next
// to each other (as if the copies had the ids right after the original's).
// Order matters only through ties in score (pycocotools' stable sort), and
// this order makes the full sample the graded submission itself, whatever
// order the cases come in: its statistic is the graded value bit for bit.

// detailVersion is the first byte of a DENTEX case detail.
const detailVersion = 1

// encodeDetail writes an image's records of the three levels:
//
//	version byte, image id (varint), number of IoU thresholds (byte), then
//	per level: number of categories (uvarint), and per category its index,
//	its truths not ignored and its detections (uvarints), and per detection
//	the score (8 bytes, IEEE 754 little-endian), the matched and the ignored
//	masks (uvarints, bit t = IoU threshold t).
func encodeDetail(buf []byte, image int64, thresholds int, recs [3]detection.ImageRecord) []byte {
	buf = append(buf, detailVersion)
	buf = binary.AppendVarint(buf, image)
	buf = append(buf, byte(thresholds))
	for _, r := range recs {
		buf = binary.AppendUvarint(buf, uint64(len(r.Categories)))
		for _, c := range r.Categories {
			buf = binary.AppendUvarint(buf, uint64(c.K))
			buf = binary.AppendUvarint(buf, uint64(c.NPos))
			buf = binary.AppendUvarint(buf, uint64(len(c.Dets)))
			for _, d := range c.Dets {
				buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(d.Score))
				buf = binary.AppendUvarint(buf, d.Match)
				buf = binary.AppendUvarint(buf, d.Ignore)
			}
		}
	}
	return buf
}

// decodeDetail reads what encodeDetail wrote.
func decodeDetail(b []byte) (image int64, recs [3]detection.ImageRecord, err error) {
	bad := func(what string) error { return fmt.Errorf("malformed detail: %s", what) }
	if len(b) == 0 || b[0] != detailVersion {
		return 0, recs, bad("unknown version")
	}
	b = b[1:]
	image, n := binary.Varint(b)
	if n <= 0 {
		return 0, recs, bad("image id")
	}
	b = b[n:]
	if len(b) == 0 || int(b[0]) != len(detection.COCOIoUThresholds()) {
		return 0, recs, bad("not the COCO IoU thresholds")
	}
	b = b[1:]
	uv := func(limit uint64) (uint64, bool) {
		v, n := binary.Uvarint(b)
		if n <= 0 || v > limit {
			return 0, false
		}
		b = b[n:]
		return v, true
	}
	for l, a := range aspects {
		nc, ok := uv(uint64(a.nClasses))
		if !ok {
			return 0, recs, bad("category count")
		}
		for range nc {
			k, ok1 := uv(uint64(a.nClasses - 1))
			npos, ok2 := uv(math.MaxInt32)
			nd, ok3 := uv(100)
			if !ok1 || !ok2 || !ok3 {
				return 0, recs, bad("category")
			}
			c := detection.CategoryRecord{K: int(k), NPos: int(npos), Dets: make([]detection.DetRecord, nd)}
			for i := range c.Dets {
				if len(b) < 8 {
					return 0, recs, bad("score")
				}
				c.Dets[i].Score = math.Float64frombits(binary.LittleEndian.Uint64(b))
				b = b[8:]
				var ok1, ok2 bool
				c.Dets[i].Match, ok1 = uv(math.MaxUint64)
				c.Dets[i].Ignore, ok2 = uv(math.MaxUint64)
				if !ok1 || !ok2 {
					return 0, recs, bad("detection")
				}
			}
			recs[l].Categories = append(recs[l].Categories, c)
		}
	}
	if len(b) != 0 {
		return 0, recs, bad("trailing bytes")
	}
	return image, recs, nil
}

// bootState is the re-accumulation shared by the 16 metrics of one run:
// one pool per level, and the last resample's statistics (the rank stage
// asks for every metric of a resample in turn).
type bootState struct {
	mu    sync.Mutex
	cases []challenge.Case
	pos   []int // case → position in image-id order
	pools [3]*detection.Pool
	w     []int // weights of the cached resample
	lastW []int
	have  bool
	last  [3]detection.Summary
}

func (st *bootState) build() error {
	type img struct {
		id   int64
		recs [3]detection.ImageRecord
		c    int
	}
	imgs := make([]img, len(st.cases))
	for i, c := range st.cases {
		if c.Detail == nil {
			return fmt.Errorf("%w (case %s has no per-image COCO records: graded before they were stored; regrade the run)", challenge.ErrNotAMean, c.ID)
		}
		id, recs, err := decodeDetail(c.Detail)
		if err != nil {
			return fmt.Errorf("case %s: %w", c.ID, err)
		}
		imgs[i] = img{id, recs, i}
	}
	slices.SortFunc(imgs, func(a, b img) int { return cmp.Compare(a.id, b.id) })
	st.pos = make([]int, len(imgs))
	for i, m := range imgs {
		if i > 0 && m.id == imgs[i-1].id {
			return fmt.Errorf("%w (cases %s and %s are the same image, id %d: the evaluation counts it once)", challenge.ErrNotAMean, st.cases[imgs[i-1].c].ID, st.cases[m.c].ID, m.id)
		}
		st.pos[m.c] = i
	}
	for l, a := range aspects {
		recs := make([]detection.ImageRecord, len(imgs))
		for i, m := range imgs {
			recs[i] = m.recs[l]
		}
		cats := make([]int64, a.nClasses) // only their number matters
		for k := range cats {
			cats[k] = int64(k)
		}
		p, err := detection.NewPool(rankedParams(nil, cats), recs)
		if err != nil {
			return fmt.Errorf("%s: %w", a.name, err)
		}
		st.pools[l] = p
	}
	st.w = make([]int, len(imgs))
	st.lastW = make([]int, len(imgs))
	return nil
}

// parallelImages is the number of images from which a resample's three
// levels are re-accumulated in parallel.
const parallelImages = 200

// stats returns the three levels' statistics of the resample idx.
func (st *bootState) stats(idx []int) ([3]detection.Summary, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	clear(st.w)
	for _, i := range idx {
		st.w[st.pos[i]]++
	}
	if st.have && slices.Equal(st.w, st.lastW) {
		return st.last, nil
	}
	var out [3]detection.Summary
	var errs [3]error
	if len(st.w) >= parallelImages { // the levels' pools are independent
		var wg sync.WaitGroup
		for l := 1; l < len(st.pools); l++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				out[l], errs[l] = st.pools[l].Stats(st.w)
			}()
		}
		out[0], errs[0] = st.pools[0].Stats(st.w)
		wg.Wait()
	} else {
		for l, p := range st.pools {
			out[l], errs[l] = p.Stats(st.w)
		}
	}
	if err := errors.Join(errs[:]...); err != nil {
		return out, err
	}
	copy(st.lastW, st.w)
	st.last, st.have = out, true
	return out, nil
}

// CaseStatistics recomputes DENTEX metrics over a resample of images from
// the per-image COCO records Grade stores (see above): one state for all
// the metrics asked, so a resample is re-accumulated once for the 16.
func (Challenge) CaseStatistics(metrics []string, cases []challenge.Case) ([]func(idx []int) float64, error) {
	getters := map[string]func(detection.Summary) float64{
		"ap":   func(s detection.Summary) float64 { return s.AP },
		"ap50": func(s detection.Summary) float64 { return s.AP50 },
		"ap75": func(s detection.Summary) float64 { return s.AP75 },
		"ar":   func(s detection.Summary) float64 { return s.AR },
	}
	type pick struct {
		get   func(detection.Summary) float64
		level int
	}
	picks := make([]pick, len(metrics))
	for j, m := range metrics {
		kind, level, ok := cutMetric(m)
		if !ok {
			return nil, fmt.Errorf("%s: unknown metric %q", ID, m)
		}
		picks[j] = pick{getters[kind], level}
	}
	st := &bootState{cases: slices.Clone(cases)}
	if err := st.build(); err != nil {
		return nil, fmt.Errorf("%s: %w", ID, err)
	}
	out := make([]func(idx []int) float64, len(metrics))
	for j, p := range picks {
		out[j] = func(idx []int) float64 {
			s, err := st.stats(idx)
			if err != nil {
				return math.NaN()
			}
			if p.level < 0 {
				return (p.get(s[0]) + p.get(s[1]) + p.get(s[2])) / 3 // as Grade averages the levels
			}
			return p.get(s[p.level])
		}
	}
	return out, nil
}

// StatisticTraits implements challenge.TraitsAggregator: every metric is
// a COCO accumulation over the drawn images' detections, far costlier than
// a pass over the cases, and biased upward in small samples by the
// precision envelope.
func (Challenge) StatisticTraits(string) challenge.StatisticTraits {
	return challenge.StatisticTraits{Costly: true, Biased: true}
}

// CaseStatistic is CaseStatistics for one metric.
func (c Challenge) CaseStatistic(metric string, cases []challenge.Case) (func(idx []int) float64, error) {
	fs, err := c.CaseStatistics([]string{metric}, cases)
	if err != nil {
		return nil, err
	}
	return fs[0], nil
}

// cutMetric splits a metric name into its statistic and level (−1: the mean
// of the three levels).
func cutMetric(metric string) (kind string, level int, ok bool) {
	for _, k := range []string{"ap", "ap50", "ap75", "ar"} {
		if metric == k+"_mean" {
			return k, -1, true
		}
		for l, a := range aspects {
			if metric == k+"_"+a.name {
				return k, l, true
			}
		}
	}
	return "", 0, false
}
