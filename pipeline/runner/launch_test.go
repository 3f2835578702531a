package runner

import (
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rexmle/rexmle/pipeline/config"
)

func containerJob(executor string, network bool, gpus []int) *Job {
	return &Job{Group: "paper", Challenge: "isles22", Seed: 2, PublicDir: "/d/isles22/public", RunDir: "/r/isles22/aide/seed-2",
		TimeLimit: 24 * time.Hour, Grace: 5 * time.Minute, GPUs: gpus,
		Agent: config.Agent{ID: "aide", Executor: executor, Image: "ghcr.io/x/aide:1", Network: network,
			Command: []string{"aide", "data_dir={data}", "log_dir={logs}", "out={submission}", "t={time_limit}", "gpus={gpus}"},
			Env:     []string{"OPENAI_API_KEY", "REXMLE_TEST_UNSET_VAR"}, SetEnv: map[string]string{"MODE": "fast"}}}
}

func TestDockerArgv(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-secret-value")
	j := containerJob("docker", false, []int{2, 5})
	l, err := j.build(&validationServer{socket: "/r/isles22/aide/seed-2/validate.sock"})
	if err != nil {
		t.Fatal(err)
	}
	uid := fmt.Sprintf("%d:%d", os.Getuid(), os.Getgid())
	want := []string{"docker", "run", "--rm", "--init", "--name", containerName(j), "--user", uid,
		"--security-opt", "no-new-privileges", "--cap-drop", "ALL", "--network", "none", "--gpus", `"device=2,5"`,
		"-v", "/d/isles22/public:/data:ro", "-v", "/r/isles22/aide/seed-2/submission:/submission",
		"-v", "/r/isles22/aide/seed-2/logs:/logs", "-v", "/r/isles22/aide/seed-2/workspace:/workspace",
		"-v", "/r/isles22/aide/seed-2/validate.sock:/run/rexmle/validate.sock", "-w", "/workspace",
		"-e", "REXMLE_SEED", "-e", "REXMLE_CHALLENGE", "-e", "REXMLE_TIME_LIMIT", "-e", "REXMLE_VALIDATE_SOCKET",
		"-e", "OPENAI_API_KEY", "-e", "MODE",
		"ghcr.io/x/aide:1", "aide", "data_dir=/data", "log_dir=/logs", "out=/submission", "t=86400", "gpus=0,1"}
	if !reflect.DeepEqual(l.argv, want) {
		t.Fatalf("argv\n%q\nwant\n%q", l.argv, want)
	}
	if strings.Contains(strings.Join(l.argv, " "), "sk-secret-value") {
		t.Fatal("a secret value is on the command line")
	}
	env := strings.Join(l.env, "\n")
	for _, kv := range []string{"OPENAI_API_KEY=sk-secret-value", "MODE=fast", "REXMLE_SEED=2", "REXMLE_VALIDATE_SOCKET=/run/rexmle/validate.sock"} {
		if !strings.Contains(env, kv) {
			t.Errorf("env lacks %s", kv)
		}
	}
	if strings.Contains(env, "REXMLE_TEST_UNSET_VAR") {
		t.Error("an unset variable was passed")
	}
	if l.isolation != "container: docker" || !reflect.DeepEqual(l.stopArgv, []string{"docker", "stop", "--time", "300", containerName(j)}) {
		t.Fatalf("isolation %q stop %q", l.isolation, l.stopArgv)
	}

	// With network allowed and no GPUs: neither --network none nor --gpus.
	l, _ = containerJob("docker", true, nil).build(nil)
	s := strings.Join(l.argv, " ")
	if strings.Contains(s, "--network") || strings.Contains(s, "--gpus") || strings.Contains(s, "validate.sock") {
		t.Fatalf("argv %s", s)
	}
}

func TestApptainerArgv(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-secret-value")
	j := containerJob("apptainer", false, []int{1})
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
