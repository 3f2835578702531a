package challenge

import (
	"strings"
	"testing"
)

func TestCheckIDs(t *testing.T) {
	want := []string{"1", "2", "3"}
	cases := []struct {
		name  string
		got   []string
		rules IDRules
		err   []string // substrings; none: valid
	}{
		{"exact", []string{"3", "1", "2"}, StrictIDs, nil},
		{"missing", []string{"1", "2"}, StrictIDs, []string{"missing 1 of 3 test cases", `"3"`}},
		{"missing allowed", []string{"1", "2"}, IDRules{AllowMissing: true}, nil},
		{"duplicate", []string{"1", "2", "3", "2"}, StrictIDs, []string{"duplicate", `"2" (lines 3 and 5)`}},
		{"duplicate allowed", []string{"1", "2", "3", "2"}, IDRules{AllowDuplicates: true}, nil},
		{"extra", []string{"1", "2", "3", "9"}, StrictIDs, []string{"not test cases", `"9" (line 5)`}},
		{"extra allowed", []string{"1", "2", "3", "9"}, IDRules{AllowExtra: true}, nil},
		{"all three", []string{"1", "1", "9"}, StrictIDs, []string{"2 of 3", "duplicate", "not test cases"}},
	}
	// A test set listing an id twice wants it twice.
	if err := CheckIDs("s.csv", "id", []string{"1", "2", "1"}, nil, []string{"1", "1", "2"}, StrictIDs); err != nil {
		t.Errorf("id listed twice in both: %v", err)
	}
	if err := CheckIDs("s.csv", "id", []string{"1", "2"}, nil, []string{"1", "1", "2"}, StrictIDs); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("id listed twice in the test set, once in the submission: %v", err)
	}
	for _, c := range cases {
		err := CheckIDs("submission.csv", "image_id", c.got, nil, want, c.rules)
		if len(c.err) == 0 {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		if !IsInvalid(err) {
			t.Errorf("%s: want an invalid submission, got %v", c.name, err)
			continue
		}
		for _, s := range c.err {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("%s: %q does not say %q", c.name, err, s)
			}
		}
	}
	// Many offenders: the message lists a few and the count.
	var many []string
	for i := 0; i < 1000; i++ {
		many = append(many, strings.Repeat("z", 500)+string(rune('a'+i%26)))
	}
	err := CheckIDs("submission.csv", "image_id", many, nil, want, StrictIDs)
	if err == nil || len(err.Error()) > 3000 || !strings.Contains(err.Error(), "(1000 in all)") {
		t.Errorf("many extra ids: %d bytes: %.300v", len(err.Error()), err)
	}
}

func TestRequireRows(t *testing.T) {
	tab, err := ParseCSV(strings.NewReader("image_id,score\n"), "submission.csv")
	if err != nil {
		t.Fatal(err)
	}
	err = RequireRows(tab, "submission.csv", 3)
	if !IsInvalid(err) || !strings.Contains(err.Error(), "no rows") || !strings.Contains(err.Error(), "(3)") {
		t.Errorf("header-only CSV: %v", err)
	}
	tab.Rows = [][]string{{"1", "2"}}
	if err := RequireRows(tab, "submission.csv", 3); err != nil {
		t.Error(err)
	}
}
