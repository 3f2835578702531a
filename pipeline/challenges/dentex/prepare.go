package dentex

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rexmle/rexmle/pipeline/fsutil"

	"github.com/rexmle/rexmle/pipeline/challenge"
)

// cocoFile is a COCO-like JSON object with its top-level key order kept.
type cocoFile struct {
	keys []string
	raw  map[string]json.RawMessage
}

func readCOCO(path string) (*cocoFile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseCOCO(b, path)
}

func parseCOCO(b []byte, name string) (*cocoFile, error) {
	c := &cocoFile{raw: map[string]json.RawMessage{}}
	if err := json.Unmarshal(b, &c.raw); err != nil {
		return nil, fmt.Errorf("parse %s: %w", name, err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil { // {
		return nil, fmt.Errorf("parse %s: %w", name, err)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("parse %s: %w", name, err)
		}
		k, _ := tok.(string)
		if !slices.Contains(c.keys, k) {
			c.keys = append(c.keys, k)
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, fmt.Errorf("parse %s: %w", name, err)
		}
	}
	return c, nil
}

// list decodes a top-level array (missing → empty).
func (c *cocoFile) list(key string) ([]json.RawMessage, error) {
	var out []json.RawMessage
	if r, ok := c.raw[key]; ok {
		if err := json.Unmarshal(r, &out); err != nil {
			return nil, fmt.Errorf("%s: %w", key, err)
		}
	}
	return out, nil
}

// categoryKeys are the top-level keys starting with "categories", in file order.
func (c *cocoFile) categoryKeys() []string {
	var ks []string
	for _, k := range c.keys {
		if strings.HasPrefix(k, "categories") {
			ks = append(ks, k)
		}
	}
	return ks
}

// writeOrdered writes {key: value, …} in the given order, indented by 2.
func writeOrdered(path string, keys []string, vals map[string]any) error {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		vb, err := json.Marshal(vals[k])
		if err != nil {
			return fmt.Errorf("encode %s: %w", k, err)
		}
		buf.Write(kb)
		buf.WriteByte(':')
		buf.Write(vb)
	}
	buf.WriteByte('}')
	var out bytes.Buffer
	if err := json.Indent(&out, buf.Bytes(), "", "  "); err != nil {
		return err
	}
	return challenge.WriteFileAtomic(path, out.Bytes())
}

type imageEntry struct {
	ID       int64  `json:"id"`
	FileName string `json:"file_name"`
	Width    int    `json:"width"`
	Height   int    `json:"height"`
}

type annImage struct {
	ImageID int64 `json:"image_id"`
}

// findFiles lists the files under root whose lower-cased name ends with one
// of exts, sorted by path.
func findFiles(root string, exts ...string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			for _, e := range exts {
				if strings.HasSuffix(d.Name(), e) {
					out = append(out, p)
				}
			}
		}
		return nil
	})
	slices.Sort(out)
	return out, err
}

// splitIDs reproduces the reference split: the image ids in JSON order,
// random.seed(42); random.shuffle; the first int(0.8·N) are train.
func splitIDs(ids []int64) (train, test []int64) {
	s := append([]int64(nil), ids...)
	pyShuffle(s, 42)
	cut := int(float64(len(s)) * 0.8)
	return s[:cut], s[cut:]
}

// Prepare splits the fully labelled training X-rays 80/20 as the reference
// does and writes the public training JSON, the test images, one private
// ground-truth JSON per test image and the sample submission.
func (Challenge) Prepare(ctx context.Context, rawDir, dataDir string) error {
	pub := filepath.Join(dataDir, "public")
	priv := filepath.Join(dataDir, "private")
	if err := challenge.EnsureDownloads(ID, rawDir, Challenge{}.Downloads()); err != nil {
		return err
	}
	src, err := loadSource(rawDir)
	if err != nil {
		return err
	}
	trainIDs, testIDs := splitIDs(src.ids)
	inTrain := map[int64]bool{}
	for _, id := range trainIDs {
		inTrain[id] = true
	}
	if err := src.writeTrain(pub, inTrain); err != nil {
		return err
	}
	if err := src.writeTest(ctx, pub, priv, testIDs); err != nil {
		return err
	}
	return challenge.WriteFileAtomic(filepath.Join(pub, "description.md"), []byte(description))
}

// source is the fully labelled training data: the annotation JSON and the
// images it names.
type source struct {
	annPath string
	coco    *cocoFile
	imgRaw  []json.RawMessage // the images list, as written
	annRaw  []json.RawMessage // the annotations list, as written
	entries []imageEntry      // per image
	ids     []int64           // per image
	annImg  []int64           // per annotation, its image id
	byName  map[string]string // image file name → first path found
	catKeys []string
}

// loadSource finds the training data under rawDir (its
// quadrant-enumeration-disease folder, else the whole tree, as the
// reference does) and reads its first annotation JSON.
func loadSource(rawDir string) (*source, error) {
	root := filepath.Join(rawDir, trainingDir)
	if st, err := os.Stat(root); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("prepare %s: training data folder %s not found", ID, root)
	}
	sub := filepath.Join(root, qedDir)
	if st, err := os.Stat(sub); err != nil || !st.IsDir() {
		sub = root // the reference's fallback: search the whole tree
	}
	images, err := findFiles(sub, ".png", ".jpg")
	if err != nil {
		return nil, err
	}
	jsons, err := findFiles(sub, ".json")
	if err != nil {
		return nil, err
	}
	if len(jsons) == 0 {
		return nil, fmt.Errorf("prepare %s: no annotation JSON under %s", ID, sub)
	}
	s := &source{annPath: jsons[0]}
	if s.coco, err = readCOCO(s.annPath); err != nil {
		return nil, err
	}
	if s.imgRaw, err = s.coco.list("images"); err != nil {
		return nil, err
	}
	if s.annRaw, err = s.coco.list("annotations"); err != nil {
		return nil, err
	}
	s.entries = make([]imageEntry, len(s.imgRaw))
	s.ids = make([]int64, len(s.imgRaw))
	for i, r := range s.imgRaw {
		if err := json.Unmarshal(r, &s.entries[i]); err != nil {
			return nil, fmt.Errorf("%s: images[%d]: %w", s.annPath, i, err)
		}
		s.ids[i] = s.entries[i].ID
	}
	s.annImg = make([]int64, len(s.annRaw))
	for i, r := range s.annRaw {
		var a annImage
		if err := json.Unmarshal(r, &a); err != nil {
			return nil, fmt.Errorf("%s: annotations[%d]: %w", s.annPath, i, err)
		}
		s.annImg[i] = a.ImageID
	}
	s.byName = map[string]string{}
	for _, p := range images {
		if _, ok := s.byName[filepath.Base(p)]; !ok {
			s.byName[filepath.Base(p)] = p
		}
	}
	s.catKeys = s.coco.categoryKeys()
	return s, nil
}

// writeTrain writes the public training JSON (images and annotations of
// the train ids in source order) and copies the training images.
func (s *source) writeTrain(pub string, inTrain map[int64]bool) error {
	trainVals := map[string]any{}
	var tImgs, tAnns []json.RawMessage
	for i, r := range s.imgRaw {
		if inTrain[s.ids[i]] {
			tImgs = append(tImgs, r)
			if p, ok := s.byName[s.entries[i].FileName]; ok {
				if err := fsutil.CopyFile(p, filepath.Join(pub, "train", "images", s.entries[i].FileName)); err != nil {
					return err
				}
			}
		}
	}
	for i, r := range s.annRaw {
		if inTrain[s.annImg[i]] {
			tAnns = append(tAnns, r)
		}
	}
	trainVals["images"], trainVals["annotations"] = nonNil(tImgs), nonNil(tAnns)
	for _, k := range s.catKeys {
		trainVals[k] = s.coco.raw[k]
	}
	return writeOrdered(filepath.Join(pub, "train", filepath.Base(s.annPath)), append([]string{"images", "annotations"}, s.catKeys...), trainVals)
}

// writeTest copies the test images and writes one ground-truth file per
// image, in the order the reference visits them (iteration over a Python
// set of the test ids), with the answer list and the sample submission.
func (s *source) writeTest(ctx context.Context, pub, priv string, testIDs []int64) error {
	testIDs = pySetOrder(testIDs)
	entryOf := map[int64]int{}
	for i := range s.entries {
		entryOf[s.entries[i].ID] = i
	}
	var labelRows, sampleRows [][]string
	for _, id := range testIDs {
		if err := ctx.Err(); err != nil {
			return err
		}
		i := entryOf[id]
		e := s.entries[i]
		p, ok := s.byName[e.FileName]
		if !ok {
			continue // the reference only keeps test images whose file exists
		}
		if err := fsutil.CopyFile(p, filepath.Join(pub, "test", "images", e.FileName)); err != nil {
			return err
		}
		stem := strings.TrimSuffix(e.FileName, filepath.Ext(e.FileName))
		var anns []json.RawMessage
		for j, r := range s.annRaw {
			if s.annImg[j] == id {
				anns = append(anns, r)
			}
		}
		vals := map[string]any{"images": []json.RawMessage{s.imgRaw[i]}, "annotations": nonNil(anns)}
		for _, k := range s.catKeys {
			vals[k] = s.coco.raw[k]
		}
		rel := "ground_truth/" + stem + ".json"
		if err := writeOrdered(filepath.Join(priv, filepath.FromSlash(rel)), append([]string{"images", "annotations"}, s.catKeys...), vals); err != nil {
			return err
		}
		labelRows = append(labelRows, []string{stem, rel})
		sampleRows = append(sampleRows, []string{stem, "predictions/" + stem + ".json"})
	}
	if len(labelRows) == 0 {
		return fmt.Errorf("prepare %s: no test image found", ID)
	}
	if err := challenge.WriteCSV(filepath.Join(priv, "test_labels.csv"), []string{colID, colGT}, labelRows); err != nil {
		return err
	}
	return challenge.WriteCSV(filepath.Join(pub, "sample_submission.csv"), []string{colID, colPred}, sampleRows)
}

func nonNil(x []json.RawMessage) []json.RawMessage {
	if x == nil {
		return []json.RawMessage{}
	}
	return x
}
