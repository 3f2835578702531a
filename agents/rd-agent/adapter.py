#!/usr/bin/env python3
"""rexmle adapter for R&D-Agent (rdagent v0.8.0, data_science scenario).

Lays the public data out as RD-Agent expects ({DS_LOCAL_DATA_PATH}/{competition}),
runs `rdagent data_science --competition ID --timeout ...` with LiteLLM's
settings in the environment, and at the end (or on SIGTERM) copies the
workspace of the best (SOTA) experiment out as the submission and converts the
run's pickled logs to text (here, inside the image, where RD-Agent's classes
can be unpickled) next to its plain-text logs.
"""

import json
import os
import pickle
import re
import sys

# adaptkit.py sits beside this file in the image (/opt/rexmle) and one
# folder up in the checkout (agents/adaptkit.py, shared by every recipe).
_here = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [_here, os.path.dirname(_here)]
import adaptkit as ak  # noqa: E402

AGENT = "rd-agent"


def timeout_arg(secs):
    """RD-Agent's --timeout string, e.g. "24h" or "90m"."""
    if secs % 3600 == 0:
        return "%dh" % (secs // 3600)
    if secs % 60 == 0:
        return "%dm" % (secs // 60)
    return "%ds" % secs


def llm_env(task):
    """LiteLLM's variables for the backend; returns (env, secret_names)."""
    key = ak.secret(task)
    url = ak.base_url(task)
    model = task.model or "gpt-5"
    emb = os.environ.get("REXMLE_EMBEDDING_MODEL", "text-embedding-3-small")
    env, secret = {}, set()
    if task.endpoint == "azure":
        env.update({"CHAT_MODEL": "azure/" + model, "EMBEDDING_MODEL": "azure/" + emb,
                    "AZURE_API_KEY": key, "AZURE_API_BASE": url})
        secret.add("AZURE_API_KEY")
        if task.api_version_env:
            env["AZURE_API_VERSION"] = os.environ.get(task.api_version_env, "")
    else:
        env.update({"CHAT_MODEL": model, "EMBEDDING_MODEL": emb, "OPENAI_API_KEY": key})
        secret.add("OPENAI_API_KEY")
        if url:
            env["OPENAI_API_BASE"] = url
    return env, secret


def plan(task, root, bridge_url):
    env, secret = llm_env(task)
    env.update({
        "DS_LOCAL_DATA_PATH": os.path.join(root, "data"),
        "DS_IF_USING_MLE_DATA": "False",
        # TestEval's folder, {DS_LOCAL_DATA_PATH}/{eval_sub_dir}/{competition}
        # (rdagent/scenarios/data_science/test_eval.py:84-104): see validation_files.
        "DS_EVAL_SUB_DIR": "eval",
        # The default KaggleScen downloads with the kaggle CLI and asks Kaggle's
        # leaderboard for the metric direction: rexmle_scen.py says where.
        "DS_SCEN": "rexmle_scen.RexmleScen",
        "PYTHONPATH": os.pathsep.join(p for p in (_here, os.environ.get("PYTHONPATH", "")) if p),
        # chat_temperature defaults to 0.5 (rdagent/oai/llm_conf.py:69, used by
        # rdagent/oai/backend/litellm.py:101); LiteLLM refuses any temperature
        # but 1 for gpt-5 unless told to drop what a model does not take. The
        # paper's harness set both (rex-mle/.env: CHAT_TEMPERATURE=1,
        # LITELLM_DROP_PARAMS=True).
        "CHAT_TEMPERATURE": "1",
        "LITELLM_DROP_PARAMS": "True",
        "DS_Coder_CoSTEER_ENV_TYPE": "conda",
        "DS_Runner_CoSTEER_ENV_TYPE": "conda",
        "LOG_TRACE_PATH": os.path.join(root, "log", "run"),
        "REXMLE_VALIDATE_HTTP": bridge_url,
    })
    argv = ["rdagent", "data_science", "--competition", task.challenge, "--timeout", timeout_arg(task.agent_budget)]
    if task.steps:
        argv += ["--loop-n", str(task.steps)]
    return ak.Plan(argv, env, root, secret, notes={"endpoint": task.endpoint, "backend": task.backend})


# R&D-Agent's own submission check: with a submission_test.csv in its eval
# folder, TestEval.valid copies valid.py into the experiment's workspace, runs
# `python submission_format_valid.py <competition>` there and hands the
# stdout and exit code to its evaluators (test_eval.py:84-104; called from
# rdagent/scenarios/data_science/dev/runner/eval.py:165-169 and
# rdagent/components/coder/data_science/pipeline/eval.py:252-255, whose
# prompts say a "Submission is valid" message means a valid submission;
# rexmle's answer text is exactly that, or "Submission is invalid: why").
VALID_PY = """\
# rexmle: checks this workspace's submission folder with rexmle's validation
# service (format only, never a score). Written by the rexmle adapter.
import json, os, sys, urllib.request
url = %r
req = urllib.request.Request(url + "/validate", json.dumps({"dir": os.getcwd()}).encode(),
                             {"Content-Type": "application/json"})
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
try:
    with opener.open(req, timeout=300) as resp:
        ans = json.loads(resp.read() or b"{}")
except Exception as err:
    if hasattr(err, "read"):
        print("Validation service error: %%s" %% err.read().decode(errors="replace"))
    else:
        print("Validation service unreachable: %%s" %% err)
    sys.exit(2)
print(ans.get("result") or ("Submission is valid." if ans.get("valid") else "Submission is invalid."))
sys.exit(0 if ans.get("valid") else 1)
"""


def validation_files(root, task, bridge_url):
    """Lays out {root}/data/eval/{challenge}/: valid.py (above) and the
    submission_test.csv whose presence turns the check on (TestEval.enabled)."""
    d = os.path.join(root, "data", "eval", task.challenge)
    os.makedirs(d, exist_ok=True)
    ak.write_text(os.path.join(d, "valid.py"), VALID_PY % bridge_url)
    sample = os.path.join(task.data, "sample_submission.csv")
    text = ""
    if os.path.isfile(sample):
        with open(sample, encoding="utf-8", errors="replace") as f:
            text = f.read()
    ak.write_text(os.path.join(d, "submission_test.csv"), text)


# A pickled pathlib.Path keeps its parts as separate strings, so a pickle
# holds b"RD-Agent_workspace\x94\x8c <id>" (protocol 4+ framing), not the
# joined path; text forms have the slash.
WS_RE = re.compile(rb"RD-Agent_workspace(?:/|\x94?\x8c.)([0-9a-f]{32})", re.DOTALL)


def sota_workspaces(log_dir, ws_root):
    """Workspaces of the SOTA experiments, newest loop first: from the
    sota_exp_to_submit records (unpickled where RD-Agent is importable,
    else the workspace id found in the pickle's bytes)."""
    recs = []
    for dirpath, _dirs, files in os.walk(log_dir):
        if "sota_exp_to_submit" not in dirpath:
            continue
        for f in files:
            if f.endswith(".pkl"):
                p = os.path.join(dirpath, f)
                recs.append((os.path.getmtime(p), p))
    out = []
    for _mt, p in sorted(recs, reverse=True):
        path = ""
        try:
            with open(p, "rb") as fh:
                obj = pickle.load(fh)
            ws = getattr(getattr(obj, "experiment_workspace", None), "workspace_path", None)
            path = str(ws) if ws else ""
        except Exception:  # classes missing or a partial pickle: read the bytes
            pass
        if not path:
            with open(p, "rb") as fh:
                m = WS_RE.search(fh.read())
            if m:
                path = os.path.join(ws_root, m.group(1).decode())
        if path and path not in out:
            out.append(path)
    return out


def newest_with_submission(ws_root):
    best = []
    if os.path.isdir(ws_root):
        for name in os.listdir(ws_root):
            p = os.path.join(ws_root, name, "submission.csv")
            if os.path.isfile(p):
                best.append((os.path.getmtime(p), os.path.dirname(p)))
    return [d for _m, d in sorted(best, reverse=True)]


def pickle_to_text(obj, depth=0):
    """A readable rendering of an unpickled log object."""
    if depth > 4:
        return repr(obj)[:2000]
    if isinstance(obj, (str, int, float, bool)) or obj is None:
        return obj
    if isinstance(obj, (list, tuple)):
        return [pickle_to_text(x, depth + 1) for x in obj[:200]]
    if isinstance(obj, dict):
        return {str(k): pickle_to_text(v, depth + 1) for k, v in list(obj.items())[:200]}
    d = getattr(obj, "__dict__", None)
    if d:
        return {"__class__": type(obj).__name__, **{k: pickle_to_text(v, depth + 1) for k, v in d.items() if not k.startswith("_")}}
    return str(obj)


def record_text(obj):
    """A pickled record as the judge reads it: the object as it prints
    itself. Where its class prints only "<... object at 0x...>" (R&D-Agent's
    DSExperiment), the attributes that print themselves follow, each from a
    new line: the experiment's DSHypothesis prints "Target Problem:",
    "Hypothesis:" and "Reason:" (rdagent/scenarios/data_science/proposal/
    exp_gen/base.py:37-52)."""
    text = str(obj)
    if type(obj).__str__ is not object.__str__ or not hasattr(obj, "__dict__"):
        return text
    parts = [text]
    for k, v in vars(obj).items():
        if k.startswith("_") or v is None or isinstance(v, (str, bytes, int, float, bool, list, tuple, dict, set)):
            continue
        if type(v).__str__ is object.__str__:
            continue
        try:
            parts.append("%s:\n%s" % (k, v))
        except Exception:  # a record that cannot print one part keeps the rest
            continue
    return "\n".join(parts)


def redact(text, secrets):
    for v in secrets:
        if v:
            text = text.replace(v, "[redacted]")
    return text


def convert_logs(log_dir, out_dir, trace_path=None, secrets=()):
    """Copies the plain-text logs and writes a .txt beside every pickle.

    With trace_path it also writes one text file of every pickled record,
    each as the object prints itself (str), in path order and separated by
    lines of "=====": the session as the paper's judge read it. The trace is
    written first, before the per-record files: at the deadline the runner's
    grace period may end during the copy.

    Every value in secrets is replaced by "[redacted]" in what is written:
    R&D-Agent logs its LLM settings, API key included, as text and as a
    pickled record (rdagent/oai/backend/litellm.py:54-55)."""
    trace, outputs = [], []
    for dirpath, dirs, files in os.walk(log_dir):
        dirs.sort()
        files.sort()
        rel = os.path.relpath(dirpath, log_dir)
        for f in files:
            src = os.path.join(dirpath, f)
            if f.endswith(".pkl"):
                try:
                    with open(src, "rb") as fh:
                        obj = pickle.load(fh)
                    text = json.dumps(pickle_to_text(obj), indent=1, default=str)
                    try:
                        trace.append("%s\n%s" % (os.path.join(rel, f), record_text(obj)))
                    except Exception:
                        trace.append("%s\n%s" % (os.path.join(rel, f), text))
                except Exception as err:  # keep going: one bad pickle must not lose the rest
                    text = "unreadable pickle %s: %s" % (f, err)
                outputs.append((os.path.join(out_dir, rel, f[:-4] + ".txt"), text, None))
            elif f.endswith((".log", ".txt", ".json", ".md")):
                outputs.append((os.path.join(out_dir, rel, f), None, src))
    if trace_path and trace:
        ak.write_text(trace_path, redact(("\n=====\n").join(trace) + "\n", secrets))
    n = 0
    for dst, text, src in outputs:
        if src is None:
            n += 1
        else:
            with open(src, encoding="utf-8", errors="replace") as fh:
                text = fh.read()
        ak.write_text(dst, redact(text, secrets))
    return n


def main(argv=None):
    task = ak.parse(argv, AGENT, 0, 0)
    if not task.challenge:
        raise SystemExit("rd-agent adapter: --challenge (or REXMLE_CHALLENGE) is required")
    root = os.path.join(task.workspace, "rd-agent")
    ws_root = os.path.join(root, "git_ignore_folder", "RD-Agent_workspace")
    log_dir = os.path.join(root, "log")
    bridge = None
    if task.dry_run:
        url = "http://127.0.0.1:<port>"
    else:
        comp = os.path.join(root, "data", task.challenge)
        os.makedirs(comp, exist_ok=True)
        # RD-Agent reads {DS_LOCAL_DATA_PATH}/{competition}: link the public files there
        for name in os.listdir(task.data):
            link = os.path.join(comp, name)
            if name != "description.md" and not os.path.lexists(link):
                os.symlink(os.path.join(task.data, name), link)
        bridge = ak.open_bridge(task, "", [root])
        url = bridge.url
        validation_files(root, task, url)
        # RD-Agent takes the task from the competition's description.md: there
        # it gets the benchmark instructions and notes before the description.
        ak.write_text(os.path.join(comp, "description.md"), ak.instructions(task, bridge.hint()))

    def collect():
        got = ak.collect_submission(sota_workspaces(log_dir, ws_root) + newest_with_submission(ws_root), task.submission)
        n = convert_logs(log_dir, os.path.join(task.logs, "rd-agent"), os.path.join(task.logs, "rdagent-trace.txt"),
                         secrets=[ak.secret(task)])
        ak.log("converted %d pickled log record(s) to text", n)
        return got

    return ak.run(AGENT, task, plan(task, root, url), collect, bridge)


if __name__ == "__main__":
    sys.exit(main())
