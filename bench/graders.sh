#!/usr/bin/env bash
# bench/graders.sh — time every challenge's grader on generated data of
# realistic size and compare with the reference grader (the paper's Python
# ReX-MLE graders). Each benchmark generates its data (not timed) and grades
# it (timed): `go test -run '^$' -bench … -benchtime 1x`.
#
# Two ways to compare:
#   - REXMLE_REFERENCE=<ReX-MLE checkout> set: each benchmark keeps its data
#     (REXMLE_BENCH_KEEP), bench/reference_time.py times the reference's
#     grade function on exactly those files (load + grade, like the Go
#     benchmark's timed part; Python start-up and imports reported apart),
#     and bench/gradefolder grades them COUNT more times with ours in one
#     process, so that both graders' values are printed side by side and
#     both are timed the same way: "warm s" is the minimum of those grades,
#     as "ref s" is the minimum of the reference's runs in one Python
#     process ("warm spd" = ref s / warm s). "bench s" is the Go benchmark
#     (one cold run per process with the default 1x, so it also pays for
#     the process's first allocations; "speedup" = ref s / bench s, the
#     stricter of the two). Needs a Python with the
#     reference's modules (REXMLE_PYTHON); a challenge whose modules are
#     missing is reported as such.
#     Modules Debian lacks can be built from their sources without pip and
#     put on PYTHONPATH (outside this repository), e.g. with python3-dev,
#     cython3, g++ and python3-matplotlib installed:
#       pycocotools (DENTEX): cocodataset/cocoapi, PythonAPI/, run
#         `python3 setup.py build_ext --inplace`; with numpy >= 1.24 replace
#         np.float by float in pycocotools/cocoeval.py (as pycocotools 2.0.8 does);
#       cc3d (ISLES'22): seung-lab/connected-components-3d at tag 3.19.0,
#         `cython3 -3 --cplus cc3d/fastcc3d.pyx`, then compile fastcc3d.cpp
#         with g++ -O3 -std=c++17 -shared -fPIC and the numpy and Python
#         include folders into a top-level fastcc3d module beside cc3d/;
#       surface_distance (PANTHER): google-deepmind/surface-distance as is
#         (PANTHER also needs SimpleITK, which has no such route).
#   - unset: our time beside the reference times typed in from issue 15
#     (someone else's measurements on other data, 2 cores), as before.
#
# Usage: bench/graders.sh [filter]   e.g. bench/graders.sh usenhance
#        bench/graders.sh --build-bins DIR [filter]   build the rows' test
#        binaries and gradefolder into DIR (static, for REXMLE_BENCH_BINDIR)
# Env:   BENCHTIME (default 1x); COUNT (runs of each timing, default 3: the
#        minimum is reported); REXMLE_BENCH_CORES (cores for both graders,
#        default 2, or fewer when the machine has fewer; GOMAXPROCS overrides
#        for Go); REXMLE_BENCH_N (USenhance pair count, default 300);
#        REXMLE_REFERENCE, REXMLE_PYTHON (default /usr/bin/python3 when it
#        exists); REXMLE_BENCH_BINDIR (a folder of prebuilt binaries, for a
#        machine without Go, e.g. a GPU node: <package>.test for each row's
#        package and gradefolder, as `bench/graders.sh --build-bins DIR`
#        writes them; rows whose binary is missing are skipped);
#        REXMLE_BENCH_KEEP (with REXMLE_REFERENCE: keep the data
#        under this folder, one subfolder per challenge; default a temporary
#        folder removed at the end).
set -euo pipefail
cd "$(dirname "$0")/.."
buildbins=""
if [[ "${1:-}" == --build-bins ]]; then
  buildbins="${2:?--build-bins needs a folder}"
  shift 2
fi
filter="${1:-}"
bindir="${REXMLE_BENCH_BINDIR:-}"
if [[ -n "$bindir" ]]; then bindir="$(cd "$bindir" && pwd)"; fi
benchtime="${BENCHTIME:-1x}"
count="${COUNT:-3}"
ncpu="$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)"
cores="${REXMLE_BENCH_CORES:-2}"
if ((cores > ncpu)); then cores="$ncpu"; fi
export GOMAXPROCS="${GOMAXPROCS:-$cores}"
ref="${REXMLE_REFERENCE:-}"
py="${REXMLE_PYTHON:-}"
if [[ -z "$py" ]]; then
  if [[ -x /usr/bin/python3 ]]; then py=/usr/bin/python3; else py=python3; fi
fi

# name | package | benchmark regexp | issue 15's reference seconds |
# kept answers folder | kept submission folder | our challenge id | what |
# benchtime for this row (optional; BENCHTIME otherwise): a grading that
# takes about a millisecond is timed warm over many runs, as the reference's
# minimum of COUNT runs is, instead of one cold run
rows=(
  "usenhance|./pipeline/challenges/usenhance|^BenchmarkGrade300x512$|18.0|private|submission|usenhance|300 pairs of 512x512 PNG"
  "usenhance-fan|./pipeline/challenges/usenhance|^BenchmarkGrade300x512Fan$|-|private|submission|usenhance|300 pairs of 512x512 PNG, sector scans (black surround)"
  "dentex|./pipeline/challenges/dentex|^BenchmarkGrade1000$|5.0|private|submission|dentex|1000 images, 3 truth + 20 predicted boxes each"
  "puma-tissue|./pipeline/challenges/puma|^BenchmarkGrade100$/^tissue$|30.0|data/priv|data/sub|puma-track1-task1|100 ROIs, tissue masks 1024x1024 (track 1)"
  "puma-nuclei|./pipeline/challenges/puma|^BenchmarkGrade100$/^nuclei$|14.7|data/priv|data/sub|puma-track2-task2|100 ROIs, ~100 nuclei each (track 2)"
  "cellseg|./pipeline/challenges/cellseg|^BenchmarkGrade100$|115.0|data/priv|data/sub|neurips-cellseg|100 label images 1000x1000"
  "isles22|./pipeline/challenges/isles22|^BenchmarkGrade50$|-|private|submission|isles22|50 ISLES'22 cases 112x112x73 (the test split), 1-12 lesions each|5x"
  "isles22-case|./pipeline/challenges/isles22|^BenchmarkGradeRealistic$|1.16|private|submission|isles22|one ISLES'22 case 112x112x73, 8 lesions|20x"
  "panther|./pipeline/challenges/panthercommon|^BenchmarkGradeRealistic$|1.1|private|submission|-|one 400x400x80 case"
  "sega|./pipeline/challenges/sega|^BenchmarkGradeRealistic$|-|private|submission|seg_a|one SEG.A case 512x512x200"
  "topcow|./pipeline/challenges/topcowcommon|^BenchmarkGradeRealisticWithIO$|-|data/private|data/sub|topcow-track1-task1|one TopCoW case 512x512x300 with I/O"
  "ldctiqa|./pipeline/challenges/ldctiqa|^BenchmarkGrade300$|-|private|submission|ldct-iqa|300 test slices, the real split's size|300x"
)

# rowwhat NAME WHAT: the row's input description, with the USenhance pair
# count REXMLE_BENCH_N when it is set.
rowwhat() {
  if [[ "$1" == usenhance* && -n "${REXMLE_BENCH_N:-}" ]]; then
    printf '%s\n' "${2/#300 pairs/$REXMLE_BENCH_N pairs}"
  else
    printf '%s\n' "$2"
  fi
}

# bench PKG REGEXP BENCHTIME: run one row's benchmark COUNT times, with go
# test or, under REXMLE_BENCH_BINDIR, its prebuilt test binary (run in the
# package's folder, as go test does).
bench() {
  if [[ -z "$bindir" ]]; then
    go test "$1" -run '^$' -bench "$2" -benchtime "$3" -count "$count" 2>&1
    return
  fi
  local bin="$bindir/$(basename "$1").test"
  [[ -x "$bin" ]] || { echo "no $bin"; return 1; }
  (cd "$1" && "$bin" -test.run '^$' -test.bench "$2" -test.benchtime "$3" -test.count "$count" 2>&1)
}

if [[ -n "$buildbins" ]]; then
  mkdir -p "$buildbins"
  built=""
  for row in "${rows[@]}"; do
    IFS='|' read -r name pkg _ <<<"$row"
    [[ -n "$filter" && "$name" != *"$filter"* ]] && continue
    [[ " $built " == *" $pkg "* ]] && continue
    CGO_ENABLED=0 go test -c -ldflags='-s -w' -o "$buildbins/$(basename "$pkg").test" "$pkg"
    built="$built $pkg"
  done
  CGO_ENABLED=0 go build -ldflags='-s -w' -o "$buildbins/gradefolder" ./bench/gradefolder
  ls -l "$buildbins"
  exit 0
fi

cpu="$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo 2>/dev/null || true)"
printf 'machine: %s; %s cores online; Go GOMAXPROCS=%s' "${cpu:-unknown CPU}" "$ncpu" "$GOMAXPROCS"
if [[ -n "$ref" ]]; then
  printf '; reference on %s cores (%s)\n' "$cores" "$("$py" --version 2>&1)"
else
  printf '\n'
fi
printf 'each timing: min of %s runs (benchtime %s unless a row sets its own); load average at start: %s\n' "$count" "$benchtime" "$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"

# ours_seconds OUTPUT: the minimum ns/op of the benchmark lines, in seconds.
ours_seconds() {
  printf '%s\n' "$1" | awk '/^Benchmark/ && /ns\/op/ {for (i = 1; i <= NF; i++) if ($(i) == "ns/op") print $(i-1)}' |
    sort -g | head -1 | awk 'NF {printf "%.4g", $1 / 1e9}'
}

if [[ -z "$ref" ]]; then
  printf '%-12s %10s %14s %9s  %s\n' challenge "rexmle s" "issue-15 ref s" speedup input
  printf '(reference seconds: issue 15 measurements of the Python graders on other data; set REXMLE_REFERENCE to time them here)\n'
  for row in "${rows[@]}"; do
    IFS='|' read -r name pkg re issue _ _ _ what rowtime <<<"$row"
    [[ -n "$filter" && "$name" != *"$filter"* ]] && continue
    what="$(rowwhat "$name" "$what")"
    out="$(bench "$pkg" "$re" "${rowtime:-$benchtime}")" || {
      printf '%-12s %10s\n' "$name" "FAILED"
      printf '%s\n' "$out" | tail -20 >&2
      continue
    }
    secs="$(ours_seconds "$out")"
    if [[ -z "$secs" ]]; then
      printf '%-12s %10s\n' "$name" "no result"
      continue
    fi
    if [[ "$name" == usenhance && -n "${REXMLE_BENCH_N:-}" ]]; then
      issue="$(awk -v n="$REXMLE_BENCH_N" 'BEGIN {printf "%.2f", 18.0 * n / 300}')" # the reference scales per pair
    fi
    speed="-"
    [[ "$issue" != "-" ]] && speed="$(awk -v r="$issue" -v s="$secs" 'BEGIN {printf "%.1fx", r / s}')"
    printf '%-12s %10s %14s %9s  %s\n' "$name" "$secs" "$issue" "$speed" "$what"
  done
  exit 0
fi

# With the reference: keep each benchmark's data, time the reference on it.
keeproot="${REXMLE_BENCH_KEEP:-}"
if [[ -z "$keeproot" ]]; then
  keeproot="$(mktemp -d)"
  trap 'rm -rf "$keeproot"' EXIT
fi
mkdir -p "$keeproot"
keeproot="$(cd "$keeproot" && pwd)"
gradefolder="$keeproot/gradefolder"
if [[ -n "$bindir" ]]; then
  gradefolder="$bindir/gradefolder"
else
  go build -o "$gradefolder" ./bench/gradefolder
fi

printf '%-12s %10s %10s %10s %10s %9s %9s %8s  %s\n' challenge "bench s" "warm s" "ref s" "ref 1st s" speedup "warm spd" values input
for row in "${rows[@]}"; do
  IFS='|' read -r name pkg re _ privrel subrel ourid what rowtime <<<"$row"
  [[ -n "$filter" && "$name" != *"$filter"* ]] && continue
  what="$(rowwhat "$name" "$what")"
  keep="$keeproot/$name"
  mkdir -p "$keep"
  out="$(REXMLE_BENCH_KEEP="$keep" bench "$pkg" "$re" "${rowtime:-$benchtime}")" || {
    printf '%-12s %10s\n' "$name" "FAILED"
    printf '%s\n' "$out" | tail -20 >&2
    continue
  }
  secs="$(ours_seconds "$out")"
  [[ -z "$secs" ]] && secs="none"
  priv="$keep/$privrel" sub="$keep/$subrel"
  oursjson=()
  warm="-"
  # Our values for the comparison and, with -repeat, our warm time measured
  # as the reference's is: the minimum of COUNT grades in one process.
  if [[ "$ourid" != "-" ]] && "$gradefolder" -challenge "$ourid" -submission "$sub" -private "$priv" -repeat "$count" >"$keep/ours.json" 2>"$keep/ours.err"; then
    oursjson=(--ours "$keep/ours.json")
    warm="$(awk '/^minimum of/ {print $(NF-1)}' "$keep/ours.err")"
    [[ -z "$warm" ]] && warm="-"
  fi
  rc=0
  "$py" bench/reference_time.py --challenge "$name" --private "$priv" --submission "$sub" \
    --reference "$ref" --repeat "$count" --cores "$cores" "${oursjson[@]}" >"$keep/reference.json" 2>"$keep/reference.log" || rc=$?
  "$py" - "$name" "$secs" "$what" "$keep/reference.json" "$rc" "$warm" <<'EOF'
import json, sys
name, secs, what, path, rc, warm = sys.argv[1:]
try:
    r = json.load(open(path))
except Exception as e:
    r = {"error": f"driver exited {rc} without a result ({e}); see reference.log beside it"}
warm_s = f"{float(warm):.4g}" if warm != "-" else "-"
if "error" in r:
    print(f"{name:<12} {secs:>10} {warm_s:>10} {'-':>10} {'-':>10} {'-':>9} {'-':>9} {'-':>8}  {what}")
    print(f"{'':<12} reference: {r['error']}")
    sys.exit(0)
ref, first = r["min_s"], r["first_s"]
speed = f"{ref / float(secs):.1f}x" if secs not in ("none", "") and float(secs) > 0 else "-"
speed_warm = f"{ref / float(warm):.1f}x" if warm != "-" and float(warm) > 0 else "-"
cmp = r.get("compare")
agree = "-" if cmp is None else f"{sum(1 for c in cmp if c.get('agree_5dp', c.get('agree')))}/{len(cmp)}"
print(f"{name:<12} {secs:>10} {warm_s:>10} {ref:>10.4g} {first:>10.4g} {speed:>9} {speed_warm:>9} {agree:>8}  {what}")
print(f"{'':<12} reference CPU {min(r['cpu_s']):.4g} s (min), import {r.get('import_s', 0):.2f} s, Python start-up {r.get('startup_s', 0):.2f} s (not timed)")
for c in cmp or []:
    if not c.get("agree_5dp", c.get("agree")):
        print(f"{'':<12} differs: {c['metric']}: ours {c['ours']!r}, reference {c['reference']!r}")
EOF
done
