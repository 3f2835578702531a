//go:build ignore

// The zero-install bootstrap: `go run mage.go <target>` runs the targets of
// magefile.go with nothing but Go installed.
package main

import (
	"os"

	"github.com/magefile/mage/mage"
)

func main() { os.Exit(mage.Main()) }
