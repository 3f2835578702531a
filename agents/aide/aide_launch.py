#!/usr/bin/env python3
"""rexmle's launcher for AIDE (aideml 0.2.2): runs AIDE's own loop
(aide.run.run, the `aide` console script's entry point, with the same
key=value arguments) and keeps the submission folder of every node AIDE
marks best, so that the best node's whole submission (CSV and prediction
files) survives until the adapter collects it.

Why a hook and not a watcher: aideml 0.2.2 never clears or saves the
submission folder itself. Every program it runs writes into the same
`<workspace_dir>/submission/` (the harness's instructions) or
`working/submission.csv` (AIDE's own prompt), so at the deadline that folder
holds whatever the last program wrote, often the in-flight step's half-
written files, not the best node's. AIDE saves journal.json right after each
step (run.py: agent.step, then save_run) and the next step's program starts
writing seconds later, so an outside watcher of journal.json races it. Here
the copy is made after Agent.step returns, when the new node is in the
journal and no other program has run since it: AIDE's own
journal.get_best_node() decides which node is best.

Layout under $REXMLE_AIDE_BEST_DIR:
  node-<id>/submission/   the copy (each file copied, symlinks followed)
  node-<id>/node.json     node id, step, metric, what was copied from where
  BEST                    JSON naming the current node-<id> (atomic rename)
"""

import json
import os
import shutil
import sys
import time

BEST_ENV = "REXMLE_AIDE_BEST_DIR"


def _log(msg, *args):
    sys.stderr.write("[rexmle-aide] " + (msg % args if args else msg) + "\n")
    sys.stderr.flush()


def _write_json(path, obj):
    tmp = path + ".tmp-%d" % os.getpid()
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=1, sort_keys=True)
    os.replace(tmp, path)


def _source(workspace_dir):
    """Where the node's submission is: the submission folder when it holds
    a submission.csv, else working/submission.csv alone (the harness's
    start.sh fallback); ("", "") when neither exists."""
    sub = os.path.join(workspace_dir, "submission")
    if os.path.isfile(os.path.join(sub, "submission.csv")):
        return "folder", sub
    csv = os.path.join(workspace_dir, "working", "submission.csv")
    if os.path.isfile(csv):
        return "working-csv", csv
    return "", ""


def keep(best_root, workspace_dir, node, step, started):
    """Copies node's submission into best_root/node-<id>/ and points BEST at
    it. Returns the folder, or "" when the node left no submission (the
    previous best copy then stays)."""
    kind, src = _source(workspace_dir)
    if not kind:
        _log("node %s is AIDE's best but wrote no submission.csv; keeping the earlier copy", node.id)
        return ""
    name = "node-%s" % node.id
    final = os.path.join(best_root, name)
    tmp = final + ".partial"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    dst = os.path.join(tmp, "submission")
    if kind == "folder":
        shutil.copytree(src, dst, symlinks=False, ignore_dangling_symlinks=True)
    else:
        os.makedirs(dst)
        shutil.copyfile(src, os.path.join(dst, "submission.csv"))
    files = sorted(os.path.relpath(os.path.join(d, f), dst) for d, _, fs in os.walk(dst) for f in fs)
    csv_mtime = os.path.getmtime(os.path.join(dst if kind == "working-csv" else src, "submission.csv"))
    metric = getattr(node.metric, "value", None)
    meta = {"node_id": node.id, "step": step, "metric": metric,
            "maximize": getattr(node.metric, "maximize", None), "source": kind,
            "files": files, "written_this_step": bool(kind == "working-csv" or csv_mtime >= started)}
    _write_json(os.path.join(tmp, "node.json"), meta)
    shutil.rmtree(final, ignore_errors=True)
    os.replace(tmp, final)
    _write_json(os.path.join(best_root, "BEST"), {"dir": name, "node_id": node.id, "step": step, "metric": metric})
    for old in os.listdir(best_root):
        if old.startswith("node-") and old != name:
            shutil.rmtree(os.path.join(best_root, old), ignore_errors=True)
    _log("step %d: node %s is AIDE's best (metric %s): kept %d file(s) from %s", step, node.id, metric, len(files), src)
    return final


def install(best_root):
    from aide import agent as aide_agent

    original = aide_agent.Agent.step

    def step(self, exec_callback):
        started = time.time()
        before = len(self.journal.nodes)
        original(self, exec_callback)
        if len(self.journal.nodes) <= before:
            return
        node = self.journal.nodes[-1]
        best = self.journal.get_best_node()
        if best is not None and best is node:
            try:
                keep(best_root, str(self.cfg.workspace_dir), node, len(self.journal.nodes), started)
            except OSError as err:  # a failed copy must not stop AIDE
                _log("keeping node %s's submission failed: %s", node.id, err)

    aide_agent.Agent.step = step


def main():
    best_root = os.environ.get(BEST_ENV, "")
    if best_root:
        os.makedirs(best_root, exist_ok=True)
        install(best_root)
    else:
        _log("%s is not set: the best node's submission is not kept", BEST_ENV)
    from aide.run import run

    run()


if __name__ == "__main__":
    main()
