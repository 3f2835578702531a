package store

import (
	"context"
	"math"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// Every column of a bundled table is either bundled with the type the
// schema declares or left out with a reason: a migration that adds a
// column fails here until the bundle says what to do with it.
func TestBundleTablesCoverTheSchema(t *testing.T) {
	s := open(t)
	decl := map[string]ColumnKind{"TEXT": Text, "INTEGER": Int, "REAL": Real, "BLOB": Blob}
	for _, tb := range BundleTables {
		rows, err := s.db.Query(`SELECT name, type, "notnull" OR pk > 0 FROM pragma_table_info(?)`, tb.Name)
		if err != nil {
			t.Fatal(err)
		}
		have := map[string]BundleColumn{}
		for rows.Next() {
			var name, typ string
			var notNull int
			if err := rows.Scan(&name, &typ, &notNull); err != nil {
				t.Fatal(err)
			}
			have[name] = BundleColumn{Name: name, Kind: decl[typ], Nullable: notNull == 0}
		}
		rows.Close()
		if len(have) == 0 {
			t.Fatalf("table %s does not exist", tb.Name)
		}
		seen := map[string]bool{}
		for _, c := range tb.Columns {
			seen[c.Name] = true
			h, ok := have[c.Name]
			if !ok {
				t.Errorf("%s.%s is bundled but not in the schema", tb.Name, c.Name)
				continue
			}
			if h.Kind != c.Kind {
				t.Errorf("%s.%s: bundled as %s, declared %s", tb.Name, c.Name, c.Kind, h.Kind)
			}
			if c.Nullable != h.Nullable {
				t.Errorf("%s.%s: bundled nullable=%v, schema nullable=%v", tb.Name, c.Name, c.Nullable, h.Nullable)
			}
		}
		for name := range tb.Omitted {
			seen[name] = true
			if _, ok := have[name]; !ok {
				t.Errorf("%s.%s is left out but not in the schema", tb.Name, name)
			}
		}
		var missing []string
		for name := range have {
			if !seen[name] {
				missing = append(missing, name)
			}
		}
		sort.Strings(missing)
		if len(missing) > 0 {
			t.Errorf("%s: columns neither bundled nor left out with a reason: %s", tb.Name, strings.Join(missing, ", "))
		}
	}
}

// Rows read with BundleRows and written back with PutBundleRows into a
// fresh store read back the same, NULL, ±Inf and blobs included; the
// paper's recorded runs and the columns left out stay behind.
func TestBundleRowsRoundTrip(t *testing.T) {
	ctx := context.Background()
	a := open(t)
	exec := func(s *Store, q string, args ...any) {
		t.Helper()
		if _, err := s.db.Exec(q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec(a, `INSERT INTO challenges(id, ord, name, short_name, category, modality, task_type, primary_metric, n_leaderboard) VALUES ('c',1,'C','C','x','x','x','m',3)`)
	exec(a, `INSERT INTO runs(id, source, setting, backend, challenge_id, agent, seed, status, submission_dir) VALUES ('r1','demo','24h','b','c','ag',1,'done','/home/someone/results/runs/r1')`)
	exec(a, `INSERT INTO runs(id, source, setting, backend, challenge_id, agent, seed, status) VALUES ('paper/x','paper','24h','b','c','ag',1,'recorded')`)
	exec(a, `INSERT INTO metric_values(run_id, metric, value, rounded) VALUES ('r1','m',0.1,0.1), ('r1','inf',?,?), ('r1','nan',NULL,NULL), ('paper/x','m',1,1)`, math.Inf(1), math.Inf(-1))
	exec(a, `INSERT INTO grades(run_id, mode, valid, graded_at, answers_hash) VALUES ('r1','reference',1,'t','secret-hash')`)
	exec(a, `INSERT INTO case_details(run_id, case_id, detail) VALUES ('r1','k',?)`, []byte{0, 1, 2, 255})
	exec(a, `INSERT INTO gpu_samples(run_id, at, gpu, sm_util) VALUES ('r1','t2',0,NULL), ('r1','t1',0,50)`)
	dump := func(s *Store) map[string][][]any {
		out := map[string][][]any{}
		for _, tb := range BundleTables {
			err := s.BundleRows(ctx, tb, func(v []any) error {
				out[tb.Name] = append(out[tb.Name], v)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		return out
	}
	got := dump(a)
	if n := len(got["runs"]); n != 1 || got["runs"][0][0] != "r1" {
		t.Fatalf("runs %v: want r1 only (recorded runs stay behind)", got["runs"])
	}
	if len(got["metric_values"]) != 3 {
		t.Fatalf("metric values %v", got["metric_values"])
	}
	if got["gpu_samples"][0][1] != "t2" {
		t.Errorf("gpu samples not in the order written: %v", got["gpu_samples"])
	}
	b := open(t)
	exec(b, `INSERT INTO challenges(id, ord, name, short_name, category, modality, task_type, primary_metric, n_leaderboard) VALUES ('c',1,'C','C','x','x','x','m',3)`)
	err := b.Update(ctx, func(tx *Tx) error {
		for _, tb := range BundleTables {
			if err := tx.PutBundleRows(ctx, tb, got[tb.Name]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if again := dump(b); !reflect.DeepEqual(again, got) {
		t.Errorf("round trip differs:\n%v\n%v", again, got)
	}
	var dir, ah string
	b.db.QueryRow(`SELECT submission_dir FROM runs WHERE id='r1'`).Scan(&dir)
	b.db.QueryRow(`SELECT answers_hash FROM grades WHERE run_id='r1'`).Scan(&ah)
	if dir != "" || ah != "" {
		t.Errorf("left-out columns travelled: submission_dir %q, answers_hash %q", dir, ah)
	}
	if h, err := b.HoldsRuns(ctx); err != nil || !h {
		t.Errorf("HoldsRuns = %v, %v", h, err)
	}
}
