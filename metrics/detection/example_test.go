package detection_test

import (
	"context"
	"fmt"
	"math"

	"github.com/rexmle/rexmle/metrics/detection"
)

// pycocotools' bbIou: boxes are [x, y, width, height]; against a crowd
// region the overlap is divided by the detection's own area.
func ExampleIoU() {
	d := detection.Box{20, 0, 10, 5}
	g := detection.Box{20, 0, 10, 10}
	fmt.Println(detection.IoU(d, g, false), detection.IoU(d, g, true))
	fmt.Println(detection.IoU(detection.Box{0, 0, 10, 10}, detection.Box{10, 0, 10, 10}, false))
	// Output:
	// 0.5 1
	// 0
}

// COCO AP of three detections on one image with two truths. In score order
// the detections are a perfect hit, a false positive and a box of IoU 0.5
// with the second truth.
//
// At IoU 0.50 the third box matches: recall goes 0.5, 0.5, 1 and the
// interpolated precision is 1 up to recall 0.5 (51 of the 101 recall points)
// and 2/3 beyond (50 points), so AP50 = (51 + 50·2/3)/101 = 253/303 =
// 0.83498…. At 0.55 … 0.95 it does not: precision 1 on the 51 points up to
// recall 0.5 and 0 beyond, 51/101 = 0.50495…. AP is the mean over the ten
// thresholds, (253 + 9·153)/3030 = 0.53795…; AR@100 = (1 + 9·0.5)/10 = 0.55,
// AR@1 keeps only the best detection, recall 0.5. Every box is "small"
// (area ≤ 32²), so the medium and large statistics are −1 (undefined).
func ExampleEvaluate() {
	truths := []detection.GroundTruth{
		{ImageID: 1, Category: 7, Box: detection.Box{0, 0, 10, 10}, Area: 100, ID: 1},
		{ImageID: 1, Category: 7, Box: detection.Box{20, 0, 10, 10}, Area: 100, ID: 2},
	}
	dets := []detection.Detection{
		{ImageID: 1, Category: 7, Box: detection.Box{0, 0, 10, 10}, Score: 0.9},
		{ImageID: 1, Category: 7, Box: detection.Box{50, 50, 10, 10}, Score: 0.8},
		{ImageID: 1, Category: 7, Box: detection.Box{20, 0, 10, 5}, Score: 0.7},
	}
	p := detection.DefaultParams([]int64{1}, []int64{7})
	ev, err := detection.Evaluate(context.Background(), truths, dets, p)
	if err != nil {
		fmt.Println(err)
		return
	}
	names := []string{"AP", "AP50", "AP75", "APs", "APm", "APl", "AR1", "AR10", "AR100", "ARs", "ARm", "ARl"}
	for i, v := range ev.Stats {
		sep := " "
		if i == 5 || i == 11 {
			sep = "\n"
		}
		fmt.Printf("%s=%.4f%s", names[i], v, sep)
	}
	// One statistic by hand: AP at IoU 0.5 for all areas, 100 detections.
	fmt.Printf("%.6f\n", ev.Summarize(true, 0.5, "all", 100, -1))
	// AR over all thresholds (NaN selects them all) for category index 0.
	fmt.Printf("%.2f\n", ev.Summarize(false, math.NaN(), "all", 100, 0))

	// A detection on an image the evaluation does not know is refused.
	dets = append(dets, detection.Detection{ImageID: 2, Category: 7, Box: detection.Box{0, 0, 1, 1}, Score: 1})
	_, err = detection.Evaluate(context.Background(), truths, dets, p)
	fmt.Println(err)
	// Output:
	// AP=0.5380 AP50=0.8350 AP75=0.5050 APs=0.5380 APm=-1.0000 APl=-1.0000
	// AR1=0.5000 AR10=0.5500 AR100=0.5500 ARs=0.5500 ARm=-1.0000 ARl=-1.0000
	// 0.834983
	// 0.55
	// detection 3: image id 2 is not among the evaluated images
}

// A bootstrap of images re-accumulates COCO statistics from one evaluation's
// per-image records: w[i] is how often image i is drawn. Drawing every image
// once gives Evaluate's numbers. Image 1 is the three-box image of
// ExampleEvaluate, image 2 holds one truth found exactly at score 0.95.
// Both once: recall reaches 2/3 at precision 1 (67 of the 101 recall
// points), and at IoU 0.50 recall 1 at precision 3/4 (34 points), so AP50 =
// (67 + 34·0.75)/101 = 0.9158, AP75 = 67/101 = 0.6634, AR = (1 + 9·2/3)/10
// = 0.7. Image 2 twice scores 1; image 1 twice scores what image 1 alone
// does (AP 1630/3030, AP50 253/303, AR 0.55).
func ExamplePool() {
	truths := []detection.GroundTruth{
		{ImageID: 1, Category: 7, Box: detection.Box{0, 0, 10, 10}, Area: 100, ID: 1},
		{ImageID: 1, Category: 7, Box: detection.Box{20, 0, 10, 10}, Area: 100, ID: 2},
		{ImageID: 2, Category: 7, Box: detection.Box{5, 5, 20, 20}, Area: 400, ID: 3},
	}
	dets := []detection.Detection{
		{ImageID: 1, Category: 7, Box: detection.Box{0, 0, 10, 10}, Score: 0.9},
		{ImageID: 1, Category: 7, Box: detection.Box{50, 50, 10, 10}, Score: 0.8},
		{ImageID: 1, Category: 7, Box: detection.Box{20, 0, 10, 5}, Score: 0.7},
		{ImageID: 2, Category: 7, Box: detection.Box{5, 5, 20, 20}, Score: 0.95},
	}
	p := detection.DefaultParams([]int64{1, 2}, []int64{7})
	ev, err := detection.Evaluate(context.Background(), truths, dets, p)
	if err != nil {
		fmt.Println(err)
		return
	}
	pool, err := detection.NewPool(ev.Params, ev.Images)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, w := range [][]int{{1, 1}, {0, 2}, {2, 0}} {
		s, err := pool.Stats(w)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("w=%v AP=%.4f AP50=%.4f AP75=%.4f AR=%.4f\n", w, s.AP, s.AP50, s.AP75, s.AR)
	}
	fmt.Printf("Evaluate: AP=%.4f AP50=%.4f AP75=%.4f AR=%.4f\n", ev.Stats[0], ev.Stats[1], ev.Stats[2], ev.Stats[8])
	// Output:
	// w=[1 1] AP=0.6886 AP50=0.9158 AP75=0.6634 AR=0.7000
	// w=[0 2] AP=1.0000 AP50=1.0000 AP75=1.0000 AR=1.0000
	// w=[2 0] AP=0.5380 AP50=0.8350 AP75=0.5050 AR=0.5500
	// Evaluate: AP=0.6886 AP50=0.9158 AP75=0.6634 AR=0.7000
}
