// Package publicview adds to a prepared public folder what the paper's
// agents found in theirs beyond the data: the human leaderboard, a
// description of how the task is graded, and, for TopCoW and TopBrain, a
// README of the folder.
//
// The paper's preparation copied its grading script, the challenge's
// leaderboard file and, for the TopCoW/TopBrain tasks, a generated README
// into every public folder (no leaderboard for ISLES'22). Whether an agent
// can read how it is graded and how the human teams scored changes what it
// can do, so a reproduction must be able to give it the same folder. This
// package writes the same information in rexmle's own words and schema: the
// grading description is generated from the challenge's metric cards and
// quirks, not a copy of anyone's script.
package publicview

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/fsutil"
)

// File names written into the public folder.
const (
	LeaderboardFile = "leaderboard.csv"
	GradingFile     = "grading.md"
	ReadmeFile      = "README.md"
)

// noLeaderboard lists the tasks whose public folder in the paper held no
// leaderboard file (the reference's ISLES'22 task folder ships none).
var noLeaderboard = map[string]bool{"isles22": true}

// withReadme reports whether the paper's preparation wrote a README into
// the task's public folder: every TopCoW and TopBrain task.
func withReadme(id string) bool {
	return strings.HasPrefix(id, "topcow-") || strings.HasPrefix(id, "topbrain-")
}

// Files lists what Write adds for challenge id, in the order it writes them.
func Files(id string) []string {
	var out []string
	if !noLeaderboard[id] {
		out = append(out, LeaderboardFile)
	}
	out = append(out, GradingFile)
	if withReadme(id) {
		out = append(out, ReadmeFile)
	}
	return out
}

// Write adds the paper's extra public files for challenge c (configured as
// cc) to publicDir, a prepared public folder. mode is the grading mode the
// runs will be graded in; the description says which. Files already in the
// folder that the preparer wrote itself (a README) are left as they are.
func Write(publicDir string, cc *config.Challenge, c challenge.Grader, mode challenge.Mode) error {
	if !noLeaderboard[cc.ID] {
		if err := writeLeaderboard(filepath.Join(publicDir, LeaderboardFile), cc); err != nil {
			return fmt.Errorf("public view %s: %w", cc.ID, err)
		}
	}
	if err := fsutil.WriteFile(filepath.Join(publicDir, GradingFile), []byte(gradingText(cc, c, mode)), 0o644); err != nil {
		return fmt.Errorf("public view %s: %w", cc.ID, err)
	}
	if withReadme(cc.ID) {
		p := filepath.Join(publicDir, ReadmeFile)
		if _, err := os.Lstat(p); err == nil {
			return nil
		}
		text, err := readmeText(publicDir, cc)
		if err != nil {
			return fmt.Errorf("public view %s: %w", cc.ID, err)
		}
		if err := fsutil.WriteFile(p, []byte(text), 0o644); err != nil {
			return fmt.Errorf("public view %s: %w", cc.ID, err)
		}
	}
	return nil
}

// writeLeaderboard writes rank, team, mean_position and one column per
// ranked metric, best team first, numbers as the leaderboard prints them.
func writeLeaderboard(path string, cc *config.Challenge) error {
	header := []string{"rank", "team", "mean_position"}
	for _, m := range cc.Metrics {
		header = append(header, m.Name)
	}
	rows := make([][]string, 0, len(cc.Leaderboard))
	entries := append([]config.HumanEntry(nil), cc.Leaderboard...)
	sort.SliceStable(entries, func(i, j int) bool { return entries[i].Rank < entries[j].Rank })
	for _, e := range entries {
		row := []string{strconv.Itoa(e.Rank), e.Team, strconv.FormatFloat(e.MeanPosition, 'f', -1, 64)}
		for _, m := range cc.Metrics {
			row = append(row, strconv.FormatFloat(e.Values[m.Name], 'f', -1, 64))
		}
		rows = append(rows, row)
	}
	return challenge.WriteCSV(path, header, rows)
}

// gradingText describes how submissions to the task are graded and ranked.
func gradingText(cc *config.Challenge, c challenge.Grader, mode challenge.Mode) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# How %s is graded\n\n", cc.Name)
	fmt.Fprintf(&b, "Your submission folder is graded against the hidden test answers in %s mode", mode)
	if mode == challenge.Official {
		b.WriteString(" (the challenge organisers' own evaluation).\n")
	} else {
		b.WriteString(" (the ReX-MLE reference graders, whose departures from the organisers' evaluation are listed below).\n")
	}
	b.WriteString("Values are rounded to 5 decimals. `description.md` gives the submission format; an invalid submission is not scored.\n\n")
	b.WriteString("## Metrics\n\n| metric | better | ranked | what it measures |\n|---|---|---|---|\n")
	for _, m := range c.Metrics() {
		better := "higher"
		if m.Direction == challenge.LowerBetter {
			better = "lower"
		}
		ranked := "no"
		if m.Ranked {
			ranked = "yes"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", m.Name, better, ranked, strings.ReplaceAll(m.Card, "|", "\\|"))
	}
	b.WriteString("\n## Ranking\n\n")
	b.WriteString("Each ranked metric is placed among the human teams of `leaderboard.csv` (where the folder has one): ")
	b.WriteString("position = 1 + the number of teams strictly better; ties share the better position. ")
	b.WriteString("The mean of the positions over the ranked metrics gives the mean rank, and ")
	b.WriteString("percentile = 1 - (mean rank - 1) / (number of teams). A submission that cannot be graded counts 0.\n")
	if qs := c.Quirks(); len(qs) > 0 && mode != challenge.Official {
		b.WriteString("\n## Where the reference graders depart from the organisers' evaluation\n\n")
		for _, q := range qs {
			fmt.Fprintf(&b, "- **%s** (%s): %s\n", q.ID, strings.Join(q.Metrics, ", "), q.Reference)
		}
	}
	return b.String()
}

// readmeText describes the prepared folder with counts read from it.
func readmeText(publicDir string, cc *config.Challenge) (string, error) {
	count := func(rel string) (int, error) {
		n := 0
		err := filepath.WalkDir(filepath.Join(publicDir, rel), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if os.IsNotExist(err) {
					return fs.SkipDir
				}
				return err
			}
			if d.Type().IsRegular() {
				n++
			}
			return nil
		})
		return n, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", cc.Name)
	fmt.Fprintf(&b, "- Modality: %s\n- Task: %s\n", cc.Modality, cc.TaskType)
	for _, d := range []struct{ rel, what string }{
		{"train/images", "training images"}, {"train/labels", "training labels"}, {"test/images", "test images (labels held out)"},
	} {
		n, err := count(d.rel)
		if err != nil {
			return "", err
		}
		if n > 0 {
			fmt.Fprintf(&b, "- `%s/`: %d %s\n", d.rel, n, d.what)
		}
	}
	b.WriteString("\nThe submission format is in `description.md`, the grading in `grading.md`, ")
	b.WriteString("and `sample_submission.csv` lists every test case to predict.\n")
	if cc.URL != "" {
		fmt.Fprintf(&b, "\nChallenge: %s\n", cc.URL)
	}
	if cc.License != "" {
		fmt.Fprintf(&b, "License: %s\n", cc.License)
	}
	return b.String(), nil
}
