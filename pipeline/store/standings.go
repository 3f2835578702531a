package store

import (
	"context"
	"database/sql"
	"fmt"
	"math"
)

// Standing is one agent configuration's ReX-MLE rank as the rank stage
// computed it: the mean over challenges of its per-challenge percentiles
// (NaN when some challenge is known by its primary metric only), the
// reachable range [Lo, Hi], and the per-challenge values.
type Standing struct {
	Source, Setting, Backend, Agent string
	NChallenges, NPartial           int
	Overall, Lo, Hi                 float64
	Challenges                      []StandingChallenge // in challenge id order
}

// StandingChallenge is one challenge of a standing: the percentile (mean
// over seeds, a failed run 0; NaN when partial) and its reachable range.
type StandingChallenge struct {
	Challenge string
	Pct       float64
	Lo, Hi    float64
	Partial   bool
}

// ReplaceStandings replaces every standing with ss (the rank stage's one
// computation; the site and the exports read it, never recompute it).
func (t *Tx) ReplaceStandings(ctx context.Context, ss []Standing) error {
	for _, q := range []string{`DELETE FROM standing_challenges`, `DELETE FROM standings`} {
		if _, err := t.tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("clear standings: %w", err)
		}
	}
	for _, s := range ss {
		if _, err := t.tx.ExecContext(ctx, `INSERT INTO standings(source, setting, backend, agent, n_challenges, n_partial, overall, overall_lo, overall_hi) VALUES (?,?,?,?,?,?,?,?,?)`,
			s.Source, s.Setting, s.Backend, s.Agent, s.NChallenges, s.NPartial, nullable(s.Overall), s.Lo, s.Hi); err != nil {
			return fmt.Errorf("store standing of %s/%s/%s/%s: %w", s.Source, s.Setting, s.Backend, s.Agent, err)
		}
		for _, c := range s.Challenges {
			if _, err := t.tx.ExecContext(ctx, `INSERT INTO standing_challenges(source, setting, backend, agent, challenge_id, percentile, lo, hi, partial) VALUES (?,?,?,?,?,?,?,?,?)`,
				s.Source, s.Setting, s.Backend, s.Agent, c.Challenge, nullable(c.Pct), c.Lo, c.Hi, c.Partial); err != nil {
				return fmt.Errorf("store standing of %s/%s/%s/%s on %s: %w", s.Source, s.Setting, s.Backend, s.Agent, c.Challenge, err)
			}
		}
	}
	return nil
}

// Standings returns every standing, keyed as the rank stage wrote them
// (source, setting, backend, agent), each with its challenges in id order.
func (s *Store) Standings(ctx context.Context) ([]Standing, error) {
	type key struct{ src, set, be, ag string }
	var out []Standing
	idx := map[key]int{}
	rows, err := s.db.QueryContext(ctx, `SELECT source, setting, backend, agent, n_challenges, n_partial, overall, overall_lo, overall_hi FROM standings ORDER BY source, setting, backend, agent`)
	if err != nil {
		return nil, fmt.Errorf("read standings: %w", err)
	}
	for rows.Next() {
		var st Standing
		var ov sql.NullFloat64
		if err := rows.Scan(&st.Source, &st.Setting, &st.Backend, &st.Agent, &st.NChallenges, &st.NPartial, &ov, &st.Lo, &st.Hi); err != nil {
			rows.Close()
			return nil, fmt.Errorf("read standings: %w", err)
		}
		st.Overall = math.NaN()
		if ov.Valid {
			st.Overall = ov.Float64
		}
		idx[key{st.Source, st.Setting, st.Backend, st.Agent}] = len(out)
		out = append(out, st)
	}
	if err := rows.Close(); err != nil {
		return nil, fmt.Errorf("read standings: %w", err)
	}
	crows, err := s.db.QueryContext(ctx, `SELECT source, setting, backend, agent, challenge_id, percentile, lo, hi, partial FROM standing_challenges ORDER BY source, setting, backend, agent, challenge_id`)
	if err != nil {
		return nil, fmt.Errorf("read standings: %w", err)
	}
	defer crows.Close()
	for crows.Next() {
		var k key
		var c StandingChallenge
		var pct sql.NullFloat64
		if err := crows.Scan(&k.src, &k.set, &k.be, &k.ag, &c.Challenge, &pct, &c.Lo, &c.Hi, &c.Partial); err != nil {
			return nil, fmt.Errorf("read standings: %w", err)
		}
		c.Pct = math.NaN()
		if pct.Valid {
			c.Pct = pct.Float64
		}
		i, ok := idx[k]
		if !ok {
			return nil, fmt.Errorf("read standings: challenge %s of %v has no standing", c.Challenge, k)
		}
		out[i].Challenges = append(out[i].Challenges, c)
	}
	return out, crows.Err()
}
