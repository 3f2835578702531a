#!/usr/bin/env python3
"""rexmle adapter for AIDE: aideml 0.2.2 (WecoAI/aideml tag v0.2.2), the
version the paper's harness installs (setup.sh: pip install aideml==0.2.2),
with the harness's OpenAI backend (rex-mle/setup/aide/backend_openai.txt,
which reaches Azure deployments) in place of aideml's own.

Writes AIDE's task file, runs AIDE's own loop through aide_launch.py (the
`aide` entry point plus a hook that keeps the best node's submission folder;
OmegaConf key=value arguments checked against aideml 0.2.2's config schema),
and copies the best node's submission and AIDE's logs (journal.json,
config.yaml, tree_plot.html, best_solution.py, the backend's requests.log)
out at the end, at the deadline or on SIGTERM.
"""

import glob
import json
import os
import sys

# adaptkit.py sits beside this file in the image (/opt/rexmle) and one
# folder up in the checkout (agents/adaptkit.py, shared by every recipe).
_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [_here, os.path.dirname(_here)]
import adaptkit as ak  # noqa: E402

AGENT = "aide"
# aideml 0.2.2 names its folders "<index>-<exp_name>" (utils/config.py
# prep_cfg); the harness's start.sh passes exp_name="exp" and looks for "*-exp".
EXP = "exp"
# The paper's harness: 2000 steps in its 24 h configuration (10000 in the
# 3-day one, set by the paper-72h profile), 9 h per program run.
DEFAULT_STEPS = 2000
DEFAULT_STEP_TIMEOUT = 32400
LAUNCHER = os.path.join(_here, "aide_launch.py")


def endpoint_env(task):
    """Maps the backend's endpoint onto what aideml 0.2.2's backends read
    (the OpenAI one being the harness's). Returns (env, secret_names, model)."""
    key = ak.secret(task)
    url = ak.base_url(task)
    model = task.model or "gpt-5"
    env, secret = {}, set()
    kind = task.endpoint
    if kind in ("openai", "openai-compatible"):
        # the harness's backend: openai.OpenAI() reads both variables
        env["OPENAI_API_KEY"] = key
        secret.add("OPENAI_API_KEY")
        if url:
            env["OPENAI_BASE_URL"] = url
    elif kind == "azure":
        # the harness's backend builds openai.AzureOpenAI from these three
        env["AZURE_OPENAI_API_KEY"] = key
        secret.add("AZURE_OPENAI_API_KEY")
        if url:
            env["AZURE_OPENAI_ENDPOINT"] = url
        version = os.environ.get(task.api_version_env, "").strip() if task.api_version_env else ""
        if version:
            env["AZURE_OPENAI_API_VERSION"] = version
    elif kind == "anthropic":
        # backend_anthropic: anthropic.Anthropic() reads both variables
        env["ANTHROPIC_API_KEY"] = key
        secret.add("ANTHROPIC_API_KEY")
        if url:
            env["ANTHROPIC_BASE_URL"] = url
    elif kind == "gemini":
        # backend_gemini: OpenAI client on Google's fixed OpenAI-compatible URL
        env["GEMINI_API_KEY"] = key
        secret.add("GEMINI_API_KEY")
    elif kind == "openrouter":
        env["OPENROUTER_API_KEY"] = key
        secret.add("OPENROUTER_API_KEY")
    return env, secret, model


def plan(task, desc_file, bridge_url):
    root = os.path.join(task.workspace, "aide")
    env, secret, model = endpoint_env(task)
    env["REXMLE_VALIDATE_HTTP"] = bridge_url
    env["REXMLE_AIDE_BEST_DIR"] = os.path.join(root, "best")
    argv = [
        "python3", LAUNCHER,
        "data_dir=" + task.data,
        "desc_file=" + desc_file,
        "exp_name=" + EXP,
        "log_dir=" + os.path.join(root, "logs"),
        "workspace_dir=" + os.path.join(root, "workspaces"),
        "copy_data=False",
        "agent.steps=%d" % task.steps,
        "exec.timeout=%d" % (task.step_timeout or task.time_limit),
        "agent.search.max_debug_depth=20",
        "agent.search.debug_prob=1",
        "agent.code.model=" + model,
        "agent.code.temp=1",
        "agent.feedback.model=" + model,
        "agent.feedback.temp=1",
        # the final report is written after the last step (never within
        # 24 h at 2000 steps); the harness's Claude and Gemini configs set
        # its model, aideml's default (gpt-4.1) would need another key
        "report.model=" + model,
        "report.temp=1",
    ]
    return ak.Plan(argv, env, root, secret, notes={"endpoint": task.endpoint, "backend": task.backend})


def exp_folder(parent):
    """AIDE's "<index>-exp" folder under parent (the newest when a resumed
    run left several); "" before AIDE made one."""
    found = [d for d in glob.glob(os.path.join(parent, "*-" + EXP)) if os.path.isdir(d)]
    return max(found, key=os.path.getmtime) if found else ""


def best_copy(root):
    """The folder aide_launch.py kept for AIDE's best node, or ""."""
    best = os.path.join(root, "best")
    try:
        with open(os.path.join(best, "BEST"), encoding="utf-8") as f:
            name = json.load(f)["dir"]
    except (OSError, ValueError, KeyError, TypeError):
        return ""
    d = os.path.join(best, os.path.basename(str(name)), "submission")
    return d if os.path.isdir(d) else ""


def collect_from(root, submission, logs):
    """Copies the best node's submission (else, as the harness's start.sh
    does, the live submission folder, else working/submission.csv) and
    AIDE's logs. Returns the folder or file used, or ""."""
    ws = exp_folder(os.path.join(root, "workspaces"))
    kept = best_copy(root)
    live = os.path.join(ws, "submission") if ws else ""
    if kept:
        ak.log("AIDE's best node: %s", os.path.basename(os.path.dirname(kept)))
    got = ak.collect_submission([kept, live], submission)
    csv = os.path.join(ws, "working", "submission.csv") if ws else ""
    if not got and csv and os.path.isfile(csv):
        ak.clear_dir(submission)
        ak.shutil.copyfile(csv, os.path.join(submission, "submission.csv"))
        got = csv
    exp_logs = exp_folder(os.path.join(root, "logs"))
    dst = os.path.join(logs, "aide")
    if exp_logs:
        ak.copy_contents(exp_logs, dst)
    # the harness's OpenAI backend logs every request and answer here
    req = os.path.join(root, "logs", "requests.log")
    if os.path.isfile(req):
        os.makedirs(dst, exist_ok=True)
        ak.shutil.copyfile(req, os.path.join(dst, "requests.log"))
    if kept:
        ak.shutil.copyfile(os.path.join(os.path.dirname(kept), "node.json"), os.path.join(dst, "best_node.json"))
    return got


def main(argv=None):
    task = ak.parse(argv, AGENT, DEFAULT_STEPS, DEFAULT_STEP_TIMEOUT)
    root = os.path.join(task.workspace, "aide")
    desc_file = os.path.join(root, "full_instructions.md")
    bridge = None
    if task.dry_run:
        url = "http://127.0.0.1:<port>"
    else:
        def live_submission():
            ws = exp_folder(os.path.join(root, "workspaces"))
            return os.path.join(ws, "submission") if ws else ""

        bridge = ak.open_bridge(task, live_submission, [root])
        url = bridge.url
        ak.write_text(desc_file, ak.instructions(task, bridge.hint()))

    def collect():
        return collect_from(root, task.submission, task.logs)

    return ak.run(AGENT, task, plan(task, desc_file, url), collect, bridge)


if __name__ == "__main__":
    sys.exit(main())
