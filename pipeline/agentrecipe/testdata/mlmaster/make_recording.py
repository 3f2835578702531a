#!/usr/bin/env python3
"""Turns one recorded ML-Master run into rexmle's recording format
(rexmle-agent-recording/1). Standard library only.

usage: make_recording.py OUT_DIR RUN_DIR CHALLENGE GRADE_JSON > recording.json

OUT_DIR holds what the recording run wrote beside the run: llm.jsonl (the
scripted LLM's log), fs.jsonl (a walk of the run's submission folder and
ML-Master's best_submission/ and best_solution/ every 0.25 s: a line per
folder made, file written (with its content) or entry removed), start and
end (epoch seconds). File events from the adapter's collection on are left
out (the replay runs the adapter's collect itself). RUN_DIR is the run folder
(results/runs/<profile>/<challenge>/ml-master/seed-1): its
workspace/rexmle-http.jsonl (sitecustomize.py's log of ML-Master's
validation calls), logs/console.log and submission/. GRADE_JSON is
`mage gradeOne` on the collected submission.
"""
import base64
import hashlib
import json
import os
import re
import sys

CUT = 300


def cut(s):
    return s if not isinstance(s, str) or len(s) <= CUT else s[:CUT] + "…[%d chars]" % len(s)


def slim_request(body):
    b = dict(body)
    msgs = []
    for m in b.get("messages") or []:
        m = dict(m)
        c = m.get("content")
        if isinstance(c, str):
            m["content"] = cut(c)
        elif isinstance(c, list):
            m["content"] = [dict(p, text=cut(p.get("text", ""))) if isinstance(p, dict) else cut(str(p)) for p in c]
        msgs.append(m)
    b["messages"] = msgs
    return b


def rel_run(path, run_dir):
    p = os.path.relpath(path, run_dir)
    return None if p.startswith("..") else p


def main():
    out, run, ch, grade = sys.argv[1:5]
    t0 = float(open(os.path.join(out, "start")).read())
    events = []

    llm_url = None
    for l in open(os.path.join(out, "llm.jsonl")):
        r = json.loads(l)
        ans = r["answer"]
        if "content" in ans:
            resp = {"kind": ans["kind"], "content": cut(ans["content"])}
        elif "tool" in ans:
            resp = {"tool_call": ans["tool"], "arguments": ans["arguments"]}
        else:
            resp = {"text": ans["text"]}
        events.append({"t": r["t"], "kind": "llm", "method": "POST", "path": r["path"], "request": slim_request(r["request"]),
                       "authorization": r["auth"], "status": 200, "response": resp})

    http_log = os.path.join(run, "workspace", "rexmle-http.jsonl")
    if os.path.exists(http_log):
        for l in open(http_log):
            r = json.loads(l)
            url = r["url"]
            m = re.match(r"https?://([^/]+)(/.*)", url)
            host, path = m.group(1), m.group(2)
            ev = {"t": r["t"], "kind": "validate" if path.rstrip("/").endswith("/validate") else "health", "method": r["method"],
                  "path": path, "endpoint": "rexmle" if host.endswith(":5000") else "adapter-bridge", "url_host": host,
                  "status": r.get("status"), "response": r.get("response")}
            if "error" in r:
                ev["error"] = r["error"]
            if r.get("content_type"):
                ev["content_type"] = r["content_type"]
            if r.get("headers"):
                ev["headers"] = r["headers"]
            if r.get("files"):
                ev["request_files"] = {f["filename"] or f["field"]: f.get("text", f.get("sha256")) for f in r["files"]}
                ev["request_fields"] = {f["filename"] or f["field"]: f["field"] for f in r["files"]}
            events.append(ev)

    console = open(os.path.join(run, "logs", "console.log"), errors="replace").read()
    fs = [json.loads(l) for l in open(os.path.join(out, "fs.jsonl"))]
    # the adapter's collect() begins where the run's submission folder is
    # emptied or filled with its .rexmle-partial- copies
    t_collect = float(open(os.path.join(out, "end")).read())
    for r in fs:
        p = rel_run(r["path"], run) or ""
        if p.startswith("submission/") and (".rexmle-partial-" in p or
                                            ("DELETE" in r["events"] and re.match(r"submission/submission_\w+\.csv$", p))):
            t_collect = r["t"]
            break
    blobs = {}
    ops = [("ISDIR", "CREATE", "mkdir"), (None, "CLOSE_WRITE", "write"), (None, "DELETE", "remove")]
    for r in fs:
        p = rel_run(r["path"], run)
        if p is None or r["t"] >= t_collect:
            continue
        if not (p.startswith("submission/") or "/best_submission" in p or "/best_solution" in p):
            continue
        for need, ev, op in ops:
            if ev in r["events"] and (need is None or need in r["events"]) and not (op == "write" and "ISDIR" in r["events"]):
                e = {"t": r["t"], "kind": "fs", "op": op, "path": p}
                if "text" in r or "base64" in r:
                    b = r["text"].encode("utf-8") if "text" in r else base64.b64decode(r["base64"])
                    e["sha256"] = hashlib.sha256(b).hexdigest()
                    blobs[e["sha256"]] = base64.b64encode(b).decode()
                elif "sha256" in r:
                    e["sha256"] = r["sha256"]
                events.append(e)
                break

    starts = len(re.findall(r"Agent is generating code", console))
    finished = len(re.findall(r"In the search step from node", console)) + len(re.findall(r"Exception during step_task execution", console))
    stop = re.search(r"\[adapter\] time limit reached[^\n]*", console)
    info = json.load(open(os.path.join(run, "run.json")))
    events.append({"t": t_collect - 0.001, "kind": "stop", "how": "SIGTERM at the deadline: " + (stop.group(0) if stop else "no adapter deadline line"),
                   "run_status": info.get("status"), "mid_step": starts > finished, "steps_started": starts, "steps_finished": finished})

    events.sort(key=lambda e: e["t"])
    for i, e in enumerate(events, 1):
        e["t"] = round(e["t"] - t0, 3)
        e["seq"] = i
    events = [dict([("seq", e.pop("seq")), ("t", e.pop("t")), ("kind", e.pop("kind"))] + list(e.items())) for e in events]

    g = json.load(open(grade))
    files = []
    sub = os.path.join(run, "submission")
    for d, _, fs in os.walk(sub):
        for f in fs:
            files.append(os.path.relpath(os.path.join(d, f), sub))
    rec = {
        "schema": "rexmle-agent-recording/1",
        "agent": "ml-master",
        "agent_version": "ML-Master as vendored in rajpurkarlab/ReX-MLE @ 6492376569f115a7141530a2761389c6333efc0d (rex-mle/agents/ML-Master), unpatched",
        "challenge": ch,
        "recorded_with": "",
        "llm_base_url_host": "",
        "events": events,
        "collected": {"files": sorted(files), "valid": bool(g.get("valid")), "grade_error": g.get("error", "")},
        "blobs": blobs,
    }
    json.dump(rec, sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
