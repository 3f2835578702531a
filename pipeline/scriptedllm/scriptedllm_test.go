package scriptedllm

import (
	"bufio"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"
)

func post(t *testing.T, url, body string, hdr ...string) (int, map[string]any, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var m map[string]any
	json.Unmarshal(b, &m)
	return resp.StatusCode, m, string(b)
}

func start(t *testing.T, s Script) *Server {
	t.Helper()
	srv, err := Start(s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

func message(t *testing.T, m map[string]any) map[string]any {
	t.Helper()
	ch, _ := m["choices"].([]any)
	if len(ch) != 1 {
		t.Fatalf("choices %v", m)
	}
	msg, _ := ch[0].(map[string]any)["message"].(map[string]any)
	return msg
}

func TestChatAnswersAPlanAndCodeAndRecordsTheRequest(t *testing.T) {
	srv := start(t, Engineer{Plan: "Plan: mean.", Code: "print(1)"})
	code, m, raw := post(t, srv.BaseURL()+"/chat/completions",
		`{"model":"gpt-5","messages":[{"role":"system","content":"be brief"},{"role":"user","content":[{"type":"text","text":"solve it"}]}]}`,
		"Authorization", "Bearer k-123")
	if code != 200 {
		t.Fatalf("status %d: %s", code, raw)
	}
	msg := message(t, m)
	if msg["content"] != "Plan: mean.\n\n```python\nprint(1)\n```\n" || msg["role"] != "assistant" {
		t.Errorf("message %v", msg)
	}
	if m["object"] != "chat.completion" || m["model"] != "gpt-5" || m["choices"].([]any)[0].(map[string]any)["finish_reason"] != "stop" {
		t.Errorf("response %s", raw)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	if r.Seq != 1 || r.Kind != "chat" || r.Model != "gpt-5" || r.Auth != "Bearer k-123" || len(r.Messages) != 2 ||
		r.Messages[1].Content != "solve it" || r.Last("system") != "be brief" || r.Stream {
		t.Errorf("recorded %+v", r)
	}
}

func TestToolCallsFollowTheRequestedTool(t *testing.T) {
	srv := start(t, ForAgent("aide"))
	schema := `{"type":"object","properties":{"is_bug":{"type":"boolean"},"has_csv_submission":{"type":"boolean"},"summary":{"type":"string"},` +
		`"metric":{"type":["number","null"]},"lower_is_better":{"type":"boolean"},"mode":{"type":"string","enum":["a","b"]},"n":{"type":"integer"}},"required":["is_bug"]}`
	for _, tc := range []struct {
		name, body, finish string
		legacy             bool
	}{
		{"tools, forced", `{"model":"m","messages":[{"role":"user","content":"review"}],"tools":[{"type":"function","function":{"name":"other","parameters":{}}},{"type":"function","function":{"name":"submit_review","parameters":` + schema + `}}],"tool_choice":{"type":"function","function":{"name":"submit_review"}}}`, "tool_calls", false},
		{"legacy functions", `{"model":"m","messages":[{"role":"user","content":"review"}],"functions":[{"name":"submit_review","parameters":` + schema + `}],"function_call":{"name":"submit_review"}}`, "function_call", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, m, raw := post(t, srv.BaseURL()+"/chat/completions", tc.body)
			if code != 200 {
				t.Fatalf("%d %s", code, raw)
			}
			msg := message(t, m)
			if msg["content"] != nil {
				t.Errorf("content %v, want null beside a tool call", msg["content"])
			}
			var fn map[string]any
			if tc.legacy {
				fn, _ = msg["function_call"].(map[string]any)
			} else {
				calls, _ := msg["tool_calls"].([]any)
				if len(calls) != 1 {
					t.Fatalf("tool_calls %v", msg)
				}
				c := calls[0].(map[string]any)
				if c["type"] != "function" || c["id"] == "" {
					t.Errorf("call %v", c)
				}
				fn, _ = c["function"].(map[string]any)
			}
			if fn["name"] != "submit_review" {
				t.Fatalf("function %v", fn)
			}
			var args map[string]any
			if err := json.Unmarshal([]byte(fn["arguments"].(string)), &args); err != nil {
				t.Fatalf("arguments are not a JSON string: %v", fn["arguments"])
			}
			if args["is_bug"] != false || args["has_csv_submission"] != true || args["metric"] != 0.5 || args["lower_is_better"] != false ||
				args["mode"] != "a" || args["n"] != 1.0 || !strings.Contains(args["summary"].(string), "sample submission") {
				t.Errorf("arguments %v", args)
			}
			if f := m["choices"].([]any)[0].(map[string]any)["finish_reason"]; f != tc.finish {
				t.Errorf("finish_reason %v, want %s", f, tc.finish)
			}
		})
	}
	if rs := srv.Requests(); len(rs) != 2 || rs[0].ToolChoice != "submit_review" || rs[1].ToolChoice != "submit_review" || !rs[1].Legacy || len(rs[0].Tools) != 2 {
		t.Errorf("recorded %+v", rs)
	}
}

func TestStreamingSendsChunksThenDone(t *testing.T) {
	srv := start(t, Sequence(Reply{Content: "hello"}, Reply{ToolCalls: []ToolCall{{Name: "f", Arguments: `{"x":1}`}}}))
	for i, want := range []string{"hello", "tool"} {
		resp, err := http.Post(srv.BaseURL()+"/chat/completions", "application/json",
			strings.NewReader(`{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f"}}],"tool_choice":"auto"}`))
		if err != nil {
			t.Fatal(err)
		}
		if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
			t.Errorf("content type %q", ct)
		}
		sc := bufio.NewScanner(resp.Body)
		var content, args, finish string
		done := false
		for sc.Scan() {
			line := sc.Text()
			if line == "" {
				continue
			}
			if !strings.HasPrefix(line, "data: ") {
				t.Fatalf("line %q", line)
			}
			data := strings.TrimPrefix(line, "data: ")
			if data == "[DONE]" {
				done = true
				continue
			}
			var c struct {
				Object  string `json:"object"`
				Choices []struct {
					Delta struct {
						Content   string `json:"content"`
						ToolCalls []struct {
							Index    int `json:"index"`
							Function struct {
								Name, Arguments string
							} `json:"function"`
						} `json:"tool_calls"`
					} `json:"delta"`
					FinishReason *string `json:"finish_reason"`
				} `json:"choices"`
			}
			if err := json.Unmarshal([]byte(data), &c); err != nil || c.Object != "chat.completion.chunk" {
				t.Fatalf("chunk %s: %v", data, err)
			}
			content += c.Choices[0].Delta.Content
			for _, tc := range c.Choices[0].Delta.ToolCalls {
				args += tc.Function.Name + tc.Function.Arguments
			}
			if c.Choices[0].FinishReason != nil {
				finish = *c.Choices[0].FinishReason
			}
		}
		resp.Body.Close()
		if !done {
			t.Error("no [DONE]")
		}
		if i == 0 && (content != want || finish != "stop") {
			t.Errorf("stream 1: %q %q", content, finish)
		}
		if i == 1 && (args != `f{"x":1}` || finish != "tool_calls") {
			t.Errorf("stream 2: %q %q", args, finish)
		}
	}
}

func TestAzurePathsErrorsEmbeddingsAndUnknownPaths(t *testing.T) {
	srv := start(t, Rules(Engineer{Code: "x=1"},
		Rule{When: Contains("rate me"), Reply: ScriptFunc(func(*Request) Reply { return Reply{Status: 429, Content: "slow down"} })}))
	code, m, _ := post(t, srv.URL()+"/openai/deployments/gpt-5/chat/completions?api-version=2024-12-01-preview",
		`{"messages":[{"role":"user","content":"go"}]}`, "api-key", "az-key")
	if code != 200 || !strings.Contains(message(t, m)["content"].(string), "```python\nx=1\n```") {
		t.Errorf("azure path: %d %v", code, m)
	}
	code, m, _ = post(t, srv.BaseURL()+"/chat/completions", `{"model":"m","messages":[{"role":"user","content":"rate me"}]}`)
	if e, _ := m["error"].(map[string]any); code != 429 || e["message"] != "slow down" || e["type"] != "rate_limit_error" {
		t.Errorf("error reply: %d %v", code, m)
	}
	code, m, _ = post(t, srv.BaseURL()+"/embeddings", `{"model":"emb","input":["a","b"]}`)
	data, _ := m["data"].([]any)
	if code != 200 || len(data) != 2 {
		t.Fatalf("embeddings: %d %v", code, m)
	}
	v0 := data[0].(map[string]any)["embedding"].([]any)
	var norm float64
	for _, x := range v0 {
		norm += x.(float64) * x.(float64)
	}
	if len(v0) != 16 || math.Abs(norm-1) > 1e-9 {
		t.Errorf("embedding of length %d, norm² %v", len(v0), norm)
	}
	if a, b := Embedding("a", 16), Embedding("a", 16); a[3] != b[3] || Embedding("b", 16)[3] == a[3] {
		t.Error("embeddings are not deterministic per text")
	}
	code, _, _ = post(t, srv.BaseURL()+"/completions", `{"prompt":"x"}`)
	if code != 404 {
		t.Errorf("legacy completions: %d, want 404", code)
	}
	code, _, raw := post(t, srv.BaseURL()+"/chat/completions", `not json`)
	if code != 400 {
		t.Errorf("bad body: %d %s", code, raw)
	}
	resp, err := http.Get(srv.BaseURL() + "/models")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), `"id":"emb"`) || !strings.Contains(string(b), `"id":"m"`) {
		t.Errorf("models %s", b)
	}
	var kinds []string
	for _, r := range srv.Requests() {
		kinds = append(kinds, r.Kind)
	}
	if strings.Join(kinds, ",") != "chat,chat,embeddings,other,chat,models" {
		t.Errorf("kinds %v", kinds)
	}
	if rs := srv.Requests(); rs[0].Auth != "az-key" || rs[0].Query != "api-version=2024-12-01-preview" || len(srv.Chats()) != 3 {
		t.Errorf("first request %+v", rs[0])
	}
}

func TestCutShortensMessagesOnly(t *testing.T) {
	r := Request{Body: json.RawMessage(`{"model":"m","messages":[{"role":"user","content":"abcdefgh"},{"role":"user","content":[{"type":"text","text":"ijklmnop"}]}],"temperature":1}`)}
	got, _ := json.Marshal(r.Cut(3))
	want := `{"messages":[{"content":"abc…","role":"user"},{"content":[{"text":"ijk…","type":"text"}],"role":"user"}],"model":"m","temperature":1}`
	if string(got) != want {
		t.Errorf("cut\n got %s\nwant %s", got, want)
	}
}

func TestFillSchema(t *testing.T) {
	got := FillSchema(json.RawMessage(`{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"array"},"c":{"default":7}}},"d":{"type":"null"},"e":{}}}`))
	b, _ := json.Marshal(got)
	if string(b) != `{"a":{"b":[],"c":7},"d":null,"e":"scripted"}` {
		t.Errorf("filled %s", b)
	}
	if len(FillSchema(json.RawMessage(`[1]`))) != 0 || len(FillSchema(nil)) != 0 {
		t.Error("a schema that is not an object should give {}")
	}
}

func TestListenRefusesOtherHostsAndEventsCarryNoKey(t *testing.T) {
	if err := New(Engineer{}).Listen("0.0.0.0:0"); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Errorf("listening on every interface: %v", err)
	}
	srv := New(Engineer{})
	var seen []Request
	srv.OnRequest = func(r Request) { seen = append(seen, r) }
	if err := srv.Listen("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	start := time.Now()
	post(t, srv.BaseURL()+"/chat/completions", `{"model":"m","messages":[{"role":"user","content":"0123456789"}]}`, "Authorization", "Bearer sk-secret")
	if len(seen) != 1 {
		t.Fatalf("OnRequest saw %d requests", len(seen))
	}
	ev := seen[0].Event(start, 4)
	b, _ := json.Marshal(ev)
	if strings.Contains(string(b), "sk-secret") || ev["kind"] != "llm" || ev["seq"] != 1 || ev["path"] != "/v1/chat/completions" ||
		!strings.Contains(string(b), `"content":"0123…"`) {
		t.Errorf("event %s", b)
	}
}
