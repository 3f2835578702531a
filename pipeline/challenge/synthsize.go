package challenge

import (
	"fmt"
	"strconv"
	"strings"
)

// SynthCasesEnv is the environment variable that sizes the synthetic data
// (ParseSynthSize reads its value).
const SynthCasesEnv = "REXMLE_SYNTH_CASES"

// Bounds of an explicit case count: the 20 % test split of the smallest
// count still holds two cases, and the largest stays within a disk.
const (
	MinSynthCases = 10
	MaxSynthCases = 100_000
)

// SynthSize is how big a challenge's synthetic raw data is. The zero value
// is the demo's tiny default dataset, byte-identical to what rexmle always
// synthesized.
type SynthSize struct {
	// Cases is the number of cases the raw data holds, counted as the real
	// download counts them (train and, where the download has one, test);
	// 0 with Full false: the challenge's default.
	Cases int
	// Full synthesizes the real download's case count (RealCases) and, where
	// a challenge says so, its real image size.
	Full bool
}

// IsDefault reports whether s is the demo's default size.
func (s SynthSize) IsDefault() bool { return !s.Full && s.Cases == 0 }

// String is the knob's value: "default", "full" or the case count.
func (s SynthSize) String() string {
	switch {
	case s.Full:
		return "full"
	case s.Cases > 0:
		return strconv.Itoa(s.Cases)
	}
	return "default"
}

// Count is the number of cases to synthesize: def at the default size, real
// for Full, the requested count otherwise.
func (s SynthSize) Count(def, real int) int {
	switch {
	case s.Full:
		return real
	case s.Cases > 0:
		return s.Cases
	}
	return def
}

// ParseSynthSize reads a REXMLE_SYNTH_CASES value: empty or "default" (the
// demo's tiny datasets), "full" (each challenge's real case count) or a
// case count between MinSynthCases and MaxSynthCases.
func ParseSynthSize(v string) (SynthSize, error) {
	s := strings.TrimSpace(v)
	switch strings.ToLower(s) {
	case "", "default":
		return SynthSize{}, nil
	case "full":
		return SynthSize{Full: true}, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < MinSynthCases || n > MaxSynthCases {
		return SynthSize{}, fmt.Errorf("%s=%q: want \"default\" (the demo's tiny datasets), \"full\" (each challenge's real case count) or a number of cases between %d and %d", SynthCasesEnv, clip(v), MinSynthCases, MaxSynthCases)
	}
	return SynthSize{Cases: n}, nil
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// ShareCases returns how n cases divide between two groups of a real download
// holding real0 and real1 of them (train and test folders, institutions),
// in proportion, each group keeping at least one case.
func ShareCases(n, real0, real1 int) (n0, n1 int) {
	n1 = (n*real1 + (real0+real1)/2) / (real0 + real1)
	n1 = max(1, min(n-1, n1))
	return n - n1, n1
}
