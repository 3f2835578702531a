// Package puma implements the four PUMA challenges (melanoma H&E, Zenodo
// record 14869398): puma-track1-task1 and puma-track2-task1 (semantic tissue
// segmentation, micro Dice) and puma-track1-task2 and puma-track2-task2
// (nuclei detection and classification, centroid F1 within 15 px).
//
// All four share one raw download, one case list and one seeded split.
//
// The most important fact about these challenges: the reference preparer
// maps class names that never occur in the real PUMA GeoJSON files. For the
// tissue tasks every feature is skipped, so the reference ground truth is all
// background and every submission scores 0 (about 1e-5 at most on track 1),
// which is what the paper reports. For puma-track1-task2 the reference truth
// holds no TILs at all. Reference mode reproduces that exactly; Official
// mode grades against the truth the challenge meant (the real tissue_* and
// nuclei_* names mapped as the challenge's own class table says). Quirks(),
// the metric cards and Result.Notes spell the difference out.
package puma

import (
	"github.com/rexmle/rexmle/pipeline/challenge"
)

// Task is the kind of PUMA task.
type Task int

// The two PUMA tasks.
const (
	Tissue Task = 1 // semantic tissue segmentation
	Nuclei Task = 2 // nuclei detection and classification
)

// Challenge is one of the four PUMA challenges.
type Challenge struct {
	id    string
	track int
	task  Task
	// refNames makes Synthesize write the class names the reference's
	// tables expect instead of the real ones (tests only: it lets the
	// conformance kit see a non-degenerate reference truth).
	refNames bool
}

// The four registered challenges.
var (
	Track1Task1 = Challenge{id: "puma-track1-task1", track: 1, task: Tissue}
	Track1Task2 = Challenge{id: "puma-track1-task2", track: 1, task: Nuclei}
	Track2Task1 = Challenge{id: "puma-track2-task1", track: 2, task: Tissue}
	Track2Task2 = Challenge{id: "puma-track2-task2", track: 2, task: Nuclei}
)

// Variants is the family's table, registered in this order.
var Variants = []Challenge{Track1Task1, Track1Task2, Track2Task1, Track2Task2}

func init() { challenge.RegisterFamily("puma", Variants) }

// ID is the reference challenge id.
func (c Challenge) ID() string { return c.id }

// Task says whether the challenge is tissue segmentation or nuclei detection.
func (c Challenge) Task() Task { return c.task }

// Track is 1 or 2.
func (c Challenge) Track() int { return c.track }

// WithReferenceNames returns a copy whose Synthesize writes the class names
// the reference preparer's tables recognise ("stroma", "tumor",
// "nuclei_lymphocytes", …) instead of the names real PUMA files use. Only
// for tests that need a non-empty reference truth; never register it.
func (c Challenge) WithReferenceNames() Challenge {
	c.refNames = true
	return c
}

const namesNote = "the reference preparer's class-name table does not match the names in the real PUMA GeoJSON (tissue_*, nuclei_<singular>)"

// Metrics lists the metric cards, ranked first.
func (c Challenge) Metrics() []challenge.MetricCard {
	switch {
	case c.task == Tissue && c.track == 1:
		return []challenge.MetricCard{{Name: "dice", Direction: challenge.HigherBetter, Ranked: true,
			Card: "Micro Dice over classes 1–5 pooled over all test pixels, (2I+1e-5)/(G+S+1e-5), 0 when a class is absent from both, mean over 5 classes. REFERENCE MODE: truth is all background because " + namesNote + ", so every submission scores ≤ 1e-5 (paper: 0.0000); a class seen only on one side scores ε/(U+ε) > 0. OFFICIAL MODE: truth rasterised with the real names, class with no overlap scores 0. " + tissueValuesT1 + " " + maskFormats}}
	case c.task == Tissue:
		return []challenge.MetricCard{{Name: "dice", Direction: challenge.HigherBetter, Ranked: true,
			Card: "Micro Dice over classes 1–5 pooled over all test pixels, (2I+1e-5)/(G+S+1e-5), 0 when the class has no overlap (I = 0), mean over 5 classes. REFERENCE MODE: truth is all background because " + namesNote + ", so every submission scores exactly 0 (paper: 0.0000). OFFICIAL MODE: truth rasterised with the real names. " + tissueValuesT2 + " " + maskFormats}}
	case c.track == 1:
		cards := []challenge.MetricCard{{Name: "f1", Direction: challenge.HigherBetter, Ranked: true,
			Card: "Macro F1 of nuclei detection (centroid within < 15 px, same class, greedy truth-driven matching): per image F1 per class (0 when absent from both), mean over images, then mean over tumor/TILs/other. REFERENCE MODE: truth has no TILs because " + namesNote + " (f1_TILs is always 0, macro ≤ 2/3). OFFICIAL MODE: real names mapped (lymphocyte, plasma cell → TILs); prediction names matched exactly as written (tumor, TILs, other: no case or white-space folding, no aliases; anything else, a number's str() included, is a class of its own); macro over every class name seen in any file, NaN (unranked) when no file holds a nucleus. " + nucleiFiles},
			{Name: "macro_f1", Direction: challenge.HigherBetter, Card: "Same value as f1 under the reference's result key."}}
		for _, k := range track1Classes {
			cards = append(cards, challenge.MetricCard{Name: "f1_" + k, Direction: challenge.HigherBetter,
				Card: "Per-class F1 for " + k + ", mean over submitted images (images without the class on either side count 0)." + map[bool]string{true: " REFERENCE MODE: always 0 (no TILs in the reference truth).", false: ""}[k == "TILs"]})
		}
		return cards
	default:
		cards := []challenge.MetricCard{{Name: "f1", Direction: challenge.HigherBetter, Ranked: true,
			Card: "Macro F1 over the 10 nuclei classes (centroid distance ≤ 15 px in reference mode, < 15 officially; greedy truth-driven matching). REFERENCE MODE: each class's F1 is averaged only over images where it occurs, and prediction names outside the accepted set (e.g. nuclei_tumor, TILs) are silently dropped. OFFICIAL MODE: per-class F1 summed over images divided by the number of images, macro over every class name seen; the ten names matched exactly as written (no case or white-space folding), and the dataset's own class names (nuclei_tumor, nuclei_stroma, nuclei_epithelium, …, exactly written) count as their classes too (a departure: the organisers match names literally, so on rexmle's truth they would be classes of their own); NaN (unranked) when no file holds a nucleus. " + nucleiFiles}}
		for _, k := range track2Classes {
			cards = append(cards, challenge.MetricCard{Name: "f1_" + k, Direction: challenge.HigherBetter,
				Card: "Per-class F1 for " + k + " (reference: mean over images where it occurs, 0 if none; official: sum over images / number of images)."})
		}
		return cards
	}
}

// Quirks lists where the reference departs from the official evaluation.
func (c Challenge) quirks() []challenge.Quirk {
	switch {
	case c.task == Tissue:
		q := []challenge.Quirk{{ID: "tissue-class-names", Metrics: []string{"dice"},
			Reference: "ground truth rasterised with a table keyed on stroma/blood vessel/tumor/epidermis/necrosis; the real features are named tissue_stroma, tissue_blood_vessel, …, so every feature is skipped and the truth is all background: every submission scores 0 (track 1: at most ≈1e-5)",
			Official:  "ground truth rasterised with the real tissue_* names (tissue_stroma→1, tissue_blood_vessel→2, tissue_tumor→3, tissue_epidermis→4, tissue_necrosis→5, tissue_white_background→0), the table of the challenge's config.yaml and of a later revision of the reference's puma-track1-task1 preparer (commit b3d8f7c)"}}
		q = append(q, challenge.Quirk{ID: "labels-outside-0-5", Metrics: []string{"dice"},
			Reference: map[int]string{1: "channel 0 cast to uint8 (NaN and ±Inf → 0, integers modulo 256, floats truncated); a value above 5 after the cast makes the submission invalid",
				2: "the array as decoded; the submission is invalid when np.unique(mask).max() > 5 (a NaN anywhere makes that max NaN and passes); NaN, ±Inf, fractions and negatives are background"}[c.track],
			Official: "the array as decoded (no uint8 cast), never invalid for its values: every value that is not exactly 1–5 (6, 255, 257, 3.5, −1, NaN, …) is background, as evaluate_tissue.py's np.where(mask == k) counts it"})
		if c.track == 1 {
			q = append(q, challenge.Quirk{ID: "dice-no-overlap-epsilon", Metrics: []string{"dice"},
				Reference: "a class present on one side only scores ε/(U+ε) > 0 (only U = 0 gives 0)",
				Official:  "a class with no overlap (I = 0) scores 0"})
		}
		return q
	case c.track == 1:
		return []challenge.Quirk{
			{ID: "nuclei-class-names", Metrics: []string{"f1", "macro_f1", "f1_TILs", "f1_other"},
				Reference: "truth converted with a table keyed on plural names (nuclei_lymphocytes, …): only tumor, epithelium and endothelium are converted; lymphocytes and plasma cells keep their raw names, so the truth holds no TILs (f1_TILs = 0, macro ≤ 2/3) and 'other' holds only epithelium and endothelium",
				Official:  "real names mapped: nuclei_lymphocyte and nuclei_plasma_cell → TILs, nuclei_tumor → tumor, every other nucleus class → other"},
			{ID: "macro-over-fixed-classes", Metrics: []string{"f1", "macro_f1"},
				Reference: "macro F1 = mean of the three fixed classes; unknown prediction names are ignored",
				Official:  "macro F1 = mean over every class name seen in any truth or prediction file (stray names count as classes with F1 0)"},
			nucleiSchemaQuirk([]string{"f1", "macro_f1", "f1_tumor", "f1_TILs", "f1_other"}, "track 1 aliases (til, tils, lymphocyte(s) → TILs, tumour → tumor, others → other), compared after lower() and strip()"),
			{ID: "missing-cases", Metrics: []string{"f1", "macro_f1"},
				Reference: "only the submitted rows are graded: a missing test case is not penalised (dropping a poorly predicted image can raise the score) and a duplicated one counts twice",
				Official:  "the submission must cover every test case, as the organisers score every test image: a missing case makes it invalid"},
		}
	default:
		return []challenge.Quirk{
			{ID: "per-class-mean-over-present-images", Metrics: []string{"f1"},
				Reference: "a class's F1 is averaged only over the images in which it occurs (truth or prediction)",
				Official:  "a class's F1 is summed over images and divided by the number of images (absent → 0)"},
			{ID: "inclusive-distance", Metrics: []string{"f1"},
				Reference: "a prediction matches within distance ≤ 15 px",
				Official:  "a prediction matches within distance < 15 px"},
			{ID: "names-dropped", Metrics: []string{"f1"},
				Reference: "prediction names outside the ten canonical names and the nuclei_<singular> aliases (nuclei_tumor, nuclei_epithelium, nuclei_endothelium, plural nuclei_…s, TILs, other, …) are silently dropped; macro over the ten fixed classes",
				Official:  "names are matched exactly as written (no case or white-space folding); the dataset's own names (nuclei_tumor, nuclei_stroma, nuclei_epithelium, …, the table preparation uses, exactly written) count as their classes, a departure from the organisers' literal match; other names are kept as classes of their own (false positives) and the macro runs over every class name seen"},
			nucleiSchemaQuirk([]string{"f1"}, "names compared after strip() and lower()"),
			{ID: "missing-cases", Metrics: []string{"f1"},
				Reference: "only the submitted rows are graded: a missing test case is not penalised (dropping a poorly predicted image can raise the score) and a duplicated one counts twice",
				Official:  "the submission must cover every test case, as the organisers score every test image: a missing case makes it invalid"},
		}
	}
}

// nucleiSchemaQuirk is where the reference reads the nuclei files more
// leniently than the organisers' eval_nuclei.py.
func nucleiSchemaQuirk(metrics []string, names string) challenge.Quirk {
	return challenge.Quirk{ID: "nuclei-file-schema", Metrics: metrics,
		Reference: "items from \"polygons\", else \"nuclei\"; class from name, else class (an item without one is skipped); score from score, else confidence; centroid from path_points, else centroid; " + names,
		Official:  "items from \"polygons\" only; every item must have name and path_points (else the file is invalid, as the organisers' code raises KeyError); score from score (else 1; confidence is ignored); names matched as written; with no nucleus in any file the macro F1 is NaN (np.mean of nothing)"}
}

// Quirks lists where the reference grader departs from the official
// evaluation, the id rule included.
func (c Challenge) Quirks() []challenge.Quirk {
	return append(c.quirks(), challenge.IDRuleQuirk(c.referenceIDRule(), challenge.RankedNames(c.Metrics())))
}

// maskFormats says how both modes read a predicted tissue mask.
const maskFormats = "Both modes read a predicted mask by content, as Pillow's Image.open does (PNG, TIFF first page with its Orientation tag applied as Pillow 11.1 does on load, BMP, JPEG, GIF first frame, binary PBM/PGM/PPM, still WebP, whatever the file name; palette images as their indices; an unsigned 32-bit TIFF as int32, as Pillow's mode I stores it; PNGs accepted as Pillow accepts them: IDAT and later CRCs unchecked, data after the last row ignored); other formats are refused. Track 1 reads a multi-channel mask by its first channel in both modes (a departure in official mode: the organisers' code cannot compare it with the single-channel truth and fails); track 2 refuses it."

// tissueValuesT1 and tissueValuesT2 say how each mode reads the values.
const (
	tissueValuesT1 = "Values: REFERENCE MODE casts channel 0 to uint8 (integers modulo 256, floats truncated, NaN and ±Inf → 0) and refuses a value above 5 after the cast; OFFICIAL MODE uses the values as decoded, and any value that is not exactly 1–5 is background (never invalid)."
	tissueValuesT2 = "Values: REFERENCE MODE uses the array as decoded and refuses a maximum above 5 (unless a NaN is present, which makes numpy's maximum NaN); OFFICIAL MODE never refuses a value. In both, any value that is not exactly 1–5 (NaN, ±Inf, fractions, negatives; officially also 6 and above) is background."
)

// nucleiFiles says how both modes read the JSON files.
const nucleiFiles = "Files are read as Python's json.load reads them (UTF-8 only, nothing after the value, NaN/Infinity accepted, numbers beyond float64 as ±Inf) and their items as the mode's Python code reads them (see the nuclei-file-schema quirk): a null \"polygons\" is invalid, a file nested more than 986 levels deep is invalid (Python 3.11's json fails there with RecursionError; the exact level moves by one per frame of the caller's stack, 986 being the graders' own), an empty {} or \"\" is an empty list, a score is only checked when its prediction is a candidate match (a non-number there is invalid; NaN scores sort as CPython's list.sort leaves them). Not reproduced: numpy's broadcasting of malformed geometry (1-element points, nested centroids, non-numeric centroids never compared: invalid here), integer scores beyond 2^53 (compared as float64), and CPython's merge order for a NaN score among 64 or more candidates of one nucleus."
