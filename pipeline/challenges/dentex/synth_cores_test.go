package dentex

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/rexmle/rexmle/pipeline/challenge"
)

// At the real image size the images are drawn on every core; the files
// (PNGs and the COCO annotation file) must not depend on how many.
func TestSynthesizeFullSameOnAnyCoreCount(t *testing.T) {
	size, err := challenge.ParseSynthSize("full:10")
	if err != nil {
		t.Fatal(err)
	}
	var trees []map[string]string
	for _, procs := range []int{1, 4} {
		old := runtime.GOMAXPROCS(procs)
		dir := t.TempDir()
		err := Challenge{}.Synthesize(context.Background(), dir, 3, size)
		runtime.GOMAXPROCS(old)
		if err != nil {
			t.Fatalf("GOMAXPROCS=%d: %v", procs, err)
		}
		tree := map[string]string{}
		err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(p)
			rel, _ := filepath.Rel(dir, p)
			tree[filepath.ToSlash(rel)] = fmt.Sprintf("%x", sha256.Sum256(b))
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		trees = append(trees, tree)
	}
	if len(trees[0]) != 11 {
		t.Fatalf("want 10 images and the annotation file, got %d files", len(trees[0]))
	}
	distinct := map[string]bool{}
	for k, h := range trees[0] {
		if trees[1][k] != h {
			t.Errorf("%s differs between 1 and 4 cores", k)
		}
		distinct[h] = true
	}
	if len(distinct) != len(trees[0]) {
		t.Errorf("%d distinct files of %d: images must get their own draws", len(distinct), len(trees[0]))
	}
}
