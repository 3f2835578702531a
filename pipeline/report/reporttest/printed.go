package reporttest

import (
	"fmt"

	"github.com/BurntSushi/toml"
)

// PrintedHeadline is the paper's headline as its Table 3 prints it, read
// from the committed results/paper/summary.toml: the overall mean
// percentiles in file order, and how many of the table's cells print a 0th
// percentile or a failure.
type PrintedHeadline struct {
	Overall     []string
	Zero, Cells int
}

// ReadPrintedHeadline reads the headline from a summary.toml.
func ReadPrintedHeadline(path string) (PrintedHeadline, error) {
	var doc struct {
		Cell []struct {
			Table, Value string
			Pct          string `toml:"printed_percentile"`
		} `toml:"cell"`
		Overall []struct{ Table, Printed string } `toml:"overall"`
	}
	var h PrintedHeadline
	if _, err := toml.DecodeFile(path, &doc); err != nil {
		return h, fmt.Errorf("printed headline: %w", err)
	}
	for _, o := range doc.Overall {
		if o.Table == "3" {
			h.Overall = append(h.Overall, o.Printed)
		}
	}
	for _, c := range doc.Cell {
		if c.Table != "3" {
			continue
		}
		h.Cells++
		if c.Pct == "0%" || c.Pct == "" || c.Value == "FAIL" {
			h.Zero++
		}
	}
	return h, nil
}
