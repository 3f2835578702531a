package judge

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/openai/openai-go"
	"github.com/openai/openai-go/option"
	"github.com/openai/openai-go/shared"
)

// OpenAIConfig configures the LLM judge for any OpenAI-compatible
// chat-completions endpoint. Zero values take the documented defaults.
type OpenAIConfig struct {
	// Model is the chat model (required), e.g. "gpt-5". It is the judge's
	// Name and part of the cache key.
	Model string
	// BaseURL of the API, default "https://api.openai.com/v1".
	BaseURL string
	// APIKeyEnv names the environment variable holding the API key, default
	// "OPENAI_API_KEY". The key itself is never stored in a config, a log, an
	// error, a database row or a file.
	APIKeyEnv string
	// Getenv reads APIKeyEnv from the environment the settings captured
	// (settings.Environ.Get); nil reads nothing, so the key is missing.
	Getenv func(name string) string
	// MaxTokens caps completion tokens per call (max_completion_tokens),
	// default 8192 as the reference scorer.
	MaxTokens int
	// LegacyMaxTokens sends the cap as "max_tokens" instead of
	// "max_completion_tokens", for servers that only know the older field.
	LegacyMaxTokens bool
	// NoJSONMode omits response_format (for servers without JSON mode); the
	// answer is still required to be a JSON object.
	NoJSONMode bool
	// Temperature, when non-nil, is sent; nil leaves the server default
	// (reasoning models such as GPT-5 accept only the default).
	Temperature *float64
	// Timeout bounds one HTTP call, default 5 minutes.
	Timeout time.Duration
	// Concurrency bounds simultaneous HTTP calls of this judge, default 4.
	Concurrency int
	// MaxRetries is how many times one call is retried after HTTP 408, 409,
	// 429, 5xx, a timeout or a connection error, default 4 (negative: 0).
	MaxRetries int
	// AnswerRetries is how many times a section is asked again when the
	// answer is not valid JSON or lacks strategies, default 2 (negative: 0).
	AnswerRetries int
	// BackoffBase is the first retry delay, doubled on each retry, default
	// 1 s; a Retry-After (seconds) or retry-after-ms header overrides it.
	BackoffBase time.Duration
	// MaxBackoff caps any single retry delay, default 60 s.
	MaxBackoff time.Duration
	// PriceInPerMTok and PriceOutPerMTok, in USD per million prompt and
	// completion tokens, give the recorded cost (0: cost not computed).
	PriceInPerMTok, PriceOutPerMTok float64
	// HTTPClient replaces the default HTTP client (tests).
	HTTPClient *http.Client
	// Logger receives call logs (default slog.Default()).
	Logger *slog.Logger
}

// OpenAI is the LLM judge. It is safe for concurrent use.
type OpenAI struct {
	cfg    OpenAIConfig
	client openai.Client
	sem    chan struct{}
	red    redactor
	log    *slog.Logger
}

// NewOpenAI builds the LLM judge, reading the API key from the environment
// variable cfg.APIKeyEnv through cfg.Getenv. A missing model or key is an error (naming the
// variable, never its value).
func NewOpenAI(cfg OpenAIConfig) (*OpenAI, error) {
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, errors.New("openai judge: model is empty")
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = "https://api.openai.com/v1"
	}
	if cfg.APIKeyEnv == "" {
		cfg.APIKeyEnv = "OPENAI_API_KEY"
	}
	if cfg.MaxTokens <= 0 {
		cfg.MaxTokens = 8192
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 5 * time.Minute
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = 4
	}
	if cfg.MaxRetries == 0 {
		cfg.MaxRetries = 4
	} else if cfg.MaxRetries < 0 {
		cfg.MaxRetries = 0
	}
	if cfg.AnswerRetries == 0 {
		cfg.AnswerRetries = 2
	} else if cfg.AnswerRetries < 0 {
		cfg.AnswerRetries = 0
	}
	if cfg.BackoffBase <= 0 {
		cfg.BackoffBase = time.Second
	}
	if cfg.MaxBackoff <= 0 {
		cfg.MaxBackoff = time.Minute
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	key := ""
	if cfg.Getenv != nil {
		key = cfg.Getenv(cfg.APIKeyEnv)
	}
	if key == "" {
		return nil, fmt.Errorf("openai judge: environment variable %s is empty or unset", cfg.APIKeyEnv)
	}
	opts := []option.RequestOption{
		option.WithAPIKey(key),
		option.WithBaseURL(cfg.BaseURL),
		option.WithMaxRetries(0), // retries are ours: counted, logged, scrubbed
	}
	if cfg.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(cfg.HTTPClient))
	}
	return &OpenAI{
		cfg:    cfg,
		client: openai.NewClient(opts...),
		sem:    make(chan struct{}, cfg.Concurrency),
		red:    newRedactor(key),
		log:    cfg.Logger,
	}, nil
}

// Name implements Judge: the model name.
func (o *OpenAI) Name() string { return o.cfg.Model }

// Kind implements Judge.
func (o *OpenAI) Kind() string { return KindLLM }

// Score implements Judge. It sends the rubric's system prompt and the
// section (BuildUserPrompt) with a JSON-object response format. An answer
// that is not valid JSON or lacks strategies is asked again up to
// AnswerRetries times; the answer with the most valid strategies is kept and
// the rest are reported Missing (status partial, or error when none). HTTP
// failures are retried per MaxRetries; when they persist the section is an
// error with every strategy Missing.
func (o *OpenAI) Score(ctx context.Context, sec Section, r *Rubric) (SectionScore, error) {
	out := SectionScore{Judge: o.Name(), Kind: o.Kind(), RubricHash: r.Hash, SectionHash: sec.Hash()}
	params := openai.ChatCompletionNewParams{
		Model: shared.ChatModel(o.cfg.Model),
		Messages: []openai.ChatCompletionMessageParamUnion{
			openai.SystemMessage(r.SystemPrompt),
			openai.UserMessage(BuildUserPrompt(sec, r)),
		},
	}
	if o.cfg.LegacyMaxTokens {
		params.MaxTokens = openai.Int(int64(o.cfg.MaxTokens))
	} else {
		params.MaxCompletionTokens = openai.Int(int64(o.cfg.MaxTokens))
	}
	if !o.cfg.NoJSONMode {
		params.ResponseFormat = openai.ChatCompletionNewParamsResponseFormatUnion{
			OfJSONObject: &shared.ResponseFormatJSONObjectParam{},
		}
	}
	if o.cfg.Temperature != nil {
		params.Temperature = openai.Float(*o.cfg.Temperature)
	}
	var best []StrategyScore
	bestRaw := ""
	var lastProblem string
	for a := 0; a <= o.cfg.AnswerRetries; a++ {
		content, usage, calls, err := o.call(ctx, params, sec.Label)
		out.Attempts += calls
		out.Usage.add(usage)
		if err != nil {
			out.Scores = best
			out.Missing = missingFrom(r, best)
			out.Raw = o.red.scrub(bestRaw)
			out.Error = o.red.scrub(err.Error())
			out.setStatus()
			if len(best) > 0 {
				out.Error = fmt.Sprintf("%s (kept an earlier partial answer)", out.Error)
			}
			return out, errors.New(out.Error)
		}
		content = o.red.scrub(content)
		scores, missing, perr := ParseAnswer(content, r)
		if len(scores) > len(best) || best == nil {
			best, bestRaw = scores, content
		}
		if perr == nil && len(missing) == 0 {
			lastProblem = ""
			break
		}
		if perr != nil {
			lastProblem = perr.Error()
		} else {
			lastProblem = fmt.Sprintf("answer lacks strategies %s", idList(missing))
		}
		o.log.Warn("judge answer incomplete", "model", o.cfg.Model, "section", sec.Label,
			"answer_try", a+1, "problem", lastProblem)
	}
	for i := range best {
		best[i].Evidence = o.red.scrub(best[i].Evidence)
	}
	out.Scores = best
	out.Missing = missingFrom(r, best)
	out.Raw = bestRaw
	out.setStatus()
	if out.Status != StatusOK {
		out.Error = fmt.Sprintf("after %d answer(s): %s", o.cfg.AnswerRetries+1, lastProblem)
	}
	return out, nil
}

// missingFrom lists the rubric ids without a score in s.
func missingFrom(r *Rubric, s []StrategyScore) []int {
	have := map[int]bool{}
	for _, x := range s {
		have[x.ID] = true
	}
	var m []int
	for _, id := range r.IDs() {
		if !have[id] {
			m = append(m, id)
		}
	}
	return m
}

// call makes one chat-completions request with transport retries and
// returns the answer text, the usage summed over attempts and the number of
// HTTP requests made. Errors are already scrubbed of the API key.
func (o *OpenAI) call(ctx context.Context, params openai.ChatCompletionNewParams, label string) (string, Usage, int, error) {
	var usage Usage
	calls := 0
	for try := 0; ; try++ {
		select {
		case o.sem <- struct{}{}:
		case <-ctx.Done():
			return "", usage, calls, ctx.Err()
		}
		cctx, cancel := context.WithTimeout(ctx, o.cfg.Timeout)
		start := time.Now()
		resp, err := o.client.Chat.Completions.New(cctx, params)
		timedOut := cctx.Err() == context.DeadlineExceeded
		cancel()
		<-o.sem
		calls++
		if err == nil {
			u := Usage{
				PromptTokens:     resp.Usage.PromptTokens,
				CompletionTokens: resp.Usage.CompletionTokens,
				TotalTokens:      resp.Usage.TotalTokens,
			}
			u.CostUSD = float64(u.PromptTokens)*o.cfg.PriceInPerMTok/1e6 +
				float64(u.CompletionTokens)*o.cfg.PriceOutPerMTok/1e6
			usage.add(u)
			o.log.Debug("judge call", "model", o.cfg.Model, "section", label, "try", try+1,
				"latency_ms", time.Since(start).Milliseconds(), "prompt_tokens", u.PromptTokens,
				"completion_tokens", u.CompletionTokens)
			if len(resp.Choices) == 0 {
				return "", usage, calls, nil // empty answer: an answer problem, retried by Score
			}
			return resp.Choices[0].Message.Content, usage, calls, nil
		}
		if ctx.Err() != nil {
			return "", usage, calls, fmt.Errorf("judge call: %w", ctx.Err())
		}
		status, wait, retryable, msg := o.classify(err, timedOut)
		if !retryable || try >= o.cfg.MaxRetries {
			return "", usage, calls, fmt.Errorf("judge call failed after %d request(s): %s", calls, msg)
		}
		if wait < 0 {
			wait = o.backoff(try)
		}
		if wait > o.cfg.MaxBackoff {
			wait = o.cfg.MaxBackoff
		}
		o.log.Warn("judge call retry", "model", o.cfg.Model, "section", label, "try", try+1,
			"status", status, "wait_ms", wait.Milliseconds(), "error", msg)
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return "", usage, calls, fmt.Errorf("judge call: %w", ctx.Err())
		}
	}
}

// backoff is BackoffBase·2^try.
func (o *OpenAI) backoff(try int) time.Duration {
	d := float64(o.cfg.BackoffBase) * math.Pow(2, float64(try))
	if d > float64(o.cfg.MaxBackoff) {
		return o.cfg.MaxBackoff
	}
	return time.Duration(d)
}

// classify turns a client error into (HTTP status or 0, server-requested
// wait or -1, retryable, scrubbed message).
func (o *OpenAI) classify(err error, timedOut bool) (int, time.Duration, bool, string) {
	var apiErr *openai.Error
	if errors.As(err, &apiErr) {
		status := apiErr.StatusCode
		wait := time.Duration(-1)
		if apiErr.Response != nil {
			wait = retryAfter(apiErr.Response.Header)
		}
		detail := apiErr.Message
		if detail == "" {
			detail = apiErr.RawJSON()
		}
		if len(detail) > 300 {
			detail = detail[:300] + "…"
		}
		msg := o.red.scrub(fmt.Sprintf("HTTP %d %s: %s", status, http.StatusText(status), detail))
		retry := status == http.StatusTooManyRequests || status == http.StatusRequestTimeout ||
			status == http.StatusConflict || status >= 500
		return status, wait, retry, msg
	}
	if timedOut {
		return 0, -1, true, fmt.Sprintf("timed out after %s", o.cfg.Timeout)
	}
	// Transport errors (connection refused, reset, EOF): retry. The message
	// may name the URL; scrub it anyway.
	return 0, -1, true, o.red.scrub(err.Error())
}

// retryAfter reads "retry-after-ms" (milliseconds) or "Retry-After"
// (seconds, possibly fractional, or an HTTP date); -1 when absent or bad.
func retryAfter(h http.Header) time.Duration {
	if v := h.Get("retry-after-ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := h.Get("Retry-After")
	if v == "" {
		return -1
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := time.Until(t); d > 0 {
			return d
		}
		return 0
	}
	return -1
}

// redactor removes a secret from text.
type redactor struct{ secret string }

func newRedactor(secret string) redactor { return redactor{secret: secret} }

// scrub replaces every occurrence of the secret with "[REDACTED]".
func (r redactor) scrub(s string) string {
	if r.secret == "" || !strings.Contains(s, r.secret) {
		return s
	}
	return strings.ReplaceAll(s, r.secret, "[REDACTED]")
}
