#!/usr/bin/env python3
"""rexmle adapter for AIDE (aideml v6.3.3, the build the paper's harness pins).

Writes AIDE's task file, runs `aide key=value ...` (OmegaConf arguments checked
against aideml's config schema), and copies AIDE's submission folder and its
logs (journal.json, filtered_journal.json, aide.log, aide.verbose.log,
best_solution.py, config.yaml, tree_plot.html) out at the end or on SIGTERM.
"""

import os
import sys

# adaptkit.py sits beside this file in the image (/opt/rexmle) and one
# folder up in the checkout (agents/adaptkit.py, shared by every recipe).
_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [_here, os.path.dirname(_here)]
import adaptkit as ak  # noqa: E402

AGENT = "aide"
EXP = "rexmle"
# The paper's harness: 2000 steps in its 24 h configuration (10000 in the
# 3-day one, set by the paper-72h profile), 9 h per program run.
DEFAULT_STEPS = 2000
DEFAULT_STEP_TIMEOUT = 32400


def endpoint_env(task):
    """Maps the backend's endpoint onto what aideml's clients read.
    Returns (env, secret_names, model)."""
    key = ak.secret(task)
    url = ak.base_url(task)
    model = task.model or "gpt-5"
    env, secret = {}, set()
    kind = task.endpoint
    if kind in ("openai", "openai-compatible"):
        env["OPENAI_API_KEY"] = key
        secret.add("OPENAI_API_KEY")
        if url:
            env["OPENAI_BASE_URL"] = url
    elif kind == "azure":
        # aideml's OpenAI backend builds a plain OpenAI client, which reaches
        # an Azure deployment through Azure's OpenAI-compatible v1 URL.
        env["OPENAI_API_KEY"] = key
        secret.add("OPENAI_API_KEY")
        if url:
            env["OPENAI_BASE_URL"] = ak.azure_v1_url(url)
    elif kind == "anthropic":
        env["ANTHROPIC_API_KEY"] = key
        secret.add("ANTHROPIC_API_KEY")
        if url:
            env["ANTHROPIC_BASE_URL"] = url
    elif kind == "gemini":
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
    argv = [
        "aide",
        "data_dir=" + task.data,
        "desc_file=" + desc_file,
        "exp_name=" + EXP,
        "log_dir=" + os.path.join(root, "logs"),
        "workspace_dir=" + os.path.join(root, "workspaces"),
        "copy_data=False",
        "agent.steps=%d" % task.steps,
        "agent.time_limit=%d" % task.agent_budget,
        "exec.timeout=%d" % (task.step_timeout or task.time_limit),
        "agent.search.max_debug_depth=20",
        "agent.search.debug_prob=1",
        "agent.code.model=" + model,
        "agent.code.temp=1",
        "agent.feedback.model=" + model,
        "agent.feedback.temp=1",
    ]
    return ak.Plan(argv, env, root, secret, notes={"endpoint": task.endpoint, "backend": task.backend})


def main(argv=None):
    task = ak.parse(argv, AGENT, DEFAULT_STEPS, DEFAULT_STEP_TIMEOUT)
    root = os.path.join(task.workspace, "aide")
    exp_ws = os.path.join(root, "workspaces", EXP)
    exp_logs = os.path.join(root, "logs", EXP)
    desc_file = os.path.join(root, "full_instructions.md")
    bridge = None
    if task.dry_run:
        url = "http://127.0.0.1:<port>"
    else:
        bridge = ak.open_bridge(task, os.path.join(exp_ws, "submission"), [root])
        url = bridge.url
        ak.write_text(desc_file, ak.instructions(task, bridge.hint()))

    def collect():
        got = ak.collect_submission([os.path.join(exp_ws, "submission")], task.submission)
        csv = os.path.join(exp_ws, "working", "submission.csv")
        if not got and os.path.isfile(csv):
            # as the harness does: fall back to the CSV alone in working/
            ak.clear_dir(task.submission)
            ak.shutil.copyfile(csv, os.path.join(task.submission, "submission.csv"))
            got = csv
        ak.copy_contents(exp_logs, os.path.join(task.logs, "aide"))
        return got

    return ak.run(AGENT, task, plan(task, desc_file, url), collect, bridge)


if __name__ == "__main__":
    sys.exit(main())
