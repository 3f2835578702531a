#!/usr/bin/env bash
# bench/graders.sh — time every challenge's grader on generated data of
# realistic size and compare with the reference grader's time on the same
# kind of input (the Python ReX-MLE graders, measured on 2 cores; numbers
# from issue 15). Each benchmark generates its data in a temporary folder
# (not timed) and grades it once (timed): `go test -run '^$' -bench … -benchtime 1x`.
#
# Usage: bench/graders.sh [filter]   e.g. bench/graders.sh usenhance
# Env:   BENCHTIME (default 1x), GOMAXPROCS (default: all cores),
#        REXMLE_BENCH_N (USenhance pair count, default 300).
set -euo pipefail
cd "$(dirname "$0")/.."
filter="${1:-}"
benchtime="${BENCHTIME:-1x}"

# name | package | benchmark regexp | reference seconds | what
rows=(
  "usenhance|./pipeline/challenges/usenhance|^BenchmarkGrade300x512$|18.0|300 pairs of 512x512 PNG"
  "dentex|./pipeline/challenges/dentex|^BenchmarkGrade1000$|5.0|1000 images, 3 truth + 20 predicted boxes each"
  "puma-tissue|./pipeline/challenges/puma|^BenchmarkGrade100$/^tissue$|30.0|100 ROIs, tissue masks 1024x1024 (track 1)"
  "puma-nuclei|./pipeline/challenges/puma|^BenchmarkGrade100$/^nuclei$|14.7|100 ROIs, ~100 nuclei each (track 2)"
  "cellseg|./pipeline/challenges/cellseg|^BenchmarkGrade100$|115.0|100 label images 1000x1000"
  "isles22|./pipeline/challenges/isles22|^BenchmarkGradeRealistic$|1.16|realistic ISLES'22 cases"
  "panther|./pipeline/challenges/panthercommon|^BenchmarkGradeRealistic$|1.1|one 400x400x80 case"
  "sega|./pipeline/challenges/sega|^BenchmarkGradeRealistic$|-|realistic SEG.A case"
  "topcow|./pipeline/challenges/topcowcommon|^BenchmarkGradeRealisticWithIO$|-|realistic TopCoW case with I/O"
  "ldctiqa|./pipeline/challenges/ldctiqa|^BenchmarkGrade$|-|synthetic LDCT-IQA split"
)

printf '%-10s %12s %12s %9s  %s\n' challenge "rexmle s" "reference s" speedup input
for row in "${rows[@]}"; do
  IFS='|' read -r name pkg re ref what <<<"$row"
  if [[ -n "$filter" && "$name" != *"$filter"* ]]; then
    continue
  fi
  out="$(go test "$pkg" -run '^$' -bench "$re" -benchtime "$benchtime" -count 1 2>&1)" || {
    printf '%-10s %12s\n' "$name" "FAILED"
    printf '%s\n' "$out" | tail -20 >&2
    continue
  }
  ns="$(printf '%s\n' "$out" | awk '/^Benchmark/ && /ns\/op/ {for (i = 1; i <= NF; i++) if ($(i) == "ns/op") {print $(i-1); exit}}')"
  if [[ -z "$ns" ]]; then
    printf '%-10s %12s\n' "$name" "no result"
    continue
  fi
  secs="$(awk -v ns="$ns" 'BEGIN {printf "%.3f", ns / 1e9}')"
  if [[ "$name" == usenhance && -n "${REXMLE_BENCH_N:-}" ]]; then
    ref="$(awk -v n="$REXMLE_BENCH_N" 'BEGIN {printf "%.2f", 18.0 * n / 300}')" # reference scales per pair
  fi
  if [[ "$ref" == "-" ]]; then
    speed="-"
  else
    speed="$(awk -v r="$ref" -v s="$secs" 'BEGIN {printf "%.1fx", r / s}')"
  fi
  printf '%-10s %12s %12s %9s  %s\n' "$name" "$secs" "$ref" "$speed" "$what"
done
