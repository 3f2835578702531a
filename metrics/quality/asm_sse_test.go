package quality

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestNoLegacySSE: the package's assembly touches vector registers with
// VEX- or EVEX-encoded instructions only. A legacy SSE instruction that
// writes an XMM register while the upper halves hold data (the row kernel
// once loaded constants with MOVQ AX, X14) stalls for hundreds of
// nanoseconds per call on AMD EPYC (Zen 3) under KVM.
func TestNoLegacySSE(t *testing.T) {
	files, err := filepath.Glob("*.s")
	if err != nil || len(files) == 0 {
		t.Fatalf("no assembly files: %v", err)
	}
	instr := regexp.MustCompile(`^\s*([A-Z][A-Z0-9]*)\s+(.*)$`)
	vreg := regexp.MustCompile(`\b[XYZ]([0-9]|[12][0-9]|3[01])\b`)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			line, _, _ = strings.Cut(line, "//")
			line = strings.TrimSuffix(strings.TrimSpace(line), `\`)
			line = strings.TrimSuffix(strings.TrimSpace(line), ";")
			m := instr.FindStringSubmatch(line)
			if m == nil || strings.HasPrefix(m[1], "V") || !vreg.MatchString(m[2]) {
				continue
			}
			t.Errorf("%s:%d: %s: a legacy SSE instruction on a vector register (use its VEX form)", f, i+1, strings.TrimSpace(line))
		}
	}
}
