// Package judge is the capability pass of rexmle: it reads agent execution
// logs, splits them into labelled sections, and has a judge decide for each
// section and each of the 13 "winning strategies" of Eisenmann et al. (CVPR
// 2023) whether the log shows explicit evidence that the strategy was carried
// out (1) or not (0), as in Section 2.4 / Appendix B of the ReX-MLE paper.
// A capability profile is the mean score over judged sections.
//
// Pieces:
//
//   - Rubric (LoadRubric): rubrics/winning-strategies.toml, strictly
//     validated; its SHA-256 is stored with every score.
//   - Ingestion (ReadLogDir, SelectLogFiles): per agent the files
//     the paper's judge read (AIDE's journal.json, ML-Master's own log,
//     R&D-Agent's text trace; step logs *.jsonl of other agents), streamed
//     with memory bounded by the section cap; sections truncated to
//     IngestOptions.MaxChars characters.
//   - Judges (Judge): OpenAI (any OpenAI-compatible chat-completions endpoint,
//     through github.com/openai/openai-go) and Heuristic (offline regular
//     expressions from the rubric).
//   - Store: tables judge_calls (cache keyed by judge name, rubric hash and
//     section hash), judge_sections and capability_scores, part of the
//     store's versioned schema (pipeline/store, judge.go there).
//   - Run: judges the finished runs (failed, interrupted and unfinished ones
//     are left out and counted) with progress, caching and retries, and
//     aggregates (Aggregate, WriteCapabilitiesCSV). A failing judge never
//     replaces a run's earlier scores (Report.Err, Report.Unstored).
//   - Agreement: per-strategy agreement and Cohen's kappa between two judges
//     or a judge and human labels.
//
// Missing coverage is never a zero: a strategy the judge could not decide
// (invalid answer after retries, HTTP failure) is stored with a NULL score,
// excluded from means, and counted in n_missing.
//
// # Baseline agent log format (logs/agent.jsonl)
//
// The runner writes one JSON object per line, UTF-8, appended as the agent
// works:
//
//	{"step": 3, "time": "2026-11-22T03:04:05Z", "kind": "exec", "text": "..."}
//
// step is a non-negative integer increasing by step; time is RFC 3339 UTC;
// kind is one of plan (what the agent intends to do next and why), code (the
// source it is about to run), exec (a command or script being run, with its
// console output), result (a metric, file written, or outcome), note (any
// other remark); text is free text. Unknown fields are ignored and other
// kinds kept under their own name; a line that is not a JSON object with a
// kind is skipped (a file with no valid line is an error). Sections: each plan step starts a new section "iter-<k>" holding
// the steps up to the next plan; a log without plan steps gives one section
// per step ("step-<n>"). Code steps and fenced code blocks are dropped unless
// IngestOptions.IncludeCode is set, following the paper, which judges traces
// excluding code.
package judge
