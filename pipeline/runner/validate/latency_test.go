package validate

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/rexmle/rexmle/pipeline/challenge"
	"github.com/rexmle/rexmle/pipeline/challenges/dentex"
	"github.com/rexmle/rexmle/pipeline/challenges/isles22"
	"github.com/rexmle/rexmle/pipeline/challenges/ldctiqa"
	"github.com/rexmle/rexmle/pipeline/challenges/usenhance"
)

// TestValidationLatency measures the cost of the snapshot: a valid
// submission (the oracle's, on the synthetic demo data) validated by
// grading the live folder in process, as the endpoint did before, and
// through the endpoint as it is (snapshot, then grade). Set
// REXMLE_VALIDATE_LATENCY=N to run it N times each and log p50 and p99
// (on data of the size REXMLE_SYNTH_CASES asks for).
func TestValidationLatency(t *testing.T) {
	n := 0
	if v := os.Getenv("REXMLE_VALIDATE_LATENCY"); v != "" {
		for _, c := range v {
			n = n*10 + int(c-'0')
		}
	}
	if n == 0 {
		t.Skip("set REXMLE_VALIDATE_LATENCY=N to measure")
	}
	size, err := challenge.ParseSynthSize(os.Getenv(challenge.SynthCasesEnv)) // REXMLE_SYNTH_CASES=full: the real case counts
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []challenge.Challenge{isles22.Challenge{}, usenhance.Challenge{}} {
		t.Run(c.ID(), func(t *testing.T) {
			ctx := context.Background()
			sub, check, srv := latencySetup(t, c, size)
			files, bytes := folderSize(sub)
			live := timeIt(t, n, func() error { return check(ctx, sub) })
			snap := timeIt(t, n, func() error {
				r, err := Ask(ctx, srv.Socket, "/submission")
				if err == nil && !r.Valid {
					t.Fatalf("the oracle's submission is invalid: %s", r.Reason)
				}
				return err
			})
			t.Logf("%s (%d files, %d KB), %d runs each: live folder in process p50 %v p99 %v; endpoint with snapshot p50 %v p99 %v",
				c.ID(), files, bytes>>10, n, live[0], live[1], snap[0], snap[1])
		})
	}
}

// latencySetup synthesizes c at size, prepares it, writes the oracle's
// submission into a run folder's submission/ and starts an endpoint on it
// (closed with the test): the submission folder, the in-process check and
// the server.
func latencySetup(tb testing.TB, c challenge.Challenge, size challenge.SynthSize) (string, CheckFunc, *Server) {
	tb.Helper()
	ctx := context.Background()
	root := tb.TempDir()
	raw, data := filepath.Join(root, "raw"), filepath.Join(root, "data")
	if err := c.Synthesize(ctx, raw, 1, size); err != nil {
		tb.Fatal(err)
	}
	if err := c.Prepare(ctx, raw, data); err != nil {
		tb.Fatal(err)
	}
	run := filepath.Join(root, "run")
	sub := filepath.Join(run, "submission")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := c.(challenge.Oracle).Perfect(ctx, filepath.Join(data, "public"), filepath.Join(data, "private"), sub); err != nil {
		tb.Fatal(err)
	}
	check := Check(c, filepath.Join(data, "private"), challenge.Reference)
	srv, err := Listen(filepath.Join(run, "v.sock"), mustHandler(tb, Config{Check: check, Folders: map[string]string{"/submission": sub}, Default: "/submission", Scratch: filepath.Join(run, ".validate")}))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { srv.Close() })
	return sub, check, srv
}

// folderSize counts the regular files under dir and their bytes.
func folderSize(dir string) (files int, bytes int64) {
	filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			files++
			bytes += fi.Size()
		}
		return nil
	})
	return files, bytes
}

// BenchmarkValidate times the validation endpoint agents call during a run,
// end to end over its Unix socket (request, sealed snapshot copy of the
// folder, grade, answer), on the oracle's submission of one challenge of
// each kind: a CSV (LDCT-IQA), a folder of NIfTI masks (ISLES'22), PNGs
// (USenhance), detection JSON (DENTEX), at the size REXMLE_SYNTH_CASES
// asks for (default: the demo's; full: the real test splits). Besides
// ns/op it reports the p50 and p99 latency in ms and the folder's files
// and KB.
func BenchmarkValidate(b *testing.B) {
	size, err := challenge.ParseSynthSize(os.Getenv(challenge.SynthCasesEnv))
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []challenge.Challenge{ldctiqa.Challenge{}, isles22.Challenge{}, usenhance.Challenge{}, dentex.Challenge{}} {
		b.Run(c.ID(), func(b *testing.B) {
			ctx := context.Background()
			sub, _, srv := latencySetup(b, c, size)
			files, bytes := folderSize(sub)
			var d []time.Duration
			b.ResetTimer()
			for b.Loop() {
				start := time.Now()
				r, err := Ask(ctx, srv.Socket, "/submission")
				if err != nil {
					b.Fatal(err)
				}
				if !r.Valid {
					b.Fatalf("the oracle's submission is invalid: %s", r.Reason)
				}
				d = append(d, time.Since(start))
			}
			sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
			n := len(d)
			b.ReportMetric(float64(d[(n-1)/2])/1e6, "p50-ms")
			b.ReportMetric(float64(d[min(n-1, (n*99+99)/100-1)])/1e6, "p99-ms")
			b.ReportMetric(float64(files), "files")
			b.ReportMetric(float64(bytes)/1024, "KB")
		})
	}
}

// timeIt runs f n times and returns the p50 and p99 of its durations.
func timeIt(t *testing.T, n int, f func() error) [2]time.Duration {
	d := make([]time.Duration, n)
	for i := range d {
		start := time.Now()
		if err := f(); err != nil {
			t.Fatal(err)
		}
		d[i] = time.Since(start)
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return [2]time.Duration{d[(n-1)/2], d[min(n-1, (n*99+99)/100-1)]}
}
