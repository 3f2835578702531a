package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/rexmle/rexmle/metrics/num"
	"github.com/rexmle/rexmle/pipeline/rank"
)

// fmtMeanRank prints a mean rank as the paper's S-tables do: rounded to two
// decimals half to even on the binary value (num.Round), shortest form, at
// least one decimal ("3.0", "2.25", "4.5"). NaN prints "—".
func fmtMeanRank(x float64) string {
	if math.IsNaN(x) {
		return "—"
	}
	s := strconv.FormatFloat(num.Round(x, 2), 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// runPct prints a run's percentile as the paper does: from the exact
// position sum, half-up to digits decimals ("56.3%"); "FAIL" for a failed
// run; "lo–hi%" for a partially known one; "—" for an unranked one.
func runPct(r *runData, digits int) string {
	switch {
	case r == nil || !r.Ranked:
		return "—"
	case r.partial():
		return pctRange(r.PctLo, r.PctHi, digits)
	case !r.ok():
		return "FAIL"
	}
	return rank.FormatPercent(r.result().ExactPercent(), digits)
}

// pctRange prints a percentile range given as fractions.
func pctRange(lo, hi float64, digits int) string {
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return "—"
	}
	return fmt.Sprintf("%.*f–%.*f%%", digits, 100*lo, digits, 100*hi)
}

// fmtFrac prints a fraction as a percentage with digits decimals; NaN prints "—".
func fmtFrac(p float64, digits int) string {
	if math.IsNaN(p) {
		return "—"
	}
	return fmt.Sprintf("%.*f%%", digits, 100*p)
}

// fmtValue prints a metric value with the given decimals (the printed
// text's when the paper printed it, else 4); NaN prints "NaN", absent "—".
func fmtValue(v float64, ok bool, decimals int) string {
	switch {
	case !ok:
		return "—"
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 0):
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'f', decimals, 64)
}

// decimalsOf is the number of digits after the point in a printed number.
func decimalsOf(s string) int {
	if i := strings.IndexByte(s, '.'); i >= 0 {
		return len(s) - i - 1
	}
	return 0
}

// sortKey is a numeric sort key for a table cell ("" for NaN).
func sortKey(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', 10, 64)
}

// fmtStored prints a leaderboard value as stored: rounded to at most
// decimals, without padding zeros ("0.87", "4", "0.7852").
func fmtStored(v float64, ok bool, decimals int) string {
	if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
		return fmtValue(v, ok, decimals)
	}
	return strconv.FormatFloat(num.Round(v, decimals), 'f', -1, 64)
}
