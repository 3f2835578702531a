package puma

import (
	"context"
	"fmt"
	"image"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"golang.org/x/image/tiff"

	"github.com/rexmle/rexmle/metrics/polygon"
	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/fsutil"
)

// Raw layout (inside the shared PUMA folder).
const (
	roiDir    = "01_training_dataset_tif_ROIs"
	tissueDir = "01_training_dataset_geojson_tissue"
	nucleiDir = "01_training_dataset_geojson_nuclei"
	// Size is the side of a PUMA ROI and of every reference mask.
	Size = 1024
)

// Real tissue class names (QuPath export) in label order 0..5.
var realTissueNames = []string{"tissue_white_background", "tissue_stroma", "tissue_blood_vessel", "tissue_tumor", "tissue_epidermis", "tissue_necrosis"}

// Names the reference preparer's tissue table recognises, in label order
// (index 0 unused: background is simply not drawn).
var refTissueNames = []string{"", "stroma", "blood vessel", "tumor", "epidermis", "necrosis"}

// Real nuclei class names.
var realNucleiNames = []string{"nuclei_tumor", "nuclei_lymphocyte", "nuclei_plasma_cell", "nuclei_histiocyte", "nuclei_melanophage",
	"nuclei_neutrophil", "nuclei_stroma", "nuclei_endothelium", "nuclei_epithelium", "nuclei_apoptosis"}

// The plural names the reference preparer's nuclei tables are keyed on, in
// the order of realNucleiNames.
var refNucleiNames = []string{"nuclei_tumor", "nuclei_lymphocytes", "nuclei_plasma_cells", "nuclei_histiocytes", "nuclei_melanophages",
	"nuclei_neutrophils", "nuclei_stromal_cells", "nuclei_endothelium", "nuclei_epithelium", "nuclei_apoptotic_cells"}

// tissueColour is the H&E-like colour of each tissue label.
var tissueColour = [6][3]float64{{238, 236, 240}, {226, 160, 192}, {205, 80, 100}, {172, 105, 176}, {204, 132, 170}, {196, 164, 178}}

// nucleusLook gives radius and colour per nuclei class (realNucleiNames order).
var nucleusLook = []struct {
	r   float64
	rgb [3]float64
}{{8, [3]float64{95, 45, 125}}, {4, [3]float64{40, 20, 80}}, {5, [3]float64{70, 30, 110}}, {7, [3]float64{120, 80, 140}},
	{6, [3]float64{90, 60, 40}}, {5, [3]float64{60, 40, 120}}, {5, [3]float64{110, 60, 150}}, {4, [3]float64{130, 50, 120}},
	{6, [3]float64{100, 50, 150}}, {5, [3]float64{150, 110, 160}}}

// Synthetic ROI counts: the default, and the real v4 record's 103 primary
// and 102 metastatic ROIs (spec puma-track1-task1.md §3; the config says
// 204). ROIs are the real 1024 × 1024 at every size.
const (
	synthPerKind = 6
	realPrimary  = 103
	realMeta     = 102
)

// caseIDs are the synthetic ROI names (real naming): primary ones first,
// then metastatic ones, split as the real record is.
func caseIDs(size challenge.SynthSize) []string {
	var ids []string
	counts := [2]int{synthPerKind, synthPerKind}
	if !size.IsDefault() {
		counts[0], counts[1] = challenge.ShareCases(size.Count(0, realPrimary+realMeta), realPrimary, realMeta)
	}
	for k, kind := range []string{"primary", "metastatic"} {
		for i := 1; i <= counts[k]; i++ {
			ids = append(ids, fmt.Sprintf("training_set_%s_roi_%03d", kind, i))
		}
	}
	return ids
}

// blob returns an irregular closed ring around (cx, cy).
func blob(r *rand.Rand, cx, cy, rad float64, n int) polygon.Ring {
	ring := make(polygon.Ring, 0, n+1)
	for k := 0; k < n; k++ {
		a := 2 * math.Pi * float64(k) / float64(n)
		rr := rad * (0.75 + 0.5*r.Float64())
		ring = append(ring, [2]float64{math.Round((cx+rr*math.Cos(a))*10) / 10, math.Round((cy+rr*math.Sin(a))*10) / 10})
	}
	return append(ring, ring[0])
}

type synthCase struct {
	texSeed uint64            // seeds the blotchy texture
	tissue  []polygon.Feature // real names
	labels  *polygon.Mask     // official label map
	nuclei  []nucleus
}

type nucleus struct {
	cls  int // index into realNucleiNames
	ring polygon.Ring
}

func makeCase(r *rand.Rand) synthCase {
	sc := synthCase{texSeed: r.Uint64()}
	add := func(label int, geom string, polys ...polygon.Ring) {
		f := polygon.Feature{ClassName: realTissueNames[label], GeometryType: geom}
		for _, p := range polys {
			f.Polygons = append(f.Polygons, []polygon.Ring{p})
		}
		sc.tissue = append(sc.tissue, f)
	}
	// Stroma covers most of the ROI; epidermis a band on top; tumour and
	// necrosis blobs; two vessels as one MultiPolygon; a white corner.
	add(1, "Polygon", blob(r, 512, 540, 560, 16))
	top := 60 + 80*r.Float64()
	add(4, "Polygon", polygon.Ring{{0, top}, {1024, top + 40*r.Float64()}, {1024, top + 120}, {0, top + 140}, {0, top}})
	tx, ty := 350+300*r.Float64(), 450+250*r.Float64()
	add(3, "Polygon", blob(r, tx, ty, 160+60*r.Float64(), 14))
	if r.IntN(3) > 0 {
		add(5, "Polygon", blob(r, tx+20, ty-10, 50, 10))
	}
	add(2, "MultiPolygon", blob(r, 150+100*r.Float64(), 800, 35, 10), blob(r, 850, 300+300*r.Float64(), 28, 10))
	add(0, "Polygon", polygon.Ring{{1024, 1024}, {700, 1024}, {1024, 820}, {1024, 1024}})

	sc.labels = polygon.NewMask(Size, Size)
	for _, f := range sc.tissue {
		lab := uint8(indexOf(realTissueNames, f.ClassName))
		for _, p := range f.Polygons {
			xs, ys := ringXY(p[0])
			sc.labels.FillPIL(xs, ys, lab)
		}
	}
	// Nuclei by tissue region.
	byRegion := map[uint8][]int{
		1: {6, 6, 6, 1, 2, 3, 4, 5},
		2: {7},
		3: {0, 0, 0, 0, 1},
		4: {8},
		5: {9},
	}
	for k := 0; k < 110; k++ {
		x, y := 20+984*r.Float64(), 20+984*r.Float64()
		lab := sc.labels.Pix[int(y)*Size+int(x)]
		choices := byRegion[lab]
		if len(choices) == 0 {
			continue
		}
		cls := choices[r.IntN(len(choices))]
		ring := make(polygon.Ring, 0, 9)
		rad := nucleusLook[cls].r
		for a := 0; a < 8; a++ {
			ang := 2 * math.Pi * float64(a) / 8
			ring = append(ring, [2]float64{math.Round((x+rad*math.Cos(ang))*100) / 100, math.Round((y+rad*math.Sin(ang))*100) / 100})
		}
		ring = append(ring, ring[0])
		sc.nuclei = append(sc.nuclei, nucleus{cls: cls, ring: ring})
	}
	return sc
}

func ringXY(r polygon.Ring) (xs, ys []float64) {
	xs, ys = make([]float64, len(r)), make([]float64, len(r))
	for i, p := range r {
		xs[i], ys[i] = p[0], p[1]
	}
	return xs, ys
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

// render paints the H&E-like RGB image of a case.
func render(sc synthCase) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, Size, Size))
	// Colour per class and brightness offset (−18..18 in steps of 2).
	const steps = 19
	var lut [6][steps][4]uint8
	for l := range lut {
		for t := range lut[l] {
			for ch := 0; ch < 3; ch++ {
				lut[l][t][ch] = clamp8(tissueColour[l][ch] + float64(2*t-18))
			}
			lut[l][t][3] = 255
		}
	}
	// Blotchy texture: one random brightness per 8 × 8 block, so that the
	// classes' colours overlap a little while the TIFF stays small.
	const blk = 8
	tex := make([]uint8, (Size/blk)*(Size/blk))
	tr := rand.New(rand.NewPCG(sc.texSeed, 7))
	for i := range tex {
		tex[i] = uint8(tr.IntN(steps))
	}
	for y := 0; y < Size; y++ {
		row := img.Pix[y*img.Stride : y*img.Stride+4*Size]
		lab := sc.labels.Pix[y*Size : (y+1)*Size]
		trow := tex[(y/blk)*(Size/blk):]
		for x := 0; x < Size; x++ {
			copy(row[4*x:4*x+4], lut[lab[x]][trow[x/blk]][:])
		}
	}
	for _, n := range sc.nuclei {
		cx, cy, _ := centroidOf(n.ring)
		look := nucleusLook[n.cls]
		rad := look.r
		for y := int(cy - rad - 1); y <= int(cy+rad+1); y++ {
			for x := int(cx - rad - 1); x <= int(cx+rad+1); x++ {
				if x < 0 || y < 0 || x >= Size || y >= Size || (float64(x)-cx)*(float64(x)-cx)+(float64(y)-cy)*(float64(y)-cy) > rad*rad {
					continue
				}
				o := img.PixOffset(x, y)
				for ch := 0; ch < 3; ch++ {
					img.Pix[o+ch] = clamp8(look.rgb[ch])
				}
			}
		}
	}
	return img
}

func clamp8(v float64) uint8 { return uint8(math.Max(0, math.Min(255, math.Round(v)))) }

// centroidOf is the vertex mean of a ring without its closing vertex.
func centroidOf(r polygon.Ring) (float64, float64, bool) {
	n := len(r)
	if n > 1 && r[0] == r[n-1] {
		n--
	}
	if n == 0 {
		return 0, 0, false
	}
	var sx, sy float64
	for _, p := range r[:n] {
		sx += p[0]
		sy += p[1]
	}
	return sx / float64(n), sy / float64(n), true
}

// Synthesize writes a small PUMA-like dataset into rawDir in the layout of
// the shared PUMA folder: RGBA ROI TIFFs (1024 × 1024, deflate), tissue and
// nuclei GeoJSON with the class names the real files use (or the
// reference's names for a WithReferenceNames copy). The same data serves all
// four PUMA challenges.
func (c Challenge) Synthesize(ctx context.Context, rawDir string, seed int64, size challenge.SynthSize) error {
	for _, d := range []string{roiDir, tissueDir, nucleiDir} {
		if err := os.MkdirAll(filepath.Join(rawDir, d), 0o755); err != nil {
			return err
		}
	}
	key := synthKey{seed, c.refNames, size}
	synthMu.Lock()
	files, ok := synthCache[key]
	synthMu.Unlock()
	if !ok {
		tmp, err := os.MkdirTemp("", "puma-synth-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		if err := c.synthesize(ctx, tmp, seed, size); err != nil {
			return err
		}
		files = map[string][]byte{}
		for _, id := range caseIDs(size) {
			for _, rel := range []string{filepath.Join(roiDir, id+".tif"), filepath.Join(tissueDir, id+"_tissue.geojson"), filepath.Join(nucleiDir, id+"_nuclei.geojson")} {
				b, err := os.ReadFile(filepath.Join(tmp, rel))
				if err != nil {
					return err
				}
				files[rel] = b
			}
		}
		synthMu.Lock()
		synthCache[key] = files
		synthMu.Unlock()
	}
	for _, rel := range sortedKeys(files) {
		if err := fsutil.WriteFile(filepath.Join(rawDir, rel), files[rel], 0o644); err != nil {
			return err
		}
	}
	return nil
}

// The synthetic data of a seed is built once per process and then copied:
// all four PUMA challenges share it and it takes a second to render.
type synthKey struct {
	seed     int64
	refNames bool
	size     challenge.SynthSize
}

var (
	synthMu    sync.Mutex
	synthCache = map[synthKey]map[string][]byte{}
)

func sortedKeys(m map[string][]byte) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func (c Challenge) synthesize(ctx context.Context, rawDir string, seed int64, size challenge.SynthSize) error {
	for _, d := range []string{roiDir, tissueDir, nucleiDir} {
		if err := os.MkdirAll(filepath.Join(rawDir, d), 0o755); err != nil {
			return err
		}
	}
	r := rand.New(rand.NewPCG(uint64(seed), 0x9a3b))
	ids := caseIDs(size)
	cases := make([]synthCase, len(ids))
	for i := range ids {
		cases[i] = makeCase(r) // sequential: the random stream fixes the data
	}
	return challenge.ForEach(ctx, len(ids), func(i int) error {
		return c.writeCase(rawDir, ids[i], cases[i])
	})
}

func (c Challenge) writeCase(rawDir, id string, sc synthCase) error {
	{
		if err := writeTIFF(filepath.Join(rawDir, roiDir, id+".tif"), render(sc)); err != nil {
			return err
		}
		tissue := sc.tissue
		if c.refNames {
			tissue = make([]polygon.Feature, 0, len(sc.tissue))
			for _, f := range sc.tissue {
				if l := indexOf(realTissueNames, f.ClassName); l > 0 {
					f.ClassName = refTissueNames[l]
					tissue = append(tissue, f)
				}
			}
		}
		if err := writeGeoJSON(filepath.Join(rawDir, tissueDir, id+"_tissue.geojson"), tissue); err != nil {
			return err
		}
		nf := make([]polygon.Feature, len(sc.nuclei))
		for i, n := range sc.nuclei {
			name := realNucleiNames[n.cls]
			if c.refNames {
				name = refNucleiNames[n.cls]
			}
			nf[i] = polygon.Feature{ClassName: name, GeometryType: "Polygon", Polygons: [][]polygon.Ring{{n.ring}}}
		}
		if err := writeGeoJSON(filepath.Join(rawDir, nucleiDir, id+"_nuclei.geojson"), nf); err != nil {
			return err
		}
	}
	return nil
}

func writeGeoJSON(path string, fs []polygon.Feature) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := polygon.WriteFeatureCollection(f, fs); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}

// writeTIFF writes an image as a deflate-compressed TIFF.
func writeTIFF(path string, m image.Image) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := tiff.Encode(f, m, &tiff.Options{Compression: tiff.Deflate}); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}

// writeMaskTIFF writes a label mask as an 8-bit grey TIFF.
func writeMaskTIFF(path string, m *polygon.Mask) error {
	g := &image.Gray{Pix: m.Pix, Stride: m.W, Rect: image.Rect(0, 0, m.W, m.H)}
	return writeTIFF(path, g)
}
