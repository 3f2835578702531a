// Command readme regenerates README.md's environment-variable table from
// the declarations in pipeline/settings:
//
//	go run ./pipeline/settings/cmd/readme [README.md]
package main

import (
	"fmt"
	"os"

	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/settings"
)

func main() {
	path := "README.md"
	if len(os.Args) > 1 {
		path = os.Args[1]
	}
	if err := run(path); err != nil {
		fmt.Fprintln(os.Stderr, "readme:", err)
		os.Exit(1)
	}
}

func run(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	out, err := settings.ReplaceTable(string(b))
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if out == string(b) {
		fmt.Printf("%s: the settings table is up to date\n", path)
		return nil
	}
	if err := challenge.WriteFileAtomic(path, []byte(out)); err != nil {
		return err
	}
	fmt.Printf("%s: settings table regenerated\n", path)
	return nil
}
