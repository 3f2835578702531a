// Command gradefolder grades one submission folder against one answers
// folder with a registered challenge and prints the metric values as a JSON
// object. bench/graders.sh uses it to put our values beside the reference
// grader's on the data a benchmark kept (REXMLE_BENCH_KEEP).
//
//	go run ./bench/gradefolder -challenge usenhance -submission DIR -private DIR [-mode reference]
//
// With -repeat N it grades N times in this one process and reports each
// grade's wall time on standard error, the minimum last ("minimum of N:
// S s"), as bench/reference_time.py times the reference (minimum of N runs
// in one Python process); -cpuprofile FILE profiles the grading alone, on
// kept data, without a benchmark's data generation.
//
// With -floor it grades nothing: it reads and decodes every file of both
// folders with the fastest reader the project has (bench/floor), -repeat
// times, and prints what it decoded as JSON; the minimum time is the
// grade's input-decoding floor on the same files.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"math"
	"os"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/rexmle/rexmle/bench/floor"
	"github.com/rexmle/rexmle/pipeline/challenge"
	_ "github.com/rexmle/rexmle/pipeline/challenges/all"
)

func main() {
	id := flag.String("challenge", "", "registered challenge id (e.g. usenhance, neurips-cellseg)")
	sub := flag.String("submission", "", "submission folder (holds submission.csv)")
	priv := flag.String("private", "", "answers folder (holds test_labels.csv)")
	mode := flag.String("mode", "reference", "grading mode: reference or official")
	repeat := flag.Int("repeat", 1, "grade this many times, reporting each wall time on standard error")
	profile := flag.String("cpuprofile", "", "write a CPU profile of the grading to this file")
	floorOnly := flag.Bool("floor", false, "decode both folders' files only (no grade): the input-decoding floor")
	flag.Parse()
	if *floorOnly {
		if err := runFloor(*sub, *priv, *repeat); err != nil {
			slog.Error("gradefolder -floor", "err", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*id, *sub, *priv, *mode, *repeat, *profile); err != nil {
		slog.Error("gradefolder", "err", err)
		os.Exit(1)
	}
}

func run(id, sub, priv, modeName string, repeat int, profile string) error {
	c, ok := challenge.Lookup(id)
	if !ok {
		return fmt.Errorf("unknown challenge %q (registered: %s)", id, strings.Join(challenge.IDs(), ", "))
	}
	mode, err := challenge.ParseMode(modeName)
	if err != nil {
		return err
	}
	if repeat < 1 {
		return fmt.Errorf("-repeat %d: want at least 1", repeat)
	}
	if profile != "" {
		f, err := os.Create(profile)
		if err != nil {
			return fmt.Errorf("CPU profile: %w", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fmt.Errorf("CPU profile %s: %w", profile, err)
		}
		defer pprof.StopCPUProfile()
	}
	var res *challenge.Result
	var best, bestCPU time.Duration
	for i := 0; i < repeat; i++ {
		t0, c0 := time.Now(), processCPU()
		res, err = challenge.SafeGrade(context.Background(), c, sub, priv, mode)
		if err != nil {
			return fmt.Errorf("grade %s: %w", id, err)
		}
		d, cpu := time.Since(t0), processCPU()-c0
		if i == 0 || d < best {
			best = d
		}
		if i == 0 || cpu < bestCPU {
			bestCPU = cpu
		}
		if repeat > 1 {
			fmt.Fprintf(os.Stderr, "grade %d: %.6f s\n", i+1, d.Seconds())
		}
	}
	fmt.Fprintf(os.Stderr, "minimum of %d: %.6f s\n", repeat, best.Seconds())
	fmt.Fprintf(os.Stderr, "minimum CPU: %.6f s\n", bestCPU.Seconds())
	out := make(map[string]any, len(res.Values))
	for k, v := range res.Values {
		switch { // JSON has no NaN or infinities: written as the reference driver writes them
		case math.IsNaN(v):
			out[k] = "nan"
		case math.IsInf(v, 1):
			out[k] = "inf"
		case math.IsInf(v, -1):
			out[k] = "-inf"
		default:
			out[k] = v
		}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return fmt.Errorf("encode values: %w", err)
	}
	fmt.Println(string(b))
	return nil
}

// runFloor decodes the files of both folders repeat times and reports each
// pass's wall time on standard error (the minimum last, as run does) and
// what was decoded on standard output.
func runFloor(sub, priv string, repeat int) error {
	if sub == "" || priv == "" {
		return fmt.Errorf("-floor needs -submission and -private")
	}
	if repeat < 1 {
		return fmt.Errorf("-repeat %d: want at least 1", repeat)
	}
	paths, err := floor.Files(sub, priv)
	if err != nil {
		return err
	}
	var st floor.Stats
	var best, bestCPU time.Duration
	for i := 0; i < repeat; i++ {
		t0, c0 := time.Now(), processCPU()
		if st, err = floor.Decode(context.Background(), paths, 0); err != nil {
			return err
		}
		d, cpu := time.Since(t0), processCPU()-c0
		if i == 0 || d < best {
			best = d
		}
		if i == 0 || cpu < bestCPU {
			bestCPU = cpu
		}
		fmt.Fprintf(os.Stderr, "floor %d: %.6f s\n", i+1, d.Seconds())
	}
	fmt.Fprintf(os.Stderr, "minimum of %d: %.6f s\n", repeat, best.Seconds())
	fmt.Fprintf(os.Stderr, "minimum CPU: %.6f s\n", bestCPU.Seconds())
	b, err := json.Marshal(map[string]any{"files": st.Files, "bytes": st.Bytes, "samples": st.Samples, "min_s": best.Seconds()})
	if err != nil {
		return fmt.Errorf("encode floor: %w", err)
	}
	fmt.Println(string(b))
	return nil
}

// processCPU is the CPU time (user + system) this process has used, all
// threads together: on a loaded machine it measures the work better than
// the wall clock.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
