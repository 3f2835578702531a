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
	// 0: the challenge's default (Full false) or its real count (Full).
	Cases int
	// Full draws every image at the real download's image size (RealImages)
	// and, unless Cases is set, its real case count ("full:N" sets both:
	// real images, N cases, to time a subset and extrapolate).
	Full bool
}

// RealImages reports whether images are drawn at the real download's size.
func (s SynthSize) RealImages() bool { return s.Full }

// IsDefault reports whether s is the demo's default size.
func (s SynthSize) IsDefault() bool { return !s.Full && s.Cases == 0 }

// String is the knob's value: "default", "full", "full:N" or the case count.
func (s SynthSize) String() string {
	switch {
	case s.Full && s.Cases > 0:
		return "full:" + strconv.Itoa(s.Cases)
	case s.Full:
		return "full"
	case s.Cases > 0:
		return strconv.Itoa(s.Cases)
	}
	return "default"
}

// Count is the number of cases to synthesize: the requested count when one
// is set, real for Full, def at the default size.
func (s SynthSize) Count(def, real int) int {
	switch {
	case s.Cases > 0:
		return s.Cases
	case s.Full:
		return real
	}
	return def
}

// ParseSynthSize reads a REXMLE_SYNTH_CASES value: empty or "default" (the
// demo's tiny datasets), "full" (each challenge's real case count and image
// size), "full:N" (real image size, N cases) or a case count N (demo image
// size), N between MinSynthCases and MaxSynthCases.
func ParseSynthSize(v string) (SynthSize, error) {
	s := strings.ToLower(strings.TrimSpace(v))
	switch s {
	case "", "default":
		return SynthSize{}, nil
	case "full":
		return SynthSize{Full: true}, nil
	}
	full := false
	if rest, ok := strings.CutPrefix(s, "full:"); ok {
		full, s = true, rest
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < MinSynthCases || n > MaxSynthCases {
		return SynthSize{}, fmt.Errorf("%s=%q: want \"default\" (the demo's tiny datasets), \"full\" (each challenge's real case count and image size), \"full:N\" (real image size, N cases) or N (tiny images, N cases), with N a number of cases between %d and %d", SynthCasesEnv, clip(v), MinSynthCases, MaxSynthCases)
	}
	return SynthSize{Cases: n, Full: full}, nil
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
