#!/usr/bin/env python3
"""rexmle adapter for the stand-in agent: the same contract and the same
machinery (task file, endpoint mapping, validation bridge, deadline, SIGTERM,
copy-out) as the real recipes, driving standin_agent.py."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# adaptkit.py sits beside this file in the image (/opt/rexmle) and one
# folder up in the checkout (agents/adaptkit.py, shared by every recipe).
sys.path[:0] = [HERE, os.path.dirname(HERE)]
import adaptkit as ak  # noqa: E402

AGENT = "standin"


def plan(task, desc_file, out, bridge_url):
    key = ak.secret(task)
    url = ak.base_url(task)
    if task.endpoint == "azure" and url:
        url = ak.azure_v1_url(url)
    env = {"OPENAI_API_KEY": key, "REXMLE_VALIDATE_HTTP": bridge_url}
    if url:
        env["OPENAI_BASE_URL"] = url
    argv = [sys.executable or "python3", os.path.join(HERE, "standin_agent.py"), "--data", task.data,
            "--desc-file", desc_file, "--out", out, "--model", task.model or "standin-model", "--steps", str(task.steps)]
    hold = os.environ.get("REXMLE_STANDIN_HOLD", "")
    if hold:
        argv += ["--hold", hold]
    return ak.Plan(argv, env, out, {"OPENAI_API_KEY"}, notes={"endpoint": task.endpoint, "backend": task.backend})


def main(argv=None):
    task = ak.parse(argv, AGENT, 1, 0)
    root = os.path.join(task.workspace, "standin")
    out = os.path.join(root, "out")
    desc_file = os.path.join(root, "full_instructions.md")
    bridge = None
    if task.dry_run:
        url = "http://127.0.0.1:<port>"
    else:
        os.makedirs(out, exist_ok=True)
        bridge = ak.open_bridge(task, os.path.join(out, "submission"), [root])
        url = bridge.url
        ak.write_text(desc_file, ak.instructions(task, bridge.hint(), hardware=task.hardware or None))

    def collect():
        got = ak.collect_submission([os.path.join(out, "submission")], task.submission)
        os.makedirs(os.path.join(task.logs, "standin"), exist_ok=True)
        for name in ("journal.jsonl",):
            p = os.path.join(out, name)
            if os.path.isfile(p):
                ak.shutil.copyfile(p, os.path.join(task.logs, "standin", name))
        return got

    return ak.run(AGENT, task, plan(task, desc_file, out, url), collect, bridge)


if __name__ == "__main__":
    sys.exit(main())
