package dentex

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rexmle/rexmle/internal/challenge"
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
