// Command rexmle-bridge runs inside an agent's container: it listens on
// loopback ports and forwards each connection to a Unix socket mounted from
// the host (the egress proxy, the validation endpoint), then runs the agent
// as its child and exits with its exit code.
//
//	rexmle-bridge [bridge] [-listen ADDR -socket PATH]... -- COMMAND...
//
// It is the `bridge` subcommand of rexmle-agent in a binary with no cgo, so
// that it can be built static (CGO_ENABLED=0) and run in any image,
// whatever libc the image has.
package main

import (
	"os"

	"github.com/rexmle/rexmle/pipeline/runner/egress"
)

func main() {
	args := os.Args[1:]
	if len(args) > 0 && args[0] == "bridge" {
		args = args[1:]
	}
	os.Exit(egress.BridgeMain(args))
}
