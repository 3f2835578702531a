#!/usr/bin/env bash
# bench/full.sh — the paper-sized benchmark: prepare → grade → rank → report
# at REXMLE_SYNTH_CASES=full (each challenge's real case count at its real
# image size) for 3 agents × 3 seeds, timed stage by stage with peak memory
# (/usr/bin/time -v) and disk, each stage beside its floor:
#   prepare: reading and decoding every synthesized raw file (bench/floor);
#   grade:   reading and decoding every submission and answers folder the
#            grade stage reads, once per run (bench/floor);
#   rank, report: no image input (bootstrap and HTML); floor "-".
# The agents' runs are not run: bench/fullsubmit writes three stand-in
# agents' finished runs (the sample submission, the trivial one and the one
# built from the answers, for each seed), which the stages treat as any run.
#
# It works in a scratch folder (REXMLE_FULL_DIR, default a new temporary
# one, removed at the end unless REXMLE_FULL_KEEP=1) holding a copy of
# benchmark.toml with a "fullbench" profile appended; nothing under the
# checkout is written. It refuses to start with less free disk than
# REXMLE_FULL_MIN_FREE_GB (default 20) and prints the disk used.
#
# Usage: bench/full.sh [challenge,...]   (default: every challenge)
# Env:   REXMLE_SYNTH_CASES (default full; "full:N" draws N cases at the real
#        image size, a number N tiny ones), REXMLE_BOOT (rank's bootstrap
#        resamples, default 1000), GOMAXPROCS, REXMLE_FULL_REAL_CASES (with
#        full:N and one challenge: its real case count, to extrapolate),
#        REXMLE_FULL_PREPARE_PROCS (GOMAXPROCS of the prepare stage alone:
#        cases in flight while synthesizing; its memory is bounded by the
#        synthesis budget whatever the cores; grade, rank and report keep
#        GOMAXPROCS),
#        REXMLE_FULL_BINDIR (a folder with prebuilt mage, fullsubmit and
#        gradefolder binaries, for a machine without Go such as a GPU node:
#        `bench/full.sh --build-bins DIR` writes them).
#
# A subset at real size, extrapolated (what fits a small machine): time one
# challenge at full:N and give its real count, e.g.
#   REXMLE_SYNTH_CASES=full:10 REXMLE_FULL_REAL_CASES=56 bench/full.sh seg_a
# The table then ends with prepare's and grade's per-case cost (wall and CPU
# seconds per synthesized case; grade per test case per run) and both
# stages scaled linearly to the real count, each line marked "extrapolated".
# Real counts (raw cases, as REXMLE_SYNTH_CASES counts them): seg_a 56,
# topcow-* 125, topbrain-* 25, isles22 250, panther-task1 92 (plus its
# unlabeled pool, scaled with it), panther-task2 50, dentex 705,
# neurips-cellseg 1101, usenhance 1500, ldct-iqa 1300, puma-* 205.
# Synthesis holds a few bytes a voxel per case in flight and writes images
# a slice at a time; the cases in flight share one memory budget (half of
# GOMEMLIMIT, else a quarter of the RAM), so prepare's peak stays near 1 GB
# on 2 cores (full:10: SEG.A 0.9 GB, TopCoW CTA 1.0 GB, PANTHER 0.25 GB).
# On a 2-core machine the volumetric challenges take minutes a challenge at
# full:10 (SEG.A ~3.6 CPU s a case), the 2-D ones and ISLES'22 at
# full:50–100 or whole; one challenge per run, e.g.
#   for c in seg_a:56 topcow-track1-task1:125 topcow-track2-task1:125 \
#            topbrain-track1:25 panther-task1:92 panther-task2:50; do
#     REXMLE_SYNTH_CASES=full:10 REXMLE_FULL_REAL_CASES=${c#*:} bench/full.sh ${c%:*}
#   done
# and a whole "full" run of a cheap challenge to check the linear
# extrapolation against a measurement.
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$(pwd)"
if [[ "${1:-}" == --build-bins ]]; then
  out="${2:?--build-bins needs a folder}"
  mkdir -p "$out"
  go run mage.go -ldflags '-s -w' -compile "$(cd "$out" && pwd)/mage" >/dev/null
  CGO_ENABLED=0 go build -ldflags='-s -w' -o "$out/fullsubmit" ./bench/fullsubmit
  CGO_ENABLED=0 go build -ldflags='-s -w' -o "$out/gradefolder" ./bench/gradefolder
  ls -l "$out"
  exit 0
fi
only="${1:-}"
export REXMLE_SYNTH_CASES="${REXMLE_SYNTH_CASES:-full}"
minfree="${REXMLE_FULL_MIN_FREE_GB:-20}"
dir="${REXMLE_FULL_DIR:-}"
if [[ -z "$dir" ]]; then
  dir="$(mktemp -d)"
  [[ "${REXMLE_FULL_KEEP:-}" == 1 ]] || trap 'rm -rf "$dir"' EXIT
fi
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
free_gb="$(df -Pk "$dir" | awk 'NR == 2 {printf "%d", $4 / 1048576}')"
if ((free_gb < minfree)); then
  echo "full.sh: only ${free_gb} GB free under $dir (want ${minfree}; REXMLE_FULL_MIN_FREE_GB)" >&2
  exit 1
fi
[[ -x /usr/bin/time ]] || { echo "full.sh: needs /usr/bin/time (Debian package time)" >&2; exit 1; }

# The benchmark file, its challenge folder and the paper's results by
# absolute path, and a profile of 3 agents × 3 seeds on the synthetic data.
sed -e "s|^challenges_dir = \"benchmark/challenges\"|challenges_dir = \"$repo/benchmark/challenges\"|" \
  -e "s|^paper_results = \"results/paper\"|paper_results = \"$repo/results/paper\"|" benchmark.toml >"$dir/benchmark.toml"
cat >>"$dir/benchmark.toml" <<'EOF'

[profile.fullbench]
description = "bench/full.sh: stand-in agents' runs on the paper-sized synthetic data."
data = "synthetic"
agents = ["sample", "baseline", "standin"]
seeds = [1, 2, 3]
setting = "fullbench"
judge = "heuristic"
scheduler = "local"
EOF
export REXMLE_CONFIG="$dir/benchmark.toml" REXMLE_PROFILE=fullbench
[[ -n "$only" ]] && export REXMLE_CHALLENGES="$only"

if [[ -n "${REXMLE_FULL_BINDIR:-}" ]]; then
  for b in mage fullsubmit gradefolder; do cp "$REXMLE_FULL_BINDIR/$b" "$dir/$b"; done
else
  echo "building the stage runner and tools…"
  go run mage.go -compile "$dir/mage" >/dev/null
  go build -o "$dir/fullsubmit" ./bench/fullsubmit
  go build -o "$dir/gradefolder" ./bench/gradefolder
fi

printf 'machine: %s; %s cores; GOMAXPROCS=%s; REXMLE_SYNTH_CASES=%s; load at start: %s\n' \
  "$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)" "$(getconf _NPROCESSORS_ONLN)" \
  "${GOMAXPROCS:-all}" "$REXMLE_SYNTH_CASES" "$(cut -d' ' -f1-3 /proc/loadavg)"

# stage NAME CMD…: run one stage under /usr/bin/time -v in the scratch
# folder; its wall seconds and peak RSS go to $dir/NAME.time.
stage() {
  local name="$1"
  shift
  if ! (cd "$dir" && /usr/bin/time -v -o "$dir/$name.time" "$@" >"$dir/$name.log" 2>&1); then
    echo "full.sh: stage $name failed; the end of its log:" >&2
    tail -20 "$dir/$name.log" >&2
    exit 1
  fi
}
wall() { awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; printf "%.1f", s}' "$1"; }
cpu() { awk -F': ' '/User time/ {u = $2} /System time/ {s = $2} END {printf "%.1f", u + s}' "$1"; }
rss() { awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2 / 1024}' "$1"; }
mb() { du -sm "$@" 2>/dev/null | awk '{s += $1} END {print s + 0}'; }

if [[ -n "${REXMLE_FULL_PREPARE_PROCS:-}" ]]; then
  stage prepare env GOMAXPROCS="$REXMLE_FULL_PREPARE_PROCS" "$dir/mage" prepare
else
  stage prepare "$dir/mage" prepare
fi
stage submit "$dir/fullsubmit" -root "$dir" -group fullbench -challenges "${only:-$(cd "$dir" && ls data/synthetic | grep -v '^raw$' | paste -sd, -)}"
stage grade "$dir/mage" grade
stage rank "$dir/mage" rank
stage report "$dir/mage" report

# Floors: the raw data decoded once (prepare's input); every run's
# submission and its answers decoded once (grade's input).
floor_of() { # NAME DIR…: decode the files under the folders; seconds and CPU seconds
  local out
  out="$("$dir/gradefolder" -floor -submission "$1" -private "${2:-$1}" 2>&1 >/dev/null)"
  printf '%s %s\n' "$(awk '/^minimum of/ {print $(NF-1)}' <<<"$out")" "$(awk '/^minimum CPU/ {print $(NF-1)}' <<<"$out")"
}
read -r prep_floor prep_floor_cpu < <(floor_of "$dir/data/synthetic/raw")
grade_floor=0 grade_floor_cpu=0
runs=0
while IFS= read -r sub; do
  ch="$(basename "$(dirname "$(dirname "$(dirname "$sub")")")")"
  read -r s c < <(floor_of "$sub" "$dir/data/synthetic/$ch/private")
  grade_floor="$(awk -v a="$grade_floor" -v b="$s" 'BEGIN {print a + b}')"
  grade_floor_cpu="$(awk -v a="$grade_floor_cpu" -v b="$c" 'BEGIN {print a + b}')"
  runs=$((runs + 1))
done < <(find "$dir/results/runs/fullbench" -mindepth 4 -maxdepth 4 -type d -name submission | sort)

raw_mb="$(mb "$dir/data/synthetic/raw")"
data_mb="$(($(mb "$dir/data/synthetic") - raw_mb))"
runs_mb="$(mb "$dir/results/runs")"
store_mb="$(mb "$dir/results/rexmle.sqlite")"
site_mb="$(mb "$dir/site")"
echo
printf '%-8s %9s %9s %9s %11s %13s  %s\n' stage "wall s" "CPU s" "peak MB" "floor s" "floor CPU s" "disk written"
printf '%-8s %9s %9s %9s %11s %13s  %s\n' prepare "$(wall "$dir/prepare.time")" "$(cpu "$dir/prepare.time")" "$(rss "$dir/prepare.time")" "$prep_floor" "$prep_floor_cpu" "raw ${raw_mb} MB, prepared ${data_mb} MB"
printf '%-8s %9s %9s %9s %11s %13s  %s\n' grade "$(wall "$dir/grade.time")" "$(cpu "$dir/grade.time")" "$(rss "$dir/grade.time")" "$grade_floor" "$grade_floor_cpu" "$runs runs, submissions ${runs_mb} MB"
printf '%-8s %9s %9s %9s %11s %13s  %s\n' rank "$(wall "$dir/rank.time")" "$(cpu "$dir/rank.time")" "$(rss "$dir/rank.time")" - - "store ${store_mb} MB"
printf '%-8s %9s %9s %9s %11s %13s  %s\n' report "$(wall "$dir/report.time")" "$(cpu "$dir/report.time")" "$(rss "$dir/report.time")" - - "site ${site_mb} MB"
echo "(stand-in submissions written in $(wall "$dir/submit.time") s, not a stage; floors: one pass, all cores)"
echo
echo "cases per challenge (test split graded per run) and prepare's share:"
for d in "$dir"/data/synthetic/*/; do
  ch="$(basename "$d")"
  [[ "$ch" == raw ]] && continue
  n="$(find "$d/private" -type f | wc -l)"
  printf '  %-22s raw %6s MB  prepared %6s MB  private files %6s\n' "$ch" "$(mb "$dir/data/synthetic/raw/$ch")" "$(mb "$d")" "$n"
done
grep -h "prepared" "$dir/prepare.log" | sed 's/^/  /' | head -40 || true

# Extrapolation to the real count: prepare scales with the raw cases, grade
# with the test cases of every run; rank and report barely depend on case
# counts and are left as measured.
if [[ "$REXMLE_SYNTH_CASES" =~ ^full:([0-9]+)$ && -n "${REXMLE_FULL_REAL_CASES:-}" ]]; then
  n="${BASH_REMATCH[1]}" real="$REXMLE_FULL_REAL_CASES"
  tests="$(find "$dir"/data/synthetic/*/private -type f ! -name '*.csv' ! -name '*.json' 2>/dev/null | wc -l)"
  echo
  echo "per-case cost at the real image size (measured, $n raw cases, $runs runs):"
  awk -v w="$(wall "$dir/prepare.time")" -v c="$(cpu "$dir/prepare.time")" -v n="$n" \
    'BEGIN {printf "  prepare  %8.2f s wall  %8.2f s CPU  per raw case\n", w / n, c / n}'
  awk -v w="$(wall "$dir/grade.time")" -v c="$(cpu "$dir/grade.time")" -v t="$tests" -v r="$runs" \
    'BEGIN {if (t > 0 && r > 0) printf "  grade    %8.3f s wall  %8.3f s CPU  per test file per run (%d answer files)\n", w / t / r, c / t / r, t}'
  echo "extrapolated to $real raw cases (linear in cases; extrapolated, not measured):"
  awk -v w="$(wall "$dir/prepare.time")" -v c="$(cpu "$dir/prepare.time")" -v n="$n" -v real="$real" \
    'BEGIN {printf "  prepare  %9.0f s wall  %9.0f s CPU  (extrapolated ×%.1f)\n", w * real / n, c * real / n, real / n}'
  awk -v w="$(wall "$dir/grade.time")" -v c="$(cpu "$dir/grade.time")" -v n="$n" -v real="$real" \
    'BEGIN {printf "  grade    %9.0f s wall  %9.0f s CPU  (extrapolated ×%.1f)\n", w * real / n, c * real / n, real / n}'
  awk -v mb="$raw_mb" -v n="$n" -v real="$real" 'BEGIN {printf "  raw data %9.0f MB  (extrapolated ×%.1f)\n", mb * real / n, real / n}'
fi
