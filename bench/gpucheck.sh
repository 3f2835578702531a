#!/usr/bin/env bash
# bench/gpucheck.sh — the GPU path end to end on a machine with an NVIDIA GPU:
#   1. CUDA starts under the sandbox's data rlimit (rexmle-agent limits), at a
#      generous limit and at 8 GiB;
#   2. `mage all` on a one-run profile: bench/gpuagent/agent.py trains a small
#      CNN on LDCT-IQA's synthetic training images on the GPU for
#      REXMLE_GPU_TRAIN_SECONDS (default 40) inside the bubblewrap sandbox
#      (the GPU's device nodes only, no network), asks the run's validation
#      endpoint, and writes its submission, which is graded, ranked, judged
#      and reported; NVML samples the GPU meanwhile;
#   3. the run must end "done" with a valid grade and NVML telemetry (samples
#      with non-zero SM utilisation): otherwise the script exits non-zero.
# It works in a scratch folder (REXMLE_GPU_DIR, default a new temporary one,
# kept: its results/ and site/ are the evidence) with a copy of
# benchmark.toml holding the agent and a "gpu-check" profile; under the
# checkout only bin/ is written (the binaries).
#
# Needs: bwrap on PATH, an NVIDIA driver, a python with torch, numpy and PIL
# (REXMLE_GPU_PYTHON, default /opt/torch/.venv/bin/python3, else python3: it
# must live under /usr or /opt, which the sandbox binds read-only), and either
# Go or prebuilt binaries: `bench/gpucheck.sh --build-bins DIR` writes mage,
# rexmle-agent and rexmle-bridge to DIR here; REXMLE_GPU_BINDIR=DIR uses them
# on a node without Go.
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$(pwd)"
if [[ "${1:-}" == --build-bins ]]; then
  out="${2:?--build-bins needs a folder}"
  mkdir -p "$out"
  out="$(cd "$out" && pwd)"
  go run mage.go -ldflags '-s -w' -compile "$out/mage" >/dev/null
  go run mage.go binaries
  cp bin/rexmle-agent bin/rexmle-bridge "$out/"
  ls -l "$out"
  exit 0
fi
py="${REXMLE_GPU_PYTHON:-}"
if [[ -z "$py" ]]; then
  if [[ -x /opt/torch/.venv/bin/python3 ]]; then py=/opt/torch/.venv/bin/python3; else py="$(command -v python3)"; fi
fi
secs="${REXMLE_GPU_TRAIN_SECONDS:-40}"
dir="${REXMLE_GPU_DIR:-$(mktemp -d)}"
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"
command -v bwrap >/dev/null || { echo "gpucheck: needs bwrap (bubblewrap) on PATH" >&2; exit 1; }
command -v nvidia-smi >/dev/null && nvidia-smi -L

bindir="${REXMLE_GPU_BINDIR:-}"
mkdir -p bin
if [[ -n "$bindir" ]]; then
  cp "$bindir/mage" "$dir/mage"
  cp "$bindir/rexmle-agent" "$bindir/rexmle-bridge" bin/
else
  go run mage.go -compile "$dir/mage" >/dev/null
  go run mage.go binaries
fi

echo "== CUDA under the sandbox's data rlimit"
for lim in 103079215104 8589934592; do
  bin/rexmle-agent limits -nproc 4096 -data "$lim" -fsize 274877906944 -- "$py" -c \
    'import torch; x = torch.randn(8192, 8192, device="cuda"); print("cuda ok:", torch.cuda.get_device_name(0), round((x @ x).abs().mean().item(), 2), torch.cuda.max_memory_allocated() >> 20, "MiB")' ||
    { echo "gpucheck: CUDA failed under -data $lim" >&2; exit 1; }
done

# The benchmark file with absolute paths (data, results and site go to the
# scratch folder), the GPU agent and its profile; mage runs in the checkout,
# whose bin/ holds the binaries the run stage hands the agent.
sed -e "s|^challenges_dir = \"benchmark/challenges\"|challenges_dir = \"$repo/benchmark/challenges\"|" \
  -e "s|^paper_results = \"results/paper\"|paper_results = \"$repo/results/paper\"|" \
  -e "s|^rubric = \"rubrics/|rubric = \"$repo/rubrics/|" -e "s|^code = \"agents\"|code = \"$repo/agents\"|" benchmark.toml >"$dir/benchmark.toml"
cat >>"$dir/benchmark.toml" <<TOML

[[agent]]
id = "torch-gpu"
name = "Torch GPU agent (bench/gpucheck.sh)"
backend = "none"
executor = "local"
code = "$repo/bench/gpuagent"
command = ["$py", "{code}/agent.py", "--data", "{data}", "--submission", "{submission}", "--logs", "{logs}", "--train-seconds", "$secs"]
time_limit = "10m"
grace_period = "30s"
gpus = 1
description = "Trains a small CNN on the GPU: bench/gpucheck.sh's check of the GPU path."

[profile.gpu-check]
description = "bench/gpucheck.sh: a torch agent on the GPU through the bwrap sandbox with NVML telemetry."
data = "synthetic"
agents = ["torch-gpu"]
challenges = ["ldct-iqa"]
seeds = [1]
setting = "gpu-check"
judge = "heuristic"
scheduler = "local"
TOML
echo "== mage all on the gpu-check profile (training ${secs} s) in $dir"
REXMLE_CONFIG="$dir/benchmark.toml" REXMLE_PROFILE=gpu-check REXMLE_RETRY_FAILED=1 "$dir/mage" all || true
run="$dir/results/runs/gpu-check/ldct-iqa/torch-gpu/seed-1"
tail -3 "$run/logs/gpu-agent.log" 2>/dev/null || true
"$py" - "$run" "$dir/results/rexmle.sqlite" <<'PY'
import json, sqlite3, sys
run, store = sys.argv[1:]
r = json.load(open(f"{run}/run.json"))
db = sqlite3.connect(store)
rid = "gpu-check/ldct-iqa/torch-gpu/seed-1"
n, sm, mem, power = db.execute("select count(*), max(sm_util), max(mem_used_bytes), max(power_w) from gpu_samples where run_id = ?", (rid,)).fetchone()
grade = db.execute("select valid, error from grades where run_id = ?", (rid,)).fetchone()
print(f"run: {r['status']} in {r['wall_seconds']:.1f} s, GPUs {r.get('gpus')}, telemetry {r.get('telemetry')}")
print(f"isolation: {r.get('isolation')}")
print(f"NVML: {n} samples, SM utilisation up to {sm}%, memory up to {(mem or 0) / 2**30:.1f} GiB, power up to {power} W")
print(f"grade: {'valid' if grade and grade[0] else grade}")
bad = [why for ok, why in [
    (r["status"] == "done", f"the run ended {r['status']}: {r.get('error')}"),
    (r.get("telemetry") == "nvml", f"telemetry {r.get('telemetry')}"),
    (n > 0 and (sm or 0) > 0, "no NVML sample with the GPU busy"),
    (bool(grade and grade[0]), f"grade {grade}"),
] if not ok]
for why in bad:
    print("gpucheck: FAILED:", why, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
