// Command readme regenerates, from the declarations in pipeline/settings,
// README.md's environment-variable table and the Settings line that ends
// each target's doc comment in magefile.go (what `mage -h <target>` shows):
//
//	go run ./pipeline/settings/cmd/readme [CHECKOUT]
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/rexmle/rexmle/pipeline/fsutil"
	"github.com/rexmle/rexmle/pipeline/settings"
)

func main() {
	root := "."
	if len(os.Args) > 1 {
		root = os.Args[1]
	}
	for _, f := range []struct {
		name string
		edit func(string) (string, error)
	}{
		{"README.md", settings.ReplaceTable},
		{"magefile.go", func(s string) (string, error) { return settings.ReplaceTargetDocs(s), nil }},
	} {
		if err := rewrite(filepath.Join(root, f.name), f.edit); err != nil {
			fmt.Fprintln(os.Stderr, "readme:", err)
			os.Exit(1)
		}
	}
}

// rewrite replaces path's content by edit's, atomically, when it changes.
func rewrite(path string, edit func(string) (string, error)) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	out, err := edit(string(b))
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if out == string(b) {
		fmt.Printf("%s: up to date\n", path)
		return nil
	}
	if err := fsutil.WriteFile(path, []byte(out), 0o644); err != nil {
		return err
	}
	fmt.Printf("%s: regenerated from pipeline/settings\n", path)
	return nil
}
