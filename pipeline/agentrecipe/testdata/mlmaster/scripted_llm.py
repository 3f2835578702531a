#!/usr/bin/env python3
"""A scripted OpenAI-compatible chat endpoint that answers ML-Master as a
model would, for recording ML-Master's real loop (see recorded_with in
../recordings/ml-master-*.json). Standard library only.

usage: scripted_llm.py LOG.jsonl [ADDRESS]   (prints the port it listens on;
ADDRESS defaults to 127.0.0.1. The recordings used the host's own
non-loopback address, as a remote endpoint would be: with a loopback
endpoint rexmle exempts only host:port pairs from the proxy, which Python's
requests ignores for IP hosts, so ML-Master's validation client would be
sent to the egress proxy.)

- A streamed request (ML-Master's code model, gpt_query -> stream_complete)
  gets a plan and one ```python block for the challenge named in the task
  (LDCT-IQA, ISLES'22 or DENTEX): drafts train a small model on ./input and
  write ./submission/submission.csv (+ prediction files); the second draft
  has a bug (a wrong column name) so that ML-Master debugs it; debug
  answers fix it; improvements train longer (minutes), so the time limit
  stops the run in the middle of one.
- A request with tools (the review, backend_openai.query with func_spec)
  gets a tool call to the named function whose metric is the one the
  program printed (VALIDATION_METRIC=...), or is_bug when it printed none.
- Any other request (the review without tools) gets the same review as
  JSON text.
Every request is appended to LOG.jsonl with what was answered.
"""
import http.server
import json
import re
import sys
import threading
import time

LOCK = threading.Lock()
COUNT = {"draft": 0, "improve": 0, "debug": 0, "review": 0}

LDCT = r'''
import os, numpy as np, pandas as pd
from PIL import Image
from sklearn.linear_model import Ridge

IN = "./input"
labels = pd.read_csv(os.path.join(IN, "train_labels.csv"), dtype={"image_id": str})

def feats(path):
    a = np.asarray(Image.open(path), dtype=np.float64)
    return [a.mean(), a.std(), np.abs(np.diff(a, axis=0)).mean(), np.abs(np.diff(a, axis=1)).mean()]

def find(folder, stem):
    for ext in (".tif", ".tiff"):
        p = os.path.join(folder, stem + ext)
        if os.path.exists(p):
            return p
    raise FileNotFoundError(stem)

X = np.array([feats(find(os.path.join(IN, "train", "images"), i)) for i in labels[LABEL_ID]])
y = labels["quality_score"].to_numpy(float)
EPOCHS_SLEEP
order = np.random.RandomState(0).permutation(len(y))
cut = int(0.8 * len(y))
tr, va = order[:cut], order[cut:]
model = Ridge(alpha=ALPHA).fit(X[tr], y[tr])
pred = model.predict(X[va])
plcc = float(np.corrcoef(pred, y[va])[0, 1]) if np.std(pred) > 0 else 0.0
print(f"VALIDATION_METRIC={plcc:.4f} (PLCC on a 20% hold-out, higher is better)")
model = Ridge(alpha=ALPHA).fit(X, y)
sample = pd.read_csv(os.path.join(IN, "sample_submission.csv"), dtype={"image_id": str})
test = np.array([feats(find(os.path.join(IN, "test", "images"), i)) for i in sample["image_id"]])
sample["quality_score"] = np.clip(model.predict(test), 0, 4)
os.makedirs("submission", exist_ok=True)
sample.to_csv("submission/submission.csv", index=False)
print("wrote submission/submission.csv", len(sample))
'''

ISLES = r'''
import os, glob, numpy as np, pandas as pd, nibabel as nib

IN = "./input"
cases = sorted({os.path.basename(p).split("_")[0] for p in glob.glob(os.path.join(IN, "train", "*_msk.nii.gz"))})
def dice(a, b):
    s = a.sum() + b.sum()
    return 1.0 if s == 0 else 2.0 * np.logical_and(a, b).sum() / s
vols = [(nib.load(os.path.join(IN, "train", c + "_dwi.nii.gz")).get_fdata(), nib.load(os.path.join(IN, "train", c + "_msk.nii.gz")).get_fdata() > 0.5) for c in cases]
EPOCHS_SLEEP
best = (-1.0, 99.0)
for q in QUANTILES:
    d = float(np.mean([dice(v > np.quantile(v, q), m) for v, m in vols]))
    best = max(best, (d, q))
print(f"VALIDATION_METRIC={best[0]:.4f} (mean Dice of a DWI quantile threshold on train, higher is better)")
sample = pd.read_csv(os.path.join(IN, "sample_submission.csv"))
os.makedirs("submission/predictions", exist_ok=True)
for cid, rel in zip(sample[CASE_COL], sample["predicted_mask_path"]):
    img = nib.load(os.path.join(IN, "test", cid + "_dwi.nii.gz"))
    v = img.get_fdata()
    mask = (v > np.quantile(v, best[1])).astype(np.uint8)
    nib.save(nib.Nifti1Image(mask, img.affine), os.path.join("submission", rel))
sample.to_csv("submission/submission.csv", index=False)
print("wrote submission/submission.csv and", len(sample), "masks")
'''

DENTEX = r'''
import os, json, numpy as np, pandas as pd
from collections import Counter

IN = "./input"
coco = json.load(open(os.path.join(IN, "train", "train_quadrant_enumeration_disease.json")))
size = {im["id"]: (im["width"], im["height"]) for im in coco["images"]}
rel = []
for a in coco["annotations"]:
    w, h = size[a["image_id"]]
    x, y, bw, bh = a["bbox"]
    rel.append((x / w, y / h, bw / w, bh / h))
rel = np.array(rel)
EPOCHS_SLEEP
k = min(TOPK, len(rel))
centers = rel[np.random.RandomState(0).choice(len(rel), k, replace=False)]
labels = {lvl: Counter(a[lvl] for a in coco["annotations"]).most_common(1)[0][0] for lvl in ("category_id_1", "category_id_2", "category_id_3")}
def iou(a, b):
    ax2, ay2, bx2, by2 = a[0] + a[2], a[1] + a[3], b[0] + b[2], b[1] + b[3]
    iw, ih = max(0, min(ax2, bx2) - max(a[0], b[0])), max(0, min(ay2, by2) - max(a[1], b[1]))
    inter = iw * ih
    return inter / (a[2] * a[3] + b[2] * b[3] - inter + 1e-9)
score = float(np.mean([max(iou(r, c) for c in centers) for r in rel]))
print(f"VALIDATION_METRIC={score:.4f} (mean best IoU of the prior boxes on train, higher is better)")
from PIL import Image
sample = pd.read_csv(os.path.join(IN, "sample_submission.csv"))
os.makedirs("submission/predictions", exist_ok=True)
for iid, relpath in zip(sample[IMAGE_COL], sample["predictions_json"]):
    w, h = Image.open(os.path.join(IN, "test", "images", iid + ".png")).size
    preds = [dict(image_id=iid, bbox=[float(c[0] * w), float(c[1] * h), float(c[2] * w), float(c[3] * h)], score=float(1 - i / (k + 1)), **labels) for i, c in enumerate(centers)]
    json.dump(preds, open(os.path.join("submission", relpath), "w"))
sample.to_csv("submission/submission.csv", index=False)
print("wrote submission/submission.csv and", len(sample), "prediction files")
'''

PROGRAMS = {
    "ldct-iqa": (LDCT, {"LABEL_ID": '"image_id"', "ALPHA": ["1.0", "0.1", "10.0", "0.01", "3.0"]},
                 "Ridge regression of the quality score on four image statistics (mean, spread, vertical and horizontal gradient)"),
    "isles22": (ISLES, {"CASE_COL": '"case_id"', "QUANTILES": ["(0.99, 0.995, 0.999)", "(0.98, 0.99)", "(0.995, 0.999)", "(0.97, 0.99, 0.999)", "(0.999,)"]},
                "a DWI intensity threshold (lesions are bright on DWI), chosen on the training masks by Dice"),
    "dentex": (DENTEX, {"IMAGE_COL": '"image_id"', "TOPK": ["8", "4", "16", "12", "6"]},
               "prior boxes sampled from the training annotations in relative coordinates, with the most frequent labels"),
}
BUG = {"ldct-iqa": ("LABEL_ID", '"id"'), "isles22": ("CASE_COL", '"case"'), "dentex": ("IMAGE_COL", '"image"')}


def challenge_of(text):
    t = text.lower()
    if "ldct" in t or "quality_score" in t:
        return "ldct-iqa"
    if "isles" in t or "predicted_mask_path" in t:
        return "isles22"
    if "dentex" in t or "predictions_json" in t:
        return "dentex"
    return "ldct-iqa"


def program(ch, kind, n):
    src, knobs, what = PROGRAMS[ch]
    values = {}
    for k, v in knobs.items():
        values[k] = v[n % len(v)] if isinstance(v, list) else v
    sleep = ""
    if kind == "draft" and n == 1:
        key, bad = BUG[ch]
        values[key] = bad
        plan = "Draft: %s." % what
    elif kind == "debug":
        plan = "Fix: the previous program used a column the CSV does not have; use the sample submission's own column name and keep the model: %s." % what
    elif kind == "improve":
        sleep = "import time\nfor epoch in range(12):\n    time.sleep(10)  # longer training: 12 epochs\n    print('epoch', epoch, flush=True)\n"
        plan = "Improve: train longer (12 epochs) and change the main setting of %s." % what
    else:
        plan = "Draft: %s." % what
    code = src.replace("EPOCHS_SLEEP", sleep)
    for k, v in values.items():
        code = code.replace(k, v)
    return plan + "\n\n```python\n" + code.strip() + "\n```\n"


def kind_of(text):
    # the introductions of ML-Master's _debug and _improve prompts
    if "Your previous solution had a bug" in text:
        return "debug"
    if "should improve it in order to further increase" in text:
        return "improve"
    return "draft"


def review(text):
    # the program's output is the last fenced block of the review prompt
    m = re.findall(r"VALIDATION_METRIC=([-0-9.eE]+)", text)
    buggy = "Traceback" in text or not m
    metric = None if buggy else float(m[-1])
    summary = ("The program failed before writing a submission: %s" % (re.findall(r"(\w+Error[^\n]*)", text) or ["no metric printed"])[-1]
               if buggy else "The program ran, printed a hold-out metric of %s and wrote the submission." % m[-1])
    return {"is_bug": buggy, "has_csv_submission": not buggy, "summary": summary, "metric": metric, "lower_is_better": False}


def text_of(body):
    out = []
    for m in body.get("messages") or []:
        c = m.get("content")
        if isinstance(c, list):
            c = " ".join(str(p.get("text", p)) if isinstance(p, dict) else str(p) for p in c)
        out.append(str(c))
    return "\n".join(out)


class H(http.server.BaseHTTPRequestHandler):
    log_path = None

    def log_message(self, *a):
        pass

    def _json(self, obj, code=200):
        b = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(b)))
        self.end_headers()
        self.wfile.write(b)

    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(n) or b"{}")
        if self.path.rstrip("/") != "/v1/chat/completions":
            self._json({"error": {"message": "not found"}}, 404)
            return
        text = text_of(body)
        ch = challenge_of(text)
        model = body.get("model", "gpt-5")
        usage = {"prompt_tokens": len(text) // 4, "completion_tokens": 100, "total_tokens": len(text) // 4 + 100}
        if body.get("tools"):
            with LOCK:
                COUNT["review"] += 1
            name = body["tools"][0]["function"]["name"]
            args = review(text)
            answer = {"tool": name, "arguments": args}
            self._json({"id": "r", "object": "chat.completion", "created": int(time.time()), "model": model, "usage": usage,
                        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "content": None,
                                     "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}]}}]})
        elif body.get("stream"):
            kind = kind_of(text)
            with LOCK:
                n = COUNT[kind]
                COUNT[kind] += 1
            content = program(ch, kind, n)
            answer = {"kind": kind, "n": n, "challenge": ch, "content": content}
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.end_headers()
            for i in range(0, len(content), 400):
                chunk = {"id": "s", "object": "chat.completion.chunk", "created": int(time.time()), "model": model,
                         "choices": [{"index": 0, "delta": {"role": "assistant", "content": content[i:i + 400]}, "finish_reason": None}]}
                self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
            done = {"id": "s", "object": "chat.completion.chunk", "created": int(time.time()), "model": model,
                    "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
            self.wfile.write(b"data: " + json.dumps(done).encode() + b"\n\ndata: [DONE]\n\n")
            self.wfile.flush()
        else:
            args = review(text)
            answer = {"text": args}
            self._json({"id": "t", "object": "chat.completion", "created": int(time.time()), "model": model, "usage": usage,
                        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": json.dumps(args)}}]})
        with LOCK:
            with open(H.log_path, "a") as f:
                f.write(json.dumps({"t": time.time(), "path": self.path, "auth": bool(self.headers.get("Authorization")),
                                    "request": body, "answer": answer}) + "\n")


def main():
    H.log_path = sys.argv[1]
    srv = http.server.ThreadingHTTPServer((sys.argv[2] if len(sys.argv) > 2 else "127.0.0.1", 0), H)
    print(srv.server_address[1], flush=True)
    srv.serve_forever()


if __name__ == "__main__":
    main()
