package agentrecipe

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// scriptedAIDE is an LLM endpoint that answers AIDE's (aideml 0.2.2) prompts
// as a model would: drafts, improvements and bug fixes get a short plan and
// one ```python block (testdata/scripted-llm: common.py and the challenge's
// part) that trains a small model on ./input, writes the submission folder,
// checks it with the validation service named in the task text and prints
// its hold-out metric; reviews (the submit_review function AIDE asks for)
// get a tool call whose arguments are read off the execution output. It
// speaks OpenAI chat completions (plain and Azure deployment paths) and
// Anthropic messages, and records every request.
//
// The script per run: drafts 1, 2, 4, 5 work (with more or less noise),
// draft 3 fails half-way; the first debug fixes it; the first improvement
// clears the submission folder, writes part of it and trains far past the
// time limit, so the run is stopped in that step.
type scriptedAIDE struct {
	t         *testing.T
	challenge string
	key       string // the API key every request must carry
	start     time.Time

	mu       sync.Mutex
	events   []recEvent
	drafts   int
	debugs   int
	improves int
	reviews  int
}

var (
	validateURLRe = regexp.MustCompile(`http://127\.0\.0\.1:\d+/validate`)
	metricRe      = regexp.MustCompile(`Validation metric: ([-+0-9.eE]+)`)
	variantRe     = regexp.MustCompile(`(?m)^VARIANT, NOISE, MODE = "([^"]+)"`)
)

func newScriptedAIDE(t *testing.T, challenge string) *scriptedAIDE {
	return &scriptedAIDE{t: t, challenge: challenge, start: time.Now()}
}

// draftPlan is what each draft does: noise added to its predictions (a
// worse model), or a bug.
var draftPlan = []struct {
	noise float64
	mode  string
}{{0, "ok"}, {0.8, "ok"}, {0, "bug"}, {0.3, "ok"}, {1.5, "ok"}}

func (s *scriptedAIDE) program(variant string, noise float64, mode, prompt string) string {
	common, err := os.ReadFile(filepath.Join("testdata", "scripted-llm", "common.py"))
	if err != nil {
		s.t.Errorf("scripted LLM: %v", err)
	}
	part, err := os.ReadFile(filepath.Join("testdata", "scripted-llm", s.challenge+".py"))
	if err != nil {
		s.t.Errorf("scripted LLM: %v", err)
	}
	url := validateURLRe.FindString(prompt)
	if url == "" {
		s.t.Errorf("scripted LLM: the prompt names no validation service (http://127.0.0.1:PORT/validate)")
	}
	r := strings.NewReplacer("@VARIANT@", variant, "@NOISE@", strconv.FormatFloat(noise, 'f', -1, 64), "@MODE@", mode, "@VALIDATE_URL@", url)
	return r.Replace(string(common) + "\n" + string(part))
}

// answer decides what a model would say to one AIDE prompt: (text, tool
// arguments or nil).
func (s *scriptedAIDE) answer(prompt string, wantsTool bool) (string, map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if wantsTool {
		s.reviews++
		return "", review(prompt)
	}
	var variant, mode, plan string
	noise := 0.0
	switch {
	case strings.Contains(prompt, "Your previous solution had a bug"):
		s.debugs++
		variant, mode = fmt.Sprintf("debug-%d", s.debugs), "ok"
		noise = 0.2
		plan = "The previous script failed before it wrote its predictions. This version removes the faulty step, writes every prediction the sample submission lists and checks the folder with the validation service."
	case strings.Contains(prompt, "previously developed solution"):
		s.improves++
		variant, mode = fmt.Sprintf("improve-%d", s.improves), "long"
		plan = "Train a larger model for many more iterations on the full training set, keeping the same hold-out evaluation, then rewrite the submission folder."
	default:
		i := s.drafts % len(draftPlan)
		s.drafts++
		variant, mode, noise = fmt.Sprintf("draft-%d", s.drafts), draftPlan[i].mode, draftPlan[i].noise
		plan = "Start simple: hand-made features from the training data, a small model fitted on three quarters of it and scored on the rest, then predictions for every test case written to the submission folder, which is checked with the validation service."
	}
	code := s.program(variant, noise, mode, prompt)
	return plan + "\n\n```python\n" + code + "```\n", nil
}

// review reads AIDE's review prompt as a model would: the execution output
// decides whether the run failed and what the metric was.
func review(prompt string) map[string]any {
	out := prompt
	if i := strings.LastIndex(prompt, "Execution output"); i >= 0 {
		out = prompt[i:]
	}
	bug := strings.Contains(out, "Traceback") || strings.Contains(out, "VALIDATION: invalid")
	var metric any
	if m := metricRe.FindStringSubmatch(out); m != nil && !bug {
		if v, err := strconv.ParseFloat(m[1], 64); err == nil {
			metric = v
		}
	}
	if metric == nil {
		bug = true
	}
	variant := "the script"
	if m := variantRe.FindStringSubmatch(prompt); m != nil {
		variant = m[1]
	}
	summary := fmt.Sprintf("%s ran to the end: hand-made features and a small model, scored on a hold-out quarter of the training data (metric %v); the validation service accepted the submission folder.", variant, metric)
	if bug {
		last := ""
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, "Error") {
				last = strings.TrimSpace(l)
			}
		}
		summary = fmt.Sprintf("%s failed before it finished its submission (%s); fix the failing step and write every prediction the sample submission lists.", variant, last)
	}
	return map[string]any{"is_bug": bug, "summary": summary, "metric": metric, "lower_is_better": false}
}

// promptOf joins the text of every message of an OpenAI or Anthropic body.
func promptOf(body map[string]any) string {
	var b strings.Builder
	if sys, ok := body["system"].(string); ok {
		b.WriteString(sys + "\n")
	}
	msgs, _ := body["messages"].([]any)
	for _, m := range msgs {
		mm, _ := m.(map[string]any)
		switch c := mm["content"].(type) {
		case string:
			b.WriteString(c + "\n")
		case []any:
			for _, p := range c {
				if pm, ok := p.(map[string]any); ok {
					if s, ok := pm["text"].(string); ok {
						b.WriteString(s + "\n")
					}
				}
			}
		}
	}
	return b.String()
}

func (s *scriptedAIDE) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(io.LimitReader(r.Body, 16<<20))
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		http.Error(w, "want a JSON body: "+err.Error(), http.StatusBadRequest)
		s.record(r, body, http.StatusBadRequest)
		return
	}
	if k := r.Header.Get("Authorization"); k != "Bearer "+s.key && r.Header.Get("api-key") != s.key && r.Header.Get("x-api-key") != s.key {
		s.t.Errorf("scripted LLM: a request without the backend's key (Authorization %q)", k)
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		s.record(r, body, http.StatusUnauthorized)
		return
	}
	anthropic := strings.HasSuffix(r.URL.Path, "/v1/messages")
	chat := strings.HasSuffix(r.URL.Path, "/chat/completions")
	if r.Method != http.MethodPost || (!anthropic && !chat) {
		http.NotFound(w, r)
		s.record(r, body, http.StatusNotFound)
		return
	}
	_, wantsTool := body["tools"]
	text, args := s.answer(promptOf(body), wantsTool)
	model, _ := body["model"].(string)
	w.Header().Set("Content-Type", "application/json")
	if anthropic {
		content := []any{map[string]any{"type": "text", "text": text}}
		stop := "end_turn"
		if args != nil {
			content = []any{map[string]any{"type": "tool_use", "id": "toolu_1", "name": "submit_review", "input": args}}
			stop = "tool_use"
		}
		json.NewEncoder(w).Encode(map[string]any{"id": "msg_1", "type": "message", "role": "assistant", "model": model,
			"content": content, "stop_reason": stop, "usage": map[string]any{"input_tokens": 100, "output_tokens": 50}})
	} else {
		msg := map[string]any{"role": "assistant", "content": text}
		finish := "stop"
		if args != nil {
			a, _ := json.Marshal(args)
			msg = map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"id": "call_1", "type": "function",
				"function": map[string]any{"name": "submit_review", "arguments": string(a)}}}}
			finish = "tool_calls"
		}
		json.NewEncoder(w).Encode(map[string]any{"id": "chatcmpl-1", "object": "chat.completion", "created": time.Now().Unix(),
			"model": model, "system_fingerprint": "scripted", "choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
			"usage": map[string]any{"prompt_tokens": 100, "completion_tokens": 50, "total_tokens": 150}})
	}
	s.record(r, body, http.StatusOK)
}

func (s *scriptedAIDE) record(r *http.Request, body map[string]any, status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	path := r.URL.Path
	if r.URL.RawQuery != "" {
		path += "?" + r.URL.RawQuery
	}
	s.events = append(s.events, recEvent{T: time.Since(s.start).Seconds(), Kind: "llm", Method: r.Method, Path: path,
		Request: cutMessages(body), Status: status})
}

// cutMessages copies a request body with every message text cut to 300
// characters (the recording keeps the shape, not whole prompts).
func cutMessages(body map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range body {
		out[k] = v
	}
	cut := func(s string) string {
		if r := []rune(s); len(r) > 300 {
			return string(r[:300]) + "…"
		}
		return s
	}
	if sys, ok := body["system"].(string); ok {
		out["system"] = cut(sys)
	}
	msgs, _ := body["messages"].([]any)
	var cm []any
	for _, m := range msgs {
		mm, _ := m.(map[string]any)
		c := map[string]any{}
		for k, v := range mm {
			c[k] = v
		}
		if s, ok := mm["content"].(string); ok {
			c["content"] = cut(s)
		}
		cm = append(cm, c)
	}
	if msgs != nil {
		out["messages"] = cm
	}
	return out
}
