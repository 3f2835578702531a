package fetch

import (
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"time"
)

// Default public API bases.
const (
	DefaultZenodoBaseURL   = "https://zenodo.org"
	DefaultFigshareBaseURL = "https://api.figshare.com"
	DefaultGDriveBaseURL   = "https://drive.google.com"
)

// LockFileName is the name of the per-challenge record of verified files.
const LockFileName = "FETCHED.lock"

// RetryPolicy says how often and how patiently transient failures (timeouts,
// connection resets, HTTP 408/429/5xx) are retried.
type RetryPolicy struct {
	// MaxAttempts is the number of tries per request without progress
	// (default 6). An attempt that transferred bytes resets the count.
	MaxAttempts int
	// BaseDelay is the first backoff (default 1 s); each retry doubles it up
	// to MaxDelay (default 2 min), with full jitter in [delay/2, delay].
	BaseDelay, MaxDelay time.Duration
	// MaxRetryAfter caps a server's Retry-After request (default 10 min).
	MaxRetryAfter time.Duration
}

// Options configure Plan, Fetch and Verify. The zero value of every field
// except RawRoot has a usable default.
type Options struct {
	// RawRoot is the folder under which challenge c's files go, in RawRoot/c.
	RawRoot string
	// ZenodoBaseURL, FigshareBaseURL and GDriveBaseURL override the public
	// services (mirrors, tests).
	ZenodoBaseURL, FigshareBaseURL, GDriveBaseURL string
	// Token is an API token (REXMLE_FETCH_TOKEN; "" for none). It is sent
	// as an Authorization header to the Zenodo and Figshare hosts only, and
	// never logged or written.
	Token string
	// Concurrency is the number of files downloaded at once (default 4).
	Concurrency int
	// HTTPClient is used for every request (default: a client with connect
	// and response-header timeouts and no overall timeout). A custom client
	// must not set Client.Timeout: it would cut long downloads; stalls are
	// caught by StallTimeout instead.
	HTTPClient *http.Client
	// Progress receives the progress display (nil = no display).
	Progress io.Writer
	// IsTTY draws one in-place progress display on Progress; otherwise one
	// log line at the start and end of each file.
	IsTTY bool
	// Logger receives structured logs (default: slog.Default()).
	Logger *slog.Logger
	// MaxExtractBytes caps the bytes unpacked from one archive (default:
	// 20 × the archive's size + 1 GiB, ample for medical images, which are
	// stored compressed, and tight against archive bombs).
	MaxExtractBytes int64
	// MaxEntryRatio caps uncompressed/compressed size of a deflated zip
	// entry that unpacks to more than 1 MiB (default 2000; deflate itself
	// cannot exceed about 1032, so only lower settings bite).
	MaxEntryRatio float64
	// Retry is the retry policy.
	Retry RetryPolicy
	// StallTimeout aborts (and retries) a response whose body delivers no
	// byte for this long (default 2 min).
	StallTimeout time.Duration
	// SyncEvery is the number of bytes between fsyncs of a .part file
	// (default 32 MiB).
	SyncEvery int64
	// Verify re-hashes files already recorded in FETCHED.lock before
	// skipping them.
	Verify bool
	// SkipSpaceCheck disables the free-space check before downloading.
	SkipSpaceCheck bool
	// FreeSpace reports the bytes available to the user in the file system
	// holding dir (default: statfs; tests substitute their own).
	FreeSpace func(dir string) (uint64, error)
	// Now is the clock for lock-file times (default time.Now).
	Now func() time.Time
}

// RawDir is the folder receiving challenge's files.
func (o Options) RawDir(challenge string) string {
	return filepath.Join(o.RawRoot, challenge)
}

// withDefaults fills every unset field.
func (o Options) withDefaults() (Options, error) {
	if o.RawRoot == "" {
		return o, fmt.Errorf("fetch: Options.RawRoot is empty")
	}
	if o.ZenodoBaseURL == "" {
		o.ZenodoBaseURL = DefaultZenodoBaseURL
	}
	if o.FigshareBaseURL == "" {
		o.FigshareBaseURL = DefaultFigshareBaseURL
	}
	if o.GDriveBaseURL == "" {
		o.GDriveBaseURL = DefaultGDriveBaseURL
	}
	if o.Concurrency <= 0 {
		o.Concurrency = 4
	}
	if o.HTTPClient == nil {
		o.HTTPClient = defaultHTTPClient()
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.MaxEntryRatio <= 0 {
		o.MaxEntryRatio = 2000
	}
	if o.Retry.MaxAttempts <= 0 {
		o.Retry.MaxAttempts = 6
	}
	if o.Retry.BaseDelay <= 0 {
		o.Retry.BaseDelay = time.Second
	}
	if o.Retry.MaxDelay <= 0 {
		o.Retry.MaxDelay = 2 * time.Minute
	}
	if o.Retry.MaxRetryAfter <= 0 {
		o.Retry.MaxRetryAfter = 10 * time.Minute
	}
	if o.StallTimeout <= 0 {
		o.StallTimeout = 2 * time.Minute
	}
	if o.SyncEvery <= 0 {
		o.SyncEvery = 32 << 20
	}
	if o.FreeSpace == nil {
		o.FreeSpace = freeSpace
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o, nil
}

func defaultHTTPClient() *http.Client {
	tr := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		TLSHandshakeTimeout:   30 * time.Second,
		ResponseHeaderTimeout: 2 * time.Minute,
		IdleConnTimeout:       90 * time.Second,
		MaxIdleConnsPerHost:   8,
		// HTTP/1.1: parallel downloads from one host then get a TCP
		// connection each instead of sharing one multiplexed HTTP/2 stream
		// window, which is what bulk transfers want.
		ForceAttemptHTTP2: false,
	}
	return &http.Client{Transport: tr}
}
