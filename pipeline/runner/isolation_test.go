package runner

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const secret = "PRIVATE-ANSWER-7f3a9c"

// TestAgentCannotReadPrivateAnswers runs a fake agent that reads every file
// under the public data, its run folder, the data root, the results root and
// the whole test tree, looks at its environment, and opens the private
// answers by their known paths (also through /proc/<runner>/root). Under
// namespace isolation it must find nothing and be unable to write into the
// public data; without it (the plain fallback) nothing private may be under
// its data, run folder or environment.
func TestAgentCannotReadPrivateAnswers(t *testing.T) {
	for _, mode := range []string{"auto", "none"} {
		t.Run(mode, func(t *testing.T) {
			root := t.TempDir()
			priv := filepath.Join(root, "data", "c1", "private", "answers.csv")
			raw := filepath.Join(root, "data", "raw", "c1", "labels.csv")
			db := filepath.Join(root, "results", "rexmle.sqlite")
			other := filepath.Join(root, "results", "runs", "g", "c1", "other", "seed-1", "submission", "copied_answers.csv")
			for _, p := range []string{priv, raw, db, other} {
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.WriteFile(p, []byte("case,label\n1,"+secret+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			j := newJob(t, root, "snoop", mode)
			os.WriteFile(filepath.Join(j.PublicDir, "train.csv"), []byte("case,label\n0,public\n"), 0o644)
			report := filepath.Join(j.RunDir, "logs", "snoop.json")
			privs := strings.Join([]string{priv, raw, db, other}, ",")
			j.Agent.Command = []string{os.Args[0], "snoop", report, privs,
				"{data}", "{workspace}", "{submission}", "{logs}", filepath.Join(root, "data"), filepath.Join(root, "results"), root}
			j.Agent.SetEnv = map[string]string{"SNOOP_PUBLIC": j.PublicDir, "SNOOP_SECRET": secret}
			in, err := Execute(context.Background(), j)
			if err != nil || in.Status != StatusDone {
				t.Fatalf("%+v %v", in, err)
			}
			b, err := os.ReadFile(report)
			if err != nil {
				t.Fatalf("no report: %v", err)
			}
			var r snoopReport
			if err := json.Unmarshal(b, &r); err != nil {
				t.Fatal(err)
			}
			t.Logf("isolation %q: read %d files; direct-open errors: %v", in.Isolation, r.Files, r.DirectErrs)
			if r.Files == 0 {
				t.Fatal("the agent read no file at all: the search did not run")
			}
			if len(r.EnvLeaks) > 0 {
				t.Errorf("environment leaks: %v", r.EnvLeaks)
			}
			if strings.HasPrefix(in.Isolation, "namespaces") {
				if len(r.Found) > 0 || len(r.Direct) > 0 {
					t.Errorf("sandboxed agent read private answers: found %v, direct %v", r.Found, r.Direct)
				}
				if len(r.Wrote) > 0 {
					t.Errorf("sandboxed agent wrote into the public data")
				}
				return
			}
			if mode == "auto" {
				t.Logf("namespaces unavailable here: %s", in.Isolation)
			}
			// Plain fallback: the answers are readable by path (nothing stops
			// it), but none is under what the agent is given.
			for _, f := range r.Found {
				for _, given := range []string{j.PublicDir, j.RunDir} {
					if strings.HasPrefix(f, given+"/") {
						t.Errorf("private answers under the agent's own folders: %s", f)
					}
				}
			}
			if len(r.Found) == 0 {
				t.Errorf("plain run found nothing, but the answers are readable there: the search is broken")
			}
		})
	}
}

// TestNoNetworkUnlessAllowed: a sandboxed agent without network = true
// cannot reach a server on the host's loopback; with it, it can.
func TestNoNetworkUnlessAllowed(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	for _, allowed := range []bool{false, true} {
		j := newJob(t, t.TempDir(), "net", "auto")
		j.Agent.Network = allowed
		out := filepath.Join(j.RunDir, "logs", "dial.txt")
		j.Agent.Command = []string{os.Args[0], "dial", ln.Addr().String(), out}
		in, err := Execute(context.Background(), j)
		if err != nil || in.Status != StatusDone {
			t.Fatalf("%+v %v", in, err)
		}
		if !strings.HasPrefix(in.Isolation, "namespaces") {
			t.Skipf("no namespaces here: %s", in.Isolation)
		}
		b, _ := os.ReadFile(out)
		if got := string(b) == "connected"; got != allowed {
			t.Errorf("network allowed %v: dial said %q (isolation %s)", allowed, b, in.Isolation)
		}
	}
}
