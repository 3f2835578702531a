#!/usr/bin/env python3
"""A scripted stand-in for a paper agent (standard library only).

It behaves like a real agent as far as rexmle can see: it reads its task file,
asks an OpenAI-compatible chat endpoint once (OPENAI_BASE_URL, OPENAI_API_KEY),
checks its submission with the validation service it was told about, and
leaves a submission folder (the sample submission and every file it names)
and a journal in its own output folder, for the adapter to copy out. With
--hold SECONDS it then waits, so that tests can stop it mid-run.
"""

import argparse
import csv
import json
import os
import shutil
import sys
import time
import urllib.error
import urllib.request


def chat(base, key, model, prompt, timeout=60):
    req = urllib.request.Request(
        base.rstrip("/") + "/chat/completions",
        json.dumps({"model": model, "messages": [
            {"role": "system", "content": "You are a machine learning engineer."},
            {"role": "user", "content": prompt}]}).encode(),
        {"Content-Type": "application/json", "Authorization": "Bearer " + key})
    with urllib.request.urlopen(req, timeout=timeout) as resp:
        data = json.loads(resp.read())
    return data["choices"][0]["message"]["content"]


def copy_sample(public, out):
    """The sample submission and every file a cell of it names."""
    os.makedirs(out, exist_ok=True)
    src = os.path.join(public, "sample_submission.csv")
    shutil.copyfile(src, os.path.join(out, "submission.csv"))
    n = 0
    with open(src, newline="") as f:
        for row in csv.reader(f):
            for cell in row:
                cell = cell.strip()
                if not cell or os.path.isabs(cell) or ".." in cell.split("/"):
                    continue
                p = os.path.join(public, cell)
                if os.path.isfile(p):
                    dst = os.path.join(out, cell)
                    os.makedirs(os.path.dirname(dst), exist_ok=True)
                    shutil.copyfile(p, dst)
                    n += 1
    return n


def validate(url, folder):
    if not url:
        return "no validation service"
    req = urllib.request.Request(url.rstrip("/") + "/validate", json.dumps({"dir": folder}).encode(),
                                 {"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=300) as resp:
            return json.loads(resp.read()).get("result", "")
    except (urllib.error.URLError, OSError, ValueError) as err:
        return "validation failed: %s" % err


def main():
    p = argparse.ArgumentParser(prog="standin-agent")
    p.add_argument("--data", required=True)
    p.add_argument("--desc-file", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--model", required=True)
    p.add_argument("--steps", type=int, default=1)
    p.add_argument("--hold", type=float, default=0)
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    journal = open(os.path.join(a.out, "journal.jsonl"), "a")

    def emit(kind, text):
        journal.write(json.dumps({"time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "kind": kind, "text": text}) + "\n")
        journal.flush()

    with open(a.desc_file, encoding="utf-8") as f:
        task = f.read()
    emit("task", "read %d characters of instructions" % len(task))
    base = os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1")
    try:
        answer = chat(base, os.environ.get("OPENAI_API_KEY", ""), a.model, "Plan a solution for this task:\n\n" + task[:20000])
    except (urllib.error.URLError, OSError, KeyError, ValueError) as err:
        emit("error", "chat endpoint: %s" % err)
        print("standin-agent: chat endpoint: %s" % err, file=sys.stderr)
        return 3
    emit("plan", answer)
    n = copy_sample(a.data, os.path.join(a.out, "submission"))
    emit("code", "copied the sample submission and %d prediction file(s)" % n)
    emit("validate", validate(os.environ.get("REXMLE_VALIDATE_HTTP", ""), os.path.join(a.out, "submission")))
    if a.hold > 0:
        emit("wait", "holding for %.0f s" % a.hold)
        time.sleep(a.hold)
    emit("done", "finished")
    return 0


if __name__ == "__main__":
    sys.exit(main())
