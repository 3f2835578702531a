package report

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The site's charts are built from go-echarts' typed options (issue 31):
// no code of the package names the type map[string]any (or
// map[string]interface{}), except the table downloads' JSON writer, which
// writes a table's rows and is no chart. A chart option
// written as a map would pass every other test, so this one reads the code.
func TestChartOptionsAreTyped(t *testing.T) {
	// file:function → map types named there: the download writer's rows,
	// and the JSON() method of the echart interface (go-echarts' own
	// rendering result).
	allowed := map[string]int{"report.go:tableFiles": 3, "charts.go:(package level)": 1}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]int{}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			fn, ok := d.(*ast.FuncDecl)
			var body ast.Node = d
			name := "(package level)"
			if ok {
				name, body = fn.Name.Name, fn
			}
			ast.Inspect(body, func(n ast.Node) bool {
				m, ok := n.(*ast.MapType)
				if !ok {
					return true
				}
				k, kok := m.Key.(*ast.Ident)
				if !kok || k.Name != "string" {
					return true
				}
				switch v := m.Value.(type) {
				case *ast.Ident:
					if v.Name != "any" {
						return true
					}
				case *ast.InterfaceType:
					if len(v.Methods.List) != 0 {
						return true
					}
				default:
					return true
				}
				found[f+":"+name]++
				return true
			})
		}
	}
	var bad []string
	for k, n := range found {
		if allowed[k] != n {
			bad = append(bad, k)
		}
	}
	sort.Strings(bad)
	for _, k := range bad {
		t.Errorf("%s uses map[string]any %d time(s) (allowed %d): build chart options from go-echarts' typed options (charts, opts), extensions in echartsext.go", k, found[k], allowed[k])
	}
	for k, n := range allowed {
		if found[k] != n {
			t.Errorf("allow-list entry %s: found %d, allowed %d (update the allow-list)", k, found[k], n)
		}
	}
}
