package dentex

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/rexmle/rexmle/metrics/imageio/png"
	"github.com/rexmle/rexmle/metrics/volume"
	"github.com/rexmle/rexmle/pipeline/challenge"
)

// Synthetic panoramic geometry: a W×H image, midline at W/2, eight tooth
// slots of slotW pixels per side, upper and lower rows.
const (
	synthW      = 320
	synthH      = 160
	slotW       = 16
	toothW      = 13
	toothH      = 52
	upperY      = 20
	lowerY      = 88
	synthImages = 40
	// realImages is the fully labelled training set (quadrant-enumeration-
	// disease) the reference splits 564/141 (spec dentex.md §3.1).
	realImages = 705
	// realW × realH is a real panoramic radiograph's size.
	realW, realH = 2744, 1316
)

// diagnosisLevel is the grey level of an abnormal tooth by 0-based diagnosis
// id (Impacted, Caries, Periapical Lesion, Deep Caries); healthy teeth are 120.
var diagnosisLevel = [4]float64{250, 200, 225, 175}

// toothOrigin is the top-left corner of the slot of 0-based quadrant q and
// tooth t. FDI quadrants 1 and 4 are the patient's right = the image's left.
func toothOrigin(q, t int) (x, y float64) {
	mid := float64(synthW / 2)
	if q == 0 || q == 3 {
		x = mid - float64(slotW*(t+1)) + 2
	} else {
		x = mid + float64(slotW*t) + 2
	}
	y = upperY
	if q >= 2 {
		y = lowerY
	}
	return x, y
}

type synthAnn struct {
	box        [4]float64
	q, t, diag int
}

// xrayGeometry is where and at what size Synthesize draws its radiographs:
// the image's size, its scale from the synthetic 320 × 160 geometry, and
// the folder the PNGs go to (under xraysDir).
type xrayGeometry struct {
	w, h   int
	sx, sy float64
	dir    string
}

// drawXray draws one radiograph with r, named train_<name>.png, writes it
// and returns its annotations.
func drawXray(r *rand.Rand, g xrayGeometry, name int) ([]synthAnn, error) {
	file := fmt.Sprintf("train_%d.png", name)
	abn := map[[2]int]int{}
	nAbn := 2 + r.IntN(5)
	var list []synthAnn
	for len(list) < nAbn {
		q, t := r.IntN(4), r.IntN(8)
		if _, dup := abn[[2]int{q, t}]; dup {
			continue
		}
		d := r.IntN(4)
		abn[[2]int{q, t}] = d
		x, y := toothOrigin(q, t)
		// Annotators are imprecise by a few pixels.
		jx, jy := float64(r.IntN(7)-3)*0.5, float64(r.IntN(9)-4)
		jw, jh := float64(r.IntN(5)-2), float64(r.IntN(9)-4)
		list = append(list, synthAnn{[4]float64{(x + jx) * g.sx, (y + jy) * g.sy, (toothW + jw) * g.sx, (toothH + jh) * g.sy}, q, t, d})
	}
	v := volume.New(volume.NewGrid(g.w, g.h), volume.Uint8)
	for y := 0; y < g.h; y++ {
		row := 40 + 15*math.Exp(-math.Pow((float64(y)/g.sy-synthH/2)/50, 2))
		for x := 0; x < g.w; x++ {
			v.Data[x+g.w*y] = row
		}
	}
	for q := 0; q < 4; q++ {
		for t := 0; t < 8; t++ {
			level := 120.0
			if d, ok := abn[[2]int{q, t}]; ok {
				level = diagnosisLevel[d] + 10*r.NormFloat64()
			} else if r.Float64() < 0.1 {
				continue // missing tooth
			}
			x0, y0 := toothOrigin(q, t)
			for y := int(y0 * g.sy); y < int((y0+toothH)*g.sy); y++ {
				for x := int(x0 * g.sx); x < int((x0+toothW)*g.sx); x++ {
					v.Data[x+g.w*y] = level
				}
			}
		}
	}
	for k := range v.Data {
		v.Data[k] = math.Round(math.Max(0, math.Min(255, v.Data[k]+12*r.NormFloat64())))
	}
	if err := png.WriteFile(filepath.Join(g.dir, xraysDir, file), v, 8); err != nil {
		return nil, fmt.Errorf("synthesize %s: %w", file, err)
	}
	return list, nil
}

// Synthesize writes training_data/quadrant-enumeration-disease/xrays/*.png
// and its COCO JSON (0-based category ids, as the real DENTEX release), with
// size.Count(40, 705) images of the synthetic 320 × 160 geometry, or, when
// the size asks for real images, of the real panoramic radiographs' 2744 ×
// 1316 pixels (spec dentex.md §1: PNG, ~2744 × 1316; one size for all, not
// a distribution): the same drawing scaled, teeth and boxes included, noise
// per pixel.
func (Challenge) Synthesize(ctx context.Context, rawDir string, seed int64, size challenge.SynthSize) error {
	imgW, imgH := synthW, synthH
	if size.RealImages() {
		imgW, imgH = realW, realH
	}
	sx, sy := float64(imgW)/synthW, float64(imgH)/synthH
	r := rand.New(rand.NewPCG(uint64(seed), 0xde17e))
	synthImages := size.Count(synthImages, realImages)
	dir := filepath.Join(rawDir, trainingDir, qedDir)
	if err := os.MkdirAll(filepath.Join(dir, xraysDir), 0o755); err != nil {
		return err
	}
	names := r.Perm(synthImages)
	g := xrayGeometry{w: imgW, h: imgH, sx: sx, sy: sy, dir: dir}
	draw := func(r *rand.Rand, i int) ([]synthAnn, error) { return drawXray(r, g, names[i]) }
	// The demo's tiny images are drawn in order from one generator (their
	// bytes are pinned); at the real size each image gets its own
	// generator, seeded in order from the challenge's, and the images are
	// drawn on every core, the same whatever the core count.
	lists := make([][]synthAnn, synthImages)
	if size.RealImages() {
		seeds := make([]uint64, synthImages)
		for i := range seeds {
			seeds[i] = r.Uint64()
		}
		err := challenge.ForEach(ctx, synthImages, func(i int) error {
			var err error
			lists[i], err = draw(rand.New(rand.NewPCG(seeds[i], 0xde17e)), i)
			return err
		})
		if err != nil {
			return err
		}
	} else {
		for i := range lists {
			if err := ctx.Err(); err != nil {
				return err
			}
			var err error
			if lists[i], err = draw(r, i); err != nil {
				return err
			}
		}
	}
	var images, anns []map[string]any
	annID := 1
	for i, list := range lists {
		file := fmt.Sprintf("train_%d.png", names[i])
		images = append(images, map[string]any{"height": imgH, "width": imgW, "id": i + 1, "file_name": file})
		for _, a := range list {
			b := a.box
			poly := []float64{b[0] + 1, b[1], b[0] + b[2], b[1] + 1, b[0] + b[2] - 1, b[1] + b[3], b[0], b[1] + b[3] - 1}
			anns = append(anns, map[string]any{
				"iscrowd": 0, "image_id": i + 1, "bbox": b[:], "segmentation": [][]float64{poly},
				"id": annID, "area": b[2]*b[3] - 2, // polygon area, a little under w·h
				"category_id_1": a.q, "category_id_2": a.t, "category_id_3": a.diag,
			})
			annID++
		}
	}
	var c1, c2, c3 []map[string]any
	for i := 0; i < 4; i++ {
		c1 = append(c1, map[string]any{"id": i, "name": fmt.Sprint(i + 1), "supercategory": fmt.Sprint(i + 1)})
		c3 = append(c3, map[string]any{"id": i, "name": diagnosisNames[i], "supercategory": diagnosisNames[i]})
	}
	for i := 0; i < 8; i++ {
		c2 = append(c2, map[string]any{"id": i, "name": fmt.Sprint(i + 1), "supercategory": fmt.Sprint(i + 1)})
	}
	return writeOrdered(filepath.Join(dir, annotationName),
		[]string{"images", "annotations", "categories_1", "categories_2", "categories_3"},
		map[string]any{"images": images, "annotations": anns, "categories_1": c1, "categories_2": c2, "categories_3": c3})
}
