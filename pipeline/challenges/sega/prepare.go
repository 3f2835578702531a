package sega

import (
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rexmle/rexmle/pipeline/fsutil"

	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenge/split"
	"github.com/rexmle/rexmle/pipeline/challenges/medseg"
)

// mainArchive is the Figshare download's file name.
const mainArchive = "avt_dataset.zip"

// Case is one image/label pair found in raw/.
type Case struct {
	ID          string // image stem, e.g. D1
	Institution string // grand-parent folder of the image
	Image       string
	Label       string
}

// extract unpacks raw/avt_dataset.zip when raw holds no NRRD yet, then every
// other top-level zip into raw/<zip stem>/ (skipping those already extracted).
func extract(rawDir string) error {
	if p := filepath.Join(rawDir, mainArchive); isFile(p) && !hasNRRD(rawDir) {
		slog.Info("seg_a: extracting archive", "zip", p)
		if err := medseg.ExtractZip(p, rawDir); err != nil {
			return err
		}
	}
	zips, _ := filepath.Glob(filepath.Join(rawDir, "*.zip"))
	sort.Strings(zips)
	for _, z := range zips {
		if filepath.Base(z) == mainArchive {
			continue
		}
		dest := filepath.Join(rawDir, strings.TrimSuffix(filepath.Base(z), ".zip"))
		if isDir(dest) {
			continue
		}
		slog.Info("seg_a: extracting nested archive", "zip", z)
		if err := medseg.ExtractZip(z, dest); err != nil {
			return err
		}
	}
	return nil
}

func isDir(p string) bool  { st, err := os.Stat(p); return err == nil && st.IsDir() }
func isFile(p string) bool { st, err := os.Stat(p); return err == nil && st.Mode().IsRegular() }

func hasNRRD(dir string) bool {
	found := false
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(d.Name(), ".nrrd") {
			found = true
			return fs.SkipAll
		}
		return nil
	})
	return found
}

// Discover finds every *.nrrd under rawDir that is not a label, pairs it
// with <stem>.seg.nrrd in the same folder (unpaired images are skipped with
// a warning) and sorts the cases by id as strings (D1 < D10 < D2).
func Discover(rawDir string) ([]Case, error) {
	var images []string
	err := filepath.WalkDir(rawDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), ".nrrd") && !strings.Contains(d.Name(), ".seg.nrrd") {
			images = append(images, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("scan %s: %w", rawDir, err)
	}
	if len(images) == 0 {
		return nil, fmt.Errorf("seg_a: no .nrrd images under %s", rawDir)
	}
	sort.Strings(images)
	var cases []Case
	for _, img := range images {
		id := strings.TrimSuffix(filepath.Base(img), ".nrrd")
		lab := filepath.Join(filepath.Dir(img), id+".seg.nrrd")
		if !isFile(lab) {
			slog.Warn("seg_a: image without label skipped", "image", img)
			continue
		}
		cases = append(cases, Case{ID: id, Institution: filepath.Base(filepath.Dir(filepath.Dir(img))), Image: img, Label: lab})
	}
	if len(cases) == 0 {
		return nil, fmt.Errorf("seg_a: no image/label pairs under %s", rawDir)
	}
	sortCases(cases)
	return cases, nil
}

// sortCases sorts by id as strings, stably.
func sortCases(cases []Case) {
	sort.SliceStable(cases, func(i, j int) bool { return cases[i].ID < cases[j].ID })
}

// SplitCases applies the reference split (test 0.2, seed 42).
func SplitCases(cases []Case) (train, test []Case) { return split.TrainTest(cases, 0.2, 42) }

// Prepare implements challenge.Challenge.
func (Challenge) Prepare(ctx context.Context, rawDir, dataDir string) error {
	if err := extract(rawDir); err != nil {
		return fmt.Errorf("prepare seg_a: %w", err)
	}
	if err := challenge.EnsureDownloads(ID, rawDir, Challenge{}.Downloads()); err != nil {
		return err
	}
	cases, err := Discover(rawDir)
	if err != nil {
		return err
	}
	train, test := SplitCases(cases)
	pub := filepath.Join(dataDir, "public")
	priv := filepath.Join(dataDir, "private")
	var jobs [][2]string
	for _, c := range train {
		jobs = append(jobs,
			[2]string{c.Image, filepath.Join(pub, "train", "images", c.ID+".nrrd")},
			[2]string{c.Label, filepath.Join(pub, "train", "labels", c.ID+".seg.nrrd")})
	}
	var labelRows, sampleRows [][]string
	for _, c := range test {
		jobs = append(jobs,
			[2]string{c.Image, filepath.Join(pub, "test", "images", c.ID+".nrrd")},
			[2]string{c.Label, filepath.Join(priv, "test", "labels", c.ID+".seg.nrrd")})
		labelRows = append(labelRows, []string{c.ID, "test/images/" + c.ID + ".nrrd", "test/labels/" + c.ID + ".seg.nrrd"})
		sampleRows = append(sampleRows, []string{c.ID, "predictions/" + c.ID + ".seg.nrrd"})
	}
	if err := challenge.ForEach(ctx, len(jobs), func(i int) error { return fsutil.CopyFile(jobs[i][0], jobs[i][1]) }); err != nil {
		return fmt.Errorf("prepare seg_a: %w", err)
	}
	if err := challenge.WriteCSV(filepath.Join(priv, "test_labels.csv"), []string{"image_id", "image_path", "label_path"}, labelRows); err != nil {
		return err
	}
	if err := challenge.WriteCSV(filepath.Join(pub, "sample_submission.csv"), []string{colID, colPath}, sampleRows); err != nil {
		return err
	}
	if err := medseg.WriteText(filepath.Join(pub, "description.md"), description); err != nil {
		return err
	}
	readme := fmt.Sprintf("# SEG.A. 2023 (prepared)\n\n- training cases: %d (train/images/<id>.nrrd, train/labels/<id>.seg.nrrd)\n- test cases: %d (test/images/<id>.nrrd)\n- submission: submission.csv with image_id, predicted_mask_path (see description.md)\n", len(train), len(test))
	if err := medseg.WriteText(filepath.Join(pub, "README.md"), readme); err != nil {
		return err
	}
	slog.Info("seg_a prepared", "train", len(train), "test", len(test))
	return nil
}
