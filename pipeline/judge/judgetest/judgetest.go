// Package judgetest provides a local fake of an OpenAI-compatible
// chat-completions server for tests of the LLM judge. It never touches the
// network beyond the loopback listener of net/http/httptest.
package judgetest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// Request is what the fake server saw in one chat-completions call.
type Request struct {
	N             int // 1-based call number
	Authorization string
	Model         string
	System, User  string
	// ResponseFormat is the "type" of response_format ("json_object", ...).
	ResponseFormat      string
	MaxCompletionTokens int
	// MaxTokens is the legacy "max_tokens" field.
	MaxTokens   int
	Temperature *float64
}

// Reply is what the fake server answers to one call.
type Reply struct {
	// Status is the HTTP status (0 = 200).
	Status int
	// Header is added to the response.
	Header map[string]string
	// Content, for a 200 reply, becomes choices[0].message.content of a
	// chat.completion object; ignored when Body is set.
	Content string
	// Body, when non-empty, is sent verbatim.
	Body string
	// PromptTokens and CompletionTokens fill the usage object.
	PromptTokens, CompletionTokens int
	// Delay holds the answer back (the handler returns early if the client
	// gives up).
	Delay time.Duration
	// NoChoices sends a 200 completion with an empty choices list.
	NoChoices bool
}

// Responder decides the reply to a call.
type Responder func(req Request) Reply

// Server is a fake chat-completions endpoint at URL + "/chat/completions".
type Server struct {
	*httptest.Server
	mu          sync.Mutex
	requests    []Request
	respond     Responder
	inFlight    int
	maxInFlight int
}

// New starts a fake server; Close it when done.
func New(respond Responder) *Server {
	s := &Server{respond: respond}
	s.Server = httptest.NewServer(http.HandlerFunc(s.handle))
	return s
}

// Calls returns the number of chat-completions requests received.
func (s *Server) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.requests)
}

// MaxInFlight returns the largest number of requests handled at once.
func (s *Server) MaxInFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maxInFlight
}

// Requests returns a copy of the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var in struct {
		Model    string `json:"model"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		ResponseFormat struct {
			Type string `json:"type"`
		} `json:"response_format"`
		MaxCompletionTokens int      `json:"max_completion_tokens"`
		MaxTokens           int      `json:"max_tokens"`
		Temperature         *float64 `json:"temperature"`
	}
	_ = json.Unmarshal(body, &in)
	req := Request{Authorization: r.Header.Get("Authorization"), Model: in.Model,
		ResponseFormat: in.ResponseFormat.Type, MaxCompletionTokens: in.MaxCompletionTokens,
		MaxTokens: in.MaxTokens, Temperature: in.Temperature}
	for _, m := range in.Messages {
		text := contentText(m.Content)
		switch m.Role {
		case "system", "developer":
			req.System = text
		case "user":
			req.User = text
		}
	}
	s.mu.Lock()
	req.N = len(s.requests) + 1
	s.requests = append(s.requests, req)
	s.inFlight++
	if s.inFlight > s.maxInFlight {
		s.maxInFlight = s.inFlight
	}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.inFlight--
		s.mu.Unlock()
	}()

	rep := s.respond(req)
	if rep.Delay > 0 {
		t := time.NewTimer(rep.Delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
	}
	for k, v := range rep.Header {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Type", "application/json")
	status := rep.Status
	if status == 0 {
		status = http.StatusOK
	}
	out := rep.Body
	if out == "" && status == http.StatusOK {
		out = Completion(in.Model, rep.Content, rep.PromptTokens, rep.CompletionTokens, rep.NoChoices)
	}
	if out == "" {
		out = fmt.Sprintf(`{"error":{"message":"fake error %d","type":"server_error","param":null,"code":null}}`, status)
	}
	w.WriteHeader(status)
	_, _ = io.WriteString(w, out)
}

func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p.Text)
		}
		return b.String()
	}
	return ""
}

// Completion renders a chat.completion response body with one choice
// holding content (none when noChoices).
func Completion(model, content string, promptTokens, completionTokens int, noChoices bool) string {
	choices := []map[string]any{}
	if !noChoices {
		choices = append(choices, map[string]any{
			"index":         0,
			"finish_reason": "stop",
			"logprobs":      nil,
			"message":       map[string]any{"role": "assistant", "content": content, "refusal": nil},
		})
	}
	b, _ := json.Marshal(map[string]any{
		"id":      "chatcmpl-fake",
		"object":  "chat.completion",
		"created": 1700000000,
		"model":   model,
		"choices": choices,
		"usage": map[string]any{
			"prompt_tokens":     promptTokens,
			"completion_tokens": completionTokens,
			"total_tokens":      promptTokens + completionTokens,
		},
	})
	return string(b)
}

// Item is one strategy verdict in a judge answer.
type Item struct {
	ID       int    `json:"id"`
	Strategy string `json:"strategy"`
	Score    int    `json:"score"`
	Evidence string `json:"evidence"`
}

// Answer renders a judge answer {"results":[...]} for the given items.
func Answer(items ...Item) string {
	b, _ := json.Marshal(map[string]any{"results": items})
	return string(b)
}

// AnswerAll renders an answer for ids with score(id) and a short evidence.
func AnswerAll(ids []int, score func(id int) int) string {
	items := make([]Item, len(ids))
	for i, id := range ids {
		items[i] = Item{ID: id, Strategy: fmt.Sprintf("strategy %d", id), Score: score(id),
			Evidence: fmt.Sprintf("evidence for %d", id)}
	}
	return Answer(items...)
}
