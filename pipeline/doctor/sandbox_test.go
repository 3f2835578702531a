package doctor

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rexmle/rexmle/pipeline/checkouttest"
	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/runner"
	"github.com/rexmle/rexmle/pipeline/runner/sandbox"
	"github.com/rexmle/rexmle/pipeline/settings"
)

// A local agent's code outside the system folders: the doctor says, for
// each command, whether its program and script exist inside the bwrap
// sandbox, and the real sandbox agrees: exactly the commands the doctor
// passes run, with the code folder bound read-only at /agent.
func TestDoctorSeesTheSandboxAsTheRunDoes(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bwrap is not installed (Debian package bubblewrap)")
	}
	if err := sandbox.Available(); err != nil {
		t.Fatal(err)
	}
	py := "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil {
		t.Skip("no /usr/bin/python3")
	}
	root, err := os.MkdirTemp("", "rexmle-doctor-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	os.Chmod(root, 0o755) // a root pipeline's sandbox runs as nobody
	code := filepath.Join(root, "my-agent")
	if err := os.MkdirAll(filepath.Join(code, "lib"), 0o755); err != nil {
		t.Fatal(err)
	}
	script := "import os, sys\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), 'lib'))\nimport helper\n" +
		"open('/submission/submission.csv', 'w').write('id\\n1\\n')\nprint('agent ran from', __file__, helper.NAME)\n" +
		"try:\n    open(__file__, 'a')\n    print('code folder writable')\nexcept OSError:\n    print('code folder read-only')\n"
	os.WriteFile(filepath.Join(code, "run.py"), []byte(script), 0o644)
	os.WriteFile(filepath.Join(code, "lib", "helper.py"), []byte("NAME = 'helper'\n"), 0o644)
	os.WriteFile(filepath.Join(code, "tool"), []byte("#!/bin/sh\necho tool > /submission/submission.csv\n"), 0o755)
	os.Symlink("tool", filepath.Join(code, "tool-link"))
	os.WriteFile(filepath.Join(code, "private.py"), []byte("print(1)\n"), 0o600)
	os.MkdirAll(filepath.Join(code, "locked"), 0o700)
	os.WriteFile(filepath.Join(code, "locked", "run.py"), []byte(script), 0o644)
	public := filepath.Join(root, "data", "synthetic", "c1", "public")
	os.MkdirAll(public, 0o755)

	b := &config.Benchmark{Root: root, Paths: config.Paths{Data: "data", Results: "results", Runs: "results/runs", Database: "results/db.sqlite"},
		Challenges: []*config.Challenge{{ID: "c1"}}}
	type localAgent struct {
		id      string
		code    string
		command []string
		runs    bool   // the doctor passes it and the run is done
		detail  string // a piece of the failing row
	}
	agents := []localAgent{
		{"coded", code, []string{"python3", "{code}/run.py", "--data", "{data}"}, true, ""},
		{"coded-abs", code, []string{py, "-u", "/agent/run.py"}, true, ""},
		{"coded-tool", code, []string{"/agent/tool-link"}, true, ""},
		{"outside", "", []string{"python3", filepath.Join(code, "run.py")}, false, `set code = "` + code + `" on agent outside and name it /agent/run.py`},
		{"relative", code, []string{"python3", "run.py"}, false, "/workspace/run.py is not there when the run starts: /workspace starts empty"},
		{"missing", code, []string{"python3", "/agent/nope.py"}, false, "/agent/nope.py does not exist inside the sandbox"},
		{"no-program", code, []string{"/agent/lib/helper.py"}, false, "is not executable"},
		{"not-on-path", code, []string{"my-agent-tool"}, false, "not installed where the sandbox looks"},
	}
	if os.Geteuid() == 0 { // bwrap runs as nobody: what nobody cannot read or reach
		agents = append(agents, localAgent{"unreadable", code, []string{"python3", "/agent/private.py"}, false, "chmod o+r"},
			localAgent{"locked", code, []string{"python3", "/agent/locked/run.py"}, false, "make it searchable by others (chmod o+x " + filepath.Join(code, "locked")})
	}
	prof := config.Profile{Data: "synthetic", TimeLimit: config.Duration{Duration: time.Minute}}
	for _, a := range agents {
		b.Agents = append(b.Agents, config.Agent{ID: a.id, Backend: "none", Executor: "local", Code: a.code, Command: a.command})
		prof.Agents = append(prof.Agents, a.id)
	}
	rep := Run(context.Background(), Input{Bench: b, ProfileName: "t", Profile: prof, Challenges: b.Challenges}, System(settings.NewEnviron(os.Environ())))
	agentBin, _ := checkouttest.Binaries(t) // the sandbox's limits and bridge
	var table bytes.Buffer
	rep.Print(&table)
	for _, a := range agents {
		t.Run(a.id, func(t *testing.T) {
			var fails []Check
			for _, c := range rep.Blocking(a.id, "c1") {
				if c.Area == "executor" {
					fails = append(fails, c)
				}
			}
			if a.runs && len(fails) > 0 {
				t.Errorf("doctor stops it: %v\n%s", fails, table.String())
			}
			if !a.runs && (len(fails) != 1 || !strings.Contains(fails[0].Detail, a.detail)) {
				t.Errorf("doctor rows %v, want one naming %q\n%s", fails, a.detail, table.String())
			}
			pa, err := b.ProfileAgentEnv(prof, a.id, os.Getenv)
			if err != nil {
				t.Fatal(err)
			}
			j := &runner.Job{Group: "t", Challenge: "c1", Agent: pa, Seed: 1, PublicDir: public, TimeLimit: 30 * time.Second, AgentBin: agentBin,
				RunDir: filepath.Join(root, "results", "runs", "t", "c1", a.id, "seed-1")}
			in, err := runner.Execute(context.Background(), j)
			if err != nil {
				t.Fatal(err)
			}
			log, _ := os.ReadFile(filepath.Join(j.RunDir, "logs", "console.log"))
			if done := in.Status == runner.StatusDone; done != a.runs {
				t.Fatalf("the doctor says runs=%v, the sandbox ended %s (%s)\n%s", a.runs, in.Status, in.Error, log)
			}
			if !a.runs {
				return
			}
			if _, err := os.Stat(filepath.Join(j.RunDir, "submission", "submission.csv")); err != nil {
				t.Errorf("no submission: %v\n%s", err, log)
			}
			if strings.Contains(a.command[len(a.command)-1], "run.py") || a.id == "coded" {
				if !strings.Contains(string(log), "agent ran from /agent/run.py helper") || !strings.Contains(string(log), "code folder read-only") {
					t.Errorf("console:\n%s", log)
				}
			}
		})
	}
}
