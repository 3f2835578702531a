package challengetest

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchKeepEnv names the environment variable that makes benchmark data
// survive the benchmark: when it holds a folder, BenchDir and KeepCopy put
// the generated data under it instead of (or besides) a temporary folder,
// so that another grader (bench/graders.sh times the reference's) can grade
// exactly the same files. Use it with a -bench filter that selects one
// benchmark: every benchmark writes to the same names.
const BenchKeepEnv = "REXMLE_BENCH_KEEP"

// BenchDir returns an empty folder for a benchmark's data: b.TempDir(), or,
// when REXMLE_BENCH_KEEP is set, the folder <keep>/<name>, emptied first and
// left in place afterwards.
func BenchDir(b testing.TB, name string) string {
	b.Helper()
	keep := os.Getenv(BenchKeepEnv)
	if keep == "" {
		return b.TempDir()
	}
	dir := filepath.Join(keep, name)
	if err := os.RemoveAll(dir); err != nil {
		b.Fatalf("bench dir: %v", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatalf("bench dir: %v", err)
	}
	return dir
}

// BenchDirs returns BenchDir(b, "private") and BenchDir(b, "submission"):
// the answers folder and the submission folder of a grade benchmark.
func BenchDirs(b testing.TB) (priv, sub string) {
	b.Helper()
	return BenchDir(b, "private"), BenchDir(b, "submission")
}

// KeepCopy copies a benchmark's answers and submission folders, made
// elsewhere (e.g. by Prepare), to <keep>/private and <keep>/submission
// when REXMLE_BENCH_KEEP is set; otherwise it does nothing.
func KeepCopy(b testing.TB, priv, sub string) {
	b.Helper()
	if os.Getenv(BenchKeepEnv) == "" {
		return
	}
	CopyDir(b, priv, BenchDir(b, "private"))
	CopyDir(b, sub, BenchDir(b, "submission"))
}
