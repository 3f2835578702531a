package usenhance

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"testing"

	"github.com/rexmle/rexmle/pipeline/challenge"
)

// synthTree returns every file under dir as path → sha256.
func synthTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = fmt.Sprintf("%x", sha256.Sum256(b))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// At the real image size the pairs are drawn on every core; what is drawn
// must not depend on how many, nor on the order they finish in.
func TestSynthesizeFullSameOnAnyCoreCount(t *testing.T) {
	size, err := challenge.ParseSynthSize("full:12")
	if err != nil {
		t.Fatal(err)
	}
	var trees []map[string]string
	for _, procs := range []int{1, 4} {
		old := runtime.GOMAXPROCS(procs)
		dir := t.TempDir()
		err := Challenge{}.Synthesize(context.Background(), dir, 7, size)
		runtime.GOMAXPROCS(old)
		if err != nil {
			t.Fatalf("GOMAXPROCS=%d: %v", procs, err)
		}
		trees = append(trees, synthTree(t, dir))
	}
	if len(trees[0]) != 24 {
		t.Fatalf("want 12 pairs (24 PNGs), got %d files", len(trees[0]))
	}
	var names []string
	for k := range trees[0] {
		names = append(names, k)
	}
	sort.Strings(names)
	seen := map[string]string{}
	for _, k := range names {
		if trees[1][k] != trees[0][k] {
			t.Errorf("%s differs between 1 and 4 cores", k)
		}
		if other, dup := seen[trees[0][k]]; dup {
			t.Errorf("%s and %s are the same image: pairs must get their own draws", other, k)
		}
		seen[trees[0][k]] = k
	}
}
