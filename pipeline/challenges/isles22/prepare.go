package isles22

import (
	"context"
	"errors"
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

// Split parameters of the reference preparer.
const (
	testSize  = 0.2
	splitSeed = 42
)

// Case is one discovered ISLES'22 case.
type Case struct {
	CaseID string // e.g. sub-strokecase0001_ses-0001
	DWI    string
	ADC    string
	FLAIR  string
	Mask   string
}

// OutID is the prepared id: the case id without its _ses-... part.
func (c Case) OutID() string { return strings.SplitN(c.CaseID, "_ses-", 2)[0] }

const archiveName = "ISLES-2022.zip"

// datasetDir finds the extracted dataset under raw as the reference does,
// extracting ISLES-2022.zip first when only the archive is there.
func datasetDir(raw string) (string, error) {
	if err := challenge.EnsureDownloads(ID, raw, Challenge{}.Downloads()); err != nil {
		return "", err
	}
	for _, name := range []string{"ISLES-2022", "ISLES", "isles22", "dataset"} {
		if d := filepath.Join(raw, name); isDir(d) {
			return d, nil
		}
	}
	entries, err := os.ReadDir(raw)
	if err != nil {
		return "", fmt.Errorf("read raw folder: %w", err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "sub-strokecase") {
			return raw, nil
		}
	}
	return "", fmt.Errorf("no ISLES'22 dataset under %s: want ISLES-2022/ (or %s)", raw, archiveName)
}

func isDir(p string) bool  { st, err := os.Stat(p); return err == nil && st.IsDir() }
func isFile(p string) bool { st, err := os.Stat(p); return err == nil && st.Mode().IsRegular() }

// Discover lists the cases under the dataset folder: every
// sub-strokecase*_msk.nii.gz in sorted path order, with its three
// modalities located by the reference's BIDS rules; cases missing a
// modality are skipped with a warning. The result is sorted by case id.
func Discover(dir string) ([]Case, error) {
	var masks []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		n := d.Name()
		if !d.IsDir() && strings.HasPrefix(n, "sub-strokecase") && strings.HasSuffix(n, "_msk.nii.gz") {
			masks = append(masks, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("scan %s: %w", dir, err)
	}
	sort.Strings(masks)
	var cases []Case
	for _, m := range masks {
		c := locate(m)
		missing := ""
		for _, p := range []string{c.DWI, c.ADC, c.FLAIR} {
			if !isFile(p) {
				missing = p
				break
			}
		}
		if missing != "" {
			slog.Warn("isles22: case skipped, modality missing", "case", c.CaseID, "missing", missing)
			continue
		}
		cases = append(cases, c)
	}
	if len(cases) == 0 {
		return nil, fmt.Errorf("no complete ISLES'22 cases (mask + DWI + ADC + FLAIR) under %s", dir)
	}
	sort.SliceStable(cases, func(i, j int) bool { return cases[i].CaseID < cases[j].CaseID })
	return cases, nil
}

// locate finds the modality files of the case whose mask is at mask.
func locate(mask string) Case {
	name := filepath.Base(mask)
	caseID := strings.TrimSuffix(name, "_msk.nii.gz")
	dir := filepath.Dir(mask)
	c := Case{CaseID: caseID, Mask: mask}
	subject, session, bids := strings.Cut(caseID, "_ses-")
	if !bids {
		c.DWI = filepath.Join(dir, caseID+"_dwi.nii.gz")
		c.ADC = filepath.Join(dir, caseID+"_adc.nii.gz")
		c.FLAIR = filepath.Join(dir, caseID+"_flair.nii.gz")
		return c
	}
	if deriv := ancestorNamed(dir, "derivatives"); deriv != "" {
		parent := filepath.Dir(deriv)
		root := parent
		if rd := filepath.Join(parent, "rawdata"); isDir(rd) {
			root = rd
		}
		ses := filepath.Join(root, subject, "ses-"+session)
		c.FLAIR = filepath.Join(ses, "anat", caseID+"_FLAIR.nii.gz")
		c.DWI = filepath.Join(ses, "dwi", caseID+"_dwi.nii.gz")
		c.ADC = filepath.Join(ses, "dwi", caseID+"_adc.nii.gz")
		return c
	}
	if isDir(filepath.Join(dir, "anat")) && isDir(filepath.Join(dir, "dwi")) {
		c.FLAIR = filepath.Join(dir, "anat", caseID+"_FLAIR.nii.gz")
		c.DWI = filepath.Join(dir, "dwi", caseID+"_dwi.nii.gz")
		c.ADC = filepath.Join(dir, "dwi", caseID+"_adc.nii.gz")
		return c
	}
	c.DWI = filepath.Join(dir, caseID+"_DWI.nii.gz")
	c.ADC = filepath.Join(dir, caseID+"_ADC.nii.gz")
	c.FLAIR = filepath.Join(dir, caseID+"_FLAIR.nii.gz")
	return c
}

// ancestorNamed returns the nearest ancestor folder of dir (dir included)
// whose base name is name, or "".
func ancestorNamed(dir, name string) string {
	for d := dir; ; {
		if filepath.Base(d) == name {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		d = parent
	}
}

// SplitCases applies the reference split (test 0.2, seed 42) to the cases
// sorted by id and returns train and test in the reference's order.
func SplitCases(cases []Case) (train, test []Case) {
	return split.TrainTest(cases, testSize, splitSeed)
}

// Prepare implements challenge.Challenge: the reference's 80/20 split into
// public/{train,test} and private/test with test_labels.csv.
func (Challenge) Prepare(ctx context.Context, rawDir, dataDir string) error {
	dir, err := datasetDir(rawDir)
	if err != nil {
		return err
	}
	cases, err := Discover(dir)
	if err != nil {
		return err
	}
	train, test := SplitCases(cases)
	pub := filepath.Join(dataDir, "public")
	priv := filepath.Join(dataDir, "private")
	for _, d := range []string{filepath.Join(pub, "train"), filepath.Join(pub, "test"), filepath.Join(priv, "test")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	copies := func(c Case, folder string, withMask bool) [][2]string {
		id := c.OutID()
		out := [][2]string{
			{c.DWI, filepath.Join(pub, folder, id+"_dwi.nii.gz")},
			{c.ADC, filepath.Join(pub, folder, id+"_adc.nii.gz")},
			{c.FLAIR, filepath.Join(pub, folder, id+"_flair.nii.gz")},
		}
		if withMask {
			out = append(out, [2]string{c.Mask, filepath.Join(pub, folder, id+"_msk.nii.gz")})
		} else {
			out = append(out, [2]string{c.Mask, filepath.Join(priv, "test", id+"_msk.nii.gz")})
		}
		return out
	}
	var jobs [][2]string
	for _, c := range train {
		jobs = append(jobs, copies(c, "train", true)...)
	}
	var labelRows, sampleRows [][]string
	for _, c := range test {
		jobs = append(jobs, copies(c, "test", false)...)
		id := c.OutID()
		labelRows = append(labelRows, []string{id, "test/" + id + "_dwi.nii.gz", "test/" + id + "_adc.nii.gz", "test/" + id + "_flair.nii.gz", "test/" + id + "_msk.nii.gz"})
		sampleRows = append(sampleRows, []string{id, "predictions/" + id + "_pred.nii.gz"})
	}
	if err := challenge.ForEach(ctx, len(jobs), func(i int) error { return fsutil.CopyFile(jobs[i][0], jobs[i][1]) }); err != nil {
		return fmt.Errorf("prepare isles22: %w", err)
	}
	if err := challenge.WriteCSV(filepath.Join(priv, "test_labels.csv"), []string{"case_id", "dwi_path", "adc_path", "flair_path", "mask_path"}, labelRows); err != nil {
		return err
	}
	if err := challenge.WriteCSV(filepath.Join(pub, "sample_submission.csv"), []string{"case_id", "predicted_mask_path"}, sampleRows); err != nil {
		return err
	}
	if err := medseg.WriteText(filepath.Join(pub, "description.md"), description); err != nil {
		return err
	}
	readme := fmt.Sprintf("# ISLES'22 (prepared)\n\n- training cases: %d (public/train: <id>_dwi, _adc, _flair, _msk .nii.gz)\n- test cases: %d (public/test: <id>_dwi, _adc, _flair .nii.gz)\n- submission: submission.csv with case_id, predicted_mask_path (see description.md)\n", len(train), len(test))
	if err := medseg.WriteText(filepath.Join(pub, "README.md"), readme); err != nil {
		return err
	}
	if len(test) == 0 {
		return errors.New("prepare isles22: the split left no test case")
	}
	slog.Info("isles22 prepared", "train", len(train), "test", len(test))
	return nil
}
