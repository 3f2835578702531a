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
import shutil
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
PARALLEL_SEARCHES = 3  # the harness's agent.search.parallel_search_num
KEY_VAR = "REXMLE_LLM_API_KEY"
URL_VAR = "REXMLE_LLM_BASE_URL"
# The vendors' public endpoints, for backends whose profile names no URL
# variable. ML-Master hands agent.*.base_url to openai.OpenAI(base_url=...)
# as it is (utils/llm_caller.py, LLM.__init__; backend/backend_openai.py,
# _setup_openai_client), and the openai SDK takes "" for a URL rather than
# its default, so every call would fail with "Request URL is missing an
# 'http://' or 'https://' protocol". Its Anthropic and Gemini clients skip
# an empty base_url ("if self.base_url:"), so they keep their SDK defaults.
DEFAULT_BASE_URLS = {
    "openai": "https://api.openai.com/v1",
    "openrouter": "https://openrouter.ai/api/v1",
}


def plan(task, desc_file, bridge_url):
    root = os.path.join(task.workspace, "ml-master")
    key = ak.secret(task)
    url = ak.base_url(task)
    if task.endpoint == "azure" and url:
        url = ak.azure_v1_url(url)
    if not url:
        url = DEFAULT_BASE_URLS.get(task.endpoint, "")
    if not url and task.endpoint in ("azure", "openai-compatible"):
        # never an empty base_url for the OpenAI client (see DEFAULT_BASE_URLS)
        raise SystemExit("adapter: endpoint %s needs its URL: set the variable named by --base-url-env (%s)"
                         % (task.endpoint, task.base_url_env or "none given"))
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
        # Its interpreter refuses to start when cpu_number < the 3 parallel
        # searches (interpreter/interpreter_parallel.py, Interpreter.__init__:
        # "The maximum level of parallelism exceeds the number of allocated
        # CPU cores") and uses the number for nothing else (its CPU pinning
        # is commented out), so a machine with fewer cores says 3.
        "cpu_number=%d" % max(os.cpu_count() or 1, PARALLEL_SEARCHES),
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
        "agent.search.parallel_search_num=%d" % PARALLEL_SEARCHES,
    ]
    return ak.Plan(argv, env, HOME, secret, notes={"endpoint": task.endpoint, "backend": task.backend})


def link_live_submission(live, submission):
    """Makes ML-Master's working submission folder a link to the run's
    submission folder. ML-Master checks a node's CSV by posting it alone to
    one of three URLs picked at random (utils/server_utils.py,
    _load_server_urls and is_server_online): ML_MASTER_VALIDATE_URL and
    WORKSPACE_DIR/.grading_port (this adapter's bridge) and
    http://127.0.0.1:5000, which in rexmle's sandbox is rexmle's own
    endpoint. Both complete a CSV sent alone with the prediction files of
    the submission folder they know (the bridge: this link; rexmle: the
    run's), so with the link every URL checks the same files. Its
    prep_agent_workspace mkdirs the folder with exist_ok, which keeps the
    link. At the end collect() replaces the folder's content with
    best_submission/."""
    os.makedirs(os.path.dirname(live), exist_ok=True)
    os.makedirs(submission, exist_ok=True)
    if os.path.islink(live) and os.path.realpath(live) == os.path.realpath(submission):
        return
    if os.path.isdir(live) and not os.path.islink(live):
        ak.copy_contents(live, submission)  # a restarted run's earlier files
        shutil.rmtree(live)
    elif os.path.lexists(live):
        os.unlink(live)
    os.symlink(submission, live)


def folders(task):
    """ML-Master's folders under the workspace: (root, its experiment
    workspace, its log folder, its working submission folder)."""
    root = os.path.join(task.workspace, "ml-master")
    exp_ws = os.path.join(root, "workspaces", EXP)
    return root, exp_ws, os.path.join(root, "logs", EXP), os.path.join(exp_ws, "submission")


def collect(task):
    """Copies best_submission/ (written by MCTSAgent.step when a node is
    the best so far, agent/mcts_agent.py) into task.submission and the
    run's log folder into task.logs/ml-master. Only best_submission/:
    the working folder is task.submission itself."""
    _, exp_ws, exp_logs, _ = folders(task)
    got = ak.collect_submission([os.path.join(exp_ws, "best_submission")], task.submission)
    ak.copy_contents(exp_logs, os.path.join(task.logs, "ml-master"))
    return got


def main(argv=None):
    task = ak.parse(argv, AGENT, DEFAULT_STEPS, DEFAULT_STEP_TIMEOUT)
    root, _, _, live = folders(task)
    desc_file = os.path.join(root, "full_instructions.md")
    bridge = None
    if task.dry_run:
        url = "http://127.0.0.1:<port>"
    else:
        link_live_submission(live, task.submission)
        bridge = ak.open_bridge(task, live, [root])
        url = bridge.url
        ak.write_text(desc_file, ak.instructions(task, bridge.hint()))
    return ak.run(AGENT, task, plan(task, desc_file, url), lambda: collect(task), bridge)


if __name__ == "__main__":
    sys.exit(main())
