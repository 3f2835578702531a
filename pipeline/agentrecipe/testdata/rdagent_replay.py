#!/usr/bin/env python3
"""Runs agents/rd-agent/adapter.py's own parts for the R&D-Agent replay test.

check AGENTS WS ROOT DATA CHALLENGE SOCKET
    lays out R&D-Agent's eval folder with the adapter (validation_files, its
    bridge forwarding to rexmle's endpoint on SOCKET), then does what
    R&D-Agent's TestEval.valid does (rdagent/scenarios/data_science/
    test_eval.py:84-99): copies valid.py into the workspace WS as
    submission_format_valid.py, runs `python3 submission_format_valid.py
    CHALLENGE` there and returns its stdout and exit code, as JSON.
collect AGENTS ROOT SUB
    the adapter's collection: the SOTA records' workspaces, newest first, then
    the newest workspace with a submission.csv; prints the folder used.
"""
import json
import os
import shutil
import subprocess
import sys

agents = sys.argv[2]
sys.path[:0] = [os.path.join(agents, "rd-agent"), agents]
import adapter  # noqa: E402
import adaptkit as ak  # noqa: E402

if sys.argv[1] == "check":
    ws, root, data, challenge, socket = sys.argv[3:8]
    task = ak.parse(["--data", data, "--workspace", root, "--challenge", challenge, "--validate-socket", socket], "rd-agent")
    bridge = ak.open_bridge(task, "", [root])
    try:
        adapter.validation_files(root, task, bridge.url)
        shutil.copyfile(os.path.join(root, "data", "eval", challenge, "valid.py"), os.path.join(ws, "submission_format_valid.py"))
        p = subprocess.run([sys.executable, "submission_format_valid.py", challenge], cwd=ws, capture_output=True, text=True)
    finally:
        bridge.close()
    os.unlink(os.path.join(ws, "submission_format_valid.py"))
    print(json.dumps({"stdout": p.stdout, "exit_code": p.returncode}))
elif sys.argv[1] == "collect":
    root, sub = sys.argv[3:5]
    ws_root = os.path.join(root, "git_ignore_folder", "RD-Agent_workspace")
    got = ak.collect_submission(adapter.sota_workspaces(os.path.join(root, "log"), ws_root) + adapter.newest_with_submission(ws_root), sub)
    print(json.dumps({"folder": got}))
else:
    raise SystemExit("usage: rdagent_replay.py check|collect ...")
