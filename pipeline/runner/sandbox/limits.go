package sandbox

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// Limits are the rlimits every process of a sandboxed run gets (0: none).
// They are set inside the sandbox, by the first process there (see
// LimitsArgs), not on bwrap: RLIMIT_NPROC then counts the processes and
// threads of the sandbox's own user namespace, so one run's count is not
// shared with other runs of the same host user (nobody).
type Limits struct {
	Procs    uint64 // RLIMIT_NPROC: processes and threads of the run
	Data     uint64 // RLIMIT_DATA: one process's heap and private writable memory
	FileSize uint64 // RLIMIT_FSIZE: the largest file a process may write
}

// LimitsArgs wraps argv with `bin limits`, which sets l and then executes
// argv (bin is the rexmle-agent binary inside the sandbox).
func LimitsArgs(bin string, l Limits, argv []string) []string {
	args := []string{bin, "limits", "-nproc", strconv.FormatUint(l.Procs, 10), "-data", strconv.FormatUint(l.Data, 10),
		"-fsize", strconv.FormatUint(l.FileSize, 10), "--"}
	return append(args, argv...)
}

// rlimitNPROC is RLIMIT_NPROC on Linux (not in package syscall).
const rlimitNPROC = 6

// LimitsMain is `rexmle-agent limits -nproc N -data BYTES -fsize BYTES -- COMMAND...`:
// it lowers its soft and hard limits (a process without CAP_SYS_RESOURCE
// cannot raise them again) and executes COMMAND in its place. It exits 126
// when it cannot.
func LimitsMain(args []string) int {
	fs := flag.NewFlagSet("limits", flag.ContinueOnError)
	nproc := fs.Uint64("nproc", 0, "RLIMIT_NPROC (0: unchanged)")
	data := fs.Uint64("data", 0, "RLIMIT_DATA in bytes (0: unchanged)")
	fsize := fs.Uint64("fsize", 0, "RLIMIT_FSIZE in bytes (0: unchanged)")
	if err := fs.Parse(args); err != nil {
		return 126
	}
	argv := fs.Args()
	if len(argv) == 0 {
		fmt.Fprintln(os.Stderr, "rexmle-agent limits: no command")
		return 126
	}
	for _, r := range []struct {
		res  int
		v    uint64
		name string
	}{{rlimitNPROC, *nproc, "processes"}, {syscall.RLIMIT_DATA, *data, "data"}, {syscall.RLIMIT_FSIZE, *fsize, "file size"}} {
		if r.v == 0 {
			continue
		}
		if err := syscall.Setrlimit(r.res, &syscall.Rlimit{Cur: r.v, Max: r.v}); err != nil {
			fmt.Fprintf(os.Stderr, "rexmle-agent limits: set the %s limit to %d: %v\n", r.name, r.v, err)
			return 126
		}
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		fmt.Fprintf(os.Stderr, "rexmle-agent limits: %v\n", err)
		return 126
	}
	err = syscall.Exec(path, argv, os.Environ())
	fmt.Fprintf(os.Stderr, "rexmle-agent limits: execute %s: %v\n", argv[0], err)
	return 126
}
