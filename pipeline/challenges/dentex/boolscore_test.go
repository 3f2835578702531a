package dentex

import (
	"strings"
	"testing"

	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/pyjson"
)

// TestBooleanScoresReference: pycocotools' accumulate negates the score
// array it concatenates from every evaluated image's top detection; when
// every one of those scores is a JSON bool the array is boolean and numpy
// refuses the negation, so the reference fails (invalid); a number among
// them, or an evaluated image without a detection (an empty float list),
// makes the array float and the submission is graded. Official mode reads
// scores as numbers.
func TestBooleanScoresReference(t *testing.T) {
	const g7, g9 = "[500,400,200,300]", "[600,500,150,150]"
	b := func(box, score string) string {
		return `{"bbox":` + box + `,"category_id_1":1,"category_id_2":2,"category_id_3":1,"score":` + score + `}`
	}
	for _, c := range []struct {
		name    string
		rows    map[string]string
		invalid bool
	}{
		{"one true", map[string]string{"train_7": "[" + b(g7, "true") + "]", "train_9": "[" + b(g9, "false") + "]"}, true},
		{"true above a number", map[string]string{"train_7": "[" + b(g7, "0.5") + "," + b(g7, "true") + "]", "train_9": "[" + b(g9, "true") + "]"}, true},
		{"true ties 1.0 after it", map[string]string{"train_7": "[" + b(g7, "true") + "," + b(g7, "1.0") + "]", "train_9": "[" + b(g9, "true") + "]"}, true},
		{"1.0 ties true after it", map[string]string{"train_7": "[" + b(g7, "1.0") + "," + b(g7, "true") + "]", "train_9": "[" + b(g9, "true") + "]"}, false},
		{"a number on top", map[string]string{"train_7": "[" + b(g7, "true") + "," + b(g7, "2") + "]", "train_9": "[" + b(g9, "true") + "]"}, false},
		{"an image without detections", map[string]string{"train_7": "[" + b(g7, "true") + "]", "train_9": "[]"}, false},
		{"false under a number", map[string]string{"train_7": "[" + b(g7, "false") + "," + b(g7, "0.1") + "]", "train_9": "[" + b(g9, "0.3") + "]"}, false},
	} {
		f := newFixture(t, map[string][]string{"train_7": {ann(1, 3, g7, 1, 2, 1)}, "train_9": {ann(2, 5, g9, 1, 2, 1)}})
		f.submit(t, c.rows)
		_, err := f.grade(t, challenge.Reference)
		if c.invalid != (err != nil) || err != nil && (!challenge.IsInvalid(err) || !strings.Contains(err.Error(), "boolean")) {
			t.Errorf("%s: reference err %v, want invalid %v", c.name, err, c.invalid)
		}
		if _, err := f.grade(t, challenge.Official); err != nil {
			t.Errorf("%s: official: %v", c.name, err)
		}
	}
}

// TestDeepJSONRefused: a prediction file nested deeper than Python's json
// decodes under its recursion limit fails in the reference (RecursionError)
// wherever the nesting is, an unread field included; one level less is read.
func TestDeepJSONRefused(t *testing.T) {
	const g7 = "[500,400,200,300]"
	for _, depth := range []int{pyjson.MaxDepth, pyjson.MaxDepth + 1} {
		// The list of predictions is level 1, the object level 2, "x" nests the rest.
		x := strings.Repeat("[", depth-2) + strings.Repeat("]", depth-2)
		f := newFixture(t, map[string][]string{"train_7": {ann(1, 3, g7, 1, 2, 1)}})
		f.submit(t, map[string]string{"train_7": `[{"bbox":` + g7 + `,"category_id_1":1,"category_id_2":2,"category_id_3":1,"score":0.9,"x":` + x + `}]`})
		for _, mode := range []challenge.Mode{challenge.Reference, challenge.Official} {
			res, err := f.grade(t, mode)
			if depth > pyjson.MaxDepth {
				if !challenge.IsInvalid(err) || !strings.Contains(err.Error(), "RecursionError") {
					t.Errorf("depth %d, %s: %v, want invalid (RecursionError)", depth, mode, err)
				}
				continue
			}
			if err != nil || res.Rounded()["ap_mean"] != 1 {
				t.Errorf("depth %d, %s: %v %v, want ap_mean 1", depth, mode, res, err)
			}
		}
	}
}
