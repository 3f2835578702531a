// Package scriptedllm is an OpenAI-compatible LLM server on loopback that
// answers from a script instead of a model: for `mage smoke` and for tests
// that drive an agent's own code (AIDE, ML-Master, R&D-Agent, the stand-in)
// without the network or an API key.
//
// It serves, on 127.0.0.1 and any path prefix (so that the OpenAI "/v1",
// Azure's "/openai/deployments/<name>" and "/openai/v1", and gateways' base
// URLs all work):
//
//   - POST …/messages (Anthropic's Messages API, not streamed) and POST
//     …/models/<model>:generateContent or :streamGenerateContent (Gemini),
//     from the same script (see providers.go);
//   - POST …/chat/completions: the script's Reply for the request, as a
//     chat.completion (or, with "stream": true, as server-sent
//     chat.completion.chunk events ending in "data: [DONE]"); a reply with
//     tool calls answers "tools" requests with "tool_calls" and legacy
//     "functions" requests with "function_call";
//   - POST …/embeddings: deterministic unit vectors (Dims numbers) derived
//     from each input's SHA-256;
//   - GET …/models: the models seen so far (at least "scripted").
//
// Every request, whatever its path, is recorded in arrival order
// (Server.Requests). The Authorization / api-key header is kept in memory
// only, for tests to check which key an agent sent; nothing here logs or
// writes it.
//
// Use:
//
//	srv, err := scriptedllm.Start(scriptedllm.ForAgent("aide"))
//	defer srv.Close()
//	// point the agent at srv.BaseURL() (…/v1) with any key, run it, then:
//	for _, r := range srv.Requests() { … r.Messages, r.Tools, r.Stream … }
//
// A script is anything with Reply(*Request) Reply: ScriptFunc, Sequence
// (replies in order, the last repeated), Rules (the first matching rule),
// or Engineer (answers as an ML engineer model would: a plan and a
// ```python block, or a call of the tool the request asks for). ForAgent
// gives the scripts the smoke uses for each agent.
package scriptedllm

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// MaxBody is the largest request body read (bigger ones get 413).
const MaxBody = 32 << 20

// Message is one chat message of a request, its content flattened to text
// (the text parts of a multi-part content joined by newlines).
type Message struct {
	Role       string `json:"role"`
	Content    string `json:"content"`
	Name       string `json:"name,omitempty"`
	ToolCallID string `json:"tool_call_id,omitempty"`
}

// Tool is a function the request offers the model ("tools" entries of
// type "function", or legacy "functions").
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"` // JSON schema
}

// Request is one recorded request.
type Request struct {
	Seq    int       // 1-based arrival order over every path
	At     time.Time // arrival
	Method string
	Path   string
	Query  string
	// Kind is "chat", "embeddings", "models" or "other" (404).
	Kind string
	// API is the protocol of a chat request: "openai" (chat completions),
	// "anthropic" (Messages API) or "gemini" (generateContent).
	API      string
	Model    string
	Messages []Message
	Tools    []Tool
	// ToolChoice is "", "auto", "none", "required", or the name of the
	// function the request forces.
	ToolChoice string
	// Legacy is true when the tools came as "functions" (answered with
	// "function_call").
	Legacy bool
	Stream bool
	Body   json.RawMessage // the body as sent (JSON requests), nil otherwise
	// Auth is the Authorization or api-key header as sent. In memory only:
	// never log or write it.
	Auth string
}

// Text is every message's content joined by newlines.
func (r *Request) Text() string {
	parts := make([]string, len(r.Messages))
	for i, m := range r.Messages {
		parts[i] = m.Content
	}
	return strings.Join(parts, "\n")
}

// Last is the content of the last message with the role ("" for any role).
func (r *Request) Last(role string) string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if role == "" || r.Messages[i].Role == role {
			return r.Messages[i].Content
		}
	}
	return ""
}

// WantedTool is the tool the model is expected to call: the forced one,
// else with tool_choice "required" or "auto" (or none given) the first
// offered; ok is false when the request offers no tool or says "none".
func (r *Request) WantedTool() (Tool, bool) {
	if len(r.Tools) == 0 || r.ToolChoice == "none" {
		return Tool{}, false
	}
	switch r.ToolChoice {
	case "", "auto", "required":
		return r.Tools[0], true
	}
	for _, t := range r.Tools {
		if t.Name == r.ToolChoice {
			return t, true
		}
	}
	return r.Tools[0], true
}

// Cut returns the request body with every message's content cut to n
// characters (n > 0; "…" marks a cut): the form recordings store.
func (r *Request) Cut(n int) map[string]any {
	var m map[string]any
	if json.Unmarshal(r.Body, &m) != nil || m == nil {
		return nil
	}
	msgs, _ := m["messages"].([]any)
	for _, x := range msgs {
		mm, ok := x.(map[string]any)
		if !ok {
			continue
		}
		if s, ok := mm["content"].(string); ok {
			mm["content"] = cut(s, n)
		} else if parts, ok := mm["content"].([]any); ok {
			for _, p := range parts {
				if pm, ok := p.(map[string]any); ok {
					if s, ok := pm["text"].(string); ok {
						pm["text"] = cut(s, n)
					}
				}
			}
		}
	}
	return m
}

func cut(s string, n int) string {
	r := []rune(s)
	if n <= 0 || len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// ToolCall is one function call of a reply.
type ToolCall struct {
	Name string
	// Arguments are marshalled to the JSON string the API carries; a string
	// or json.RawMessage is sent as it is.
	Arguments any
}

// Reply is the script's answer to one chat request.
type Reply struct {
	Content   string
	ToolCalls []ToolCall
	// Status other than 0 or 200 answers an OpenAI-style error with
	// Content as its message (e.g. 429 to test retries).
	Status int
	// Delay holds the answer back (the request's context still ends it).
	Delay time.Duration
}

// Script decides the reply to each chat request.
type Script interface {
	Reply(*Request) Reply
}

// ScriptFunc is a Script written as a function.
type ScriptFunc func(*Request) Reply

// Reply calls f.
func (f ScriptFunc) Reply(r *Request) Reply { return f(r) }

// Sequence answers the n-th chat request with the n-th reply and every later
// one with the last (an empty sequence answers empty content).
func Sequence(replies ...Reply) Script {
	var mu sync.Mutex
	n := 0
	return ScriptFunc(func(*Request) Reply {
		mu.Lock()
		defer mu.Unlock()
		if len(replies) == 0 {
			return Reply{}
		}
		i := n
		if i >= len(replies) {
			i = len(replies) - 1
		}
		n++
		return replies[i]
	})
}

// Rule answers the requests When matches.
type Rule struct {
	When  func(*Request) bool
	Reply Script
}

// Rules answers with the first rule whose When matches, else with fallback.
func Rules(fallback Script, rules ...Rule) Script {
	return ScriptFunc(func(r *Request) Reply {
		for _, rule := range rules {
			if rule.When(r) {
				return rule.Reply.Reply(r)
			}
		}
		return fallback.Reply(r)
	})
}

// Contains matches requests one of whose messages contains s.
func Contains(s string) func(*Request) bool {
	return func(r *Request) bool { return strings.Contains(r.Text(), s) }
}

// Offers matches requests that offer the tool named name.
func Offers(name string) func(*Request) bool {
	return func(r *Request) bool {
		for _, t := range r.Tools {
			if t.Name == name {
				return true
			}
		}
		return false
	}
}

// Server is a running scripted LLM.
type Server struct {
	// Dims is the length of the embedding vectors (default 16).
	Dims int
	// OnRequest, when set (before Listen), sees every request as it is
	// recorded, e.g. to write a recording as the run goes.
	OnRequest func(Request)

	script Script
	ln     net.Listener
	srv    *http.Server
	url    string

	mu     sync.Mutex
	reqs   []Request
	models map[string]bool
}

// New returns a server for script that is not listening yet: use Handler
// (e.g. with httptest) or Start.
func New(script Script) *Server {
	return &Server{script: script, models: map[string]bool{"scripted": true}, Dims: 16}
}

// Start serves script on 127.0.0.1 at a free port.
func Start(script Script) (*Server, error) {
	s := New(script)
	if err := s.Listen("127.0.0.1:0"); err != nil {
		return nil, err
	}
	return s, nil
}

// Listen serves on addr, a loopback host and a port (0: a free one); any
// other host is refused: the server has no authentication.
func (s *Server) Listen(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("scripted LLM: address %q: want host:port: %w", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("scripted LLM: address %q: want a loopback host (127.0.0.1, ::1 or localhost)", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("scripted LLM: listen on %s: %w", addr, err)
	}
	s.ln = ln
	s.url = "http://" + ln.Addr().String()
	s.srv = &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go s.srv.Serve(ln)
	return nil
}

// URL is the server's root, e.g. http://127.0.0.1:40123 (empty for a server
// made by New).
func (s *Server) URL() string { return s.url }

// BaseURL is the OpenAI-style base URL: URL + "/v1".
func (s *Server) BaseURL() string { return s.url + "/v1" }

// Addr is host:port.
func (s *Server) Addr() string { return strings.TrimPrefix(s.url, "http://") }

// Close stops the server and ends the requests in flight.
func (s *Server) Close() error {
	if s.srv == nil {
		return nil
	}
	return s.srv.Close()
}

// Requests returns a copy of every request so far, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// Chats returns the recorded chat requests.
func (s *Server) Chats() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Kind == "chat" {
			out = append(out, r)
		}
	}
	return out
}

func (s *Server) record(r *Request) {
	s.mu.Lock()
	r.Seq = len(s.reqs) + 1
	if r.Model != "" {
		s.models[r.Model] = true
	}
	s.reqs = append(s.reqs, *r)
	s.mu.Unlock()
	if s.OnRequest != nil {
		s.OnRequest(*r)
	}
}

// Handler serves the API (see the package doc).
func (s *Server) Handler() http.Handler {
	return http.HandlerFunc(s.serve)
}

func (s *Server) serve(w http.ResponseWriter, hr *http.Request) {
	req := &Request{At: time.Now(), Method: hr.Method, Path: hr.URL.Path, Query: hr.URL.RawQuery, Kind: "other"}
	for _, h := range []string{"Authorization", "api-key", "x-api-key", "x-goog-api-key"} {
		if req.Auth = hr.Header.Get(h); req.Auth != "" {
			break
		}
	}
	if req.Auth == "" {
		req.Auth = hr.URL.Query().Get("key") // Gemini's ?key=
	}
	path := strings.TrimRight(hr.URL.Path, "/")
	gModel, gMethod, isGemini := geminiMethod(path)
	switch {
	case hr.Method == http.MethodPost && strings.HasSuffix(path, "/chat/completions"):
		req.Kind, req.API = "chat", "openai"
	case hr.Method == http.MethodPost && isAnthropic(path):
		req.Kind, req.API = "chat", "anthropic"
	case hr.Method == http.MethodPost && isGemini:
		req.Kind, req.API = "chat", "gemini"
	case hr.Method == http.MethodPost && strings.HasSuffix(path, "/embeddings"):
		req.Kind = "embeddings"
	case hr.Method == http.MethodGet && strings.HasSuffix(path, "/models"):
		req.Kind = "models"
	}
	var body []byte
	if hr.Body != nil {
		b, err := io.ReadAll(io.LimitReader(hr.Body, MaxBody+1))
		if err != nil {
			s.record(req)
			apiError(w, http.StatusBadRequest, "read the body: "+err.Error())
			return
		}
		if len(b) > MaxBody {
			s.record(req)
			apiError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("body over %d bytes", MaxBody))
			return
		}
		body = b
	}
	if json.Valid(body) {
		req.Body = json.RawMessage(body)
	}
	switch req.Kind {
	case "chat":
		parse := parseChat
		switch req.API {
		case "anthropic":
			parse = parseAnthropic
		case "gemini":
			parse = func(b []byte, r *Request) error { return parseGemini(b, gModel, gMethod, r) }
		}
		if err := parse(body, req); err != nil {
			s.record(req)
			apiError(w, http.StatusBadRequest, "chat request: "+err.Error())
			return
		}
		s.record(req)
		s.chat(w, hr, req)
	case "embeddings":
		inputs, model, err := parseEmbeddings(body)
		req.Model = model
		s.record(req)
		if err != nil {
			apiError(w, http.StatusBadRequest, "embeddings request: "+err.Error())
			return
		}
		s.embeddings(w, inputs, model)
	case "models":
		s.record(req)
		s.mu.Lock()
		var data []map[string]any
		for _, m := range slices.Sorted(maps.Keys(s.models)) {
			data = append(data, map[string]any{"id": m, "object": "model", "created": 0, "owned_by": "rexmle-scripted"})
		}
		s.mu.Unlock()
		writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data})
	default:
		s.record(req)
		apiError(w, http.StatusNotFound, fmt.Sprintf("the scripted LLM serves POST …/chat/completions, POST …/embeddings and GET …/models, not %s %s", hr.Method, hr.URL.Path))
	}
}

// parseChat fills req from a chat.completions body.
func parseChat(body []byte, req *Request) error {
	var b struct {
		Model    string `json:"model"`
		Messages []struct {
			Role       string          `json:"role"`
			Content    json.RawMessage `json:"content"`
			Name       string          `json:"name"`
			ToolCallID string          `json:"tool_call_id"`
		} `json:"messages"`
		Tools []struct {
			Type     string `json:"type"`
			Function Tool   `json:"function"`
		} `json:"tools"`
		Functions    []Tool          `json:"functions"`
		ToolChoice   json.RawMessage `json:"tool_choice"`
		FunctionCall json.RawMessage `json:"function_call"`
		Stream       bool            `json:"stream"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		return fmt.Errorf("want a JSON object with model and messages: %w", err)
	}
	req.Model, req.Stream = b.Model, b.Stream
	for _, m := range b.Messages {
		req.Messages = append(req.Messages, Message{Role: m.Role, Content: flatten(m.Content), Name: m.Name, ToolCallID: m.ToolCallID})
	}
	for _, t := range b.Tools {
		if t.Type == "function" || t.Type == "" {
			req.Tools = append(req.Tools, t.Function)
		}
	}
	choice := b.ToolChoice
	if len(b.Functions) > 0 {
		req.Tools, req.Legacy = append(req.Tools, b.Functions...), true
		choice = b.FunctionCall
	}
	req.ToolChoice = parseChoice(choice)
	if len(b.Messages) == 0 {
		return fmt.Errorf("no messages")
	}
	return nil
}

// flatten turns a message content (a string, null, or a list of parts) into text.
func flatten(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		var out []string
		for _, p := range parts {
			if p.Text != "" {
				out = append(out, p.Text)
			}
		}
		return strings.Join(out, "\n")
	}
	return ""
}

// parseChoice reads tool_choice / function_call: a string, or an object
// naming the function ({"type":"function","function":{"name":…}} or {"name":…}).
func parseChoice(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var o struct {
		Name     string `json:"name"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	if json.Unmarshal(raw, &o) == nil {
		if o.Function.Name != "" {
			return o.Function.Name
		}
		return o.Name
	}
	return ""
}

func apiError(w http.ResponseWriter, status int, msg string) {
	typ := "invalid_request_error"
	if status == http.StatusTooManyRequests {
		typ = "rate_limit_error"
	} else if status >= 500 {
		typ = "server_error"
	}
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": nil}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}

// tokens is a rough token count (4 characters a token) for "usage".
func tokens(s string) int { return (len(s) + 3) / 4 }

func (s *Server) chat(w http.ResponseWriter, hr *http.Request, req *Request) {
	rep := s.script.Reply(req)
	if rep.Delay > 0 {
		t := time.NewTimer(rep.Delay)
		select {
		case <-t.C:
		case <-hr.Context().Done():
			t.Stop()
			return
		}
	}
	if rep.Status != 0 && rep.Status != http.StatusOK {
		apiError(w, rep.Status, rep.Content)
		return
	}
	switch req.API {
	case "anthropic":
		answerAnthropic(w, req, rep)
		return
	case "gemini":
		answerGemini(w, req, rep)
		return
	}
	model := req.Model
	if model == "" {
		model = "scripted"
	}
	id := fmt.Sprintf("chatcmpl-scripted-%d", req.Seq)
	calls := make([]map[string]any, len(rep.ToolCalls))
	for i, c := range rep.ToolCalls {
		calls[i] = map[string]any{"id": fmt.Sprintf("call_%d_%d", req.Seq, i), "type": "function",
			"function": map[string]any{"name": c.Name, "arguments": argString(c.Arguments)}}
	}
	finish := "stop"
	if len(calls) > 0 {
		finish = "tool_calls"
		if req.Legacy {
			finish = "function_call"
		}
	}
	usage := map[string]any{"prompt_tokens": tokens(req.Text()), "completion_tokens": tokens(rep.Content), "total_tokens": tokens(req.Text()) + tokens(rep.Content)}
	created := time.Now().Unix()
	if req.Stream {
		s.stream(w, req, rep, calls, id, model, finish, created, usage)
		return
	}
	msg := map[string]any{"role": "assistant", "content": rep.Content}
	if len(calls) > 0 {
		if rep.Content == "" {
			msg["content"] = nil
		}
		if req.Legacy {
			msg["function_call"] = calls[0]["function"]
		} else {
			msg["tool_calls"] = calls
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": id, "object": "chat.completion", "created": created, "model": model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish, "logprobs": nil}}, "usage": usage})
}

// stream answers as server-sent chat.completion.chunk events: the role and
// content, then each tool call whole in one delta, then the finish reason
// (and usage), then [DONE].
func (s *Server) stream(w http.ResponseWriter, req *Request, rep Reply, calls []map[string]any, id, model, finish string, created int64, usage map[string]any) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	send := func(delta map[string]any, fin any, withUsage bool) {
		chunk := map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": fin, "logprobs": nil}}}
		if withUsage {
			chunk["usage"] = usage
		}
		b, _ := json.Marshal(chunk)
		fmt.Fprintf(w, "data: %s\n\n", b)
		if fl != nil {
			fl.Flush()
		}
	}
	send(map[string]any{"role": "assistant", "content": ""}, nil, false)
	if rep.Content != "" {
		send(map[string]any{"content": rep.Content}, nil, false)
	}
	for i, c := range calls {
		if req.Legacy {
			send(map[string]any{"function_call": c["function"]}, nil, false)
			break
		}
		c["index"] = i
		send(map[string]any{"tool_calls": []any{c}}, nil, false)
	}
	send(map[string]any{}, finish, true)
	fmt.Fprint(w, "data: [DONE]\n\n")
	if fl != nil {
		fl.Flush()
	}
}

func argString(a any) string {
	switch v := a.(type) {
	case nil:
		return "{}"
	case string:
		return v
	case json.RawMessage:
		return string(v)
	}
	b, err := json.Marshal(a)
	if err != nil {
		return "{}"
	}
	return string(b)
}

func parseEmbeddings(body []byte) ([]string, string, error) {
	var b struct {
		Model string          `json:"model"`
		Input json.RawMessage `json:"input"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		return nil, "", fmt.Errorf("want a JSON object with model and input: %w", err)
	}
	var one string
	if json.Unmarshal(b.Input, &one) == nil {
		return []string{one}, b.Model, nil
	}
	var many []string
	if json.Unmarshal(b.Input, &many) == nil {
		return many, b.Model, nil
	}
	var ids [][]int // token ids: embedded by their JSON text
	if json.Unmarshal(b.Input, &ids) == nil {
		out := make([]string, len(ids))
		for i, t := range ids {
			x, _ := json.Marshal(t)
			out[i] = string(x)
		}
		return out, b.Model, nil
	}
	return nil, b.Model, fmt.Errorf("input: want a string or a list of strings")
}

// Embedding is the vector the server gives text: dims numbers from the
// SHA-256 chain of the text, scaled to unit length.
func Embedding(text string, dims int) []float64 {
	v := make([]float64, dims)
	h := sha256.Sum256([]byte(text))
	var norm float64
	for i := range v {
		if i > 0 && i%8 == 0 {
			h = sha256.Sum256(h[:])
		}
		u := binary.BigEndian.Uint32(h[(i%8)*4:])
		v[i] = float64(u)/float64(math.MaxUint32)*2 - 1
		norm += v[i] * v[i]
	}
	norm = math.Sqrt(norm)
	for i := range v {
		if norm > 0 {
			v[i] /= norm
		}
	}
	return v
}

func (s *Server) embeddings(w http.ResponseWriter, inputs []string, model string) {
	dims := s.Dims
	if dims <= 0 {
		dims = 16
	}
	data := make([]any, len(inputs))
	n := 0
	for i, in := range inputs {
		data[i] = map[string]any{"object": "embedding", "index": i, "embedding": Embedding(in, dims)}
		n += tokens(in)
	}
	if model == "" {
		model = "scripted-embedding"
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data, "model": model,
		"usage": map[string]any{"prompt_tokens": n, "total_tokens": n}})
}

// Event is r as an "llm" event of the shared agent-recording format
// (schema rexmle-agent-recording/1): seq, t (seconds since start, to the
// millisecond), kind, method, path and the request body with message
// contents cut to cutAt characters. The key is never part of it.
func (r *Request) Event(start time.Time, cutAt int) map[string]any {
	ev := map[string]any{"seq": r.Seq, "t": math.Round(r.At.Sub(start).Seconds()*1000) / 1000, "kind": "llm",
		"method": r.Method, "path": r.Path}
	if body := r.Cut(cutAt); body != nil {
		ev["request"] = body
	}
	return ev
}
