package runner

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/runlimits"
	"github.com/rexmle/rexmle/pipeline/settings"
)

// build decides how to start the run without the egress proxy.
func (j *Job) build(val *validationServer) (*launch, error) {
	if j.limits.Pids == 0 { // as Execute resolves them
		l, err := runlimits.Resolve(j.Agent, j.RunDir, runlimits.System())
		if err != nil {
			return nil, err
		}
		j.limits = l
	}
	return j.buildWith(val, "")
}

func containerJob(executor string, network bool, gpus []int) *Job {
	return &Job{Group: "paper", Challenge: "isles22", Seed: 2, PublicDir: "/d/isles22/public", RunDir: "/r/isles22/aide/seed-2",
		TimeLimit: 24 * time.Hour, Grace: 5 * time.Minute, GPUs: gpus,
		Agent: config.Agent{ID: "aide", Executor: executor, Image: "ghcr.io/x/aide:1", Network: network,
			Command: []string{"aide", "data_dir={data}", "log_dir={logs}", "out={submission}", "t={time_limit}", "gpus={gpus}"},
			Env:     []string{"OPENAI_API_KEY", "REXMLE_TEST_UNSET_VAR"}, SetEnv: map[string]string{"MODE": "fast"}}}
}

func TestApptainerArgv(t *testing.T) {
	j := containerJob("apptainer", false, []int{1})
	j.Host = settings.NewEnviron([]string{"OPENAI_API_KEY=sk-secret-value"})
	l, err := j.build(nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"apptainer", "exec", "--containall", "--cleanenv", "--no-home", "--writable-tmpfs", "--nv", "--net", "--network", "none",
		"--bind", "/d/isles22/public:/data:ro,/r/isles22/aide/seed-2/submission:/submission,/r/isles22/aide/seed-2/logs:/logs,/r/isles22/aide/seed-2/workspace:/workspace",
		"--pwd", "/workspace", "ghcr.io/x/aide:1", "aide", "data_dir=/data", "log_dir=/logs", "out=/submission", "t=86400", "gpus=0"}
	if !reflect.DeepEqual(l.argv, want) {
		t.Fatalf("argv\n%q\nwant\n%q", l.argv, want)
	}
	env := strings.Join(l.env, "\n")
	for _, kv := range []string{"APPTAINERENV_OPENAI_API_KEY=sk-secret-value", "APPTAINERENV_MODE=fast", "APPTAINERENV_CUDA_VISIBLE_DEVICES=1"} {
		if !strings.Contains(env, kv) {
			t.Errorf("env lacks %s", kv)
		}
	}
	if strings.Contains(strings.Join(l.argv, " "), "sk-secret-value") {
		t.Fatal("a secret value is on the command line")
	}
}

func TestLocalCommandTemplate(t *testing.T) {
	j := containerJob("local", false, []int{3})
	j.Agent.Sandbox = "none"
	l, err := j.build(nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"aide", "data_dir=/d/isles22/public", "log_dir=/r/isles22/aide/seed-2/logs", "out=/r/isles22/aide/seed-2/submission", "t=86400", "gpus=3"}
	if !reflect.DeepEqual(l.argv, want) || !strings.Contains(strings.Join(l.env, "\n"), "CUDA_VISIBLE_DEVICES=3") {
		t.Fatalf("argv %q env %q", l.argv, l.env)
	}
	// The sandbox is the default: a data folder it cannot bind fails the
	// build (the run), naming it; it never falls back to no isolation.
	for _, mode := range []string{"", "bwrap", "auto"} {
		j.Agent.Sandbox = mode
		if l, err := j.build(nil); err == nil || !(strings.Contains(err.Error(), "/d/isles22") || strings.Contains(err.Error(), "bwrap is not installed")) {
			t.Fatalf("sandbox %q over a missing data folder: %+v %v", mode, l, err)
		}
	}
	for _, ex := range []string{"docker", "apptainer"} {
		j := containerJob(ex, false, nil)
		j.Agent.Image = ""
		if _, err := j.build(nil); err == nil {
			t.Errorf("%s without an image accepted", ex)
		}
	}
}

// An agent's code folder is mounted read-only at /agent in containers, and
// {code} names it there; with sandbox = "none" {code} is the host folder.
func TestCodeFolderMounts(t *testing.T) {
	fakeEngines(t)
	for _, ex := range []string{"docker", "apptainer"} {
		j := containerJob(ex, false, nil)
		j.Agent.Code = "/src/my-agent"
		j.Agent.Command = []string{"python3", "{code}/run.py", "{data}"}
		l, err := j.build(nil)
		if err != nil {
			t.Fatal(err)
		}
		s := strings.Join(l.argv, " ")
		mount := "-v /src/my-agent:/agent:ro"
		if ex == "apptainer" {
			mount = ",/src/my-agent:/agent:ro"
		}
		if !strings.Contains(s, mount) || !strings.HasSuffix(s, "python3 /agent/run.py /data") {
			t.Errorf("%s argv %s", ex, s)
		}
	}
	j := containerJob("local", false, nil)
	j.Agent.Sandbox, j.Agent.Code, j.Agent.Command = "none", "/src/my-agent", []string{"python3", "{code}/run.py"}
	l, err := j.build(nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(l.argv, []string{"python3", "/src/my-agent/run.py"}) {
		t.Errorf("unsandboxed argv %q", l.argv)
	}
}
