package cellseg

import (
	"context"
	"fmt"
	"image"
	_ "image/jpeg" // decode training images
	_ "image/png"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	_ "golang.org/x/image/bmp"
	_ "golang.org/x/image/tiff"

	"github.com/rexmle/rexmle/metrics/components"
	"github.com/rexmle/rexmle/metrics/imageio"
	"github.com/rexmle/rexmle/metrics/imageio/tiff"
	"github.com/rexmle/rexmle/metrics/matching"
	"github.com/rexmle/rexmle/metrics/volume"
	"github.com/rexmle/rexmle/pipeline/challenge"
)

// testRows reads public/sample_submission.csv.
func testRows(publicDir string) (ids, paths []string, err error) {
	cols, err := challenge.ReadColumns(filepath.Join(publicDir, "sample_submission.csv"), "image_id", "predicted_mask_path")
	if err != nil {
		return nil, nil, fmt.Errorf("read sample submission: %w", err)
	}
	return cols[0], cols[1], nil
}

// findImage returns the first file in dir whose stem is id.
func findImage(dir, id string) (string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	var names []string
	for _, e := range ents {
		if strings.TrimSuffix(e.Name(), filepath.Ext(e.Name())) == id {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		return "", fmt.Errorf("no image %s in %s", id, dir)
	}
	sort.Strings(names)
	return filepath.Join(dir, names[0]), nil
}

// greyImage decodes any training/test image to one intensity per pixel
// (the largest channel value, 0–255).
func greyImage(path string) ([]float64, int, int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, 0, err
	}
	defer f.Close()
	img, _, err := image.Decode(f)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("%s: %w", path, err)
	}
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	out := make([]float64, w*h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			r, g, bl, _ := img.At(b.Min.X+x, b.Min.Y+y).RGBA()
			out[y*w+x] = float64(max(r, g, bl) >> 8)
		}
	}
	return out, w, h, nil
}

func writeMask(path string, pix []int32, w, h int) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	v := volume.New(volume.NewGrid(w, h), volume.Uint16)
	for i, p := range pix {
		v.Data[i] = float64(p)
	}
	return tiff.WriteFile(path, v, volume.Uint16)
}

func writeCSV(outDir string, ids, paths []string) error {
	return challenge.WriteColumns(filepath.Join(outDir, submissionFile), []string{"image_id", "predicted_mask_path"}, ids, paths)
}

// SampleSubmission writes sample_submission.csv's rows with an all-zero
// 16-bit mask of each test image's size.
func (Challenge) SampleSubmission(ctx context.Context, publicDir, outDir string) error {
	ids, paths, err := testRows(publicDir)
	if err != nil {
		return err
	}
	for i, id := range ids {
		img, err := findImage(filepath.Join(publicDir, "test", "images"), id)
		if err != nil {
			return err
		}
		f, err := os.Open(img)
		if err != nil {
			return err
		}
		cfg, _, err := image.DecodeConfig(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", img, err)
		}
		if err := writeMask(filepath.Join(outDir, filepath.FromSlash(paths[i])), make([]int32, cfg.Width*cfg.Height), cfg.Width, cfg.Height); err != nil {
			return err
		}
	}
	return writeCSV(outDir, ids, paths)
}

// Trivial predicts no cells (the sample submission).
func (c Challenge) Trivial(ctx context.Context, publicDir, outDir string) error {
	return c.SampleSubmission(ctx, publicDir, outDir)
}

// Perfect submits the private label files.
func (Challenge) Perfect(ctx context.Context, publicDir, privateDir, outDir string) error {
	t, err := challenge.ReadCSV(filepath.Join(privateDir, "test_labels.csv"))
	if err != nil {
		return err
	}
	ids, _ := t.Column("image_id")
	labs, err := t.Column("label_path")
	if err != nil {
		return err
	}
	paths := make([]string, len(ids))
	for i, id := range ids {
		paths[i] = "predictions/" + id + "_label.tiff"
		v, err := imageio.Read(filepath.Join(privateDir, filepath.FromSlash(labs[i])))
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Join(outDir, "predictions"), 0o755); err != nil {
			return err
		}
		if err := tiff.WriteFile(filepath.Join(outDir, "predictions", id+"_label.tiff"), v, volume.Uint16); err != nil {
			return err
		}
	}
	return writeCSV(outDir, ids, paths)
}

// segment thresholds bright cell interiors, labels 4-connected components
// and grows each by one pixel into foreground pixels.
func segment(grey []float64, w, h int, interior, fg float64) ([]int32, error) {
	mask := make([]bool, w*h)
	for i, g := range grey {
		mask[i] = g > interior
	}
	lab, _, err := components.Label(mask, volume.NewGrid(w, h), 4)
	if err != nil {
		return nil, err
	}
	grown := append([]int32(nil), lab...)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			i := y*w + x
			if lab[i] != 0 || grey[i] <= fg {
				continue
			}
			for _, d := range [4][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}} {
				nx, ny := x+d[0], y+d[1]
				if nx >= 0 && ny >= 0 && nx < w && ny < h && lab[ny*w+nx] != 0 {
					grown[i] = lab[ny*w+nx]
					break
				}
			}
		}
	}
	return grown, nil
}

// Baseline learns two intensity thresholds from the training images and
// labels (background vs cell, and cell interior), segments by threshold +
// connected components, and writes one 16-bit label TIFF per test row.
func (Challenge) Baseline(ctx context.Context, publicDir, outDir string, log io.Writer) error {
	ents, err := os.ReadDir(filepath.Join(publicDir, "train", "labels"))
	if err != nil {
		return err
	}
	var bgSum, bgN, cellSum, cellN float64
	type ex struct {
		grey  []float64
		truth []int32
		w, h  int
	}
	var held *ex
	used := 0
	for _, e := range ents {
		if err := ctx.Err(); err != nil {
			return err
		}
		id := strings.TrimSuffix(strings.TrimSuffix(e.Name(), filepath.Ext(e.Name())), "_label")
		img, err := findImage(filepath.Join(publicDir, "train", "images"), id)
		if err != nil {
			continue
		}
		grey, w, h, err := greyImage(img)
		if err != nil {
			return err
		}
		tv, err := imageio.Read(filepath.Join(publicDir, "train", "labels", e.Name()))
		if err != nil {
			return err
		}
		if tv.Shape[0] != w || tv.Shape[1] != h {
			continue // image and label from different sources (name collision)
		}
		truth := make([]int32, w*h)
		for i, v := range tv.Data {
			truth[i] = int32(v)
		}
		if held == nil {
			held = &ex{grey, truth, w, h}
			continue
		}
		used++
		for i, g := range grey {
			if truth[i] == 0 {
				bgSum += g
				bgN++
			} else {
				cellSum += g
				cellN++
			}
		}
	}
	if bgN == 0 || cellN == 0 {
		return fmt.Errorf("baseline: no usable training pairs")
	}
	bg, cell := bgSum/bgN, cellSum/cellN
	fg := (bg + cell) / 2
	interior := cell
	fmt.Fprintf(log, "loaded %d training images with labels; mean intensity background %.1f, cells %.1f\n", used, bg, cell)
	fmt.Fprintf(log, "fitted thresholds: cell interior > %.1f (components, 4-connected), grown one pixel into pixels > %.1f\n", interior, fg)
	if held != nil {
		pred, err := segment(held.grey, held.w, held.h, interior, fg)
		if err != nil {
			return err
		}
		c, err := matching.MatchInstances(ctx, held.truth, pred, held.h, held.w, Thresholds)
		if err != nil {
			return err
		}
		fmt.Fprintf(log, "held-out training image: F1@0.5 = %.3f (%d true cells, %d predicted)\n", matching.InstanceF1(c.TP[0], c.Truth, c.Pred), c.Truth, c.Pred)
	}
	ids, paths, err := testRows(publicDir)
	if err != nil {
		return err
	}
	for i, id := range ids {
		img, err := findImage(filepath.Join(publicDir, "test", "images"), id)
		if err != nil {
			return err
		}
		grey, w, h, err := greyImage(img)
		if err != nil {
			return err
		}
		pred, err := segment(grey, w, h, interior, fg)
		if err != nil {
			return err
		}
		if err := writeMask(filepath.Join(outDir, filepath.FromSlash(paths[i])), pred, w, h); err != nil {
			return err
		}
	}
	fmt.Fprintf(log, "segmented %d test rows and wrote 16-bit label TIFFs\n", len(ids))
	return writeCSV(outDir, ids, paths)
}
