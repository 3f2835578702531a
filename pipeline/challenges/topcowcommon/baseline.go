package topcowcommon

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/rexmle/rexmle/metrics/components"
	"github.com/rexmle/rexmle/metrics/imageio/nifti"
	"github.com/rexmle/rexmle/metrics/topology"
	"github.com/rexmle/rexmle/metrics/volume"
	"github.com/rexmle/rexmle/pipeline/challenges/medseg"
)

// trainIDs lists the training case ids from public/train/images.
func (c Challenge) trainIDs(publicDir string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(publicDir, "train", "images", "topcow_"+c.Modality+"_*_0000.nii.gz"))
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, f := range files {
		var pid string
		base := filepath.Base(f)
		if n, _ := fmt.Sscanf(base[len("topcow_"+c.Modality+"_"):], "%3s", &pid); n == 1 {
			ids = append(ids, pid)
		}
	}
	sort.Strings(ids)
	if len(ids) == 0 {
		return nil, fmt.Errorf("%s baseline: no training images in %s", c.Config.ID, publicDir)
	}
	return ids, nil
}

func (c Challenge) trainImage(publicDir, pid string) (*volume.Volume, error) {
	return nifti.ReadFile(filepath.Join(publicDir, "train", "images", c.imageName(pid)))
}

// atlas is a per-voxel most frequent non-zero training label, on the grid
// of the first training case (other grids are mapped by index scaling).
type atlas struct {
	shape  [3]int
	labels []uint8
}

func (a *atlas) at(shape [3]int, x, y, z int) uint8 {
	c := [3]int{x, y, z}
	for d := 0; d < 3; d++ {
		c[d] = min(a.shape[d]-1, c[d]*a.shape[d]/max(1, shape[d]))
	}
	return a.labels[c[0]+a.shape[0]*(c[1]+a.shape[1]*c[2])]
}

// segModel is the segmentation baseline: an intensity threshold and a
// label atlas.
type segModel struct {
	threshold float64
	atlas     *atlas
}

// fitSegModel fits the threshold halfway between the mean vessel and mean
// background intensities of the training cases, and the atlas by majority
// vote of the training labels.
func (c Challenge) fitSegModel(publicDir string, ids []string) (*segModel, error) {
	var sumV, sumB float64
	var nV, nB int
	var at *atlas
	var votes [][]uint8
	for _, pid := range ids {
		img, err := c.trainImage(publicDir, pid)
		if err != nil {
			return nil, err
		}
		lab, err := nifti.ReadFile(filepath.Join(publicDir, "train", "labels", c.rawLabelName(pid)))
		if err != nil {
			return nil, err
		}
		if lab.Shape != img.Shape {
			return nil, fmt.Errorf("case %s: label shape %v differs from image %v", pid, lab.Shape, img.Shape)
		}
		if at == nil {
			at = &atlas{shape: img.Shape, labels: make([]uint8, img.Len())}
			votes = make([][]uint8, img.Len())
		}
		for i, l := range lab.Data {
			if l != 0 {
				sumV += img.Data[i]
				nV++
			} else {
				sumB += img.Data[i]
				nB++
			}
			x, y, z := img.Coords(i)
			if l != 0 {
				j := at.shape[0]*(min(at.shape[1]-1, y*at.shape[1]/img.Shape[1])+at.shape[1]*min(at.shape[2]-1, z*at.shape[2]/img.Shape[2])) + min(at.shape[0]-1, x*at.shape[0]/img.Shape[0])
				votes[j] = append(votes[j], uint8(l))
			}
		}
	}
	if nV == 0 || nB == 0 {
		return nil, fmt.Errorf("training labels have no vessel or no background voxels")
	}
	for j, v := range votes {
		if len(v) == 0 {
			continue
		}
		var count [256]int
		best := uint8(0)
		for _, l := range v {
			count[l]++
			if count[l] > count[best] || (count[l] == count[best] && l < best) {
				best = l
			}
		}
		at.labels[j] = best
	}
	return &segModel{threshold: (sumV/float64(nV) + sumB/float64(nB)) / 2, atlas: at}, nil
}

// predict thresholds the image, drops 26-connected components under 8
// voxels, and labels each kept voxel with the atlas label at (or within two
// voxels of) its position.
func (m *segModel) predict(img *volume.Volume) ([]uint8, error) {
	mask := make([]bool, img.Len())
	for i, v := range img.Data {
		mask[i] = v > m.threshold
	}
	cc, n, err := components.Label(mask, img.Grid, 26)
	if err != nil {
		return nil, err
	}
	sizes := components.Sizes(cc, n)
	out := make([]uint8, img.Len())
	for i, l := range cc {
		if l == 0 || sizes[l-1] < 8 {
			continue
		}
		x, y, z := img.Coords(i)
		best, bestD := uint8(0), math.MaxInt
		for dz := -2; dz <= 2; dz++ {
			for dy := -2; dy <= 2; dy++ {
				for dx := -2; dx <= 2; dx++ {
					xx, yy, zz := x+dx, y+dy, z+dz
					if xx < 0 || yy < 0 || zz < 0 || xx >= img.Shape[0] || yy >= img.Shape[1] || zz >= img.Shape[2] {
						continue
					}
					if a := m.atlas.at(img.Shape, xx, yy, zz); a != 0 {
						if d := dx*dx + dy*dy + dz*dz; d < bestD {
							best, bestD = a, d
						}
					}
				}
			}
		}
		out[i] = best
	}
	return out, nil
}

// meanDice is the class-averaged Dice over the labels of truth (validation only).
func meanDice(pred []uint8, truth []float64) float64 {
	var g, p, in [256]int
	for i, t := range truth {
		tl := uint8(t)
		g[tl]++
		p[pred[i]]++
		if tl == pred[i] {
			in[tl]++
		}
	}
	s, n := 0.0, 0
	for l := 1; l < 256; l++ {
		if g[l] > 0 {
			s += 2 * float64(in[l]) / float64(g[l]+p[l])
			n++
		}
	}
	if n == 0 {
		return 1
	}
	return s / float64(n)
}

func (c Challenge) baselineSegmentation(ctx context.Context, publicDir, outDir string, log io.Writer) error {
	ids, err := c.trainIDs(publicDir)
	if err != nil {
		return err
	}
	fmt.Fprintf(log, "loaded %d training cases (%s volumes with %s label maps)\n", len(ids), c.ModalityName(), map[Family]string{TopCoW: "13-class CoW", TopBrain: "TopBrain vessel"}[c.Family])
	if len(ids) >= 4 {
		hold := ids[len(ids)-2:]
		m, err := c.fitSegModel(publicDir, ids[:len(ids)-2])
		if err != nil {
			return err
		}
		var ds []float64
		for _, pid := range hold {
			img, err := c.trainImage(publicDir, pid)
			if err != nil {
				return err
			}
			lab, err := nifti.ReadFile(filepath.Join(publicDir, "train", "labels", c.rawLabelName(pid)))
			if err != nil {
				return err
			}
			p, err := m.predict(img)
			if err != nil {
				return err
			}
			ds = append(ds, meanDice(p, lab.Data))
		}
		fmt.Fprintf(log, "validation: fitted on %d cases, class-averaged Dice %.3f on %d held-out cases\n", len(ids)-2, mean(ds), len(hold))
	}
	m, err := c.fitSegModel(publicDir, ids)
	if err != nil {
		return err
	}
	nAtlas := 0
	for _, l := range m.atlas.labels {
		if l != 0 {
			nAtlas++
		}
	}
	fmt.Fprintf(log, "fitted intensity threshold %.1f (midway between mean vessel and background) and a majority-vote label atlas of %d voxels\n", m.threshold, nAtlas)
	err = c.writeSubmission(ctx, publicDir, outDir, func(_ int, _ string, img *volume.Volume) ([]byte, error) {
		p, err := m.predict(img)
		if err != nil {
			return nil, err
		}
		return encodeLabels(img, p)
	})
	if err == nil {
		fmt.Fprintf(log, "predicted test label maps: threshold, 26-connected components of at least 8 voxels, atlas labels\n")
	}
	return err
}

// brightBox is the bounding box of the voxels brighter than halfway
// between the image's median and its 99.9th percentile, after dropping
// 26-connected components under 20 voxels.
func brightBox(img *volume.Volume) (topology.Box, error) {
	vals := slices.Clone(img.Data)
	slices.Sort(vals)
	t := (vals[len(vals)/2] + vals[len(vals)*999/1000]) / 2
	mask := make([]bool, img.Len())
	for i, v := range img.Data {
		mask[i] = v > t
	}
	cc, n, err := components.Label(mask, img.Grid, 26)
	if err != nil {
		return topology.Box{}, err
	}
	sizes := components.Sizes(cc, n)
	for i, l := range cc {
		mask[i] = l != 0 && sizes[l-1] >= 20
	}
	b, ok := topology.BoundingBox(mask, img.Shape)
	if !ok {
		b = topology.Box{Size: img.Shape}
	}
	return b, nil
}

func (c Challenge) baselineBoxes(ctx context.Context, publicDir, outDir string, log io.Writer) error {
	ids, err := c.trainIDs(publicDir)
	if err != nil {
		return err
	}
	// Learn the mean offsets of the GT box corners from the bright-voxel box.
	var dlo, dhi [3]float64
	for _, pid := range ids {
		img, err := c.trainImage(publicDir, pid)
		if err != nil {
			return err
		}
		gt, err := readBoxText(filepath.Join(publicDir, "train", "labels", c.rawLabelName(pid)))
		if err != nil {
			return err
		}
		bb, err := brightBox(img)
		if err != nil {
			return err
		}
		for a := 0; a < 3; a++ {
			dlo[a] += float64(gt.Location[a] - bb.Location[a])
			dhi[a] += float64((gt.Location[a] + gt.Size[a]) - (bb.Location[a] + bb.Size[a]))
		}
	}
	for a := 0; a < 3; a++ {
		dlo[a] /= float64(len(ids))
		dhi[a] /= float64(len(ids))
	}
	fmt.Fprintf(log, "loaded %d training volumes and ROI boxes\n", len(ids))
	fmt.Fprintf(log, "fitted corner offsets from the bright-vessel box: low %.1f %.1f %.1f, high %.1f %.1f %.1f voxels\n", dlo[0], dlo[1], dlo[2], dhi[0], dhi[1], dhi[2])
	err = c.writeSubmission(ctx, publicDir, outDir, func(_ int, _ string, img *volume.Volume) ([]byte, error) {
		bb, err := brightBox(img)
		if err != nil {
			return nil, err
		}
		var b topology.Box
		for a := 0; a < 3; a++ {
			lo := max(0, int(math.Round(float64(bb.Location[a])+dlo[a])))
			hi := min(img.Shape[a], int(math.Round(float64(bb.Location[a]+bb.Size[a])+dhi[a])))
			b.Location[a], b.Size[a] = lo, max(1, hi-lo)
		}
		return boxFile(b), nil
	})
	if err == nil {
		fmt.Fprintf(log, "predicted one box per test volume (threshold, components ≥ 20 voxels, bounding box, learned offsets)\n")
	}
	return err
}

// edgeProbe is the per-edge nearest-centroid model: the mean (smoothed)
// intensity in the voxels that best separate present from absent training
// cases, or a constant (the majority value) when that does not validate.
type edgeProbe struct {
	constant  int // -1 when the probe is used
	voxels    []int
	centroid0 float64
	centroid1 float64
}

// fitProbe fits the probe of one edge on the given cases (images already
// smoothed, labels 0/1); it falls back to the majority value when one class
// is missing.
func fitProbe(imgs [][]float64, labels []int) edgeProbe {
	var cnt [2]int
	for _, l := range labels {
		cnt[l]++
	}
	if cnt[0] == 0 || cnt[1] == 0 {
		return edgeProbe{constant: majority(labels)}
	}
	n := len(imgs[0])
	diff := make([]float64, n)
	for i, img := range imgs {
		w := -1 / float64(cnt[0])
		if labels[i] == 1 {
			w = 1 / float64(cnt[1])
		}
		for j, x := range img {
			diff[j] += w * x
		}
	}
	p := edgeProbe{constant: -1, voxels: topIndices(diff, 150)}
	var c [2]float64
	for i, img := range imgs {
		c[labels[i]] += probeValue(img, p.voxels)
	}
	p.centroid0, p.centroid1 = c[0]/float64(cnt[0]), c[1]/float64(cnt[1])
	return p
}

func (p edgeProbe) predict(img []float64) int {
	if p.constant >= 0 {
		return p.constant
	}
	f := probeValue(img, p.voxels)
	if math.Abs(f-p.centroid1) < math.Abs(f-p.centroid0) {
		return 1
	}
	return 0
}

func majority(labels []int) int {
	n1 := 0
	for _, l := range labels {
		n1 += l
	}
	if 2*n1 > len(labels) {
		return 1
	}
	return 0
}

// smoothTwice applies the 3×3×3 mean filter twice (noise down, thin
// vessels spread over a few voxels so that cases overlap).
func smoothTwice(img *volume.Volume) []float64 {
	return medseg.Smooth(img.Grid, medseg.Smooth(img.Grid, img.Data))
}

func (c Challenge) baselineEdges(ctx context.Context, publicDir, outDir string, log io.Writer) error {
	ids, err := c.trainIDs(publicDir)
	if err != nil {
		return err
	}
	var imgs [][]float64
	var shape [3]int
	var vals [][8]int
	for _, pid := range ids {
		img, err := c.trainImage(publicDir, pid)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(filepath.Join(publicDir, "train", "labels", c.rawLabelName(pid)))
		if err != nil {
			return err
		}
		e, err := parseEdgesYAML(b)
		if err != nil {
			return fmt.Errorf("train label %s: %w", pid, err)
		}
		var v [8]int
		for i := 0; i < 4; i++ {
			v[i], v[4+i] = min(1, max(0, e.ant[i].asInt)), min(1, max(0, e.pos[i].asInt))
		}
		if len(imgs) > 0 && img.Shape != shape {
			continue // the probe needs one grid; skip odd-sized cases
		}
		shape = img.Shape
		imgs = append(imgs, smoothTwice(img))
		vals = append(vals, v)
	}
	fmt.Fprintf(log, "loaded %d training volumes with edge lists; smoothed each twice with a 3×3×3 mean filter\n", len(imgs))
	names := append(topology.AnteriorEdgeNames[:], topology.PosteriorEdgeNames[:]...)
	probes := make([]edgeProbe, 8)
	for e := 0; e < 8; e++ {
		labels := make([]int, len(imgs))
		for i := range imgs {
			labels[i] = vals[i][e]
		}
		// Leave-one-out: probe versus majority vote.
		probeOK, majOK := 0, 0
		for i := range imgs {
			restI := append(append([][]float64{}, imgs[:i]...), imgs[i+1:]...)
			restL := append(append([]int{}, labels[:i]...), labels[i+1:]...)
			if fitProbe(restI, restL).predict(imgs[i]) == labels[i] {
				probeOK++
			}
			if majority(restL) == labels[i] {
				majOK++
			}
		}
		p := fitProbe(imgs, labels)
		if p.constant < 0 && probeOK <= majOK {
			p = edgeProbe{constant: majority(labels)}
		}
		probes[e] = p
		if p.constant >= 0 {
			fmt.Fprintf(log, "edge %s: majority value %d (leave-one-out: probe %d/%d, majority %d/%d)\n", names[e], p.constant, probeOK, len(imgs), majOK, len(imgs))
		} else {
			fmt.Fprintf(log, "edge %s: 150-voxel probe, centroids absent %.1f / present %.1f (leave-one-out: probe %d/%d, majority %d/%d)\n", names[e], p.centroid0, p.centroid1, probeOK, len(imgs), majOK, len(imgs))
		}
	}
	err = c.writeSubmission(ctx, publicDir, outDir, func(_ int, _ string, img *volume.Volume) ([]byte, error) {
		var ant, pos [4]int
		sm := smoothTwice(img)
		for e, p := range probes {
			v := p.constant
			if v < 0 {
				v = 0
				if img.Shape == shape {
					v = p.predict(sm)
				}
			}
			if e < 4 {
				ant[e] = v
			} else {
				pos[e-4] = v
			}
		}
		return edgesFile(ant, pos), nil
	})
	if err == nil {
		fmt.Fprintf(log, "predicted the eight edges of each test volume (nearest centroid of the probe intensity, or the majority value)\n")
	}
	return err
}

func probeValue(img []float64, voxels []int) float64 {
	s := 0.0
	for _, j := range voxels {
		s += img[j]
	}
	return s / float64(len(voxels))
}

// topIndices returns the indices of the k largest values (ties to the
// lower index), largest first, in O(n log k).
func topIndices(v []float64, k int) []int {
	k = min(k, len(v))
	better := func(a, b int) bool { return v[a] > v[b] || (v[a] == v[b] && a < b) }
	h := make([]int, 0, k) // min-heap by "better": h[0] is the worst kept
	down := func(i int) {
		for {
			l, r, w := 2*i+1, 2*i+2, i
			if l < len(h) && better(h[w], h[l]) {
				w = l
			}
			if r < len(h) && better(h[w], h[r]) {
				w = r
			}
			if w == i {
				return
			}
			h[i], h[w] = h[w], h[i]
			i = w
		}
	}
	for j := range v {
		if len(h) < k {
			h = append(h, j)
			for i := len(h) - 1; i > 0; {
				p := (i - 1) / 2
				if !better(h[p], h[i]) {
					break
				}
				h[i], h[p] = h[p], h[i]
				i = p
			}
		} else if k > 0 && better(j, h[0]) {
			h[0] = j
			down(0)
		}
	}
	sort.Slice(h, func(a, b int) bool { return better(h[a], h[b]) })
	return h
}
