#!/usr/bin/env python3
"""rexmle adapter for ML-Master (the copy vendored in rajpurkarlab/ReX-MLE,
which adds GPT-5, Claude and Gemini backends and an HTTP validation client).

Runs `python main_mcts.py key=value ...` (OmegaConf arguments merged into
ML-Master's structured config), with the API key and base URL passed as
`${oc.env:...}` interpolations so no secret appears on the command line; the
paper's validation API (/health, /validate) is served on loopback and
advertised through ML_MASTER_VALIDATE_URL and WORKSPACE_DIR/.grading_port.
At the end (or on SIGTERM) the best submission folder and the run's log
folder are copied out.
"""

import os
import sys

# adaptkit.py sits beside this file in the image (/opt/rexmle) and one
# folder up in the checkout (agents/adaptkit.py, shared by every recipe).
_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [_here, os.path.dirname(_here)]
import adaptkit as ak  # noqa: E402

AGENT = "ml-master"
EXP = "rexmle"
HOME = os.environ.get("ML_MASTER_HOME", "/opt/ml-master")
# The harness's ML-Master configuration: 5000 steps, 12 h per program run.
DEFAULT_STEPS = 5000
DEFAULT_STEP_TIMEOUT = 43200
KEY_VAR = "REXMLE_LLM_API_KEY"
URL_VAR = "REXMLE_LLM_BASE_URL"


def plan(task, desc_file, bridge_url):
    root = os.path.join(task.workspace, "ml-master")
    key = ak.secret(task)
    url = ak.base_url(task)
    if task.endpoint == "azure" and url:
        url = ak.azure_v1_url(url)
    model = task.model or "gpt-5"
    env = {KEY_VAR: key, URL_VAR: url, "ML_MASTER_VALIDATE_URL": bridge_url, "WORKSPACE_DIR": root}
    # ML-Master's Claude and Gemini clients are the vendors' SDKs, which also
    # read their own variables.
    if task.endpoint == "anthropic":
        env["ANTHROPIC_API_KEY"] = key
    if task.endpoint == "gemini":
        env["GEMINI_API_KEY"] = key
        env["GOOGLE_API_KEY"] = key
    secret = {KEY_VAR, "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"}
    argv = [
        "python3", os.path.join(HOME, "main_mcts.py"),
        "dataset_dir=" + task.data,
        "data_dir=" + task.data,
        "desc_file=" + desc_file,
        "exp_name=" + EXP,
        "log_dir=" + os.path.join(root, "logs"),
        "workspace_dir=" + os.path.join(root, "workspaces"),
        "start_cpu_id=0",
        "cpu_number=%d" % (os.cpu_count() or 1),
        "copy_data=False",
        "agent.steps=%d" % task.steps,
        "agent.time_limit=%d" % task.agent_budget,
        "exec.timeout=%d" % (task.step_timeout or task.time_limit),
        "agent.code.model=" + model,
        "agent.code.temp=1.0",
        "agent.code.base_url=${oc.env:%s}" % URL_VAR,
        "agent.code.api_key=${oc.env:%s}" % KEY_VAR,
        "agent.feedback.model=" + model,
        "agent.feedback.temp=1.0",
        "agent.feedback.base_url=${oc.env:%s}" % URL_VAR,
        "agent.feedback.api_key=${oc.env:%s}" % KEY_VAR,
        "agent.search.max_debug_depth=20",
        "agent.search.debug_prob=1.0",
        "agent.search.num_drafts=5",
        "agent.search.num_bugs=1",
        "agent.search.num_improves=3",
        "agent.search.invalid_metric_upper_bound=100",
        "agent.search.metric_improvement_threshold=0.0001",
        "agent.search.max_improve_failure=3",
        "agent.search.parallel_search_num=3",
    ]
    return ak.Plan(argv, env, HOME, secret, notes={"endpoint": task.endpoint, "backend": task.backend})


def main(argv=None):
    task = ak.parse(argv, AGENT, DEFAULT_STEPS, DEFAULT_STEP_TIMEOUT)
    root = os.path.join(task.workspace, "ml-master")
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
        got = ak.collect_submission([os.path.join(exp_ws, "best_submission"), os.path.join(exp_ws, "submission")],
                                    task.submission)
        ak.copy_contents(exp_logs, os.path.join(task.logs, "ml-master"))
        return got

    return ak.run(AGENT, task, plan(task, desc_file, url), collect, bridge)


if __name__ == "__main__":
    sys.exit(main())
