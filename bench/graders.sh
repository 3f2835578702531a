#!/usr/bin/env bash
# bench/graders.sh — time every challenge's grader on generated data of
# realistic size and compare with the reference grader (the paper's Python
# ReX-MLE graders). Each benchmark generates its data (not timed) and grades
# it (timed): `go test -run '^$' -bench … -benchtime 1x`.
#
# One table, in one sitting, on the files each benchmark keeps: the
# reference's time, the input-decoding floor (bench/floor through
# bench/gradefolder -floor: every file of both folders read and decoded with
# the fastest reader we have, no metric), our grade's time, the ratios and
# whether the metric values equal the reference's to 5 decimals; the CPU
# seconds of all three below each row (the machine may be shared).
#   - REXMLE_REFERENCE=<ReX-MLE checkout> set: bench/reference_time.py times
#     the reference's grade function on exactly those files (load + grade;
#     Python start-up and imports reported apart), minimum of COUNT runs in
#     one Python process, as ours is the minimum of COUNT grades in one
#     process (bench/gradefolder -repeat). Needs a Python with the
#     reference's modules (REXMLE_PYTHON); a challenge whose modules are
#     missing is reported as such.
#     Modules Debian lacks can be run from their sources without pip, put
#     on PYTHONPATH (outside this repository), e.g. with python3-dev,
#     cython3, g++, python3-matplotlib and python3-torch installed:
#       appdirs (every row: the reference's rexmle package imports it;
#         Debian's python3-appdirs, one pure-Python file that can be put on
#         PYTHONPATH where the Python lacks it, e.g. a GPU node's);
#       MONAI (SEG.A, TopCoW, TopBrain): Project-MONAI/MONAI at tag 1.4.0
#         (the reference's pin) as is;
#       surface_distance (PANTHER): google-deepmind/surface-distance as is;
#       SimpleITK (compiled C++, no Debian package): PANTHER and SEG.A use
#         it only to read their files, and reference_time.py then reads them
#         with a numpy+zlib stand-in (said in the row); TopCoW and TopBrain
#         use its filters too, which the stand-in does in numpy (said in the row);
#       pycocotools (DENTEX): cocodataset/cocoapi, PythonAPI/, run
#         `python3 setup.py build_ext --inplace`; with numpy >= 1.24 replace
#         np.float by float in pycocotools/cocoeval.py (as pycocotools 2.0.8 does);
#       cc3d (ISLES'22): seung-lab/connected-components-3d at tag 3.19.0,
#         `cython3 -3 --cplus cc3d/fastcc3d.pyx -o cc3d/fastcc3d.cpp`, then
#         compile it with g++ -O3 -std=c++17 -shared -fPIC -Icc3d and the
#         numpy and Python include folders into a top-level module
#         fastcc3d$(python3-config --extension-suffix) beside cc3d/ (the
#         checkout's root goes on PYTHONPATH).
#     Each row's note says how its reference was obtained: the grade module
#     and ReX-MLE commit, every module it needs with version, origin (Debian
#     package, source tree on PYTHONPATH, the stand-in) and the version the
#     reference's rexmle.yml pins; its peak memory; and, with
#     REXMLE_REFERENCE_PROFILE=1, its wall/CPU seconds per function of its
#     grade module (and of the stand-in). A reference that would not fit in
#     the memory available (PUMA tissue keeps every mask as int64: ~165 MB
#     per 1024x1024 ROI, 16.5 GB for the row's 100) is reported, not run.
#     Slow references run fewer times than COUNT where the row says so
#     (its last field): once for CellSeg, SEG.A, TopCoW, TopBrain (CellSeg's
#     numba compilation in its first run is negligible: 139.9 then 143.0
#     CPU s).
#   - unset, the modules missing, too little memory, or the row named by
#     REXMLE_REFERENCE_SKIP: the reference's CPU seconds recorded here on the
#     row's own files (the recorded table below; the note gives the basis),
#     else issue 15's typed-in reference seconds (someone else's
#     measurements on other data, 2 cores), marked "~".
#
# Usage: bench/graders.sh [regexp]   rows whose name matches, e.g. usenhance or '^(sega|panther)$'
#        bench/graders.sh --build-bins DIR [filter]   build the rows' test
#        binaries, gradefolder and fmapeak.test into DIR (static, for
#        REXMLE_BENCH_BINDIR)
# Env:   BENCHTIME (default 1x); COUNT (runs of each timing, default 3: the
#        minimum is reported); REXMLE_BENCH_CORES (cores for both graders,
#        default 2, or fewer when the machine has fewer; GOMAXPROCS overrides
#        for Go); REXMLE_BENCH_N (USenhance pair count, default 300);
#        REXMLE_REFERENCE, REXMLE_PYTHON (default /usr/bin/python3 when it
#        exists); REXMLE_REFERENCE_SKIP (a regexp of rows whose reference
#        is not run: their recorded time is shown, marked ~, e.g.
#        '^topbrain$', whose reference takes ~12 CPU minutes);
#        REXMLE_REFERENCE_RUNS (at most this many runs of each reference,
#        e.g. 1 where device time is short; ours still runs COUNT times);
#        REXMLE_REFERENCE_PROFILE (1: each reference's time by function, in
#        the row's note); REXMLE_BENCH_BINDIR (a folder of prebuilt binaries, for a
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
# minimum of COUNT runs is, instead of one cold run |
# the reference's runs for this row (optional; COUNT otherwise, and never
# more than COUNT): a reference that takes minutes is timed once
rows=(
  "usenhance|./pipeline/challenges/usenhance|^BenchmarkGrade300x512$|18.0|private|submission|usenhance|300 pairs of 512x512 PNG"
  "usenhance-fan|./pipeline/challenges/usenhance|^BenchmarkGrade300x512Fan$|-|private|submission|usenhance|300 pairs of 512x512 PNG, sector scans (black surround)"
  "usenhance-noisy|./pipeline/challenges/usenhance|^BenchmarkGrade300x512Noisy$|-|private|submission|usenhance|300 pairs of 512x512 PNG, grey noise over the whole frame"
  "usenhance-16bit|./pipeline/challenges/usenhance|^BenchmarkGrade300x512Deep$|-|private|submission|usenhance|300 pairs of 512x512 16-bit grey PNG"
  "usenhance-rgb|./pipeline/challenges/usenhance|^BenchmarkGrade300x512RGB$|-|private|submission|usenhance|300 pairs of 512x512 RGB PNG"
  "dentex|./pipeline/challenges/dentex|^BenchmarkGrade1000$|5.0|private|submission|dentex|1000 images, 3 truth + 20 predicted boxes each"
  "puma-tissue|./pipeline/challenges/puma|^BenchmarkGrade100$/^tissue$|30.0|data/priv|data/sub|puma-track1-task1|100 ROIs, tissue masks 1024x1024 (track 1)"
  "puma-nuclei|./pipeline/challenges/puma|^BenchmarkGrade100$/^nuclei$|14.7|data/priv|data/sub|puma-track2-task2|100 ROIs, ~100 nuclei each (track 2)"
  "cellseg|./pipeline/challenges/cellseg|^BenchmarkGrade100$|115.0|data/priv|data/sub|neurips-cellseg|100 label images 1000x1000||1"
  "isles22|./pipeline/challenges/isles22|^BenchmarkGrade50$|-|private|submission|isles22|50 ISLES'22 cases 112x112x73 (the test split), 1-12 lesions each|5x"
  "isles22-case|./pipeline/challenges/isles22|^BenchmarkGradeRealistic$|1.16|private|submission|isles22|one ISLES'22 case 112x112x73, 8 lesions|20x"
  "panther|./pipeline/challenges/panthercommon|^BenchmarkGradeRealistic$|1.1|private|submission|panther-task1|one 400x400x80 case"
  "sega|./pipeline/challenges/sega|^BenchmarkGradeRealistic$|-|private|submission|seg_a|one SEG.A case 512x512x200||1"
  "topcow|./pipeline/challenges/topcowcommon|^BenchmarkGradeRealisticWithIO$|-|data/private|data/sub|topcow-track1-task1|one TopCoW case 512x512x300 with I/O||1"
  "topbrain|./pipeline/challenges/topcowcommon|^BenchmarkGradeBrainRealisticWithIO$|-|data/private|data/sub|topbrain-track1|one TopBrain CTA case 512x512x300 with I/O||1"
  "ldctiqa|./pipeline/challenges/ldctiqa|^BenchmarkGrade300$|-|private|submission|ldct-iqa|300 test slices, the real split's size|300x"
)

# Reference times recorded here on a row's own files, for a sitting without
# the reference (or with its modules missing): CPU seconds of one run (a
# loaded machine's wall clock says little) | how they were obtained. Shown
# marked "~" in place of issue 15's figure, with the basis in the note.
declare -A recorded=(
  [topbrain]="718.4|one run on this row's files (38 labels present, 512x512x300), ReX-MLE 477c834 grade as published with MONAI 1.4.0 from source and Debian's skimage 0.19.3 (the reference pins >=0.20.0), 6/6 values equal; SimpleITK's reads, label comparisons and overlap counts by reference_time.py's numpy stand-in (its == was 31 CPU s, 4%); the time is the reference's own: skimage skeletonize 285 s, skimage label 168 s, clDice's full-volume products 95 s, MONAI edges 46 s, the Python neighbour loop 36 s; peak memory 6.0 GB"
  [topcow]="101.3|one run on this row's files (TopCoW 512x512x300), ReX-MLE 477c834 grade as published with MONAI 1.4.0 from source; SimpleITK's reads, label comparisons and overlap counts by reference_time.py's numpy stand-in"
  [cellseg]="139.9|the lower of two runs on this row's files (100 label images 1000x1000; 139.9 and 143.0 CPU s), ReX-MLE 477c834 grade as published with Debian's numba 0.56.4, skimage 0.19.3 (the reference pins >=0.20.0), tifffile, PIL; 5/5 values equal; 64% in its remove_boundary_cells"
  [puma-tissue]="48.1|one run on the row's 100 ROIs with perturbed predictions (dice 0.85867, equal), ReX-MLE 477c834 grade as published, PIL 9.4.0 (Debian; the reference pins >=10.0.0); peak memory 16.3 GB (every mask kept as int64)"
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
    [[ -n "$filter" && ! "$name" =~ $filter ]] && continue
    [[ " $built " == *" $pkg "* ]] && continue
    CGO_ENABLED=0 go test -c -ldflags='-s -w' -o "$buildbins/$(basename "$pkg").test" "$pkg"
    built="$built $pkg"
  done
  CGO_ENABLED=0 go build -ldflags='-s -w' -o "$buildbins/gradefolder" ./bench/gradefolder
  CGO_ENABLED=0 go test -c -ldflags='-s -w' -o "$buildbins/fmapeak.test" ./bench/fmapeak
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

# One table, one sitting. Every row's benchmark generates its data and
# keeps it (REXMLE_BENCH_KEEP); on exactly those files
#   floor s  = bench/gradefolder -floor: read and decode every file of both
#              folders with the fastest reader we have, no metric (minimum
#              of COUNT passes in one process, same cores);
#   rexmle s = bench/gradefolder -repeat: our grade, minimum of COUNT in one
#              process (the benchmark's own cold time is printed below it);
#   ref s    = bench/reference_time.py with REXMLE_REFERENCE: the paper's
#              grader, minimum of COUNT in one Python process; without it
#              (or where its modules are missing) issue 15's typed-in
#              seconds, marked "~" (other data, not this sitting);
#   ×ref = ref s / rexmle s; ×floor = rexmle s / floor s; goal: ×ref ≥ 20
#   or ×floor ≤ 1.5; values: metrics equal to 5 decimals / compared.
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
if [[ -z "$ref" ]]; then
  printf '(no REXMLE_REFERENCE: reference seconds marked ~ are CPU seconds recorded here on the row'"'"'s files, or issue 15 measurements on other data; each note says which)\n'
fi

# The USenhance rows' exact-arithmetic bound: LNCC reproduces OpenCV's box
# means as 121 float32 fused multiply-adds per pixel and plane (five planes),
# in an order no faster arithmetic can follow (metrics/quality, LNCC8Fast);
# bench/fmapeak measures how many of them these cores retire per second, all
# cores busy. A grader that did nothing but decode at the floor's speed and
# run those multiply-adds at that peak would take
#   (floor CPU s + 5·121·pixels / peak per core) / cores
# of wall time: the best ratios an exact grader can reach here, printed
# under the row ("bound"). Pixels: half the samples the floor decoded (the
# truth's, the sizes being equal); sector scans' all-zero windows are
# skipped exactly, so the bound over-states their least work.
peakgfma="" needpeak=""
for row in "${rows[@]}"; do
  name="${row%%|*}"
  if [[ "$name" == usenhance* ]] && [[ -z "$filter" || "$name" =~ $filter ]]; then needpeak=1; fi
done
if [[ -n "$needpeak" ]]; then
  if [[ -n "$bindir" && -x "$bindir/fmapeak.test" ]]; then
    peakout="$("$bindir/fmapeak.test" -test.run '^$' -test.bench '^BenchmarkPeakParallel$' -test.cpu "$GOMAXPROCS" -test.count "$count" 2>&1 || true)"
  elif [[ -z "$bindir" ]]; then
    peakout="$(go test ./bench/fmapeak -run '^$' -bench '^BenchmarkPeakParallel$' -cpu "$GOMAXPROCS" -count "$count" 2>&1 || true)"
  fi
  peakgfma="$(printf '%s\n' "${peakout:-}" | awk '/GFMA\/s/ {for (i = 1; i <= NF; i++) if ($(i) == "GFMA/s") print $(i-1)}' | sort -g | tail -1)"
  printf 'float32 fused multiply-add peak on %s cores (bench/fmapeak, max of %s): %s GFMA/s\n' "$GOMAXPROCS" "$count" "${peakgfma:-unknown}"
fi

printf '%-14s %9s %9s %9s %8s %8s %5s %7s  %s\n' task "ref s" "floor s" "rexmle s" "x ref" "x floor" goal values input
for row in "${rows[@]}"; do
  IFS='|' read -r name pkg re issue privrel subrel ourid what rowtime refcount <<<"$row"
  [[ -n "$filter" && ! "$name" =~ $filter ]] && continue
  what="$(rowwhat "$name" "$what")"
  keep="$keeproot/$name"
  mkdir -p "$keep"
  out="$(REXMLE_BENCH_KEEP="$keep" bench "$pkg" "$re" "${rowtime:-$benchtime}")" || {
    printf '%-14s %9s\n' "$name" "FAILED"
    printf '%s\n' "$out" | tail -20 >&2
    continue
  }
  secs="$(ours_seconds "$out")"
  [[ -z "$secs" ]] && secs="none"
  priv="$keep/$privrel" sub="$keep/$subrel"
  oursjson=()
  warm="-" floor="-" warmcpu="-" floorcpu="-"
  # A row timed over many runs (benchtime Nx) is timed N times here too.
  # Ours and the floor at least 3 times (cheap beside the reference).
  rep="$count"
  if [[ "${rowtime:-}" =~ ^([0-9]+)x$ ]] && ((BASH_REMATCH[1] > rep)); then rep="${BASH_REMATCH[1]}"; fi
  repours=$((rep > 3 ? rep : 3))
  if [[ "$ourid" != "-" ]] && "$gradefolder" -challenge "$ourid" -submission "$sub" -private "$priv" -repeat "$repours" >"$keep/ours.json" 2>"$keep/ours.err"; then
    oursjson=(--ours "$keep/ours.json")
    warm="$(awk '/^minimum of/ {print $(NF-1)}' "$keep/ours.err")"
    warmcpu="$(awk '/^minimum CPU/ {print $(NF-1)}' "$keep/ours.err")"
    [[ -z "$warm" ]] && warm="-"
  fi
  if "$gradefolder" -floor -submission "$sub" -private "$priv" -repeat "$repours" >"$keep/floor.json" 2>"$keep/floor.err"; then
    floor="$(awk '/^minimum of/ {print $(NF-1)}' "$keep/floor.err")"
    floorcpu="$(awk '/^minimum CPU/ {print $(NF-1)}' "$keep/floor.err")"
  else
    tail -3 "$keep/floor.err" >&2
  fi
  rc=0
  refrep="$rep"
  if [[ -n "${refcount:-}" ]] && ((refcount < refrep)); then refrep="$refcount"; fi
  if [[ -n "${REXMLE_REFERENCE_RUNS:-}" ]] && ((REXMLE_REFERENCE_RUNS < refrep)); then refrep="$REXMLE_REFERENCE_RUNS"; fi
  profile=()
  if [[ "${REXMLE_REFERENCE_PROFILE:-}" == 1 ]]; then profile=(--profile); fi
  refskip="${REXMLE_REFERENCE_SKIP:-}"
  if [[ -n "$ref" && -n "$refskip" && "$name" =~ $refskip ]]; then
    echo '{"error": "not run in this sitting (REXMLE_REFERENCE_SKIP)"}' >"$keep/reference.json"
  elif [[ -n "$ref" ]]; then
    "$py" bench/reference_time.py --challenge "$name" --private "$priv" --submission "$sub" \
      --reference "$ref" --repeat "$refrep" --cores "$cores" "${oursjson[@]}" "${profile[@]}" >"$keep/reference.json" 2>"$keep/reference.log" || rc=$?
  else
    echo '{"error": "REXMLE_REFERENCE not set"}' >"$keep/reference.json"
  fi
  "$py" - "$name" "$secs" "$what" "$keep/reference.json" "$rc" "$warm" "$floor" "$issue" "$keep/floor.json" "$warmcpu" "$floorcpu" "${recorded[$name]:-}" "$peakgfma" "$GOMAXPROCS" <<'EOF2'
import json, sys
name, secs, what, path, rc, warm, floor, issue, floorjson, warmcpu, floorcpu, recorded, gfma, ncores = sys.argv[1:]
rec_s, _, rec_basis = recorded.partition("|")
try:
    r = json.load(open(path))
except Exception as e:
    r = {"error": f"driver exited {rc} without a result ({e}); see reference.log beside it"}
def num(s):
    try:
        return float(s)
    except ValueError:
        return None
# Our time: the warm minimum (timed as the reference is), else the benchmark's.
ours = num(warm) if num(warm) else num(secs)
fl = num(floor)
ref, mark = None, ""
if "error" not in r:
    ref = r["min_s"]
elif num(rec_s):
    ref, mark = num(rec_s), "~"
elif num(issue):
    ref, mark = num(issue), "~"
f4 = lambda v: "-" if v is None else f"{v:.4g}"
xref = ref / ours if ref and ours else None
xfl = ours / fl if ours and fl else None
goal = "-"
if xref is not None or xfl is not None:
    goal = "yes" if (xref or 0) >= 20 or (xfl is not None and xfl <= 1.5) else "NO"
cmp = r.get("compare")
agree = "-" if cmp is None else f"{sum(1 for c in cmp if c.get('agree_5dp', c.get('agree')))}/{len(cmp)}"
refs = (mark + f4(ref)) if ref else "-"
print(f"{name:<14} {refs:>9} {f4(fl):>9} {f4(ours):>9} {'-' if xref is None else f'{xref:.1f}':>8} {'-' if xfl is None else f'{xfl:.2f}':>8} {goal:>5} {agree:>7}  {what}")
notes = [f"go bench {secs} s (cold)"]
try:
    fj = json.load(open(floorjson))
    notes.append("floor decoded " + ", ".join(f"{n} {k}" for k, n in sorted(fj["files"].items())) + f", {fj['bytes'] / 1e6:.1f} MB on disk, {fj['samples'] / 1e6:.1f} M samples")
except Exception:
    pass
cpu = [num(warmcpu), num(floorcpu), min(r["cpu_s"]) if "error" not in r else (num(rec_s) if mark else None)]
if any(cpu):
    ratio = lambda a, b: f"{a / b:.1f}" if a and b else "-"
    cgoal = "-"
    if cpu[0] and (cpu[1] or cpu[2]):
        cgoal = "yes" if (cpu[2] and cpu[2] / cpu[0] >= 20) or (cpu[1] and cpu[0] / cpu[1] <= 1.5) else "NO"
    notes.append(f"CPU s (all threads and processes): ref {f4(cpu[2])}, floor {f4(cpu[1])}, rexmle {f4(cpu[0])} (x ref {ratio(cpu[2], cpu[0])}, x floor {ratio(cpu[0], cpu[1])}, goal {cgoal})")
def bound_note():
    """The USenhance row's exact-arithmetic bound (see above), or None."""
    try:
        pixels = json.load(open(floorjson))["samples"] / 2
    except (OSError, ValueError, KeyError):
        return None
    cores = int(ncores)
    fmas = 5 * 121 * pixels
    arith = fmas / (num(gfma) * 1e9 / cores)  # CPU s at the peak of one core
    best = (num(floorcpu) + arith) / cores
    reach = "yes" if (ref and ref / best >= 20) or (fl and best / fl <= 1.5) else "NO"
    beyond = num(warmcpu) - num(floorcpu) if num(warmcpu) else None
    share = f"{arith / beyond * 100:.0f}%" if beyond and beyond > 0 else "-"
    return (f"bound: decoding at the floor plus LNCC's {fmas / 1e9:.3g} G multiply-adds at {num(gfma):.4g} GFMA/s "
            f"({arith:.3g} CPU s) takes at least {best:.4g} s on {cores} cores: best x ref {'-' if not ref else f'{ref / best:.1f}'}, "
            f"best x floor {'-' if not fl else f'{best / fl:.2f}'}, goal reachable by an exact grader: {reach}; "
            f"those multiply-adds at peak are {share} of rexmle's CPU s beyond the floor")
if name.startswith("usenhance") and num(gfma) and num(floorcpu):
    b = bound_note()
    if b:
        notes.append(b)
if "error" not in r:
    n = len(r.get("times_s", []))
    peak = f", peak memory {r['peak_rss_mb']:.0f} MB" if r.get("peak_rss_mb") else ""
    notes.append(f"reference min of {n} run{'s' if n != 1 else ''}, first {r['first_s']:.4g} s, import {r.get('import_s', 0):.2f} s (not timed){peak}")
    if r.get("obtained"):
        notes.append("reference " + r["obtained"])
    if r.get("basis"):
        notes.append("reference run: " + r["basis"])
    if r.get("profile"):
        notes.append("reference's time by function (inclusive, wall/CPU s, calls): " + ", ".join(
            f"{p['function']} {p['wall_s']:.3g}/{p['cpu_s']:.3g} x{p['calls']}" for p in r["profile"][:8]))
else:
    shown = ""
    if mark and num(rec_s):
        shown = f" — shown: {rec_s} CPU s recorded here, {rec_basis}"
    elif mark:
        shown = " — shown: issue 15's typed-in time"
    notes.append("reference: " + r["error"] + shown)
print(f"{'':<14} " + "; ".join(notes))
for c in cmp or []:
    if not c.get("agree_5dp", c.get("agree")):
        print(f"{'':<14} differs: {c['metric']}: ours {c['ours']!r}, reference {c['reference']!r}")
EOF2
done
