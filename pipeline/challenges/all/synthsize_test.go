package all_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenge/challengetest"
)

// defaultSynthDigest is the digest (treeDigest) of every challenge's
// synthetic raw data at the default size and the demo's seed 1, as rexmle
// wrote it before REXMLE_SYNTH_CASES existed: the knob must not change the
// demo's data.
var defaultSynthDigest = map[string]string{
	"dentex":              "bc51f7ee42d5896f",
	"isles22":             "9ec10f0be5e24506",
	"ldct-iqa":            "ce396b3a85d0b23b",
	"neurips-cellseg":     "c80b57d2831ce6d3",
	"panther-task1":       "b222729b987b82de",
	"panther-task2":       "422ecd719ed0a8a8",
	"puma-track1-task1":   "b3076c9daa298796",
	"puma-track1-task2":   "b3076c9daa298796",
	"puma-track2-task1":   "b3076c9daa298796",
	"puma-track2-task2":   "b3076c9daa298796",
	"seg_a":               "7424252be8c7fc62",
	"topbrain-track1":     "45cea8d05f0243a8",
	"topbrain-track2":     "63aac0b45b557d30",
	"topcow-track1-task1": "23d8d64f84d5bf1d",
	"topcow-track1-task2": "23d8d64f84d5bf1d",
	"topcow-track1-task3": "23d8d64f84d5bf1d",
	"topcow-track2-task1": "fcaf416105496ae9",
	"topcow-track2-task2": "fcaf416105496ae9",
	"topcow-track2-task3": "fcaf416105496ae9",
	"usenhance":           "2afcce1af5afb86f",
}

// treeDigest is the first 16 hex digits of the sha256 over every file's
// slash path and sha256, in path order.
func treeDigest(t *testing.T, dir string) string {
	t.Helper()
	files, err := challenge.HashTree(dir)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	for _, k := range challenge.SortedKeys(files) {
		fmt.Fprintf(h, "%s %s\n", k, files[k])
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

func TestDefaultSynthesisUnchanged(t *testing.T) {
	if len(challenge.IDs()) != len(defaultSynthDigest) {
		t.Errorf("%d challenges registered, %d recorded", len(challenge.IDs()), len(defaultSynthDigest))
	}
	for _, id := range challenge.IDs() {
		t.Run(id, func(t *testing.T) {
			c, _ := challenge.Lookup(id)
			d := t.TempDir()
			if err := c.Synthesize(context.Background(), d, 1, challenge.SynthSize{}); err != nil {
				t.Fatal(err)
			}
			if got, want := treeDigest(t, d), defaultSynthDigest[id]; got != want {
				t.Errorf("default synthetic data digest %s, want %s (the demo's data changed)", got, want)
			}
		})
	}
}

// testRows is the number of test cases of a prepared challenge: the rows of
// the agents' sample submission, one per test case.
func testRows(t *testing.T, p *challengetest.Prepared) int {
	t.Helper()
	tab, err := challenge.ReadCSV(filepath.Join(p.Public(), "sample_submission.csv"))
	if err != nil {
		t.Fatal(err)
	}
	return len(tab.Rows)
}

// Every challenge's case count follows the knob: the test split of n
// synthesized cases holds about a fifth of them (the reference's 80/20
// split; LDCT-IQA shares n out as its download does, 1000 : 300).
func TestSynthCasesSizesEveryChallenge(t *testing.T) {
	for _, id := range challenge.IDs() {
		t.Run(id, func(t *testing.T) {
			c, _ := challenge.Lookup(id)
			def := testRows(t, challengetest.Prepare(t, c, 1))
			got := map[int]int{}
			for _, n := range []int{10, 30} {
				rows := testRows(t, challengetest.PrepareSized(t, c, 1, challenge.SynthSize{Cases: n}))
				got[n] = rows
				if lo, hi := n/5-1, n/4+1; rows < lo || rows > hi {
					t.Errorf("REXMLE_SYNTH_CASES=%d: %d test cases, want %d to %d", n, rows, lo, hi)
				}
			}
			if got[30] <= got[10] {
				t.Errorf("test cases %d at 10 and %d at 30: the knob does not size the data", got[10], got[30])
			}
			t.Logf("test cases: default %d, 10 → %d, 30 → %d", def, got[10], got[30])
		})
	}
}
