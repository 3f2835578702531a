package store

import (
	"context"
	"math"
	"testing"
)

// The typed bootstrap reads: NULL intervals come back as NaN, seed values
// are parsed, and a malformed seed list is an error naming the configuration.
func TestBootReads(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := s.db.ExecContext(ctx, q, args...); err != nil {
			t.Fatal(err)
		}
	}
	exec(`INSERT INTO challenges(id, ord, name, short_name, category, modality, task_type, primary_metric, n_leaderboard) VALUES ('c',0,'C','C','x','x','x','m',3)`)
	exec(`INSERT INTO runs(id, source, setting, backend, challenge_id, agent, seed, status, detail, submission_dir, started_at, ended_at) VALUES ('r1','local','24h','b','c','a',1,'done','','','','')`)
	exec(`INSERT INTO boot_runs(run_id, n_boot, boot_seed, n_cases, mean_rank_lo, mean_rank_hi, percentile_lo, percentile_hi, n_undefined, note) VALUES ('r1',100,7,12,1.5,2.5,0.25,0.75,3,'')`)
	exec(`INSERT INTO boot_metrics(run_id, metric, aggregation, value_lo, value_hi, position_lo, position_hi, note) VALUES ('r1','m','', NULL, NULL, NULL, NULL, 'not a mean')`)
	exec(`INSERT INTO boot_overall(source, setting, backend, agent, rexmle_rank, rexmle_rank_lo, rexmle_rank_hi, n_boot, boot_seed, n_fixed, n_seeds, seed_mean, seed_se, n_failed_seeds, seed_values, note)
		VALUES ('local','24h','b','a',0.5,0.4,0.6,100,7,0,2,0.5,NULL,1,'1:0.25;2:0.75','')`)
	exec(`INSERT INTO boot_pairwise(config_a, config_b, p_above, n_boot, boot_seed) VALUES ('x','y',0.9,100,7)`)
	exec(`INSERT INTO boot_rank_counts(config, rank, count, n_boot) VALUES ('x',1,90,100),('x',2,10,100)`)
	exec(`INSERT INTO gpu_summaries(run_id, telemetry, gpus, samples, wall_seconds, gpu_hours, energy_kwh) VALUES ('r1','nvml',2,5,3600,2,NULL)`)

	runs, err := s.BootRuns(ctx)
	if err != nil || len(runs) != 1 || runs[0].PctLo != 0.25 || runs[0].PctHi != 0.75 || runs[0].NBoot != 100 || runs[0].BootSeed != 7 || runs[0].NUndefined != 3 {
		t.Fatalf("boot runs %+v, %v", runs, err)
	}
	ms, err := s.BootMetrics(ctx)
	if err != nil || len(ms) != 1 || !math.IsNaN(ms[0].ValueLo) || !math.IsNaN(ms[0].PositionHi) || ms[0].Note != "not a mean" {
		t.Fatalf("boot metrics %+v, %v", ms, err)
	}
	ov, err := s.BootOverall(ctx)
	if err != nil || len(ov) != 1 {
		t.Fatalf("boot overall %+v, %v", ov, err)
	}
	o := ov[0]
	if o.Label() != "local/24h/b/a" || o.Lo != 0.4 || !math.IsNaN(o.SeedSE) || len(o.Seeds) != 2 || o.Seeds[1] != (SeedValue{2, 0.75}) || o.NFailed != 1 {
		t.Errorf("boot overall %+v", o)
	}
	ps, err := s.BootPairwise(ctx)
	if err != nil || len(ps) != 1 || ps[0].PAbove != 0.9 {
		t.Errorf("pairwise %+v, %v", ps, err)
	}
	rc, err := s.BootRankCounts(ctx)
	if err != nil || len(rc) != 2 || rc[1].Rank != 2 || rc[1].Count != 10 {
		t.Errorf("rank counts %+v, %v", rc, err)
	}
	exec(`UPDATE boot_overall SET seed_values='1=0.25'`)
	if _, err := s.BootOverall(ctx); err == nil {
		t.Error("a malformed seed_values reads without error")
	}
}
