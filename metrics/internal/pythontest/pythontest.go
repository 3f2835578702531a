// Package pythontest finds the Python that the metrics cross-check tests run: tests
// that compare a grader's arithmetic with numpy, scipy, Pillow or pandas
// themselves, and skip where no such Python is installed.
package pythontest

import (
	"os/exec"
	"strings"
	"testing"
)

// Find returns a Python interpreter (the system /usr/bin/python3 first,
// then python3 on PATH) that imports every module named, or skips the test
// (also in -short mode, as these tests start a Python process).
func Find(t testing.TB, modules ...string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("short mode")
	}
	imp := "import " + strings.Join(modules, ", ")
	for _, c := range []string{"/usr/bin/python3", "python3"} {
		if exec.Command(c, "-c", imp).Run() == nil {
			return c
		}
	}
	t.Skipf("no python3 with %s", strings.Join(modules, ", "))
	return ""
}
