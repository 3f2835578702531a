package metrics_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestMetricsDoNotImportThePipeline keeps metrics/ an importable library:
// no file under it (tests included) imports the pipeline under pipeline/.
func TestMetricsDoNotImportThePipeline(t *testing.T) {
	const pipeline = "github.com/rexmle/rexmle/pipeline/"
	files := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		files++
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(p, pipeline) {
				t.Errorf("%s imports %s: metrics/ must not depend on the pipeline", path, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 50 {
		t.Fatalf("read only %d Go files under metrics/: the walk is broken", files)
	}
}
