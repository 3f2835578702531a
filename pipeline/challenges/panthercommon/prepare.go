package panthercommon

import (
	"context"
	"fmt"
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

// Case is one labelled PANTHER case found in raw/.
type Case struct {
	ImageID string // e.g. 10000_0001 (task 1) or 10303 (task 2)
	Image   string // raw/ImagesTr/<id>_0000.mha
	Label   string // raw/LabelsTr/<id>.mha
}

// Discover lists raw/ImagesTr/*<ImageSuffix> in sorted order, derives each
// image id from the first IDFields "_"-fields of the stem, keeps images with
// a raw/LabelsTr/<id>.mha (warning otherwise) and sorts them by id.
func (t Task) Discover(rawDir string) ([]Case, error) {
	imgDir := filepath.Join(rawDir, "ImagesTr")
	labDir := filepath.Join(rawDir, "LabelsTr")
	// Both PANTHER tasks unpack into the same shared raw folder: each task
	// makes sure its own archive is unpacked, once, under the folder's lock.
	if err := challenge.EnsureDownloads(t.ID, rawDir, t.Downloads()); err != nil {
		return nil, err
	}
	if !isDir(imgDir) || !isDir(labDir) {
		return nil, fmt.Errorf("%s: raw data needs ImagesTr/ and LabelsTr/ under %s", t.ID, rawDir)
	}
	images, err := filepath.Glob(filepath.Join(imgDir, "*"+t.ImageSuffix))
	if err != nil {
		return nil, err
	}
	sort.Strings(images)
	var cases []Case
	for _, img := range images {
		stem := strings.TrimSuffix(filepath.Base(img), ".mha")
		fields := strings.Split(stem, "_")
		if len(fields) < t.IDFields {
			continue
		}
		id := strings.Join(fields[:t.IDFields], "_")
		lab := filepath.Join(labDir, id+".mha")
		if !isFile(lab) {
			slog.Warn(t.ID+": image without label skipped", "image", img)
			continue
		}
		cases = append(cases, Case{ImageID: id, Image: img, Label: lab})
	}
	if len(cases) == 0 {
		return nil, fmt.Errorf("%s: no labelled images (*%s with a LabelsTr match) under %s", t.ID, t.ImageSuffix, imgDir)
	}
	sort.SliceStable(cases, func(i, j int) bool { return cases[i].ImageID < cases[j].ImageID })
	return cases, nil
}

func isDir(p string) bool  { st, err := os.Stat(p); return err == nil && st.IsDir() }
func isFile(p string) bool { st, err := os.Stat(p); return err == nil && st.Mode().IsRegular() }

// SplitCases applies the reference split (test 0.2, seed 42).
func SplitCases(cases []Case) (train, test []Case) { return split.TrainTest(cases, 0.2, 42) }

// Prepare implements challenge.Challenge: byte copies into public/train,
// public/test and private/test, test_labels.csv and sample_submission.csv.
func (c Challenge) Prepare(ctx context.Context, rawDir, dataDir string) error {
	t := c.Task
	cases, err := t.Discover(rawDir)
	if err != nil {
		return err
	}
	train, test := SplitCases(cases)
	pub := filepath.Join(dataDir, "public")
	priv := filepath.Join(dataDir, "private")
	var jobs [][2]string
	for _, cs := range train {
		jobs = append(jobs,
			[2]string{cs.Image, filepath.Join(pub, "train", "images", filepath.Base(cs.Image))},
			[2]string{cs.Label, filepath.Join(pub, "train", "labels", filepath.Base(cs.Label))})
	}
	var labelRows, sampleRows [][]string
	for _, cs := range test {
		img, lab := filepath.Base(cs.Image), filepath.Base(cs.Label)
		jobs = append(jobs,
			[2]string{cs.Image, filepath.Join(pub, "test", "images", img)},
			[2]string{cs.Label, filepath.Join(priv, "test", "labels", lab)})
		labelRows = append(labelRows, []string{cs.ImageID, "test/images/" + img, "test/labels/" + lab})
		sampleRows = append(sampleRows, []string{cs.ImageID, "predictions/" + cs.ImageID + ".mha"})
	}
	nUnlabeled := 0
	if t.Unlabeled {
		dst := filepath.Join(pub, "train_unlabeled", "images")
		if err := os.MkdirAll(dst, 0o755); err != nil {
			return err
		}
		extra, _ := filepath.Glob(filepath.Join(rawDir, "ImagesTr_unlabeled", "*.mha"))
		sort.Strings(extra)
		for _, p := range extra {
			jobs = append(jobs, [2]string{p, filepath.Join(dst, filepath.Base(p))})
		}
		nUnlabeled = len(extra)
	}
	if err := challenge.ForEach(ctx, len(jobs), func(i int) error { return fsutil.CopyFile(jobs[i][0], jobs[i][1]) }); err != nil {
		return fmt.Errorf("prepare %s: %w", t.ID, err)
	}
	if err := challenge.WriteCSV(filepath.Join(priv, "test_labels.csv"), []string{"image_id", "image_path", "label_path"}, labelRows); err != nil {
		return err
	}
	if err := challenge.WriteCSV(filepath.Join(pub, "sample_submission.csv"), []string{colID, colPath}, sampleRows); err != nil {
		return err
	}
	if err := medseg.WriteText(filepath.Join(pub, "description.md"), t.Description); err != nil {
		return err
	}
	readme := fmt.Sprintf("# %s (prepared)\n\n- training cases: %d (train/images/<id>_0000.mha, train/labels/<id>.mha)\n- unlabeled images: %d\n- test cases: %d (test/images/<id>_0000.mha)\n- submission: submission.csv with image_id, predicted_mask_path (see description.md)\n", t.Title, len(train), nUnlabeled, len(test))
	if err := medseg.WriteText(filepath.Join(pub, "README.md"), readme); err != nil {
		return err
	}
	slog.Info(t.ID+" prepared", "train", len(train), "test", len(test), "unlabeled", nUnlabeled)
	return nil
}
