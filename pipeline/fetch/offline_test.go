package fetch_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rexmle/rexmle/pipeline/fetch"
)

// unknownHostClient fails every connection as a resolver does for a name it
// does not know, counting the attempts.
func unknownHostClient(dials *atomic.Int32) *http.Client {
	return &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		dials.Add(1)
		host, _, _ := net.SplitHostPort(addr)
		return nil, &net.OpError{Op: "dial", Net: network, Err: &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}}
	}}}
}

// TestPlanFailsFastOnUnknownHost: a DNS "no such host" is not retried
// (the default policy would back off 6 times per record), so the plan of
// three records fails within a second, one lookup per record, each error
// naming the cause.
func TestPlanFailsFastOnUnknownHost(t *testing.T) {
	var dials atomic.Int32
	opts := fetch.Options{RawRoot: t.TempDir(), ZenodoBaseURL: "http://zenodo.invalid", HTTPClient: unknownHostClient(&dials),
		Retry: fetch.RetryPolicy{MaxAttempts: 6, BaseDelay: time.Second}}
	srcs := []fetch.Source{
		{Challenge: "a", Kind: fetch.KindZenodo, Record: "1"},
		{Challenge: "b", Kind: fetch.KindZenodo, Record: "2"},
		{Challenge: "c", Kind: fetch.KindZenodo, Record: "3"},
	}
	start := time.Now()
	p, err := fetch.Plan(context.Background(), srcs, opts)
	took := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	if took > time.Second {
		t.Fatalf("plan took %s against an unknown host, want under 1s (no retries)", took)
	}
	if n := dials.Load(); n != 3 {
		t.Fatalf("%d connection attempts, want 3 (one per record, no retry)", n)
	}
	for _, c := range p.Challenges {
		if c.Err == nil || !strings.Contains(c.Err.Error(), "no such host") || strings.Contains(c.Err.Error(), "giving up") {
			t.Fatalf("%s: err %v, want a single 'no such host' failure", c.Source.Label(), c.Err)
		}
	}
}

// TestProbeSaysInOneLineWhyTheHostDoesNotAnswer: the live check's probe
// turns an unknown host and a refused port into one short line each.
func TestProbeSaysInOneLineWhyTheHostDoesNotAnswer(t *testing.T) {
	srcs := []fetch.Source{{Challenge: "a", Kind: fetch.KindZenodo, Record: "1"}, {Challenge: "b", Kind: fetch.KindZenodo, Record: "2"}}
	var dials atomic.Int32
	err := fetch.Probe(context.Background(), srcs, fetch.Options{RawRoot: t.TempDir(), ZenodoBaseURL: "http://zenodo.invalid", HTTPClient: unknownHostClient(&dials)})
	if err == nil || err.Error() != "zenodo.invalid does not answer: no such host (offline, or DNS does not know zenodo.invalid)" {
		t.Fatalf("unknown host: %v", err)
	}
	if n := dials.Load(); n != 1 {
		t.Fatalf("%d attempts for one host, want 1", n)
	}
	l, lerr := net.Listen("tcp", "127.0.0.1:0")
	if lerr != nil {
		t.Fatal(lerr)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now: connections are refused
	err = fetch.Probe(context.Background(), srcs, fetch.Options{RawRoot: t.TempDir(), ZenodoBaseURL: "http://" + addr})
	if err == nil || err.Error() != addr+" does not answer: connection refused" {
		t.Fatalf("refused port: %v", err)
	}
	if strings.Contains(err.Error(), "\n") || errors.Unwrap(err) != nil && strings.Contains(errors.Unwrap(err).Error(), "\n") {
		t.Fatalf("probe error spans lines: %q", err)
	}
}

// TestPrintOfflineCountsSharedRecordsOnce: sizes, licence, terms, the page
// a browser opens and the disk total come from the sources alone; a record
// listed by two tasks counts once, an unknown size is said so.
func TestPrintOfflineCountsSharedRecordsOnce(t *testing.T) {
	srcs := []fetch.Source{
		{Challenge: "cow", For: "cow-1", Kind: fetch.KindZenodo, Record: "15", Files: []string{"All.zip"}, Extract: true, ApproxSize: 3 << 30, License: "https://opendata.swiss/en/terms-of-use"},
		{Challenge: "cow", For: "cow-2", Kind: fetch.KindZenodo, Record: "15", Files: []string{"All.zip"}, Extract: true, ApproxSize: 3 << 30},
		{Challenge: "us", Kind: fetch.KindGDrive, Record: "XYZ", Files: []string{"train.zip"}, Landing: "https://us.example/", Terms: "register on the challenge page"},
		{Challenge: "one", Kind: fetch.KindURL, URL: "https://h.example/d/x.tar?token=s3cret", Size: 1 << 20},
	}
	var b strings.Builder
	if err := fetch.PrintOffline(&b, srcs, "raw"); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"cow-1 (zenodo 15) → raw/cow\n  open:     https://zenodo.org/records/15\n  files:    All.zip, about 3.0 GiB (the whole record; the files taken may be less)\n  licence:  https://opendata.swiss/en/terms-of-use\n  terms:    none recorded\n",
		"cow-2 (zenodo 15)", "  shared:   the same record as an earlier source of cow; counted once in the total\n",
		"us (gdrive XYZ) → raw/us\n  open:     https://drive.google.com/file/d/XYZ/view\n  page:     https://us.example/\n  files:    train.zip, size unknown\n  licence:  not stated in the challenge file (see the page above)\n  terms:    register on the challenge page\n",
		"open:     https://h.example/d/x.tar?token=REDACTED\n  files:    x.tar, 1.0 MiB\n",
		"4 sources, 3 downloads; disk needed: about 3.0 GiB for the downloads + 1 of unknown size, and about as much again to unpack the archives",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("plan lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "s3cret") {
		t.Errorf("plan prints a token:\n%s", out)
	}
}
