package topcowcommon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"

	"github.com/rexmle/rexmle/pipeline/fsutil"

	"github.com/rexmle/rexmle/metrics/topology"
	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenge/split"
)

// archiveStem is the zip's top folder that the reference flattens.
func (c Config) archiveStem() string {
	if c.Family == TopBrain {
		return "TopBrain_Data_Release_Batches1n2_081425"
	}
	return "TopCoW2024_Data_Release"
}

// dataRoot finds the folder holding the archive's sub-folders: rawDir
// itself, or the zip's single top folder inside it. If neither exists but
// the zip is there, it is extracted first.
func (c Config) dataRoot(rawDir string) (string, error) {
	// Several tracks share the raw folder and its archive: it is unpacked
	// once, under the folder's lock, and never read half-written.
	if err := challenge.EnsureDownloads(c.ID, rawDir, c.Downloads()); err != nil {
		return "", err
	}
	for _, root := range []string{rawDir, filepath.Join(rawDir, c.archiveStem())} {
		if st, err := os.Stat(filepath.Join(root, c.rawImagesDir())); err == nil && st.IsDir() {
			return root, nil
		}
	}
	return "", fmt.Errorf("%s: no %s folder in %s (nor in %s/)", c.ID, c.rawImagesDir(), rawDir, c.archiveStem())
}

// candidates lists the case ids of the archive: images matching
// topcow_<m>_*_0000.nii.gz whose task label exists, sorted by id.
func (c Config) candidates(root string) ([]string, error) {
	pattern := filepath.Join(root, c.rawImagesDir(), "topcow_"+c.Modality+"_*_0000.nii.gz")
	files, err := filepath.Glob(pattern)
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var ids []string
	for _, f := range files {
		parts := strings.Split(strings.TrimSuffix(filepath.Base(f), ".nii.gz"), "_")
		if len(parts) < 3 {
			continue
		}
		pid := parts[2]
		if _, err := os.Stat(filepath.Join(c.labelsDirOf(root), c.rawLabelName(pid))); err != nil {
			slog.Warn("case without label skipped", "challenge", c.ID, "case", pid)
			continue
		}
		ids = append(ids, pid)
	}
	sort.Strings(ids)
	if len(ids) == 0 {
		return nil, fmt.Errorf("%s: no matched %s cases in %s", c.ID, c.ModalityName(), root)
	}
	return ids, nil
}

// Split returns the train and test ids as the reference draws them:
// sklearn train_test_split(test_size=0.2, random_state=42) over the sorted
// candidates, both in permutation order.
func Split(ids []string) (train, test []string) {
	return split.TrainTest(ids, 0.2, 42)
}

// boxJSON is the private answer format of the box tasks.
type boxJSON struct {
	Size     [3]int `json:"size"`
	Location [3]int `json:"location"`
}

// Prepare builds public/ and private/ as the reference preparer does.
func (c Challenge) Prepare(ctx context.Context, rawDir, dataDir string) error {
	root, err := c.dataRoot(rawDir)
	if err != nil {
		return err
	}
	ids, err := c.candidates(root)
	if err != nil {
		return err
	}
	train, test := Split(ids)
	pub := filepath.Join(dataDir, "public")
	priv := filepath.Join(dataDir, "private")
	for _, d := range []string{pub, priv} {
		if err := os.RemoveAll(d); err != nil {
			return err
		}
	}
	imgSrc := filepath.Join(root, c.rawImagesDir())
	labSrc := c.labelsDirOf(root)
	for _, pid := range train {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fsutil.CopyFile(filepath.Join(imgSrc, c.imageName(pid)), filepath.Join(pub, "train", "images", c.imageName(pid))); err != nil {
			return err
		}
		if err := fsutil.CopyFile(filepath.Join(labSrc, c.rawLabelName(pid)), filepath.Join(pub, "train", "labels", c.rawLabelName(pid))); err != nil {
			return err
		}
	}
	var sample, answers [][]string
	for _, pid := range test {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fsutil.CopyFile(filepath.Join(imgSrc, c.imageName(pid)), filepath.Join(pub, "test", "images", c.imageName(pid))); err != nil {
			return err
		}
		dst := filepath.Join(priv, "test", "labels", c.privateLabelName(pid))
		if c.Task == Box {
			b, err := readBoxText(filepath.Join(labSrc, c.rawLabelName(pid)))
			if err != nil {
				return fmt.Errorf("%s: %w", c.Config.ID, err)
			}
			js, _ := json.MarshalIndent(boxJSON{b.Size, b.Location}, "", "  ")
			if err := challenge.WriteFileAtomic(dst, js); err != nil {
				return err
			}
		} else if err := fsutil.CopyFile(filepath.Join(labSrc, c.rawLabelName(pid)), dst); err != nil {
			return err
		}
		// For the official evaluation of TopCoW segmentation, which scores
		// inside the CoW ROI, keep the case's ROI box with the answers.
		if c.Family == TopCoW && c.Task == Segmentation {
			roi := filepath.Join(root, rawBoxTopCoW, c.stem(pid)+".txt")
			if _, err := os.Stat(roi); err == nil {
				if err := fsutil.CopyFile(roi, filepath.Join(priv, "test", "roi", c.stem(pid)+".txt")); err != nil {
					return err
				}
			}
		}
		sample = append(sample, []string{pid, c.ModalityName(), c.samplePath(pid)})
		answers = append(answers, []string{pid, "test/images/" + c.imageName(pid), "test/labels/" + c.privateLabelName(pid), c.ModalityName()})
	}
	if err := challenge.WriteCSV(filepath.Join(pub, "sample_submission.csv"), []string{"image_id", "modality", c.pathColumn()}, sample); err != nil {
		return err
	}
	if err := challenge.WriteCSV(filepath.Join(priv, "test_labels.csv"), []string{"image_id", "image_path", "label_path", "modality"}, answers); err != nil {
		return err
	}
	return challenge.WriteFileAtomic(filepath.Join(pub, "description.md"), []byte(c.description(len(train), len(test))))
}

// readBoxText parses an archive ROI text file: the numbers of line 2
// (sizes) and line 3 (locations), each a maximal run of digits delimited by
// word boundaries (regex \b\d+\b), so signs are lost and "0.8" gives 0, 8.
func readBoxText(path string) (topology.Box, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return topology.Box{}, err
	}
	return parseBoxText(string(b))
}

func parseBoxText(s string) (topology.Box, error) {
	lines := splitLines(s)
	if len(lines) < 3 {
		return topology.Box{}, errors.New("box text has fewer than 3 lines")
	}
	size := wordDigits(lines[1])
	loc := wordDigits(lines[2])
	if len(size) != 3 || len(loc) != 3 {
		return topology.Box{}, fmt.Errorf("box text: want 3 sizes and 3 locations, got %d and %d", len(size), len(loc))
	}
	return topology.Box{Size: [3]int{size[0], size[1], size[2]}, Location: [3]int{loc[0], loc[1], loc[2]}}, nil
}

// splitLines splits like Python's str.splitlines for \n, \r\n and \r.
func splitLines(s string) []string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// wordDigits returns int() of every match of Python's re.findall(r"\b\d+\b")
// on a str: a maximal run of decimal digits (Unicode category Nd, any
// script) whose neighbours are not word characters (Python's \w: letters,
// numbers of any kind, underscore) or the string's ends; int() reads each
// digit's value whatever its script.
func wordDigits(s string) []int {
	rs := []rune(s)
	isWord := func(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r) }
	var out []int
	for i := 0; i < len(rs); {
		if !unicode.IsDigit(rs[i]) {
			i++
			continue
		}
		j := i
		for j < len(rs) && unicode.IsDigit(rs[j]) {
			j++
		}
		if (i == 0 || !isWord(rs[i-1])) && (j == len(rs) || !isWord(rs[j])) {
			n := 0
			for _, r := range rs[i:j] {
				n = n*10 + digitValue(r)
				if n > 1<<40 {
					break
				}
			}
			out = append(out, n)
		}
		i = j
	}
	return out
}

// digitValue is the value of a decimal digit (category Nd): Unicode lays
// them out in whole runs 0–9, so it is the distance from the start of its
// block of consecutive digits, modulo 10.
func digitValue(r rune) int {
	start := r
	for unicode.IsDigit(start - 1) {
		start--
	}
	return int(r-start) % 10
}
