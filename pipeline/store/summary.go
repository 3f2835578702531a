package store

import (
	"context"
	"fmt"
)

// ConfigSummary is one agent configuration's line of the end-of-run
// summary.
type ConfigSummary struct {
	Source, Setting, Backend, Agent string
	Challenges                      int     // distinct challenges with a ranked run
	MeanPercentile                  float64 // over the ranked runs (a failed run counts 0)
	RankedOK, Runs                  int
}

// ConfigSummaries returns the end-of-run summary: every ranked agent
// configuration of the store beside the paper's 24h gpt-5 agents, the
// paper's last, best first.
//
// The mean is taken over runs, not over challenges: it matches the rank
// stage's ReX-MLE rank only while every challenge has the same number of
// seeds (the standings table of the rank work replaces it).
func (s *Store) ConfigSummaries(ctx context.Context) ([]ConfigSummary, error) {
	rows, err := s.DB.QueryContext(ctx, `
SELECT r.source, r.setting, r.backend, r.agent, count(DISTINCT r.challenge_id),
       sum(CASE WHEN k.status = 'ok' THEN k.percentile ELSE 0 END) / count(*) * 1.0,
       sum(CASE WHEN k.status = 'ok' THEN 1 ELSE 0 END), count(*)
FROM runs r JOIN ranks k ON k.run_id = r.id
WHERE r.source != 'paper' OR (r.setting = '24h' AND r.backend = 'gpt-5')
GROUP BY r.source, r.setting, r.backend, r.agent
ORDER BY r.source = 'paper', 6 DESC`)
	if err != nil {
		return nil, fmt.Errorf("read the standings: %w", err)
	}
	defer rows.Close()
	var out []ConfigSummary
	for rows.Next() {
		var c ConfigSummary
		if err := rows.Scan(&c.Source, &c.Setting, &c.Backend, &c.Agent, &c.Challenges, &c.MeanPercentile, &c.RankedOK, &c.Runs); err != nil {
			return nil, fmt.Errorf("read the standings: %w", err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read the standings: %w", err)
	}
	return out, nil
}
