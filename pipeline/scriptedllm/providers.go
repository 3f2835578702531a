package scriptedllm

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// The Anthropic Messages API (POST …/v1/messages) and the Gemini API
// (POST …/models/<model>:generateContent, and :streamGenerateContent as a
// single server-sent event), answered from the same script as chat
// completions: a request's Kind is "chat" and its API says which protocol
// it came in. Tool calls become tool_use blocks (Anthropic) or functionCall
// parts (Gemini). Anthropic streaming is not scripted (400).

// isAnthropic reports whether path is the Messages API's.
func isAnthropic(path string) bool { return strings.HasSuffix(path, "/messages") }

// geminiMethod returns the model and the method of a Gemini path
// ("…/models/<model>:generateContent").
func geminiMethod(path string) (model, method string, ok bool) {
	i := strings.LastIndex(path, "/models/")
	if i < 0 {
		return "", "", false
	}
	model, method, ok = strings.Cut(path[i+len("/models/"):], ":")
	if !ok || (method != "generateContent" && method != "streamGenerateContent") {
		return "", "", false
	}
	return model, method, true
}

// parseAnthropic fills req from a Messages API body.
func parseAnthropic(body []byte, req *Request) error {
	var b struct {
		Model    string          `json:"model"`
		System   json.RawMessage `json:"system"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Tools []struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"input_schema"`
		} `json:"tools"`
		ToolChoice struct {
			Type string `json:"type"`
			Name string `json:"name"`
		} `json:"tool_choice"`
		Stream bool `json:"stream"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		return fmt.Errorf("want a JSON object with model and messages: %w", err)
	}
	req.API, req.Model, req.Stream = "anthropic", b.Model, b.Stream
	if s := flatten(b.System); s != "" {
		req.Messages = append(req.Messages, Message{Role: "system", Content: s})
	}
	for _, m := range b.Messages {
		req.Messages = append(req.Messages, Message{Role: m.Role, Content: flatten(m.Content)})
	}
	for _, t := range b.Tools {
		req.Tools = append(req.Tools, Tool{Name: t.Name, Description: t.Description, Parameters: t.InputSchema})
	}
	switch b.ToolChoice.Type {
	case "tool":
		req.ToolChoice = b.ToolChoice.Name
	case "any":
		req.ToolChoice = "required"
	case "none":
		req.ToolChoice = "none"
	case "auto":
		req.ToolChoice = "auto"
	}
	if len(b.Messages) == 0 {
		return fmt.Errorf("no messages")
	}
	return nil
}

// parseGemini fills req from a generateContent body.
func parseGemini(body []byte, model, method string, req *Request) error {
	type part struct {
		Text string `json:"text"`
	}
	var b struct {
		Contents []struct {
			Role  string `json:"role"`
			Parts []part `json:"parts"`
		} `json:"contents"`
		SystemInstruction *struct {
			Parts []part `json:"parts"`
		} `json:"systemInstruction"`
		Tools []struct {
			FunctionDeclarations []Tool `json:"functionDeclarations"`
		} `json:"tools"`
		ToolConfig struct {
			FunctionCallingConfig struct {
				Mode                 string   `json:"mode"`
				AllowedFunctionNames []string `json:"allowedFunctionNames"`
			} `json:"functionCallingConfig"`
		} `json:"toolConfig"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		return fmt.Errorf("want a JSON object with contents: %w", err)
	}
	req.API, req.Model, req.Stream = "gemini", model, method == "streamGenerateContent"
	text := func(ps []part) string {
		var out []string
		for _, p := range ps {
			if p.Text != "" {
				out = append(out, p.Text)
			}
		}
		return strings.Join(out, "\n")
	}
	if b.SystemInstruction != nil {
		req.Messages = append(req.Messages, Message{Role: "system", Content: text(b.SystemInstruction.Parts)})
	}
	for _, c := range b.Contents {
		role := c.Role
		if role == "model" {
			role = "assistant"
		}
		req.Messages = append(req.Messages, Message{Role: role, Content: text(c.Parts)})
	}
	for _, t := range b.Tools {
		req.Tools = append(req.Tools, t.FunctionDeclarations...)
	}
	fc := b.ToolConfig.FunctionCallingConfig
	switch strings.ToUpper(fc.Mode) {
	case "ANY":
		req.ToolChoice = "required"
		if len(fc.AllowedFunctionNames) == 1 {
			req.ToolChoice = fc.AllowedFunctionNames[0]
		}
	case "NONE":
		req.ToolChoice = "none"
	case "AUTO":
		req.ToolChoice = "auto"
	}
	if len(b.Contents) == 0 {
		return fmt.Errorf("no contents")
	}
	return nil
}

// answerAnthropic writes rep as a Messages API response.
func answerAnthropic(w http.ResponseWriter, req *Request, rep Reply) {
	if req.Stream {
		apiError(w, http.StatusBadRequest, "the scripted LLM does not stream the Messages API; send stream: false")
		return
	}
	var content []any
	if rep.Content != "" {
		content = append(content, map[string]any{"type": "text", "text": rep.Content})
	}
	for i, c := range rep.ToolCalls {
		var input any
		if json.Unmarshal([]byte(argString(c.Arguments)), &input) != nil {
			input = map[string]any{}
		}
		content = append(content, map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_%d_%d", req.Seq, i), "name": c.Name, "input": input})
	}
	if content == nil {
		content = []any{map[string]any{"type": "text", "text": ""}}
	}
	stop := "end_turn"
	if len(rep.ToolCalls) > 0 {
		stop = "tool_use"
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": fmt.Sprintf("msg_scripted_%d", req.Seq), "type": "message", "role": "assistant",
		"model": req.Model, "content": content, "stop_reason": stop, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": tokens(req.Text()), "output_tokens": tokens(rep.Content)}})
}

// answerGemini writes rep as a generateContent response (one SSE event
// when streaming).
func answerGemini(w http.ResponseWriter, req *Request, rep Reply) {
	var parts []any
	if rep.Content != "" {
		parts = append(parts, map[string]any{"text": rep.Content})
	}
	for _, c := range rep.ToolCalls {
		var args any
		if json.Unmarshal([]byte(argString(c.Arguments)), &args) != nil {
			args = map[string]any{}
		}
		parts = append(parts, map[string]any{"functionCall": map[string]any{"name": c.Name, "args": args}})
	}
	if parts == nil {
		parts = []any{map[string]any{"text": ""}}
	}
	resp := map[string]any{"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": parts},
		"finishReason": "STOP", "index": 0}}, "modelVersion": req.Model,
		"usageMetadata": map[string]any{"promptTokenCount": tokens(req.Text()), "candidatesTokenCount": tokens(rep.Content),
			"totalTokenCount": tokens(req.Text()) + tokens(rep.Content)}}
	if !req.Stream {
		writeJSON(w, http.StatusOK, resp)
		return
	}
	b, _ := json.Marshal(resp)
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	fmt.Fprintf(w, "data: %s\n\n", b)
}
