# What the scripted LLM answers to AIDE's draft, improve and debug prompts:
# this file followed by one challenge's part, in one python code block, with
# @VARIANT@, @NOISE@, @MODE@ and @VALIDATE_URL@ filled in. MODE is "ok",
# "bug" (fails half-way, as a model's wrong column name would) or "long"
# (clears the submission, writes part of it, then trains far past the run's
# time limit: the run is stopped in this step).
import hashlib
import json
import os
import shutil
import sys
import time
import urllib.request
import uuid

import numpy as np

VARIANT, NOISE, MODE = "@VARIANT@", float("@NOISE@"), "@MODE@"
VALIDATE_URL = "@VALIDATE_URL@"
SUB, WORK = "submission", "working"
rng = np.random.default_rng(sum(map(ord, VARIANT)))
os.makedirs(WORK, exist_ok=True)


def fresh_submission():
    shutil.rmtree(SUB, ignore_errors=True)
    os.makedirs(SUB)


def validate():
    """Posts submission.csv as the benchmark's instructions say (multipart
    field "file") and prints the service's answer."""
    csv = open(os.path.join(SUB, "submission.csv"), "rb").read()
    b = uuid.uuid4().hex
    body = (b"--" + b.encode() + b'\r\nContent-Disposition: form-data; name="file"; filename="submission.csv"\r\n'
            b"Content-Type: text/csv\r\n\r\n" + csv + b"\r\n--" + b.encode() + b"--\r\n")
    req = urllib.request.Request(VALIDATE_URL, body, {"Content-Type": "multipart/form-data; boundary=" + b})
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    ans = json.loads(opener.open(req, timeout=300).read())
    print("VALIDATION:", "valid" if ans.get("is_valid") else "invalid", "-", ans.get("result"))
    with open(os.path.join(WORK, "validate_calls.jsonl"), "a") as f:
        f.write(json.dumps({"t": time.time(), "variant": VARIANT, "url": VALIDATE_URL,
                            "content_type": "multipart/form-data", "files": {"submission.csv": csv.decode()},
                            "answer": ans}) + "\n")
    return ans


def record_written():
    """Hashes of what this program put in the submission folder."""
    out = {}
    for d, _, fs in os.walk(SUB):
        for f in fs:
            p = os.path.join(d, f)
            out[os.path.relpath(p, SUB)] = hashlib.sha256(open(p, "rb").read()).hexdigest()
    with open(os.path.join(WORK, "written_%s.json" % VARIANT), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)


def train_for_ever():
    print("training a larger model ...", flush=True)
    while True:
        time.sleep(5)


def finish(score):
    print("Validation metric: %.6f" % score)
    validate()
    record_written()
