package cellseg

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rexmle/rexmle/pipeline/fsutil"

	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenge/split"
)

// Pair is one labelled image found in the raw data.
type Pair struct {
	ImageID string // file stem
	Image   string // path of the image
	Label   string // path of the label
}

var imageExts = []string{".tif", ".tiff", ".png", ".jpg", ".jpeg", ".bmp"}

// findPairs lists the labelled images of one raw folder as the reference
// does: images/ and labels/ sub-folders when present (else the folder
// itself), image files with a known extension (either case) sorted by
// path, the label being the first of <stem>.tif, <stem>.tiff,
// <stem>_label.tif, <stem>_label.tiff that exists.
func findPairs(dir string) ([]Pair, error) {
	imgDir, labDir := filepath.Join(dir, "images"), filepath.Join(dir, "labels")
	if st, err := os.Stat(imgDir); err != nil || !st.IsDir() {
		imgDir = dir
	}
	if st, err := os.Stat(labDir); err != nil || !st.IsDir() {
		labDir = dir
	}
	ents, err := os.ReadDir(imgDir)
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		ext := filepath.Ext(e.Name())
		for _, x := range imageExts {
			if ext == x || ext == strings.ToUpper(x) {
				paths = append(paths, filepath.Join(imgDir, e.Name()))
				break
			}
		}
	}
	sort.Strings(paths)
	var out []Pair
	for _, p := range paths {
		stem := strings.TrimSuffix(filepath.Base(p), filepath.Ext(p))
		for _, cand := range []string{stem + ".tif", stem + ".tiff", stem + "_label.tif", stem + "_label.tiff"} {
			lp := filepath.Join(labDir, cand)
			if st, err := os.Stat(lp); err == nil && st.Mode().IsRegular() {
				out = append(out, Pair{ImageID: stem, Image: p, Label: lp})
				break
			}
		}
	}
	return out, nil
}

// Pairs returns the training pairs followed by the tuning pairs, stably
// sorted by image id (a training pair precedes a tuning pair of the same
// stem).
func Pairs(rawDir string) ([]Pair, error) {
	var all []Pair
	for _, d := range []string{trainDir, tuningDir} {
		ps, err := findPairs(filepath.Join(rawDir, d))
		if err != nil {
			return nil, fmt.Errorf("cellseg: %s: %w", d, err)
		}
		all = append(all, ps...)
	}
	sortStable(all)
	if len(all) < 2 {
		return nil, fmt.Errorf("cellseg: %d labelled images in %s, need at least 2", len(all), rawDir)
	}
	return all, nil
}

// Split is train_test_split(test_size=0.2, random_state=42, shuffle=True).
func Split(all []Pair) (train, test []Pair) { return split.TrainTest(all, 0.2, 42) }

// Prepare copies the split as the reference does, by file name (so
// colliding stems overwrite each other, the last copy in split order
// winning), and writes sample_submission.csv and test_labels.csv with one
// row per test pair (a colliding id appears twice).
func (Challenge) Prepare(ctx context.Context, rawDir, dataDir string) error {
	if err := challenge.EnsureDownloads(ID, rawDir, Challenge{}.Downloads()); err != nil {
		return err
	}
	all, err := Pairs(rawDir)
	if err != nil {
		return err
	}
	train, test := Split(all)
	pub, priv := filepath.Join(dataDir, "public"), filepath.Join(dataDir, "private")
	for _, p := range train {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fsutil.CopyFile(p.Image, filepath.Join(pub, "train", "images", filepath.Base(p.Image))); err != nil {
			return err
		}
		if err := fsutil.CopyFile(p.Label, filepath.Join(pub, "train", "labels", filepath.Base(p.Label))); err != nil {
			return err
		}
	}
	var sample, answers [][]string
	for _, p := range test {
		if err := ctx.Err(); err != nil {
			return err
		}
		img, lab := filepath.Base(p.Image), filepath.Base(p.Label)
		if err := fsutil.CopyFile(p.Image, filepath.Join(pub, "test", "images", img)); err != nil {
			return err
		}
		if err := fsutil.CopyFile(p.Label, filepath.Join(priv, "test", "labels", lab)); err != nil {
			return err
		}
		sample = append(sample, []string{p.ImageID, "predictions/" + p.ImageID + "_label.tiff"})
		answers = append(answers, []string{p.ImageID, "test/images/" + img, "test/labels/" + lab})
	}
	if err := challenge.WriteCSV(filepath.Join(priv, "test_labels.csv"), []string{"image_id", "image_path", "label_path"}, answers); err != nil {
		return err
	}
	if err := challenge.WriteCSV(filepath.Join(pub, "sample_submission.csv"), []string{"image_id", "predicted_mask_path"}, sample); err != nil {
		return err
	}
	return challenge.WriteFileAtomic(filepath.Join(pub, "description.md"), []byte(description))
}

// sortStable orders pairs by image id; pairs with the same id keep their
// enumeration order (the split depends on it).
func sortStable(all []Pair) {
	sort.SliceStable(all, func(i, j int) bool { return all[i].ImageID < all[j].ImageID })
}
