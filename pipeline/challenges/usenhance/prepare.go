package usenhance

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

type pair struct {
	id, low, high string
}

// findTrainDir is the reference's choice of the training folder:
// raw/train_datasets, else the first entry matching *train* or *Train*.
func findTrainDir(rawDir string) (string, error) {
	if err := challenge.EnsureDownloads(ID, rawDir, Challenge{}.Downloads()); err != nil {
		return "", err
	}
	d := filepath.Join(rawDir, rawTrainDir)
	if st, err := os.Stat(d); err == nil && st.IsDir() {
		return d, nil
	}
	for _, pat := range []string{"*train*", "*Train*"} {
		m, _ := filepath.Glob(filepath.Join(rawDir, pat))
		sort.Strings(m)
		for _, p := range m {
			if st, err := os.Stat(p); err == nil && st.IsDir() {
				return p, nil
			}
		}
	}
	return "", fmt.Errorf("prepare %s: no %s folder in %s", ID, rawTrainDir, rawDir)
}

// listPairs enumerates (organ, name) pairs: organ folders sorted by name
// (the reference uses file-system order, which is not reproducible), then
// low_quality/*.png sorted, kept when high_quality/<same name> exists.
func listPairs(trainDir string) ([]pair, error) {
	ents, err := os.ReadDir(trainDir)
	if err != nil {
		return nil, err
	}
	var pairs []pair
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		organ := e.Name()
		lo := filepath.Join(trainDir, organ, lowDir)
		hi := filepath.Join(trainDir, organ, highDir)
		if st, err := os.Stat(lo); err != nil || !st.IsDir() {
			continue
		}
		if st, err := os.Stat(hi); err != nil || !st.IsDir() {
			continue
		}
		files, err := os.ReadDir(lo)
		if err != nil {
			return nil, err
		}
		var names []string
		for _, f := range files {
			if f.Type().IsRegular() && strings.HasSuffix(f.Name(), ".png") && !strings.HasPrefix(f.Name(), ".") {
				names = append(names, f.Name())
			}
		}
		sort.Strings(names)
		for _, n := range names {
			h := filepath.Join(hi, n)
			if st, err := os.Stat(h); err != nil || !st.Mode().IsRegular() {
				continue
			}
			pairs = append(pairs, pair{organ + "_" + strings.TrimSuffix(n, ".png"), filepath.Join(lo, n), h})
		}
	}
	return pairs, nil
}

// Prepare splits the pairs 80/20 with scikit-learn's train_test_split
// (test_size 0.2, random_state 42) over the ids in enumeration order and
// writes the public/private layout of the reference. Organ folders are
// enumerated sorted by name; the reference uses the file-system order, so
// its split can differ on another machine.
func (Challenge) Prepare(ctx context.Context, rawDir, dataDir string) error {
	dir, err := findTrainDir(rawDir)
	if err != nil {
		return err
	}
	pairs, err := listPairs(dir)
	if err != nil {
		return fmt.Errorf("prepare %s: %w", ID, err)
	}
	if len(pairs) < 2 {
		return fmt.Errorf("prepare %s: %d image pairs under %s, need at least 2", ID, len(pairs), dir)
	}
	_, testIdx := split.TrainTestIndices(len(pairs), 0.2, 42)
	isTest := make([]bool, len(pairs))
	for _, i := range testIdx {
		isTest[i] = true
	}
	pub := filepath.Join(dataDir, "public")
	priv := filepath.Join(dataDir, "private")
	var labels, sample [][]string
	for i, p := range pairs {
		if err := ctx.Err(); err != nil {
			return err
		}
		name := p.id + ".png"
		if isTest[i] {
			if err := fsutil.CopyFile(p.low, filepath.Join(pub, "test", lowDir, name)); err != nil {
				return err
			}
			if err := fsutil.CopyFile(p.high, filepath.Join(priv, "test", highDir, name)); err != nil {
				return err
			}
			labels = append(labels, []string{p.id, "test/high_quality/" + name})
			sample = append(sample, []string{p.id, "enhanced/" + name})
			continue
		}
		if err := fsutil.CopyFile(p.low, filepath.Join(pub, "train", lowDir, name)); err != nil {
			return err
		}
		if err := fsutil.CopyFile(p.high, filepath.Join(pub, "train", highDir, name)); err != nil {
			return err
		}
	}
	if err := challenge.WriteCSV(filepath.Join(priv, "test_labels.csv"), []string{colID, colGT}, labels); err != nil {
		return err
	}
	if err := challenge.WriteCSV(filepath.Join(pub, "sample_submission.csv"), []string{colID, colEnhanced}, sample); err != nil {
		return err
	}
	return challenge.WriteFileAtomic(filepath.Join(pub, "description.md"), []byte(description))
}
