// Package dentex is the DENTEX 2023 challenge (id "dentex"): detection of
// abnormal teeth on panoramic dental X-rays, each box labelled on three
// levels — quadrant, tooth number (FDI) and diagnosis — and scored by three
// independent COCO box evaluations.
//
// The reference grader registers the categories 1-based (1–4, 1–8, 1–4)
// while the data are 0-based (0–3, 0–7, 0–3), so in Reference mode the
// class 0 of every level is never scored (quadrant 1, tooth 1, Impacted) and
// predictions must carry the 0-based ids of the training JSON to line up.
// Official mode registers the data's own 0-based ids, scoring every class.
//
// Departures that no grading mode can undo: the reference scores 141
// held-out training images (the challenge used 250 hidden test images), and
// its mean position counts the four cross-level means as extra columns
// (DENTEX ranked by the mean rank over the 12 per-level metrics).
package dentex

import (
	"strings"

	"github.com/rexmle/rexmle/pipeline/challenge"
)

// ID is the challenge id.
const ID = "dentex"

const (
	trainingDir    = "training_data"
	qedDir         = "quadrant-enumeration-disease"
	xraysDir       = "xrays"
	annotationName = "train_quadrant_enumeration_disease.json"
	submissionFile = "submission.csv"
	colID          = "image_id"
	colPred        = "predictions_json"
	colGT          = "ground_truth_json"
)

// aspect is one of the three label levels.
type aspect struct {
	name      string // quadrant, enumeration, diagnosis
	field     string // category_id_1 …
	alias     string // quadrant_id …
	nClasses  int
	className func(id int) string
}

var diagnosisNames = []string{"Impacted", "Caries", "Periapical Lesion", "Deep Caries"}

var aspects = []aspect{
	{"quadrant", "category_id_1", "quadrant_id", 4, func(id int) string { return "quadrant " + itoa(id+1) }},
	{"enumeration", "category_id_2", "enumeration_id", 8, func(id int) string { return "tooth " + itoa(id+1) }},
	{"diagnosis", "category_id_3", "diagnosis_id", 4, func(id int) string { return diagnosisNames[id] }},
}

func itoa(i int) string { return string(rune('0' + i)) }

// registered returns the category ids the grader registers for an aspect.
func (a aspect) registered(mode challenge.Mode) []int64 {
	out := make([]int64, a.nClasses)
	for i := range out {
		out[i] = int64(i)
		if mode != challenge.Official {
			out[i]++ // the reference's 1-based registration
		}
	}
	return out
}

// metricNames lists the 16 leaderboard columns in order.
func metricNames() []string {
	names := []string{"ap_mean", "ap50_mean", "ap75_mean", "ar_mean"}
	for _, a := range aspects {
		for _, m := range []string{"ap", "ap50", "ap75", "ar"} {
			names = append(names, m+"_"+a.name)
		}
	}
	return names
}

// Challenge implements challenge.Challenge for DENTEX.
type Challenge struct{}

func init() { challenge.Register(Challenge{}) }

// ID returns "dentex".
func (Challenge) ID() string { return ID }

const quirkNote = " QUIRK category-ids: in reference mode class 0 of the level (quadrant 1, tooth 1, Impacted) is never scored; official mode scores all classes. Quirk corner-box-heuristic also applies. In both modes a submission with no prediction at all is invalid: pycocotools' loadRes, which the reference and the organisers' evaluation both call, fails on an empty result list. Truth annotations are loaded by id as pycocotools does: where ids repeat, each loads as the last annotation with that id. A prediction file nested more than 986 levels deep is invalid in both modes (Python 3.11's json fails with RecursionError; the exact level moves by one per frame of the caller's stack). Reference mode: when, for some registered class, the top-scoring detection of every image evaluated for it has a JSON true/false score, the submission is invalid (COCOeval.accumulate builds a boolean score array and numpy refuses to negate it); a number among those scores, or an evaluated image without a detection of the class, makes it gradable."

// Metrics lists the 16 leaderboard metrics (all COCO bbox statistics at
// maxDets 100, area 'all').
func (Challenge) Metrics() []challenge.MetricCard {
	what := map[string]string{
		"ap":   "COCO AP averaged over IoU 0.50:0.05:0.95 (101-point interpolated precision), mean over scored classes",
		"ap50": "COCO AP at IoU 0.50, mean over scored classes",
		"ap75": "COCO AP at IoU 0.75, mean over scored classes",
		"ar":   "COCO AR at maxDets 100 averaged over IoU 0.50:0.95, mean over scored classes",
	}
	var cards []challenge.MetricCard
	for _, n := range metricNames() {
		kind, level, _ := strings.Cut(n, "_")
		var card string
		if level == "mean" {
			card = "mean of the quadrant, enumeration and diagnosis values of " + strings.ToUpper(kind) + " (" + what[kind] + "); −1 of a level without scored truth enters the mean as −1; the reference grader adds this column (the DENTEX organisers ranked on the 12 per-level metrics), and the paper ranks on all 16 columns, this one included (Table S1's mean ranks average 16 positions)." + quirkNote
		} else {
			card = what[kind] + " for the " + level + " labels; −1 when no scored class has truth; classes with detections but no truth are skipped." + quirkNote
		}
		cards = append(cards, challenge.MetricCard{Name: n, Direction: challenge.HigherBetter, Ranked: true, Card: card})
	}
	return cards
}

// Quirks lists where the reference grader departs from DENTEX's evaluation.
func (Challenge) quirks() []challenge.Quirk {
	all := metricNames()
	return []challenge.Quirk{
		{ID: "category-ids", Metrics: all,
			Reference: "registers categories 1–4 / 1–8 / 1–4 while the data use 0–3 / 0–7 / 0–3 and copies the truth ids unchanged: every truth box of class 0 (quadrant 1, tooth 1, Impacted) is never evaluated and the highest id of each level never has truth; predictions must use the 0-based training ids to line up",
			Official:  "registers the data's own 0-based ids, so all 4 / 8 / 4 classes are scored"},
		{ID: "corner-box-heuristic", Metrics: all,
			Reference: "a bbox [a, b, c, d] with c > a, d > b and (c > a + 50 or d > b + 50) is taken for corners [x1, y1, x2, y2] and rewritten to [a, b, c−a, d−b], corrupting genuine [x, y, w, h] boxes whose width exceeds x (and height exceeds y)",
			Official:  "bbox is always COCO [x, y, width, height] as given"},
	}
}

// Quirks lists where the reference grader departs from the official
// evaluation, the id rule included.
func (c Challenge) Quirks() []challenge.Quirk {
	return append(c.quirks(), challenge.IDRuleQuirk("the predictions of every row are pooled, so a repeated row adds its boxes again and rows for other images are accepted; only a missing test image makes the submission invalid", challenge.RankedNames(c.Metrics())))
}
