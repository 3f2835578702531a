package dentex

import (
	"context"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/pipeline/challenge"
)

// Predictions are resolved in parallel, but the error reported is the first
// in row order, as when they were resolved one row after another.
func TestFirstResolutionErrorInRowOrder(t *testing.T) {
	imgs := make([]aggImage, 12)
	for i := range imgs {
		imgs[i] = aggImage{id: int64(100 * (i + 1)), preds: []predJSON{{BBox: [4]float64{400, 300, 100, 100}, Score: 0.5}}}
	}
	priv, sub := writeImages(t, imgs, ones(len(imgs)))
	for _, k := range []int{3, 7, 11} { // image ids that are no test image
		writeFile(t, filepath.Join(sub, "predictions", "train_"+itoa3(100*(k+1))+".json"), `[{"bbox": [1,2,3,4]}, {"bbox": [1,2,3,4], "image_id": 5}]`)
	}
	for n := 0; n < 20; n++ {
		_, err := Challenge{}.Grade(context.Background(), sub, priv, challenge.Reference)
		if err == nil || !strings.Contains(err.Error(), "train_400.json") || !strings.Contains(err.Error(), "prediction 1") {
			t.Fatalf("error %v, want the first bad row's (train_400.json, prediction 1)", err)
		}
	}
}

// TestRepeatedTruthIDs: pycocotools keeps the last annotation of each id,
// and loads every annotation with that id as it. Two images whose single
// truth boxes share id 4: the first image is left without truth, the second
// has its box twice. Both predictions are exact, so the first is a false
// positive (score 0.9) ahead of one true positive of two truths: AP
// 51·0.5/101, AR 0.5 — the same as writing that truth out.
func TestRepeatedTruthIDs(t *testing.T) {
	grade := func(truth7, truth9 string) *challenge.Result {
		priv, sub := t.TempDir(), t.TempDir()
		gt := func(stem string, id int, anns string) string {
			return `{"images": [{"file_name": "` + stem + `.png", "height": 160, "id": ` + strconv.Itoa(id) + `, "width": 320}], "annotations": [` + anns + `]}`
		}
		writeFile(t, filepath.Join(priv, "ground_truth", "train_7.json"), gt("train_7", 3, truth7))
		writeFile(t, filepath.Join(priv, "ground_truth", "train_9.json"), gt("train_9", 5, truth9))
		writeFile(t, filepath.Join(priv, "test_labels.csv"), "image_id,ground_truth_json\ntrain_7,ground_truth/train_7.json\ntrain_9,ground_truth/train_9.json\n")
		writeFile(t, filepath.Join(sub, "submission.csv"), "image_id,predictions_json\ntrain_7,p/train_7.json\ntrain_9,p/train_9.json\n")
		writeFile(t, filepath.Join(sub, "p", "train_7.json"), `[{"bbox": [50, 40, 60, 80], "score": 0.9, "category_id_1": 1, "category_id_2": 2, "category_id_3": 1}]`)
		writeFile(t, filepath.Join(sub, "p", "train_9.json"), `[{"bbox": [100, 30, 40, 70], "score": 0.8, "category_id_1": 1, "category_id_2": 2, "category_id_3": 1}]`)
		res, err := Challenge{}.Grade(context.Background(), sub, priv, challenge.Reference)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	box := func(id int, bbox string, img int) string {
		return `{"area": 1, "bbox": ` + bbox + `, "category_id_1": 1, "category_id_2": 2, "category_id_3": 1, "id": ` + strconv.Itoa(id) + `, "image_id": ` + strconv.Itoa(img) + `, "iscrowd": 0}`
	}
	got := grade(box(4, "[50, 40, 60, 80]", 3), box(4, "[100, 30, 40, 70]", 5))
	want := grade("", box(4, "[100, 30, 40, 70]", 5)+", "+box(6, "[100, 30, 40, 70]", 5))
	for _, m := range []string{"ap_mean", "ap50_mean", "ar_mean", "ap_quadrant"} {
		if math.Abs(got.Values[m]-want.Values[m]) > 1e-15 {
			t.Errorf("%s = %v, written out %v", m, got.Values[m], want.Values[m])
		}
	}
	if math.Abs(got.Values["ap_mean"]-51*0.5/101) > 1e-12 || got.Values["ar_mean"] != 0.5 {
		t.Errorf("ap_mean %v, ar_mean %v; want 51·0.5/101 = 0.25248 and 0.5", got.Values["ap_mean"], got.Values["ar_mean"])
	}
}
