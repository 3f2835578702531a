package agentrecipe

import (
	"encoding/json"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAIDEGeminiReviewToolCall runs aideml 0.2.2's own Gemini backend
// (backend_gemini.query) on a review prompt with AIDE's submit_review spec,
// against the scripted LLM. backend_gemini builds its client on Google's
// fixed URL (no variable changes it, benchmark/known-issues.toml
// aide-gemini-base-url-fixed), so a loopback run of the whole loop is not
// possible: this calls AIDE's setup, checks that URL, and swaps only the
// client's base URL. The request must carry the forced tool, and the tool
// call's arguments must come back as the dict AIDE's parse_exec_result reads.
// Needs REXMLE_AIDE_SOURCE, as TestAIDELive.
func TestAIDEGeminiReviewToolCall(t *testing.T) {
	src := aideSource(t)
	llm := newScriptedAIDE(t, "ldct-iqa")
	llm.key = "gemini-key-0815"
	srv := httptest.NewServer(llm)
	defer srv.Close()
	script := `import json, sys, openai
from aide.backend import backend_gemini as g
from aide.agent import review_func_spec
g._setup_gemini_client()
assert str(g._client.base_url) == "https://generativelanguage.googleapis.com/v1beta/openai/", g._client.base_url
g._client = openai.OpenAI(api_key=g._client.api_key, base_url=sys.argv[1], max_retries=0)
out = g.query(system_message=sys.argv[2], user_message=None, func_spec=review_func_spec, model="gemini-3-pro-preview", temperature=1)[0]
print(json.dumps(out))`
	prompt := "# Introduction\n\nYou are a Kaggle grandmaster attending a competition.\n\n# Implementation\n\n```python\nVARIANT, NOISE, MODE = \"draft-1\", float(\"0\"), \"ok\"\n```\n\n# Execution output\n\n```\nValidation metric: 2.750968\nVALIDATION: valid - Submission is valid.\n```\n"
	cmd := exec.Command("/usr/bin/python3", "-c", script, srv.URL+"/v1beta/openai/", prompt)
	cmd.Env = []string{"PYTHONPATH=" + filepath.Join(src, "site") + ":" + filepath.Join(src, "shim"), "GEMINI_API_KEY=" + llm.key, "HOME=" + t.TempDir()}
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("backend_gemini.query: %v\n%s", err, ee.Stderr)
		}
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("answer %q: %v", out, err)
	}
	if got["is_bug"] != false || got["metric"] != 2.750968 || got["lower_is_better"] != false {
		t.Errorf("AIDE read the review as %v", got)
	}
	if len(llm.events) != 1 {
		t.Fatalf("%d requests", len(llm.events))
	}
	req := llm.events[0].Request
	tools, _ := json.Marshal(req["tools"])
	choice, _ := json.Marshal(req["tool_choice"])
	if !strings.Contains(string(tools), `"submit_review"`) || !strings.Contains(string(choice), `"submit_review"`) || req["model"] != "gemini-3-pro-preview" {
		t.Errorf("request tools %s, tool_choice %s, model %v", tools, choice, req["model"])
	}
	t.Logf("Gemini backend: %s %s, tools %s, tool_choice %s → %v", llm.events[0].Method, llm.events[0].Path, tools, choice, got)
}
