package fetch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// HTTPStatusError is an unexpected HTTP status from a server.
type HTTPStatusError struct {
	URL        string
	StatusCode int
	// RetryAfter is the wait the server asked for (429/503), if it said.
	RetryAfter    time.Duration
	HasRetryAfter bool
}

// Error names the request and the status.
func (e *HTTPStatusError) Error() string {
	return fmt.Sprintf("GET %s: HTTP %d %s", e.URL, e.StatusCode, http.StatusText(e.StatusCode))
}

// errStalled marks a response body that delivered nothing for StallTimeout.
var errStalled = errors.New("download stalled")

// retryable reports whether err is worth another attempt: transport errors,
// stalls, truncated bodies, HTTP 408, 429 and 5xx. Cancellation of the
// caller's context is never retryable (checked by the caller).
func retryable(err error) bool {
	if err == nil {
		return false
	}
	var se *HTTPStatusError
	if errors.As(err, &se) {
		return se.StatusCode == http.StatusRequestTimeout || se.StatusCode == http.StatusTooManyRequests || se.StatusCode >= 500
	}
	var pe *permanentError
	if errors.As(err, &pe) {
		return false
	}
	// A host the resolver does not know stays unknown for the next try
	// (offline, or a typo): fail at once instead of backing off.
	var dns *net.DNSError
	if errors.As(err, &dns) && dns.IsNotFound {
		return false
	}
	// Transport-level failures: resets, timeouts, unexpected EOF, refused
	// connections, stalls. Anything that is not a known permanent condition
	// is treated as transient.
	return true
}

// permanentError wraps failures that another attempt cannot fix.
type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

func permanent(err error) error { return &permanentError{err} }

// parseRetryAfter reads a Retry-After value: delay-seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseInt(v, 10, 64); err == nil {
		if s < 0 {
			return 0, false
		}
		return time.Duration(s) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		d := t.Sub(now)
		if d < 0 {
			d = 0
		}
		return d, true
	}
	return 0, false
}

// statusError builds the error for a response with an unexpected status.
func statusError(resp *http.Response, now time.Time) *HTTPStatusError {
	e := &HTTPStatusError{URL: redactURL(resp.Request.URL), StatusCode: resp.StatusCode}
	if d, ok := parseRetryAfter(resp.Header.Get("Retry-After"), now); ok {
		e.RetryAfter, e.HasRetryAfter = d, true
	}
	return e
}

// redactURL prints u without user info or query values that look secret.
func redactURL(u *url.URL) string {
	c := *u
	c.User = nil
	q := c.Query()
	changed := false
	for k := range q {
		lk := strings.ToLower(k)
		if strings.Contains(lk, "token") || strings.Contains(lk, "key") || strings.Contains(lk, "secret") {
			q.Set(k, "REDACTED")
			changed = true
		}
	}
	if changed {
		c.RawQuery = q.Encode()
	}
	return c.String()
}

// backoff returns the wait before retry number attempt (1-based) after err.
func (f *fetcher) backoff(attempt int, err error) time.Duration {
	var se *HTTPStatusError
	if errors.As(err, &se) && se.HasRetryAfter {
		d := se.RetryAfter
		if d > f.opts.Retry.MaxRetryAfter {
			d = f.opts.Retry.MaxRetryAfter
		}
		return d
	}
	d := f.opts.Retry.BaseDelay
	for i := 1; i < attempt && d < f.opts.Retry.MaxDelay; i++ {
		d *= 2
	}
	if d > f.opts.Retry.MaxDelay {
		d = f.opts.Retry.MaxDelay
	}
	// Full jitter over the upper half keeps waits spread but never tiny.
	half := d / 2
	if half > 0 {
		d = half + time.Duration(rand.Int64N(int64(half)+1))
	}
	return d
}

// sleepCtx waits d or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// withRetry runs try until it succeeds, fails permanently, or runs out of
// attempts. try reports whether it made progress (transferred bytes), which
// resets the attempt count.
func (f *fetcher) withRetry(ctx context.Context, what string, try func() (progress bool, err error)) error {
	attempt := 0
	for {
		progress, err := try()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("%s: %w", what, context.Cause(ctx))
		}
		if !retryable(err) {
			return err
		}
		if progress {
			attempt = 0
		}
		attempt++
		if attempt >= f.opts.Retry.MaxAttempts {
			return fmt.Errorf("%s: giving up after %d attempts: %w", what, attempt, err)
		}
		wait := f.backoff(attempt, err)
		f.log.Warn("retrying", "what", what, "attempt", attempt+1, "wait", wait.Round(time.Millisecond), "err", err.Error())
		if err := sleepCtx(ctx, wait); err != nil {
			return fmt.Errorf("%s: %w", what, context.Cause(ctx))
		}
	}
}

// newRequest builds a GET for rawURL, adding the API token when the host is
// one of the configured API hosts.
func (f *fetcher) newRequest(ctx context.Context, rawURL string) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, permanent(fmt.Errorf("bad URL %q: %w", rawURL, err))
	}
	req.Header.Set("User-Agent", "rexmle-fetch/1")
	if f.token != "" {
		switch req.URL.Host {
		case f.zenodoHost:
			req.Header.Set("Authorization", "Bearer "+f.token)
		case f.figshareHost:
			req.Header.Set("Authorization", "token "+f.token)
		}
	}
	return req, nil
}

// getJSON fetches rawURL and decodes its JSON body into v, with retries.
func (f *fetcher) getJSON(ctx context.Context, rawURL string, v any) error {
	return f.withRetry(ctx, "GET "+rawURL, func() (bool, error) {
		req, err := f.newRequest(ctx, rawURL)
		if err != nil {
			return false, err
		}
		req.Header.Set("Accept", "application/json")
		resp, err := f.opts.HTTPClient.Do(req)
		if err != nil {
			return false, err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			se := statusError(resp, f.opts.Now())
			if !retryable(se) {
				return false, permanent(se)
			}
			return false, se
		}
		body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
		if err != nil {
			return false, fmt.Errorf("read %s: %w", rawURL, err)
		}
		if err := json.Unmarshal(body, v); err != nil {
			return false, permanent(fmt.Errorf("decode JSON from %s: %w", rawURL, err))
		}
		return false, nil
	})
}

// hostOf returns the host:port of a base URL ("" if unparsable).
func hostOf(base string) string {
	u, err := url.Parse(base)
	if err != nil {
		return ""
	}
	return u.Host
}
