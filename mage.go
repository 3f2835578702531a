//go:build ignore

// The zero-install bootstrap: `go run mage.go <target>` runs the targets of
// magefile.go with nothing but Go installed.
package main

import (
	"fmt"
	"os"

	"github.com/magefile/mage/mage"
	"github.com/magefile/mage/mg"
)

func main() {
	// Mage compiles magefile.go, and with it the whole pipeline, before any
	// target runs, and says nothing meanwhile: on a first run that is most
	// of its time, so say so.
	if exe, err := mage.ExeName("go", mg.CacheDir(), []string{"magefile.go"}); err == nil {
		if _, err := os.Stat(exe); err != nil {
			fmt.Fprintln(os.Stderr, "mage: compiling the pipeline first (a first run in a fresh clone compiles rexmle, SQLite and their dependencies: about 1-2 min on 2 cores)…")
		}
	}
	os.Exit(mage.Main())
}
