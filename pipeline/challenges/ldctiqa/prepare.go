package ldctiqa

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/rexmle/rexmle/pipeline/fsutil"

	"github.com/rexmle/rexmle/pipeline/challenge"
)

// readScores reads a {"<file name>": score} JSON file.
func readScores(path string) (map[string]float64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	var m map[string]float64
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	return m, nil
}

// globSorted lists the regular files in dir whose name ends with ext
// (case-sensitive, as Python's glob on Linux), sorted by path.
func globSorted(dir, ext string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	var names []string
	for _, e := range ents {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ext) && !strings.HasPrefix(e.Name(), ".") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names, nil
}

// pyFloat formats a float as Python's repr / pandas' to_csv does for these
// values: the shortest round-tripping decimal, with ".0" for whole numbers.
func pyFloat(v float64) string {
	s := strconv.FormatFloat(v, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eEn") {
		s += ".0"
	}
	return s
}

// Prepare copies the training slices with their scores into public/, the
// test slices into public/test/images, and the test scores into
// private/test_labels.csv, as the reference preparer does (no random split:
// the test set is the challenge's released test set).
func (Challenge) Prepare(ctx context.Context, rawDir, dataDir string) error {
	pub := filepath.Join(dataDir, "public")
	priv := filepath.Join(dataDir, "private")
	if err := challenge.EnsureDownloads(ID, rawDir, Challenge{}.Downloads()); err != nil {
		return err
	}

	trainScores, err := readScores(filepath.Join(rawDir, trainDir, trainJSON))
	if err != nil {
		return err
	}
	names, err := globSorted(filepath.Join(rawDir, trainDir, trainImage), ".tif")
	if err != nil {
		return err
	}
	var trainRows [][]string
	for _, n := range names {
		if err := ctx.Err(); err != nil {
			return err
		}
		s, ok := trainScores[n]
		if !ok {
			continue
		}
		if err := fsutil.CopyFile(filepath.Join(rawDir, trainDir, trainImage, n), filepath.Join(pub, "train", "images", n)); err != nil {
			return err
		}
		trainRows = append(trainRows, []string{strings.ReplaceAll(n, ".tif", ""), pyFloat(s)})
	}
	if len(trainRows) == 0 {
		return fmt.Errorf("prepare %s: no training slice listed in %s", ID, trainJSON)
	}
	if err := challenge.WriteCSV(filepath.Join(pub, "train_labels.csv"), []string{colID, colScore}, trainRows); err != nil {
		return err
	}

	testScores, err := readScores(filepath.Join(rawDir, testDir, testJSON))
	if err != nil {
		return err
	}
	tnames, err := globSorted(filepath.Join(rawDir, testDir, testImages), ".tiff")
	if err != nil {
		return err
	}
	var testRows, sampleRows [][]string
	for _, n := range tnames {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fsutil.CopyFile(filepath.Join(rawDir, testDir, testImages, n), filepath.Join(pub, "test", "images", n)); err != nil {
			return err
		}
		s, ok := testScores[n]
		if !ok {
			continue
		}
		id := strings.ReplaceAll(n, ".tiff", "")
		testRows = append(testRows, []string{id, pyFloat(s)})
		sampleRows = append(sampleRows, []string{id, "0.0"})
	}
	if len(testRows) < 2 {
		return fmt.Errorf("prepare %s: %d scored test slices, need at least 2", ID, len(testRows))
	}
	if err := challenge.WriteCSV(filepath.Join(priv, "test_labels.csv"), []string{colID, colScore}, testRows); err != nil {
		return err
	}
	if err := challenge.WriteCSV(filepath.Join(pub, "sample_submission.csv"), []string{colID, colScore}, sampleRows); err != nil {
		return err
	}
	return challenge.WriteFileAtomic(filepath.Join(pub, "description.md"), []byte(description))
}
