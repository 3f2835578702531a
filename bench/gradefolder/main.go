// Command gradefolder grades one submission folder against one answers
// folder with a registered challenge and prints the metric values as a JSON
// object. bench/graders.sh uses it to put our values beside the reference
// grader's on the data a benchmark kept (REXMLE_BENCH_KEEP).
//
//	go run ./bench/gradefolder -challenge usenhance -submission DIR -private DIR [-mode reference]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"math"
	"os"
	"strings"

	"github.com/rexmle/rexmle/internal/challenge"
	_ "github.com/rexmle/rexmle/internal/challenges/all"
)

func main() {
	id := flag.String("challenge", "", "registered challenge id (e.g. usenhance, neurips-cellseg)")
	sub := flag.String("submission", "", "submission folder (holds submission.csv)")
	priv := flag.String("private", "", "answers folder (holds test_labels.csv)")
	mode := flag.String("mode", "reference", "grading mode: reference or official")
	flag.Parse()
	if err := run(*id, *sub, *priv, *mode); err != nil {
		slog.Error("gradefolder", "err", err)
		os.Exit(1)
	}
}

func run(id, sub, priv, modeName string) error {
	c, ok := challenge.Lookup(id)
	if !ok {
		return fmt.Errorf("unknown challenge %q (registered: %s)", id, strings.Join(challenge.IDs(), ", "))
	}
	mode, err := challenge.ParseMode(modeName)
	if err != nil {
		return err
	}
	res, err := challenge.SafeGrade(context.Background(), c, sub, priv, mode)
	if err != nil {
		return fmt.Errorf("grade %s: %w", id, err)
	}
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
