package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func has(argv []string, seq ...string) bool {
	for i := 0; i+len(seq) <= len(argv); i++ {
		ok := true
		for k, s := range seq {
			if argv[i+k] != s {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// TestBuild: the command line isolates as the package says, binds each
// folder through an fd in order, and shares the network only when asked.
func TestBuild(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bwrap is not installed (Debian package bubblewrap)")
	}
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	os.Chmod(filepath.Dir(dir), 0o755)
	data, sub := filepath.Join(dir, "data"), filepath.Join(dir, "sub")
	os.Mkdir(data, 0o755)
	os.Mkdir(sub, 0o755)
	s := Spec{Binds: []Bind{{Host: data, Inside: "/data"}, {Host: sub, Inside: "/submission", RW: true}}, Cwd: "/submission", Argv: []string{"agent", "--x"}}
	c, err := s.Build()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, seq := range [][]string{{"--unshare-user", "--uid", "1000", "--gid", "1000", "--disable-userns"}, {"--unshare-pid"}, {"--unshare-ipc"},
		{"--unshare-uts"}, {"--unshare-cgroup-try"}, {"--unshare-net"}, {"--die-with-parent"}, {"--new-session"}, {"--cap-drop", "ALL"},
		{"--ro-bind", "/usr", "/usr"}, {"--proc", "/proc"}, {"--dev", "/dev"}, {"--tmpfs", "/tmp"},
		{"--ro-bind-fd", "3", "/data"}, {"--bind-fd", "4", "/submission"}, {"--chdir", "/submission"}, {"--", "agent", "--x"}} {
		if !has(c.Argv, seq...) {
			t.Errorf("argv lacks %q:\n%q", seq, c.Argv)
		}
	}
	if len(c.Files) != 2 || c.Files[0].Name() != data || c.Files[1].Name() != sub {
		t.Fatalf("fds %v", c.Files)
	}
	if strings.Contains(strings.Join(c.Argv, " "), dir) {
		t.Errorf("a host path of a bind is on the command line (binds go by fd): %q", c.Argv)
	}
	for _, a := range c.Argv {
		if a == os.Getenv("HOME") && a != "" {
			t.Errorf("HOME is bound: %q", c.Argv)
		}
	}
	s.Network = true
	c2, err := s.Build()
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if has(c2.Argv, "--unshare-net") {
		t.Errorf("network = true still unshares the network")
	}
	// A bind that does not exist fails the build, naming it.
	s.Binds = append(s.Binds, Bind{Host: filepath.Join(dir, "missing"), Inside: "/x"})
	if _, err := s.Build(); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("missing bind: %v", err)
	}
}

// TestReachable: as root (bwrap runs as nobody), a bind under a folder
// others cannot search is refused with the folder and the fix named.
func TestReachable(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only a root pipeline runs bwrap as nobody")
	}
	dir := t.TempDir() // mode 0700
	p := filepath.Join(dir, "data")
	os.Mkdir(p, 0o755)
	err := Reachable(p)
	if err == nil || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "chmod o+x") {
		t.Fatalf("%v", err)
	}
	os.Chmod(dir, 0o711)
	os.Chmod(filepath.Dir(dir), 0o711)
	if err := Reachable(p); err != nil {
		t.Fatal(err)
	}
}
