// Command fullsubmit writes stand-in agents' finished runs for the
// paper-sized benchmark (bench/full.sh): for every prepared challenge under
// <root>/data/synthetic, each agent's submission for each seed in
// <root>/results/runs/<group>/<challenge>/<agent>/seed-<n>/submission with a
// run.json that says the run is done — what the run stage leaves behind,
// without running agents. The submissions come from the challenge's own
// writers, one per agent in turn: the reference's sample submission, the
// trivial one (uninformed, valid) and the one built from the answers
// (perfect), so that the grade stage reads real files of every kind.
//
//	go run ./bench/fullsubmit -root DIR -group fullbench -agents sample,baseline,standin -seeds 3
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/rexmle/rexmle/pipeline/challenge"
	_ "github.com/rexmle/rexmle/pipeline/challenges/all"
)

func main() {
	root := flag.String("root", "", "the benchmark folder (holds benchmark.toml and data/)")
	group := flag.String("group", "fullbench", "run group (the profile's name)")
	agents := flag.String("agents", "sample,baseline,standin", "comma-separated agent ids, three at most")
	seeds := flag.Int("seeds", 3, "seeds per agent")
	only := flag.String("challenges", "", "comma-separated challenge ids (default: every prepared one)")
	flag.Parse()
	if err := run(context.Background(), *root, *group, strings.Split(*agents, ","), *seeds, *only); err != nil {
		slog.Error("fullsubmit", "err", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, root, group string, agents []string, seeds int, only string) error {
	if root == "" || seeds < 1 || len(agents) == 0 || len(agents) > 3 {
		return fmt.Errorf("want -root, -seeds ≥ 1 and one to three agents")
	}
	ids := challenge.IDs()
	if only != "" {
		ids = strings.Split(only, ",")
	}
	for _, id := range ids {
		c, ok := challenge.Lookup(id)
		if !ok {
			return fmt.Errorf("unknown challenge %q", id)
		}
		data := filepath.Join(root, "data", "synthetic", id)
		pub, priv := filepath.Join(data, "public"), filepath.Join(data, "private")
		if _, err := os.Stat(pub); err != nil {
			continue // not prepared
		}
		oracle, ok := c.(challenge.Oracle)
		if !ok {
			return fmt.Errorf("%s has no oracle submissions", id)
		}
		for a, agent := range agents {
			for seed := 1; seed <= seeds; seed++ {
				dir := filepath.Join(root, "results", "runs", group, id, agent, fmt.Sprintf("seed-%d", seed))
				sub := filepath.Join(dir, "submission")
				if err := os.MkdirAll(sub, 0o755); err != nil {
					return err
				}
				var err error
				switch a {
				case 0:
					err = c.SampleSubmission(ctx, pub, sub)
				case 1:
					err = oracle.Trivial(ctx, pub, sub)
				default:
					err = oracle.Perfect(ctx, pub, priv, sub)
				}
				if err != nil {
					return fmt.Errorf("%s %s seed %d: %w", id, agent, seed, err)
				}
				js := fmt.Sprintf(`{"status":"done","setting":%q,"backend":"none"}`, group)
				if err := os.WriteFile(filepath.Join(dir, "run.json"), []byte(js), 0o644); err != nil {
					return err
				}
			}
		}
		fmt.Printf("%s: %d agents × %d seeds\n", id, len(agents), seeds)
	}
	return nil
}
