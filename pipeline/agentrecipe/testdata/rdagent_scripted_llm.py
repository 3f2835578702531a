#!/usr/bin/env python3
"""A scripted OpenAI-compatible chat and embeddings server that answers R&D-Agent
v0.8.0's data_science prompts as a model would: the competition analysis, the
problems, hypotheses and their critique/rewrite/selection, the task sketch,
main.py in a python block (a small classical model per challenge that writes
scores.csv and the submission folder), the evaluators' JSON verdicts (reading
the submission check R&D-Agent ran) and the experiment feedback.

usage: rdagent_scripted_llm.py LOG.jsonl [PORT]  (prints the port; every request goes to LOG)
For rexmle's live R&D-Agent test (rdagent_live_test.go); standard library only.
"""
import json, re

def challenge(text):
    t = text.lower()
    if "isles" in t: return "isles22"
    if "dentex" in t: return "dentex"
    return "ldct-iqa"

METRIC = {"ldct-iqa": ("PLCC+SROCC+KROCC", True), "isles22": ("dice", True), "dentex": ("AP50", True)}

HEAD = '''import argparse, glob, json, os
import numpy as np
import pandas as pd

parser = argparse.ArgumentParser()
parser.add_argument("--debug", action="store_true")
args, _ = parser.parse_known_args()
IN = "./workspace_input/"
print("=== Start of EDA part ===")
print("input files:", sorted(os.listdir(IN))[:20])
print("=== End of EDA part ===")
'''

CODE = {
"ldct-iqa": HEAD + '''from PIL import Image
from scipy import stats

def stem_paths(folder):
    return {os.path.splitext(os.path.basename(p))[0]: p for p in glob.glob(os.path.join(IN, folder, "images", "*.tif*"))}

def feats(path):
    x = np.asarray(Image.open(path), dtype=np.float64)
    return [1.0, x.mean(), x.std(), np.abs(np.diff(x, axis=0)).mean(), np.abs(np.diff(x, axis=1)).mean()]

labels = pd.read_csv(IN + "train_labels.csv", dtype={"image_id": str})
train = stem_paths("train")
labels = labels[labels.image_id.isin(train)]
if args.debug:
    labels = labels.head(20)
X = np.array([feats(train[i]) for i in labels.image_id])
y = labels.quality_score.to_numpy(dtype=float)
n = len(y); k = max(2, n // 5)
w, *_ = np.linalg.lstsq(X[k:], y[k:], rcond=None)
pv = X[:k] @ w
score = abs(stats.pearsonr(pv, y[:k])[0]) + abs(stats.spearmanr(pv, y[:k])[0]) + abs(stats.kendalltau(pv, y[:k])[0])
print("hold-out PLCC+SROCC+KROCC:", score)
w, *_ = np.linalg.lstsq(X, y, rcond=None)
pd.DataFrame({"PLCC+SROCC+KROCC": [score, score]}, index=["linear", "ensemble"]).to_csv("scores.csv")
test = stem_paths("test")
ids = sorted(test)
pred = [float(np.dot(feats(test[i]), w)) for i in ids]
pd.DataFrame({"image_id": ids, "quality_score": pred}).to_csv("submission.csv", index=False)
print("wrote submission.csv with", len(ids), "rows")
''',
"isles22": HEAD + '''import nibabel as nib

def cases(folder):
    return sorted(os.path.basename(p)[:-len("_dwi.nii.gz")] for p in glob.glob(os.path.join(IN, folder, "*_dwi.nii.gz")))

def dice(a, b):
    s = a.sum() + b.sum()
    return 1.0 if s == 0 else 2.0 * np.logical_and(a, b).sum() / s

train = cases("train")
if args.debug:
    train = train[:2]
vols = [(np.asarray(nib.load(os.path.join(IN, "train", c + "_dwi.nii.gz")).dataobj, dtype=np.float32),
         np.asarray(nib.load(os.path.join(IN, "train", c + "_msk.nii.gz")).dataobj) > 0) for c in train]
best_q, best = 99.0, -1.0
for q in (90.0, 95.0, 98.0, 99.0, 99.5):
    d = float(np.mean([dice(v > np.percentile(v, q), m) for v, m in vols]))
    if d > best:
        best_q, best = q, d
print("best DWI percentile", best_q, "train dice", best)
pd.DataFrame({"dice": [best, best]}, index=["threshold", "ensemble"]).to_csv("scores.csv")
os.makedirs("predictions", exist_ok=True)
rows = []
for c in cases("test"):
    img = nib.load(os.path.join(IN, "test", c + "_dwi.nii.gz"))
    v = np.asarray(img.dataobj, dtype=np.float32)
    m = (v > np.percentile(v, best_q)).astype(np.uint8)
    out = os.path.join("predictions", c + "_pred.nii.gz")
    nib.save(nib.Nifti1Image(m, img.affine), out)
    rows.append({"case_id": c, "predicted_mask_path": out})
pd.DataFrame(rows).to_csv("submission.csv", index=False)
print("wrote submission.csv with", len(rows), "rows")
''',
"dentex": HEAD + '''from collections import Counter
from PIL import Image

ann = json.load(open(os.path.join(IN, "train", "train_quadrant_enumeration_disease.json")))
size = {im["id"]: (im["width"], im["height"]) for im in ann["images"]}
rel = {}
for a in ann["annotations"]:
    W, H = size[a["image_id"]]
    x, y, w, h = a["bbox"]
    key = (a["category_id_1"], a["category_id_2"], a["category_id_3"])
    rel.setdefault(key, []).append((x / W, y / H, w / W, h / H))
common = Counter({k: len(v) for k, v in rel.items()}).most_common(3 if not args.debug else 1)
proto = [(k, np.mean(rel[k], axis=0), c / max(1, len(ann["annotations"]))) for k, c in common]

def iou(a, b):
    ax2, ay2, bx2, by2 = a[0] + a[2], a[1] + a[3], b[0] + b[2], b[1] + b[3]
    iw, ih = max(0, min(ax2, bx2) - max(a[0], b[0])), max(0, min(ay2, by2) - max(a[1], b[1]))
    u = a[2] * a[3] + b[2] * b[3] - iw * ih
    return iw * ih / u if u > 0 else 0.0

hits = 0
for a in ann["annotations"]:
    W, H = size[a["image_id"]]
    hits += any(iou(a["bbox"], [p[0] * W, p[1] * H, p[2] * W, p[3] * H]) >= 0.5 for _, p, _ in proto)
ap50 = hits / max(1, len(ann["annotations"]))
print("train boxes matched at IoU 0.5:", ap50)
pd.DataFrame({"AP50": [ap50, ap50]}, index=["prototype", "ensemble"]).to_csv("scores.csv")
os.makedirs("predictions", exist_ok=True)
rows = []
for p in sorted(glob.glob(os.path.join(IN, "test", "images", "*.png"))):
    stem = os.path.splitext(os.path.basename(p))[0]
    W, H = Image.open(p).size
    preds = [{"image_id": stem, "bbox": [float(b[0] * W), float(b[1] * H), float(b[2] * W), float(b[3] * H)],
              "score": float(s), "category_id_1": int(k[0]), "category_id_2": int(k[1]), "category_id_3": int(k[2])}
             for k, b, s in proto]
    out = os.path.join("predictions", stem + ".json")
    json.dump(preds, open(out, "w"))
    rows.append({"image_id": stem, "predictions_json": out})
pd.DataFrame(rows).to_csv("submission.csv", index=False)
print("wrote submission.csv with", len(rows), "rows")
''',
}

PROBLEM = "No working baseline"

def answer(body):
    msgs = body.get("messages", [])
    sysm = " ".join(m.get("content", "") for m in msgs if m.get("role") == "system")
    user = " ".join(m.get("content", "") for m in msgs if m.get("role") == "user")
    ch = challenge(user + sysm)
    name, d = METRIC[ch]
    if "extracts structured information from unstructured text" in sysm:
        return json.dumps({"Task Type": {"ldct-iqa": "Regression", "isles22": "Segmentation", "dentex": "Object Detection"}[ch],
            "Data Type": "Image (Computer Vision)", "Brief Description": "ReX-MLE %s task" % ch,
            "Dataset Description": "train/ and test/ folders with images; train labels as described.",
            "Submission Specifications": "A submission folder with submission.csv shaped like sample_submission.csv and every prediction file it names.",
            "Submission channel number to each sample": 1, "Metric Evaluation Description": "See the description.",
            "Metric Name": name, "Metric Direction": d, "Longer time limit required": False}), "scenario_analysis"
    if "problem name 1 (name of the identified problem" in sysm:
        return json.dumps({PROBLEM: {"problem": "There is no end-to-end pipeline yet that writes a valid submission.",
                                     "reason": "Without a valid submission nothing can be scored."}}), "problems"
    if "hypothesis_select" in sysm or ('"hypothesis": "...",' in sysm and "component" in sysm and "Must be one of" in sysm):
        return json.dumps({"hypothesis": "A small classical model trained on simple image statistics gives a valid first submission.",
                           "component": "Workflow"}), "hypothesis_select"
    if '"critiques"' in sysm:
        return json.dumps({"critiques": {PROBLEM: {"critique": "Feasible and cheap; make sure the submission folder holds every prediction file."}}}), "critique"
    if "rewrite it to address critique" in sysm or "rewritten hypotheses" in sysm:
        return json.dumps({PROBLEM: {"reason": "A runnable baseline comes first.", "component": "Workflow",
                                     "hypothesis": "A small classical model trained on simple image statistics gives a valid first submission.",
                                     "evaluation": {"alignment_score": 9, "impact_score": 8, "novelty_score": 5, "feasibility_score": 10, "risk_reward_balance_score": 9}}}), "rewrite"
    if "propose a hypothesis strictly following" in sysm or "should propose a hypothesis" in sysm:
        return json.dumps({PROBLEM: {"reason": "A runnable baseline comes first.", "component": "Workflow",
                                     "hypothesis": "A small classical model trained on simple image statistics gives a valid first submission.",
                                     "evaluation": {"alignment_score": 9, "impact_score": 8, "novelty_score": 5, "feasibility_score": 10, "risk_reward_balance_score": 9}}}), "hypothesis"
    if "sketch or refinement plan" in sysm:
        return json.dumps({"description": "### Plan\\nLoad the training data from ./workspace_input/, fit a small model on simple image statistics, score it on a hold-out split into scores.csv (index includes ensemble), predict the test set and write submission.csv plus prediction files.",
                           "packages": ["numpy", "pandas", "scipy", "pillow", "nibabel"]}), "task_gen"
    if '"final_decision"' in sysm:
        ok = "Submission is valid" in user
        return json.dumps({"execution": "The code ran and wrote scores.csv and submission.csv." if ok else "The submission check did not pass.",
                           "return_checking": "The submission check says: " + ("Submission is valid." if ok else "not valid."),
                           "code": "[Code analysis] Simple, readable baseline.", "final_decision": ok}), "pipeline_eval"
    if '"acceptable"' in sysm:
        ok = "Submission is valid" in user
        out = {"execution": "The whole code base executed and wrote the submission." if ok else "The submission check failed.",
               "return_checking": "Submission check: " + ("valid" if ok else "invalid"), "code": "Readable.", "acceptable": ok}
        if "hyperparameter_tuning_decision" in sysm:
            out.update({"hyperparameter_tuning_suggestion": "", "hyperparameter_tuning_decision": False})
        return json.dumps(out), "runner_eval"
    if '"Replace Best Result"' in sysm:
        m = re.search(r"ensemble\s+([-0-9.]+)", user)
        score = m.group(1) if m else "the recorded value"
        return json.dumps({"Submission Format Check": "yes", "First Valid Submission": "yes",
                           "Code Change Summary": "Built the first end-to-end main.py: it reads the training data from the input folder, fits a small classical model on hand-made image statistics, scores a hold-out split into scores.csv and writes the submission folder with every prediction file.",
                           "Observations": "The ensemble validation %s is %s on the hold-out split; the submission check of the validation service says the submission is valid, and the run takes seconds, far below the time limit." % (name, score),
                           "Feedback for Hypothesis": "Confirmed: a simple model on image statistics gives a runnable pipeline and a valid submission, which is the baseline later hypotheses must beat.",
                           "Evaluation Aligned With Task": "yes", "Replace Best Result": "yes", "Acceptable": "yes",
                           "Reasoning": "[Experiment Analysis] The experiment produced the first valid submission with a hold-out %s of %s, so it becomes the SOTA; stronger features or a learned model are the next step." % (name, score),
                           "EDA Improvement": "no"}), "exp_feedback"
    if "```python" in sysm or "main.py" in sysm and ("code" in sysm.lower()):
        return "Here is the implementation.\n```python\n" + CODE[ch] + "\n```\n", "coder"
    return "{}", "unknown"

# --- the OpenAI-compatible server ----------------------------------------------

import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

_lock = threading.Lock()


def serve(log_path, port=0):
    class H(BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def do_POST(self):
            n = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(n) or b"{}")
            path = self.path.split("?")[0]
            if path.endswith("/embeddings"):
                inp = body.get("input", [])
                inp = [inp] if isinstance(inp, str) else inp
                content, kind = None, "embedding"
                out = {"object": "list", "model": body.get("model"),
                       "data": [{"object": "embedding", "index": i, "embedding": [((len(s) * (k + 1)) % 97) / 97.0 for k in range(8)]}
                                for i, s in enumerate(inp)]}
            elif path.endswith("/chat/completions"):
                content, kind = answer(body)
                out = {"id": "scripted", "object": "chat.completion", "created": int(time.time()), "model": body.get("model"),
                       "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
                       "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}
            else:
                self.send_error(404)
                return
            with _lock:
                with open(log_path, "a") as f:
                    f.write(json.dumps({"t": time.time(), "path": self.path, "kind": kind, "auth": bool(self.headers.get("api-key") or self.headers.get("Authorization")),
                                        "request": body}) + "\n")
            if body.get("stream") and content is not None:
                chunks = [content[i:i + 400] for i in range(0, len(content), 400)] or [""]
                parts = [{"id": "scripted", "object": "chat.completion.chunk", "created": int(time.time()), "model": body.get("model"),
                          "choices": [{"index": 0, "delta": {"role": "assistant", "content": c} if i == 0 else {"content": c},
                                       "finish_reason": "stop" if i == len(chunks) - 1 else None}]} for i, c in enumerate(chunks)]
                b = "".join("data: %s\n\n" % json.dumps(p) for p in parts).encode() + b"data: [DONE]\n\n"
                ctype = "text/event-stream"
            else:
                b, ctype = json.dumps(out).encode(), "application/json"
            self.send_response(200)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(b)))
            self.end_headers()
            self.wfile.write(b)

    srv = ThreadingHTTPServer(("127.0.0.1", port), H)
    print(srv.server_address[1], flush=True)
    srv.serve_forever()


if __name__ == "__main__":
    serve(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 0)
