package puma

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/rexmle/rexmle/pipeline/fsutil"

	"github.com/rexmle/rexmle/metrics/polygon"
	"github.com/rexmle/rexmle/pipeline/challenge"
)

// writeSubmissionCSV writes submission.csv for ids with the task's paths.
func (c Challenge) writeSubmissionCSV(outDir string, ids []string) error {
	rows := make([][]string, len(ids))
	for i, id := range ids {
		rows[i] = []string{id, c.predPath(id)}
	}
	return challenge.WriteCSV(filepath.Join(outDir, submissionFile), []string{"case_id", c.pathColumn()}, rows)
}

func (c Challenge) predPath(id string) string {
	if c.task == Tissue {
		return "predictions/" + id + ".tif"
	}
	return "predictions/" + id + ".json"
}

// writeEmpty writes an all-background mask or an empty nuclei list for each id.
func (c Challenge) writeEmpty(outDir string, ids []string) error {
	for _, id := range ids {
		p := filepath.Join(outDir, filepath.FromSlash(c.predPath(id)))
		if c.task == Tissue {
			if err := writeMaskTIFF(p, polygon.NewMask(Size, Size)); err != nil {
				return err
			}
		} else if err := writeJSON(p, PolygonFile{Polygons: []PolygonItem{}}); err != nil {
			return err
		}
	}
	return c.writeSubmissionCSV(outDir, ids)
}

// SampleSubmission writes sample_submission.csv's rows as submission.csv
// with an all-background mask (tissue) or an empty nuclei list per case.
func (c Challenge) SampleSubmission(ctx context.Context, publicDir, outDir string) error {
	ids, err := testIDs(publicDir)
	if err != nil {
		return err
	}
	return c.writeEmpty(outDir, ids)
}

// Trivial predicts nothing: all background, no nuclei.
func (c Challenge) Trivial(ctx context.Context, publicDir, outDir string) error {
	return c.SampleSubmission(ctx, publicDir, outDir)
}

// Perfect submits the answers the challenge meant (private/official/): in
// reference mode it is therefore not the best possible score whenever the
// reference truth is degenerate (see Quirks).
func (c Challenge) Perfect(ctx context.Context, publicDir, privateDir, outDir string) error {
	answers, err := readAnswers(privateDir)
	if err != nil {
		return err
	}
	ids := make([]string, len(answers))
	for i, a := range answers {
		ids[i] = a.id
		if err := fsutil.CopyFile(filepath.Join(privateDir, officialDir, filepath.FromSlash(a.label)), filepath.Join(outDir, filepath.FromSlash(c.predPath(a.id)))); err != nil {
			return err
		}
	}
	return c.writeSubmissionCSV(outDir, ids)
}

// Baseline trains a nearest-centroid colour classifier on the training
// ROIs (tissue: per pixel; nuclei: per dark blob) and predicts the test ROIs.
func (c Challenge) Baseline(ctx context.Context, publicDir, outDir string, log io.Writer) error {
	ids, err := testIDs(publicDir)
	if err != nil {
		return err
	}
	ents, err := os.ReadDir(filepath.Join(publicDir, "train", "images"))
	if err != nil {
		return err
	}
	var train []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".tif") {
			train = append(train, strings.TrimSuffix(e.Name(), ".tif"))
		}
	}
	if len(train) == 0 {
		return fmt.Errorf("baseline: no training images")
	}
	if c.task == Tissue {
		return c.tissueBaseline(ctx, publicDir, outDir, train, ids, log)
	}
	return c.nucleiBaseline(ctx, publicDir, outDir, train, ids, log)
}

func readRGB(path string) (*rawImage, error) {
	im, err := readImageFile(path)
	if err != nil {
		return nil, err
	}
	if im.C < 3 {
		return nil, fmt.Errorf("%s: %d channels, want RGB", path, im.C)
	}
	return im, nil
}

// nearest returns the index of the closest centroid (squared distance).
func nearest(cents [][3]float64, ok []bool, f [3]float64) int {
	best, bd := 0, math.Inf(1)
	for k, ce := range cents {
		if !ok[k] {
			continue
		}
		d := (ce[0]-f[0])*(ce[0]-f[0]) + (ce[1]-f[1])*(ce[1]-f[1]) + (ce[2]-f[2])*(ce[2]-f[2])
		if d < bd {
			best, bd = k, d
		}
	}
	return best
}

func (c Challenge) tissueBaseline(ctx context.Context, pub, out string, train, test []string, log io.Writer) error {
	var sum [6][3]float64
	var n [6]float64
	hold := train[len(train)-1]
	fit := train
	if len(train) > 1 {
		fit = train[:len(train)-1]
	}
	for _, id := range fit {
		if err := ctx.Err(); err != nil {
			return err
		}
		im, err := readRGB(filepath.Join(pub, "train", "images", id+".tif"))
		if err != nil {
			return err
		}
		feats, err := readFeatures(filepath.Join(pub, "train", "labels", id+"_tissue.geojson"))
		if err != nil {
			return err
		}
		lab := RasterizeTissue(feats, true)
		for y := 0; y < min(im.H, Size); y += 4 {
			for x := 0; x < min(im.W, Size); x += 4 {
				l := lab.Pix[y*Size+x]
				o := (y*im.W + x) * im.C
				for ch := 0; ch < 3; ch++ {
					sum[l][ch] += float64(im.Pix[o+ch])
				}
				n[l]++
			}
		}
	}
	fmt.Fprintf(log, "loaded %d training ROIs; rasterised their tissue GeoJSON with the tissue_* names (labels 0–5)\n", len(fit))
	var cents [][3]float64
	var ok []bool
	for l := 0; l < 6; l++ {
		var ce [3]float64
		for ch := 0; ch < 3; ch++ {
			if n[l] > 0 {
				ce[ch] = sum[l][ch] / n[l]
			}
		}
		cents = append(cents, ce)
		ok = append(ok, n[l] > 0)
	}
	fmt.Fprintf(log, "fitted a nearest-centroid classifier on the mean RGB of each class (pixels per class: %v)\n", n)
	predict := func(im *rawImage) *polygon.Mask {
		m := polygon.NewMask(Size, Size)
		for y := 0; y < Size; y++ {
			for x := 0; x < Size; x++ {
				sx, sy := min(x*im.W/Size, im.W-1), min(y*im.H/Size, im.H-1)
				o := (sy*im.W + sx) * im.C
				m.Pix[y*Size+x] = uint8(nearest(cents, ok, [3]float64{float64(im.Pix[o]), float64(im.Pix[o+1]), float64(im.Pix[o+2])}))
			}
		}
		return m
	}
	if len(train) > 1 {
		im, err := readRGB(filepath.Join(pub, "train", "images", hold+".tif"))
		if err != nil {
			return err
		}
		feats, err := readFeatures(filepath.Join(pub, "train", "labels", hold+"_tissue.geojson"))
		if err != nil {
			return err
		}
		truth := RasterizeTissue(feats, true)
		pred := predict(im)
		var tc tissueCounts
		for k, t := range truth.Pix {
			p := pred.Pix[k]
			if t >= 1 {
				tc.truth[t]++
				if p == t {
					tc.inter[t]++
				}
			}
			if p >= 1 {
				tc.pred[p]++
			}
		}
		fmt.Fprintf(log, "held-out training ROI %s: micro Dice %.4f (official rule)\n", hold, Challenge{track: 2}.microDice(tc, "official"))
	}
	for _, id := range test {
		if err := ctx.Err(); err != nil {
			return err
		}
		im, err := readRGB(filepath.Join(pub, "test", "images", id+".tif"))
		if err != nil {
			return err
		}
		if err := writeMaskTIFF(filepath.Join(out, filepath.FromSlash(c.predPath(id))), predict(im)); err != nil {
			return err
		}
	}
	fmt.Fprintf(log, "predicted %d test ROIs pixel by pixel and wrote 1024×1024 label TIFFs\n", len(test))
	return c.writeSubmissionCSV(out, test)
}

// blobs finds 4-connected components of dark pixels (R+G+B below thr) and
// returns, per component, centroid, area and mean colour.
type blobInfo struct {
	x, y, area float64
	rgb        [3]float64
}

func findBlobs(im *rawImage, thr float64) []blobInfo {
	w, h := im.W, im.H
	seen := make([]bool, w*h)
	dark := func(i int) bool {
		o := i * im.C
		return im.Pix[o]+im.Pix[o+1]+im.Pix[o+2] < thr
	}
	var out []blobInfo
	stack := []int{}
	for s := 0; s < w*h; s++ {
		if seen[s] || !dark(s) {
			continue
		}
		var b blobInfo
		seen[s] = true
		stack = append(stack[:0], s)
		for len(stack) > 0 {
			i := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			x, y := i%w, i/w
			b.x += float64(x)
			b.y += float64(y)
			b.area++
			o := i * im.C
			for ch := 0; ch < 3; ch++ {
				b.rgb[ch] += float64(im.Pix[o+ch])
			}
			for _, nb := range [4][2]int{{x - 1, y}, {x + 1, y}, {x, y - 1}, {x, y + 1}} {
				if nb[0] < 0 || nb[1] < 0 || nb[0] >= w || nb[1] >= h {
					continue
				}
				j := nb[1]*w + nb[0]
				if !seen[j] && dark(j) {
					seen[j] = true
					stack = append(stack, j)
				}
			}
		}
		b.x /= b.area
		b.y /= b.area
		for ch := range b.rgb {
			b.rgb[ch] /= b.area
		}
		if b.area >= 12 {
			out = append(out, b)
		}
	}
	return out
}

func (c Challenge) nucleiBaseline(ctx context.Context, pub, out string, train, test []string, log io.Writer) error {
	const thr = 345
	table := offNucleiTrack2
	if c.track == 1 {
		table = offNucleiTrack1
	}
	var names []string
	idx := map[string]int{}
	var sum [][3]float64
	var cnt []float64
	for _, id := range train {
		if err := ctx.Err(); err != nil {
			return err
		}
		im, err := readRGB(filepath.Join(pub, "train", "images", id+".tif"))
		if err != nil {
			return err
		}
		feats, err := readFeatures(filepath.Join(pub, "train", "labels", id+"_nuclei.geojson"))
		if err != nil {
			return err
		}
		bl := findBlobs(im, thr)
		for _, f := range feats {
			cls, ok := table[strings.ToLower(f.ClassName)]
			if !ok || len(f.Polygons) == 0 || len(f.Polygons[0]) == 0 {
				continue
			}
			cx, cy, ok := centroidOf(f.Polygons[0][0])
			if !ok {
				continue
			}
			// The blob nearest to the annotated centre gives the features.
			best, bd := -1, 100.0
			for k, b := range bl {
				if d := (b.x-cx)*(b.x-cx) + (b.y-cy)*(b.y-cy); d < bd {
					best, bd = k, d
				}
			}
			if best < 0 {
				continue
			}
			k, ok := idx[cls]
			if !ok {
				k = len(names)
				idx[cls] = k
				names = append(names, cls)
				sum = append(sum, [3]float64{})
				cnt = append(cnt, 0)
			}
			b := bl[best]
			sum[k][0] += b.rgb[0]
			sum[k][1] += b.rgb[1]
			sum[k][2] += b.area
			cnt[k]++
		}
	}
	if len(names) == 0 {
		return fmt.Errorf("baseline: no training nuclei matched a dark blob")
	}
	cents := make([][3]float64, len(names))
	ok := make([]bool, len(names))
	for k := range names {
		for ch := 0; ch < 3; ch++ {
			cents[k][ch] = sum[k][ch] / cnt[k]
		}
		ok[k] = true
	}
	fmt.Fprintf(log, "loaded %d training ROIs; found dark blobs (R+G+B < %d) and matched them to %d annotated nuclei classes\n", len(train), thr, len(names))
	fmt.Fprintf(log, "fitted a nearest-centroid classifier on (mean red, mean green, area) of the blob under each annotated nucleus\n")
	total := 0
	for _, id := range test {
		if err := ctx.Err(); err != nil {
			return err
		}
		im, err := readRGB(filepath.Join(pub, "test", "images", id+".tif"))
		if err != nil {
			return err
		}
		pf := PolygonFile{Polygons: []PolygonItem{}}
		for _, b := range findBlobs(im, thr) {
			k := nearest(cents, ok, [3]float64{b.rgb[0], b.rgb[1], b.area})
			r := math.Sqrt(b.area / math.Pi)
			pf.Polygons = append(pf.Polygons, PolygonItem{Name: names[k], Score: 1,
				PathPoints: [][2]float64{{b.x - r, b.y - r}, {b.x + r, b.y - r}, {b.x + r, b.y + r}, {b.x - r, b.y + r}}})
		}
		total += len(pf.Polygons)
		if err := writeJSON(filepath.Join(out, filepath.FromSlash(c.predPath(id))), pf); err != nil {
			return err
		}
	}
	fmt.Fprintf(log, "predicted %d nuclei in %d test ROIs and wrote one JSON per ROI\n", total, len(test))
	return c.writeSubmissionCSV(out, test)
}
