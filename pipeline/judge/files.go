package judge

import (
	"path"
	"strings"
)

// Agent families: which of a run's log files the judge reads follows the
// agent, as the paper's judge read one kind of file per agent.
const (
	familyAIDE     = "aide"
	familyMLMaster = "ml-master"
	familyRDAgent  = "rd-agent"
	familyOther    = ""
)

// agentFamily maps an agent id to its family by prefix, ignoring case and
// punctuation: "aide", "aide-claude" → aide; "ml-master", "mlmaster-72h" →
// ml-master; "rd-agent", "rdagent" → rd-agent; anything else → other.
func agentFamily(agent string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(agent) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	id := b.String()
	switch {
	case strings.HasPrefix(id, "aide"):
		return familyAIDE
	case strings.HasPrefix(id, "mlmaster"):
		return familyMLMaster
	case strings.HasPrefix(id, "rdagent"):
		return familyRDAgent
	}
	return familyOther
}

// runnerFiles are files the runner itself writes into logs/: the agent's
// console (stdout and stderr) and its working-time report. They are judged
// only for agents that write no log of their own.
var runnerFiles = map[string]bool{"console.log": true, "working_time.json": true}

// SelectLogFiles picks, from the slash-separated paths of the files under
// a run's logs/ folder (sorted), the ones the judge reads for agent — the
// files the paper's judge read for that agent, as the adapters copy them
// out (agents/README.md):
//
//   - AIDE: every journal.json (AIDE's solution tree; its analyses are the
//     judged text). Not filtered_journal.json (a subset) nor AIDE's console.
//   - ML-Master: its own log, ml-master.verbose.log (every record, with the
//     prompts holding "# Analysis" and the model responses); where there is
//     none, ml-master.log, else the harness-style run.log.
//   - R&D-Agent: rdagent-trace.txt (RDAgentTraceFile), else the reference's
//     unpickled_data.txt, else every .txt file (the adapter's text rendering
//     of each pickle) except the runner's own files.
//   - any other agent (built-in baselines, the stand-in, configured
//     commands): its step logs (*.jsonl) where it writes any, else every
//     file (format detection skips what is not text).
//
// A run of a paper agent with none of its files has nothing to judge: the
// runner's console.log (where a failed start writes "executable not
// found") is never pooled into a paper agent's profile.
func SelectLogFiles(files []string, agent string) []string {
	base := func(f string) string { return strings.ToLower(path.Base(f)) }
	pick := func(names ...string) []string {
		for _, n := range names {
			var out []string
			for _, f := range files {
				if base(f) == n {
					out = append(out, f)
				}
			}
			if len(out) > 0 {
				return out
			}
		}
		return nil
	}
	switch agentFamily(agent) {
	case familyAIDE:
		return pick("journal.json")
	case familyMLMaster:
		return pick("ml-master.verbose.log", "ml-master.log", "run.log")
	case familyRDAgent:
		if out := pick(RDAgentTraceFile, "unpickled_data.txt"); out != nil {
			return out
		}
		var out []string
		for _, f := range files {
			if strings.HasSuffix(base(f), ".txt") && !runnerFiles[f] {
				out = append(out, f)
			}
		}
		return out
	}
	var steps []string
	for _, f := range files {
		if strings.HasSuffix(base(f), ".jsonl") {
			steps = append(steps, f)
		}
	}
	if len(steps) > 0 {
		return steps
	}
	return files
}
