package topcowcommon

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/rexmle/rexmle/metrics/imageio/nifti"
	"github.com/rexmle/rexmle/metrics/topology"
	"github.com/rexmle/rexmle/metrics/volume"
	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenges/medseg"
)

// synthCases is the number of synthetic cases by default; 12 gives a 9/3
// split. The real archives hold 125 TopCoW and 25 TopBrain cases per
// modality (spec topcow-common.md C-8, topbrain-track1.md); volumes are
// small unless the size asks for real images (realGrid).
const synthCases = 12

// realCases is the real archive's case count per modality of the family.
func (c Config) realCases() int {
	if c.Family == TopBrain {
		return 25
	}
	return 125
}

// grid returns the synthetic volume shape and spacing (plausibly
// anisotropic, z coarser) of a family/modality.
func (c Config) grid() ([3]int, [3]float64) {
	if c.Family == TopBrain {
		return [3]int{72, 64, 44}, [3]float64{0.65, 0.65, 0.75}
	}
	if c.Modality == "mr" {
		return [3]int{72, 64, 40}, [3]float64{0.6, 0.6, 0.8}
	}
	return [3]int{72, 64, 40}, [3]float64{0.6, 0.6, 0.75}
}

// realGrid returns the real download's volume shape and spacing of a
// modality: head CTAs and TOF-MRA slabs as the scanners write them. No
// per-case size table is at hand, so these are our estimates of the median,
// consistent with the downloads' sizes (config.yaml: TopCoW 14.4 GB for 125
// CTA/MRA pairs with labels, ~115 MB a pair; TopBrain 2.0 GB for 25 cases
// of a modality, ~80 MB a case): CTA 512 × 512 × 280 voxels of 0.45 × 0.45
// × 0.7 mm (230 × 230 × 196 mm, 147 MB of int16 before gzip); MRA 512 ×
// 512 × 180 voxels of 0.35 × 0.35 × 0.6 mm (179 × 179 × 108 mm, 94 MB).
// TopBrain shares TopCoW's centres and scanners, so the same sizes. The
// Circle of Willis anatomy is drawn in mm, so it keeps its size and the
// larger field of view around it is background, as in a real scan.
func (c Config) realGrid() ([3]int, [3]float64) {
	if c.Modality == "mr" {
		return [3]int{512, 512, 180}, [3]float64{0.35, 0.35, 0.6}
	}
	return [3]int{512, 512, 280}, [3]float64{0.45, 0.45, 0.7}
}

// synthCase is one generated case: its anatomy rasterised (a label byte
// and a vessel membership per voxel) and what its image still needs. The
// image is computed slice by slice as it is written (imageSlices), and
// the ROI box is drawn after it (drawBox): both use the case's generator,
// in that order.
type synthCase struct {
	pid       string
	g         volume.Grid
	origin    [3]float64
	dir       [3][3]float64
	r         *raster
	rng       *rand.Rand
	roiLabels func(l uint8) bool // the labels the ROI box encloses
	mr        bool
	bg        float64 // background intensity
	vessel    float64 // intensity inside a vessel
	sigma     float64 // noise
	box       topology.Box
	ant       [4]int
	pos       [4]int
}

// caseVariant draws the anatomy of case i. The 3rd-A2 is rare (15 %);
// every second case carries one so that the small test split holds it and a
// perfect submission's group-2 detection F1 can reach 1.
func caseVariant(rng *rand.Rand, i int) variant {
	v := drawVariant(rng)
	v.thirdA2 = v.thirdA2 || i%2 == 0
	return v
}

// makeCase draws case i of a seed, at the real image size for realSize:
// its anatomy, labels and edge lists.
func (c Config) makeCase(seed int64, i int, realSize bool) (*synthCase, error) {
	stream := uint64(i) + 1
	if c.Modality == "mr" {
		stream += 1000
	}
	if c.Family == TopBrain {
		stream += 2000
	}
	if i >= 999 {
		// Beyond the room the offsets above leave: a range of its own
		// per family and modality.
		stream = 1<<40 | (stream-uint64(i)-1)<<28 | uint64(i)
	}
	rng := rand.New(rand.NewPCG(uint64(seed), stream))
	v := caseVariant(rng, i)
	ls := topCoWLabels()
	if c.Family == TopBrain {
		ls = topBrainLabels(c.Modality)
	}
	shape, spacing := c.grid()
	if realSize {
		shape, spacing = c.realGrid()
	}
	sc := &synthCase{pid: fmt.Sprintf("%03d", i+1), g: volume.Grid{Shape: shape, Spacing: spacing}, rng: rng, mr: c.Modality == "mr"}
	sc.r = rasterise(buildAnatomy(v, ls, c.Modality), shape, spacing)
	// LPS+ storage: array x runs to the patient's left, y posterior, z
	// superior; in the NIfTI (RAS) world that is direction diag(−1, −1, 1).
	sc.dir = [3][3]float64{{-1, 0, 0}, {0, -1, 0}, {0, 0, 1}}
	sc.origin = [3]float64{float64(shape[0]-1) / 2 * spacing[0], float64(shape[1]-1) / 2 * spacing[1], -float64(shape[2]-1) / 2 * spacing[2]}
	sc.origin[0] += math.Round(rng.Float64()*200-100) / 10
	sc.origin[2] += math.Round(rng.Float64()*200-100) / 10
	sc.bg, sc.vessel, sc.sigma = 35.0, 300.0*v.vesselHU, 10.0*v.noise
	if sc.mr {
		sc.bg, sc.vessel, sc.sigma = 110.0, 450.0*v.vesselHU, 18.0*v.noise
	}
	sc.roiLabels = func(l uint8) bool { return l != 0 && (c.Family == TopCoW || l <= 15) }
	var seen [256]bool
	for _, l := range sc.r.labels {
		seen[l] = true
	}
	present := map[int32]bool{}
	for l, ok := range seen {
		if ok {
			present[int32(l)] = true
		}
	}
	adj, err := topology.LabelAdjacency(context.Background(), sc.r.labels, shape)
	if err != nil {
		return nil, err
	}
	sc.ant, sc.pos = topology.CoWEdges(adj, present)
	return sc, nil
}

// header is the geometry of the case's image and label files.
func (sc *synthCase) header() *volume.Volume {
	return &volume.Volume{Grid: sc.g, Origin: sc.origin, Direction: sc.dir, Channels: 1}
}

// shading returns the image's smooth low-frequency shading, tabulated per
// (x, z) and per y: the shade of voxel (x, y, z) is sinXZ[x+nx·z]·cosY[y].
func shading(shape [3]int) (sinXZ, cosY []float64) {
	sinXZ = make([]float64, shape[0]*shape[2])
	for z := 0; z < shape[2]; z++ {
		for x := 0; x < shape[0]; x++ {
			sinXZ[x+shape[0]*z] = 6 * math.Sin(float64(x)/11+float64(z)/7)
		}
	}
	cosY = make([]float64, shape[1])
	for y := range cosY {
		cosY[y] = math.Cos(float64(y) / 13)
	}
	return sinXZ, cosY
}

// imageSlices returns the function that computes slice z of the image
// (background with a smooth shading, vessels by their membership, Gaussian
// noise), to be called for z = 0, 1, … in order, once, before drawBox: it
// draws the noise.
func (sc *synthCase) imageSlices() func(z int, img []int16) {
	shape := sc.g.Shape
	sinXZ, cosY := shading(shape)
	plane := shape[0] * shape[1]
	return func(z int, img []int16) {
		member := sc.r.member[z*plane : (z+1)*plane]
		sin := sinXZ[shape[0]*z : shape[0]*(z+1)]
		for y := 0; y < shape[1]; y++ {
			row := y * shape[0]
			for x := 0; x < shape[0]; x++ {
				shade := sin[x] * cosY[y]
				val := sc.bg + shade + float64(member[row+x])*(sc.vessel-sc.bg) + sc.rng.NormFloat64()*sc.sigma
				if sc.mr && y < 3 {
					val += 220 // bright subcutaneous fat at the anterior edge of the slab
				}
				img[row+x] = medseg.ClampInt16(math.Round(val))
			}
		}
	}
}

// drawBox draws the ROI box, after the image: the labelled Circle of
// Willis plus a margin of 2–4 voxels, clipped.
func (sc *synthCase) drawBox() {
	var roi [256]bool
	for l := range roi {
		roi[l] = sc.roiLabels(uint8(l))
	}
	cow := make([]bool, len(sc.r.labels))
	for k, l := range sc.r.labels {
		cow[k] = roi[l]
	}
	if b, ok := topology.BoundingBox(cow, sc.g.Shape); ok {
		for d := 0; d < 3; d++ {
			m := 2 + sc.rng.IntN(3)
			lo := max(0, b.Location[d]-m)
			hi := min(sc.g.Shape[d]-1, b.Location[d]+b.Size[d]-1+m)
			b.Location[d], b.Size[d] = lo, hi-lo+1
		}
		sc.box = b
	}
}

// boxText renders a box in the archive's ROI text format.
func boxText(b topology.Box) string {
	return fmt.Sprintf("--- ROI Meta Data ---\nSize (Voxels): %d %d %d\nLocation (Voxels): %d %d %d\n",
		b.Size[0], b.Size[1], b.Size[2], b.Location[0], b.Location[1], b.Location[2])
}

// edgesYAML renders an edge list in the archive's YAML format.
func edgesYAML(ant, pos [4]int) string {
	var s strings.Builder
	s.WriteString("anterior:\n")
	for i, n := range topology.AnteriorEdgeNames {
		fmt.Fprintf(&s, "    %s: %d\n", n, ant[i])
	}
	s.WriteString("posterior:\n")
	for i, n := range topology.PosteriorEdgeNames {
		fmt.Fprintf(&s, "    %s: %d\n", n, pos[i])
	}
	return s.String()
}

// Synthesize writes a small deterministic dataset in the archive layout of
// this challenge's family, restricted to its modality: for TopCoW the four
// folders imagesTr, cow_seg_labelsTr, roi_loc_labelsTr and
// antpos_edges_labelsTr (every label kind, whatever the task); for TopBrain
// imagesTr_topbrain_<m> and labelsTr_topbrain_<m>.
func (c Challenge) Synthesize(ctx context.Context, rawDir string, seed int64, size challenge.SynthSize) error {
	n := size.Count(synthCases, c.Config.realCases())
	// Cases are independent (a stream each): built and written on a bounded
	// pool, so a full-size dataset never holds every volume at once.
	shape, _ := c.grid()
	if size.RealImages() {
		shape, _ = c.realGrid()
	}
	err := challenge.ForEach(ctx, n, func(i int) error {
		release, err := challenge.ReserveSynthMemory(ctx, caseBytes(shape))
		if err != nil {
			return err
		}
		defer release()
		sc, err := c.makeCase(seed, i, size.RealImages())
		if err != nil {
			return err
		}
		return c.writeRawCase(rawDir, sc)
	})
	if err != nil {
		return fmt.Errorf("%s: synthesize: %w", c.Config.ID, err)
	}
	return nil
}

// caseBytes bounds the memory a case of the shape holds while it is drawn
// and written: a label byte and a float32 membership per voxel, the ROI
// mask (a byte a voxel) drawn after the memberships are dropped but
// perhaps before they are collected, the image slice and its encoding, and
// the writer's buffers.
func caseBytes(shape [3]int) int64 {
	plane := int64(shape[0]) * int64(shape[1])
	return 6*plane*int64(shape[2]) + 4*plane + 4<<20
}

// writeRawCase writes the image (int16, a slice at a time) and the labels
// (uint8) of a case as NIfTI files, then, for TopCoW, its ROI box (drawn
// after the image) and edge list.
func (c Challenge) writeRawCase(rawDir string, sc *synthCase) error {
	imgDir := filepath.Join(rawDir, c.rawImagesDir())
	if err := os.MkdirAll(imgDir, 0o755); err != nil {
		return err
	}
	w, err := nifti.Create(filepath.Join(imgDir, c.imageName(sc.pid)), sc.header(), volume.Int16)
	if err != nil {
		return err
	}
	if err := medseg.WriteInt16Slices(w, sc.g, sc.imageSlices()); err != nil {
		return err
	}
	sc.r.member = nil // the image is written: only the labels are needed now
	stem := c.stem(sc.pid)
	labDir := filepath.Join(rawDir, rawSegTopCoW)
	if c.Family == TopBrain {
		labDir = filepath.Join(rawDir, c.rawLabelsDir())
	}
	if err := os.MkdirAll(labDir, 0o755); err != nil {
		return err
	}
	if w, err = nifti.Create(filepath.Join(labDir, stem+".nii.gz"), sc.header(), volume.Uint8); err != nil {
		return err
	}
	if err := medseg.WriteUint8(w, sc.r.labels); err != nil {
		return err
	}
	if c.Family == TopBrain {
		return nil
	}
	sc.drawBox()
	for _, d := range []string{rawBoxTopCoW, rawEdgesTopCoW} {
		if err := os.MkdirAll(filepath.Join(rawDir, d), 0o755); err != nil {
			return err
		}
	}
	if err := challenge.WriteFileAtomic(filepath.Join(rawDir, rawBoxTopCoW, stem+".txt"), []byte(boxText(sc.box))); err != nil {
		return err
	}
	return challenge.WriteFileAtomic(filepath.Join(rawDir, rawEdgesTopCoW, stem+".yml"), []byte(edgesYAML(sc.ant, sc.pos)))
}
