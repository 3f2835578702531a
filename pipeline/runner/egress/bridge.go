package egress

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
)

// Forward is one bridge: a TCP listener on Listen (loopback inside the
// sandbox) whose connections go to the Unix socket Socket.
type Forward struct {
	Listen string
	Socket string
}

// BridgeArgs is the `rexmle-agent bridge` command line for forwards and
// the agent's argv (bin is the rexmle-agent binary as the sandbox sees it).
func BridgeArgs(bin string, forwards []Forward, argv []string) []string {
	args := []string{bin, "bridge"}
	for _, f := range forwards {
		args = append(args, "-listen", f.Listen, "-socket", f.Socket)
	}
	return append(append(args, "--"), argv...)
}

type strs []string

func (s *strs) String() string     { return strings.Join(*s, ",") }
func (s *strs) Set(v string) error { *s = append(*s, v); return nil }

// BridgeMain is `rexmle-agent bridge -listen ADDR -socket PATH [...] -- COMMAND...`:
// the i-th -listen goes to the i-th -socket. It starts the listeners, runs
// COMMAND as its child in a process group of its own, forwards SIGTERM,
// SIGINT and SIGHUP to that group and returns the child's exit code
// (128+signal when a signal ended it; 126 when the bridge cannot start).
func BridgeMain(args []string) int {
	fs := flag.NewFlagSet("bridge", flag.ContinueOnError)
	var listens, sockets strs
	fs.Var(&listens, "listen", "TCP address to listen on, e.g. 127.0.0.1:3128 (repeatable)")
	fs.Var(&sockets, "socket", "Unix socket the matching -listen forwards to (repeatable)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	argv := fs.Args()
	if len(argv) == 0 || len(listens) != len(sockets) {
		fmt.Fprintln(os.Stderr, "usage: rexmle-agent bridge [-listen ADDR -socket PATH]... -- COMMAND...")
		return 2
	}
	var fw []Forward
	for i := range listens {
		fw = append(fw, Forward{Listen: listens[i], Socket: sockets[i]})
	}
	code, err := Bridge(context.Background(), fw, argv)
	if err != nil {
		fmt.Fprintf(os.Stderr, "rexmle-agent bridge: %v\n", err)
	}
	return code
}

// Bridge listens on each forward, runs argv and returns its exit code.
func Bridge(ctx context.Context, forwards []Forward, argv []string) (int, error) {
	var lns []net.Listener
	defer func() {
		for _, ln := range lns {
			ln.Close()
		}
	}()
	for _, f := range forwards {
		ln, err := net.Listen("tcp", f.Listen)
		if err != nil {
			return 126, fmt.Errorf("listen on %s: %w", f.Listen, err)
		}
		lns = append(lns, ln)
		go serve(ln, f.Socket)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		return 126, fmt.Errorf("start %s: %w", argv[0], err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for {
		select {
		case s := <-sigs:
			syscall.Kill(-cmd.Process.Pid, s.(syscall.Signal))
		case <-ctx.Done():
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		case err := <-done:
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
					return 128 + int(ws.Signal()), nil
				}
				return ee.ExitCode(), nil
			}
			if err != nil {
				return 126, err
			}
			return 0, nil
		}
	}
}

func serve(ln net.Listener, socket string) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			u, err := net.Dial("unix", socket)
			if err != nil {
				c.Close()
				return
			}
			splice(c, u)
			c.Close()
			u.Close()
		}()
	}
}
