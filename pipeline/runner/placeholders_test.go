package runner

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The README's "Bring your own agent" table lists exactly the placeholders
// the runner replaces (benchmark.toml sends users there), in its order, and
// each of them is replaced in a command.
func TestReadmeListsThePlaceholders(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "### Bring your own agent")
	if i < 0 {
		t.Fatal(`README.md has no "Bring your own agent" section`)
	}
	sec := s[i:]
	if j := strings.Index(sec[4:], "\n### "); j >= 0 {
		sec = sec[:j+4]
	}
	row := regexp.MustCompile("(?m)^\\| `(\\{[a-z_]+\\})` \\|")
	var listed []string
	for _, m := range row.FindAllStringSubmatch(sec, -1) {
		listed = append(listed, m[1])
	}
	if strings.Join(listed, " ") != strings.Join(Placeholders, " ") {
		t.Errorf("README lists %v, the runner replaces %v", listed, Placeholders)
	}
	j := &Job{Challenge: "isles22", Seed: 3, PublicDir: "/d/pub", RunDir: "/r/run", TimeLimit: 90 * time.Second, GPUs: []int{1, 2}}
	j.Agent.ID, j.Agent.Code = "mine", "/home/me/mine"
	j.Agent.Command = append([]string{"run"}, Placeholders...)
	argv, err := j.command(agentPaths{data: "/data", submission: "/submission", logs: "/logs", workspace: "/workspace", socket: "/v.sock", code: "/agent"}, "0,1")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"run", "/data", "/submission", "/logs", "/workspace", "/agent", "90", "isles22", "3", "0,1", "/v.sock"}
	if strings.Join(argv, " ") != strings.Join(want, " ") {
		t.Errorf("expanded %q, want %q", argv, want)
	}
}
