package scriptedllm

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// Claude's review call as AIDE's Anthropic backend makes it: a forced tool
// answered with a tool_use block whose input follows the schema.
func TestAnthropicMessagesAndToolUse(t *testing.T) {
	srv := start(t, ForAgent("aide"))
	code, m, raw := post(t, srv.URL()+"/v1/messages", `{"model":"claude-sonnet-4-5","max_tokens":100,"system":"You are a reviewer.",
		"messages":[{"role":"user","content":[{"type":"text","text":"Execution output: ok"}]}],
		"tools":[{"name":"submit_review","description":"d","input_schema":{"type":"object","properties":{"is_bug":{"type":"boolean"},"metric":{"type":"number"}}}}],
		"tool_choice":{"type":"tool","name":"submit_review"}}`, "x-api-key", "ak-1", "anthropic-version", "2023-06-01")
	if code != 200 {
		t.Fatalf("%d %s", code, raw)
	}
	content, _ := m["content"].([]any)
	if m["type"] != "message" || m["stop_reason"] != "tool_use" || len(content) != 1 {
		t.Fatalf("response %s", raw)
	}
	block := content[0].(map[string]any)
	input, _ := block["input"].(map[string]any)
	if block["type"] != "tool_use" || block["name"] != "submit_review" || input["is_bug"] != false || input["metric"] != 0.5 || input["has_csv_submission"] != true {
		t.Errorf("block %v", block)
	}
	r := srv.Requests()[0]
	if r.API != "anthropic" || r.Kind != "chat" || r.Auth != "ak-1" || r.Last("system") != "You are a reviewer." || r.ToolChoice != "submit_review" {
		t.Errorf("recorded %+v", r)
	}
	// Without tools: a plan and code in a text block; streaming is refused, not faked.
	_, m, raw = post(t, srv.URL()+"/v1/messages", `{"model":"c","max_tokens":10,"messages":[{"role":"user","content":"solve"}]}`)
	if c := m["content"].([]any)[0].(map[string]any); c["type"] != "text" || !strings.Contains(c["text"].(string), "```python\n") || m["stop_reason"] != "end_turn" {
		t.Errorf("text answer %s", raw)
	}
	if code, _, _ := post(t, srv.URL()+"/v1/messages", `{"model":"c","stream":true,"messages":[{"role":"user","content":"x"}]}`); code != 400 {
		t.Errorf("streamed Messages API: %d, want 400", code)
	}
}

func TestGeminiGenerateContent(t *testing.T) {
	srv := start(t, ForAgent("aide"))
	body := `{"systemInstruction":{"parts":[{"text":"sys"}]},"contents":[{"role":"user","parts":[{"text":"review it"}]}],
		"tools":[{"functionDeclarations":[{"name":"submit_review","parameters":{"type":"object","properties":{"summary":{"type":"string"}}}}]}],
		"toolConfig":{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":["submit_review"]}}}`
	code, m, raw := post(t, srv.URL()+"/v1beta/models/gemini-3-pro-preview:generateContent?key=gk-1", body)
	if code != 200 {
		t.Fatalf("%d %s", code, raw)
	}
	parts := m["candidates"].([]any)[0].(map[string]any)["content"].(map[string]any)["parts"].([]any)
	fc, _ := parts[0].(map[string]any)["functionCall"].(map[string]any)
	if fc["name"] != "submit_review" || fc["args"].(map[string]any)["lower_is_better"] != false {
		t.Errorf("parts %v", parts)
	}
	r := srv.Requests()[0]
	if r.API != "gemini" || r.Model != "gemini-3-pro-preview" || r.Auth != "gk-1" || r.ToolChoice != "submit_review" || r.Messages[0].Role != "system" {
		t.Errorf("recorded %+v", r)
	}
	resp, err := http.Post(srv.URL()+"/v1beta/models/g:streamGenerateContent?alt=sse", "application/json", strings.NewReader(`{"contents":[{"role":"user","parts":[{"text":"go"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var ev map[string]any
	if !strings.HasPrefix(string(b), "data: ") || json.Unmarshal([]byte(strings.TrimSpace(strings.TrimPrefix(string(b), "data: "))), &ev) != nil ||
		!strings.Contains(string(b), "```python") {
		t.Errorf("stream %s", b)
	}
}
