package store

import (
	"context"
	"database/sql"
	"math"
	"path/filepath"
	"testing"

	"github.com/rexmle/rexmle/pipeline/config"
	"github.com/rexmle/rexmle/pipeline/rank"
)

func rankFixture(t *testing.T) (*Store, context.Context) {
	t.Helper()
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "s.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	c := &config.Challenge{ID: "c1", Name: "c1", ShortName: "C1", Category: "segmentation", Modality: "CT", TaskType: "seg", PrimaryMetric: "dice"}
	err = s.Update(ctx, func(tx *Tx) error {
		if err := tx.SyncChallenges(ctx, []*config.Challenge{c}); err != nil {
			return err
		}
		for i, id := range []string{"r2", "r1"} {
			if err := tx.PutRun(ctx, Run{ID: id, Source: "x", Setting: "demo", Backend: "none", Challenge: "c1", Agent: "a", Seed: i + 1, Status: RunDone}); err != nil {
				return err
			}
		}
		return tx.PutCaseValues(ctx, "r1", []CaseValues{
			{Case: "b", Values: map[string]float64{"dice": 0.5, "hd": math.NaN()}},
			{Case: "a", Values: map[string]float64{"dice": 0.25}},
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return s, ctx
}

func TestRankReads(t *testing.T) {
	s, ctx := rankFixture(t)
	err := s.Update(ctx, func(tx *Tx) error {
		runs, err := tx.Runs(ctx)
		if err != nil {
			return err
		}
		if len(runs) != 2 || runs[0].ID != "r1" || runs[1].ID != "r2" || runs[0].Challenge != "c1" || runs[0].Status != RunDone {
			t.Errorf("runs %+v, want r1 then r2 of c1, done", runs)
		}
		cases, err := tx.CaseValues(ctx, "r1")
		if err != nil {
			return err
		}
		if len(cases) != 2 || cases[0].ID != "a" || cases[1].ID != "b" || cases[0].Values["dice"] != 0.25 ||
			!math.IsNaN(cases[1].Values["hd"]) || len(cases[1].Values) != 2 {
			t.Errorf("cases %+v, want a then b, hd of b NaN", cases)
		}
		if cases, err := tx.CaseValues(ctx, "r2"); err != nil || len(cases) != 0 {
			t.Errorf("cases of r2: %v, %v; want none", cases, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestMarkRankPartial(t *testing.T) {
	s, ctx := rankFixture(t)
	err := s.Update(ctx, func(tx *Tx) error { return tx.MarkRankPartial(ctx, "r1", 0.2, 0.6) })
	if err == nil {
		t.Fatal("a run without a rank was marked partial")
	}
	err = s.Update(ctx, func(tx *Tx) error {
		if err := tx.PutRank(ctx, "r1", rank.Result{Status: rank.Fail, Positions: map[string]int{"dice": 3}, N: 4, K: 2}); err != nil {
			return err
		}
		return tx.MarkRankPartial(ctx, "r1", 0.2, 0.6)
	})
	if err != nil {
		t.Fatal(err)
	}
	var status string
	var lo, hi float64
	if err := s.RawQueryRow(ctx, `SELECT status, percentile_lo, percentile_hi FROM ranks WHERE run_id='r1'`).Scan(&status, &lo, &hi); err != nil {
		t.Fatal(err)
	}
	if status != rankPartial || lo != 0.2 || hi != 0.6 {
		t.Errorf("rank of r1: %s [%v, %v], want %s [0.2, 0.6]", status, lo, hi, rankPartial)
	}
}

func TestBootWritesReplaceAndStoreNaNAsNull(t *testing.T) {
	s, ctx := rankFixture(t)
	put := func(note string, ms []MetricBootRecord) {
		t.Helper()
		err := s.Update(ctx, func(tx *Tx) error {
			return tx.PutRunBoot(ctx, "r1", RunBootRecord{NBoot: 10, BootSeed: 7, NCases: 2, MeanRankLo: 1, MeanRankHi: math.NaN(),
				PctLo: 0.1, PctHi: 0.9, Note: note}, ms)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	put("first", []MetricBootRecord{{Metric: "dice", ValueLo: 0.1, ValueHi: 0.2}, {Metric: "hd", ValueLo: math.NaN()}})
	put("second", []MetricBootRecord{{Metric: "dice", Aggregation: "mean", ValueLo: 0.3, ValueHi: 0.4, PositionLo: 1, PositionHi: 2}})
	var note string
	var hi sql.NullFloat64
	var n int
	if err := s.RawQueryRow(ctx, `SELECT note, mean_rank_hi, (SELECT count(*) FROM boot_metrics) FROM boot_runs WHERE run_id='r1'`).Scan(&note, &hi, &n); err != nil {
		t.Fatal(err)
	}
	if note != "second" || hi.Valid || n != 1 {
		t.Errorf("boot_runs note %q, mean_rank_hi %v, %d metric rows; want the second write, NULL, 1 row", note, hi, n)
	}

	rec := StabilityRecord{NBoot: 10, BootSeed: 7,
		Overall: []OverallBootRecord{{Source: "x", Setting: "demo", Backend: "none", Agent: "a", Rank: 0.5, RankLo: math.NaN(), RankHi: 0.7,
			SeedMean: math.NaN(), Challenges: []ChallengeBootRecord{{Challenge: "c1", Percentile: 0.5, PctLo: 0.4, PctHi: 0.6}}}},
		Pairs:  []PairwiseRecord{{A: "x/a", B: "x/b", PAbove: 0.75}},
		Counts: []RankCountRecord{{Config: "x/a", Rank: 1, Count: 6}, {Config: "x/a", Rank: 2, Count: 4}},
	}
	for range 2 {
		if err := s.Update(ctx, func(tx *Tx) error { return tx.ReplaceStability(ctx, rec) }); err != nil {
			t.Fatal(err)
		}
	}
	var lo sql.NullFloat64
	var nOverall, nCh, nPairs, nCounts, counted int
	if err := s.RawQueryRow(ctx, `SELECT rexmle_rank_lo, (SELECT count(*) FROM boot_overall), (SELECT count(*) FROM boot_challenges),
		(SELECT count(*) FROM boot_pairwise), (SELECT count(*) FROM boot_rank_counts), (SELECT sum(count) FROM boot_rank_counts) FROM boot_overall`).
		Scan(&lo, &nOverall, &nCh, &nPairs, &nCounts, &counted); err != nil {
		t.Fatal(err)
	}
	if lo.Valid || nOverall != 1 || nCh != 1 || nPairs != 1 || nCounts != 2 || counted != 10 {
		t.Errorf("after two replacements: lo %v, rows %d/%d/%d/%d, counted %d; want NULL, 1/1/1/2, 10", lo, nOverall, nCh, nPairs, nCounts, counted)
	}
}

func TestReplaceReproductionKeepsOrder(t *testing.T) {
	s, ctx := rankFixture(t)
	cs := []Reproduced{
		{Check: Check{RunID: "r2", Table: "S1", Challenge: "c1", What: "dice", Computed: "0.5", Printed: "0.5", Class: "match"}, Where: "row 1"},
		{Check: Check{RunID: "r1", Table: "S1", Challenge: "c1", What: "hd", Computed: "1", Printed: "2", Class: "inconsistency", Why: "w"}, Where: "row 2"},
	}
	for _, want := range [][]Reproduced{cs, cs[1:]} {
		if err := s.Update(ctx, func(tx *Tx) error { return tx.ReplaceReproduction(ctx, want) }); err != nil {
			t.Fatal(err)
		}
		got, err := s.Reproduction(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("%d checks, want %d", len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i].Check {
				t.Errorf("check %d: %+v, want %+v", i, got[i], want[i].Check)
			}
		}
	}
}

// TestCaseDetailsRoundTrip stores grader details beside case values: they
// come back on their cases (a case known only by its detail too, in id
// order), and a regrade replaces them.
func TestCaseDetailsRoundTrip(t *testing.T) {
	s, ctx := rankFixture(t)
	err := s.Update(ctx, func(tx *Tx) error {
		if err := tx.PutCaseValues(ctx, "r1", []CaseValues{
			{Case: "b", Values: map[string]float64{"dice": 0.5}, Detail: []byte(`{"tp":3}`)},
			{Case: "a", Values: map[string]float64{"dice": 0.25}},
			{Case: "0", Detail: []byte{}},
		}); err != nil {
			return err
		}
		cases, err := tx.CaseValues(ctx, "r1")
		if err != nil {
			return err
		}
		if len(cases) != 3 || cases[0].ID != "0" || cases[1].ID != "a" || cases[2].ID != "b" {
			t.Fatalf("cases %+v, want 0, a, b", cases)
		}
		if cases[0].Detail == nil || len(cases[0].Detail) != 0 || len(cases[0].Values) != 0 {
			t.Errorf("detail-only case %+v, want an empty non-nil detail and no values", cases[0])
		}
		if cases[1].Detail != nil {
			t.Errorf("case a has detail %q, want none", cases[1].Detail)
		}
		if string(cases[2].Detail) != `{"tp":3}` || cases[2].Values["dice"] != 0.5 {
			t.Errorf("case b %+v, want its detail and value", cases[2])
		}
		if err := tx.PutCaseValues(ctx, "r1", []CaseValues{{Case: "b", Values: map[string]float64{"dice": 1}}}); err != nil {
			return err
		}
		cases, err = tx.CaseValues(ctx, "r1")
		if err != nil {
			return err
		}
		if len(cases) != 1 || cases[0].Detail != nil {
			t.Errorf("after a regrade without details: %+v, want one case without detail", cases)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
