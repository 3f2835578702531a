package judge

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rexmle/rexmle/pipeline/judge/judgetest"
)

const (
	testKeyEnv = "REXMLE_TEST_JUDGE_KEY"
	testKey    = "sk-test-7f3a9c1e5b2d-SECRET-do-not-leak"
)

// syncBuffer is a goroutine-safe log sink.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// newTestJudge builds an OpenAI judge against srv with fast retries and a
// debug logger writing to the returned buffer.
func newTestJudge(t *testing.T, srv *judgetest.Server, mod func(*OpenAIConfig)) (*OpenAI, *syncBuffer) {
	t.Helper()
	t.Setenv(testKeyEnv, testKey)
	logs := &syncBuffer{}
	cfg := OpenAIConfig{
		Model:         "fake-gpt",
		BaseURL:       srv.URL + "/v1",
		APIKeyEnv:     testKeyEnv,
		Getenv:        os.Getenv,
		MaxTokens:     1234,
		Timeout:       5 * time.Second,
		MaxRetries:    3,
		AnswerRetries: 2,
		BackoffBase:   5 * time.Millisecond,
		MaxBackoff:    3 * time.Second,
		Logger:        slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
	if mod != nil {
		mod(&cfg)
	}
	j, err := NewOpenAI(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return j, logs
}

func oddOnes(id int) int { return id % 2 }

var testSection = Section{Label: "sec-1", Text: "Epoch 1 loss 0.5; ran an optuna sweep"}

func TestOpenAIValidAnswer(t *testing.T) {
	r := loadRepoRubric(t)
	srv := judgetest.New(func(req judgetest.Request) judgetest.Reply {
		return judgetest.Reply{Content: judgetest.AnswerAll(r.IDs(), oddOnes), PromptTokens: 100, CompletionTokens: 50}
	})
	defer srv.Close()
	j, _ := newTestJudge(t, srv, func(c *OpenAIConfig) { c.PriceInPerMTok, c.PriceOutPerMTok = 2, 10 })
	sc, err := j.Score(context.Background(), testSection, r)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Status != StatusOK || len(sc.Scores) != 13 || len(sc.Missing) != 0 || sc.Attempts != 1 {
		t.Fatalf("status %s scores %d missing %v attempts %d", sc.Status, len(sc.Scores), sc.Missing, sc.Attempts)
	}
	for _, s := range sc.Scores {
		if s.Score != s.ID%2 {
			t.Errorf("strategy %d score %d", s.ID, s.Score)
		}
		if want, _ := r.Strategy(s.ID); s.Name != want.Name {
			t.Errorf("strategy %d named %q (rubric name expected)", s.ID, s.Name)
		}
	}
	// cost = 100·2/1e6 + 50·10/1e6 = 0.0007 USD
	if sc.Usage.PromptTokens != 100 || sc.Usage.CompletionTokens != 50 || sc.Usage.TotalTokens != 150 ||
		math.Abs(sc.Usage.CostUSD-0.0007) > 1e-12 {
		t.Errorf("usage %+v", sc.Usage)
	}
	if sc.Kind != KindLLM || sc.Judge != "fake-gpt" || sc.RubricHash != r.Hash || sc.SectionHash != testSection.Hash() {
		t.Errorf("labels %+v", sc)
	}
	req := srv.Requests()[0]
	if req.Authorization != "Bearer "+testKey {
		t.Errorf("authorization header %q", req.Authorization)
	}
	if req.Model != "fake-gpt" || req.ResponseFormat != "json_object" || req.MaxCompletionTokens != 1234 || req.Temperature != nil {
		t.Errorf("request %+v", req)
	}
	if req.System != r.SystemPrompt {
		t.Errorf("system prompt not the rubric's")
	}
	for _, want := range []string{"TARGET STRATEGY: Analyzing and handling failure cases (id 1)\n",
		"TARGET STRATEGY: Optimizing hyperparameters systematically (id 13)\n",
		"Log section (sec-1):\nEpoch 1 loss 0.5; ran an optuna sweep\n", "'results'"} {
		if !strings.Contains(req.User, want) {
			t.Errorf("user prompt lacks %q", want)
		}
	}
}

func TestOpenAITemperatureSent(t *testing.T) {
	r := loadRepoRubric(t)
	srv := judgetest.New(func(req judgetest.Request) judgetest.Reply {
		return judgetest.Reply{Content: judgetest.AnswerAll(r.IDs(), oddOnes)}
	})
	defer srv.Close()
	zero := 0.0
	j, _ := newTestJudge(t, srv, func(c *OpenAIConfig) { c.Temperature = &zero })
	if _, err := j.Score(context.Background(), testSection, r); err != nil {
		t.Fatal(err)
	}
	if tp := srv.Requests()[0].Temperature; tp == nil || *tp != 0 {
		t.Fatalf("temperature %v", tp)
	}
}

func TestOpenAIAnswerRetries(t *testing.T) {
	r := loadRepoRubric(t)
	full := judgetest.AnswerAll(r.IDs(), oddOnes)
	first10 := judgetest.AnswerAll(r.IDs()[:10], oddOnes)
	cases := []struct {
		name        string
		replies     []string // by call; the last repeats
		wantCalls   int
		wantStatus  string
		wantMissing []int
		wantErrText string
	}{
		{"valid", []string{full}, 1, StatusOK, nil, ""},
		{"malformed then valid", []string{"not json {", full}, 2, StatusOK, nil, ""},
		{"fenced json accepted", []string{"```json\n" + full + "\n```"}, 1, StatusOK, nil, ""},
		{"always malformed", []string{`{"results": [`}, 3, StatusError, r.IDs(), "after 3 answer(s)"},
		{"no results key", []string{`{"verdicts": []}`}, 3, StatusError, r.IDs(), "results"},
		{"empty content", []string{""}, 3, StatusError, r.IDs(), "JSON"},
		{"missing then complete", []string{first10, full}, 2, StatusOK, nil, ""},
		{"always missing", []string{first10}, 3, StatusPartial, []int{11, 12, 13}, "lacks strategies 11, 12, 13"},
		{"bad scores count as missing", []string{strings.Replace(full, `"score":1`, `"score":2`, 1)}, 3, StatusPartial, []int{1}, "lacks strategies 1"},
		{"malformed then partial kept", []string{"nope", first10, "nope"}, 3, StatusPartial, []int{11, 12, 13}, "JSON"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := judgetest.New(func(req judgetest.Request) judgetest.Reply {
				i := req.N - 1
				if i >= len(c.replies) {
					i = len(c.replies) - 1
				}
				return judgetest.Reply{Content: c.replies[i]}
			})
			defer srv.Close()
			j, _ := newTestJudge(t, srv, nil)
			sc, err := j.Score(context.Background(), testSection, r)
			if err != nil {
				t.Fatalf("answer problems must not be transport errors: %v", err)
			}
			if srv.Calls() != c.wantCalls || sc.Attempts != c.wantCalls {
				t.Errorf("calls %d attempts %d, want %d", srv.Calls(), sc.Attempts, c.wantCalls)
			}
			if sc.Status != c.wantStatus {
				t.Errorf("status %s want %s (error %q)", sc.Status, c.wantStatus, sc.Error)
			}
			if len(sc.Missing) != len(c.wantMissing) {
				t.Errorf("missing %v want %v", sc.Missing, c.wantMissing)
			}
			for i := range c.wantMissing {
				if i < len(sc.Missing) && sc.Missing[i] != c.wantMissing[i] {
					t.Errorf("missing %v want %v", sc.Missing, c.wantMissing)
				}
			}
			if len(sc.Scores)+len(sc.Missing) != 13 {
				t.Errorf("%d scores + %d missing != 13", len(sc.Scores), len(sc.Missing))
			}
			if !strings.Contains(sc.Error, c.wantErrText) {
				t.Errorf("error %q lacks %q", sc.Error, c.wantErrText)
			}
		})
	}
}

func TestOpenAIRetryAfter(t *testing.T) {
	r := loadRepoRubric(t)
	for _, c := range []struct {
		name    string
		header  map[string]string
		minWait time.Duration
	}{
		{"Retry-After seconds", map[string]string{"Retry-After": "1"}, time.Second},
		{"retry-after-ms", map[string]string{"retry-after-ms": "300"}, 300 * time.Millisecond},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := judgetest.New(func(req judgetest.Request) judgetest.Reply {
				if req.N == 1 {
					return judgetest.Reply{Status: 429, Header: c.header}
				}
				return judgetest.Reply{Content: judgetest.AnswerAll(r.IDs(), oddOnes)}
			})
			defer srv.Close()
			j, logs := newTestJudge(t, srv, nil) // backoff base 5 ms: only the header explains a long wait
			start := time.Now()
			sc, err := j.Score(context.Background(), testSection, r)
			elapsed := time.Since(start)
			if err != nil || sc.Status != StatusOK {
				t.Fatalf("err %v status %s", err, sc.Status)
			}
			if srv.Calls() != 2 || sc.Attempts != 2 {
				t.Errorf("calls %d attempts %d, want 2", srv.Calls(), sc.Attempts)
			}
			if elapsed < c.minWait || elapsed > c.minWait+5*time.Second {
				t.Errorf("waited %v, want about %v", elapsed, c.minWait)
			}
			if !strings.Contains(logs.String(), "status=429") {
				t.Errorf("retry not logged: %s", logs.String())
			}
		})
	}
}

func TestOpenAIHTTPErrors(t *testing.T) {
	r := loadRepoRubric(t)
	cases := []struct {
		name      string
		status    int
		wantCalls int
	}{
		{"500 retried until MaxRetries", 500, 4},
		{"503 retried", 503, 4},
		{"400 not retried", 400, 1},
		{"401 not retried", 401, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := judgetest.New(func(req judgetest.Request) judgetest.Reply { return judgetest.Reply{Status: c.status} })
			defer srv.Close()
			j, _ := newTestJudge(t, srv, nil)
			sc, err := j.Score(context.Background(), testSection, r)
			if err == nil {
				t.Fatal("no error")
			}
			if srv.Calls() != c.wantCalls || sc.Attempts != c.wantCalls {
				t.Errorf("calls %d attempts %d want %d", srv.Calls(), sc.Attempts, c.wantCalls)
			}
			if sc.Status != StatusError || len(sc.Missing) != 13 || len(sc.Scores) != 0 {
				t.Errorf("status %s missing %d scores %d", sc.Status, len(sc.Missing), len(sc.Scores))
			}
			if !strings.Contains(sc.Error, "HTTP "+strconv.Itoa(c.status)) {
				t.Errorf("error %q", sc.Error)
			}
		})
	}
}

func TestOpenAITimeout(t *testing.T) {
	r := loadRepoRubric(t)
	srv := judgetest.New(func(req judgetest.Request) judgetest.Reply {
		return judgetest.Reply{Delay: 5 * time.Second, Content: "{}"}
	})
	defer srv.Close()
	j, _ := newTestJudge(t, srv, func(c *OpenAIConfig) {
		c.Timeout = 100 * time.Millisecond
		c.MaxRetries = 1
	})
	start := time.Now()
	sc, err := j.Score(context.Background(), testSection, r)
	if err == nil || !strings.Contains(sc.Error, "timed out") {
		t.Fatalf("err %v, section error %q", err, sc.Error)
	}
	if srv.Calls() != 2 || sc.Attempts != 2 {
		t.Errorf("calls %d attempts %d want 2", srv.Calls(), sc.Attempts)
	}
	if time.Since(start) > 4*time.Second { // unenforced: 2 × 5 s
		t.Errorf("timeout not enforced: %v", time.Since(start))
	}
	if sc.Status != StatusError || len(sc.Missing) != 13 {
		t.Errorf("status %s missing %v", sc.Status, sc.Missing)
	}
}

func TestOpenAICancelledContext(t *testing.T) {
	r := loadRepoRubric(t)
	srv := judgetest.New(func(req judgetest.Request) judgetest.Reply {
		return judgetest.Reply{Status: 429, Header: map[string]string{"Retry-After": "30"}}
	})
	defer srv.Close()
	j, _ := newTestJudge(t, srv, func(c *OpenAIConfig) { c.MaxBackoff = time.Minute })
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := j.Score(ctx, testSection, r); err == nil {
		t.Fatal("no error")
	}
	if time.Since(start) > 3*time.Second {
		t.Fatalf("cancel did not interrupt the Retry-After wait")
	}
}

func TestOpenAIKeyNeverLeaks(t *testing.T) {
	r := loadRepoRubric(t)
	// The server echoes the Authorization header into an error body, and
	// into the evidence of an answer.
	srv := judgetest.New(func(req judgetest.Request) judgetest.Reply {
		if req.N == 1 {
			return judgetest.Reply{Status: 500, Body: `{"error":{"message":"upstream saw ` + req.Authorization + `","type":"x"}}`}
		}
		items := []judgetest.Item{}
		for _, id := range r.IDs() {
			items = append(items, judgetest.Item{ID: id, Score: 1, Evidence: "header was " + req.Authorization})
		}
		return judgetest.Reply{Content: judgetest.Answer(items...)}
	})
	defer srv.Close()
	j, logs := newTestJudge(t, srv, nil)
	sc, err := j.Score(context.Background(), testSection, r)
	if err != nil {
		t.Fatal(err)
	}
	if srv.Calls() != 2 {
		t.Fatalf("calls %d", srv.Calls())
	}
	if !strings.Contains(logs.String(), "[REDACTED]") {
		t.Errorf("the echoed key was not logged redacted: %s", logs.String())
	}
	all := logs.String() + sc.Raw + sc.Error
	for _, s := range sc.Scores {
		all += s.Evidence
	}
	if strings.Contains(all, testKey) {
		t.Fatal("API key leaked into logs or results")
	}

	// A non-retryable error echoing the key: the returned error is scrubbed.
	srv2 := judgetest.New(func(req judgetest.Request) judgetest.Reply {
		return judgetest.Reply{Status: 401, Body: `{"error":{"message":"invalid key ` + req.Authorization + `"}}`}
	})
	defer srv2.Close()
	j2, logs2 := newTestJudge(t, srv2, nil)
	sc2, err := j2.Score(context.Background(), testSection, r)
	if err == nil || strings.Contains(err.Error(), testKey) || strings.Contains(sc2.Error, testKey) || strings.Contains(logs2.String(), testKey) {
		t.Fatalf("401 leaked the key: %v / %q", err, sc2.Error)
	}
}

func TestNewOpenAIConfigErrors(t *testing.T) {
	t.Setenv(testKeyEnv, "")
	_, err := NewOpenAI(OpenAIConfig{Model: "m", APIKeyEnv: testKeyEnv, Getenv: os.Getenv})
	if err == nil || !strings.Contains(err.Error(), testKeyEnv) {
		t.Fatalf("missing key: %v", err)
	}
	t.Setenv(testKeyEnv, testKey)
	if _, err := NewOpenAI(OpenAIConfig{APIKeyEnv: testKeyEnv, Getenv: os.Getenv}); err == nil {
		t.Fatal("empty model accepted")
	}
}

func TestRetryAfterParsing(t *testing.T) {
	h := func(k, v string) map[string][]string { return map[string][]string{k: {v}} }
	cases := []struct {
		hdr  map[string][]string
		want time.Duration
	}{
		{h("Retry-After", "2"), 2 * time.Second},
		{h("Retry-After", "0.5"), 500 * time.Millisecond},
		{h("Retry-After", "soon"), -1},
		{h("Retry-After-Ms", "250"), 250 * time.Millisecond},
		{map[string][]string{}, -1},
		{h("Retry-After", "Wed, 21 Oct 2015 07:28:00 GMT"), 0}, // past date: no wait
	}
	for _, c := range cases {
		if got := retryAfter(c.hdr); got != c.want {
			t.Errorf("%v: got %v want %v", c.hdr, got, c.want)
		}
	}
}

func TestOpenAIConnectionErrorRetried(t *testing.T) {
	r := loadRepoRubric(t)
	srv := judgetest.New(func(req judgetest.Request) judgetest.Reply { return judgetest.Reply{} })
	j, _ := newTestJudge(t, srv, func(c *OpenAIConfig) { c.MaxRetries = 1 })
	srv.Close() // nothing listens any more
	sc, err := j.Score(context.Background(), testSection, r)
	if err == nil || sc.Attempts != 2 || sc.Status != StatusError {
		t.Fatalf("err %v attempts %d status %s", err, sc.Attempts, sc.Status)
	}
}

func TestOpenAIConcurrencyLimit(t *testing.T) {
	r := loadRepoRubric(t)
	srv := judgetest.New(func(req judgetest.Request) judgetest.Reply {
		return judgetest.Reply{Delay: 250 * time.Millisecond, Content: judgetest.AnswerAll(r.IDs(), oddOnes)}
	})
	defer srv.Close()
	j, _ := newTestJudge(t, srv, func(c *OpenAIConfig) { c.Concurrency = 2 })
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			sec := Section{Label: "s", Text: strconv.Itoa(i)}
			if _, err := j.Score(context.Background(), sec, r); err != nil {
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	if srv.Calls() != 8 || srv.MaxInFlight() != 2 {
		t.Fatalf("calls %d, max in flight %d (want 8, 2)", srv.Calls(), srv.MaxInFlight())
	}
}

func TestOpenAICompatibilityOptions(t *testing.T) {
	r := loadRepoRubric(t)
	srv := judgetest.New(func(req judgetest.Request) judgetest.Reply {
		return judgetest.Reply{Content: judgetest.AnswerAll(r.IDs(), oddOnes)}
	})
	defer srv.Close()
	j, _ := newTestJudge(t, srv, func(c *OpenAIConfig) { c.LegacyMaxTokens, c.NoJSONMode = true, true })
	if _, err := j.Score(context.Background(), testSection, r); err != nil {
		t.Fatal(err)
	}
	req := srv.Requests()[0]
	if req.MaxTokens != 1234 || req.MaxCompletionTokens != 0 || req.ResponseFormat != "" {
		t.Fatalf("request %+v", req)
	}
}

func TestParseAnswerForms(t *testing.T) {
	r, _ := ParseRubric("t", []byte(okRubric)) // ids 1 and 2
	cases := []struct {
		content     string
		wantScores  map[int]int
		wantMissing []int
		wantErr     bool
	}{
		{`{"results":[{"id":1,"score":1},{"id":2,"score":0}]}`, map[int]int{1: 1, 2: 0}, nil, false},
		{`{"results":[{"id":"1","score":"1"},{"id":2.0,"score":true}]}`, map[int]int{1: 1, 2: 1}, nil, false},
		{`{"results":[{"id":1,"score":1},{"id":1,"score":0}]}`, map[int]int{1: 1}, []int{2}, false},
		{`{"results":[{"id":7,"score":1},{"id":2,"score":0.5},{"id":1,"score":null}]}`, map[int]int{}, []int{1, 2}, false},
		{`{"results":[]} trailing`, nil, []int{1, 2}, true},
		{`[1,2]`, nil, []int{1, 2}, true},
		{"```json\n{\"results\":[{\"id\":1,\"score\":0},{\"id\":2,\"score\":1}]}\n```", map[int]int{1: 0, 2: 1}, nil, false},
	}
	for _, c := range cases {
		scores, missing, err := ParseAnswer(c.content, r)
		if (err != nil) != c.wantErr {
			t.Errorf("%s: err %v", c.content, err)
		}
		got := map[int]int{}
		for _, s := range scores {
			got[s.ID] = s.Score
		}
		if c.wantScores != nil && fmt.Sprint(got) != fmt.Sprint(c.wantScores) {
			t.Errorf("%s: scores %v want %v", c.content, got, c.wantScores)
		}
		if fmt.Sprint(missing) != fmt.Sprint(c.wantMissing) && !(len(missing) == 0 && len(c.wantMissing) == 0) {
			t.Errorf("%s: missing %v want %v", c.content, missing, c.wantMissing)
		}
	}
}
