"""A small GPU agent for rexmle's local executor: trains a CNN on LDCT-IQA's
public training images on the GPU for a fixed time, predicts the test
images' quality scores, asks the run's validation endpoint, and writes the
submission. It exercises the GPU path (devices in the sandbox, NVML
telemetry) without an LLM."""
import argparse, csv, json, os, subprocess, sys, time

import numpy as np
import torch
from PIL import Image


def load(folder, ids):
    xs = []
    for i in ids:
        p = os.path.join(folder, f"{i}.tif")
        a = np.asarray(Image.open(p if os.path.exists(p) else p + "f"), dtype=np.float32)
        xs.append((a - a.mean()) / (a.std() + 1e-6))
    return torch.tensor(np.stack(xs)[:, None])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--data", required=True)
    p.add_argument("--submission", required=True)
    p.add_argument("--logs", required=True)
    p.add_argument("--train-seconds", type=float, default=60)
    a = p.parse_args()
    log = open(os.path.join(a.logs, "gpu-agent.log"), "a")
    say = lambda *m: (print(*m, file=log, flush=True), print(*m, flush=True))
    dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    say("device", dev, torch.cuda.get_device_name(0) if dev.type == "cuda" else "")
    with open(os.path.join(a.data, "train_labels.csv")) as f:
        rows = list(csv.DictReader(f))
    ids = [r["image_id"] for r in rows]
    y = torch.tensor([float(r["quality_score"]) for r in rows])[:, None]
    x = load(os.path.join(a.data, "train", "images"), ids)
    with open(os.path.join(a.data, "sample_submission.csv")) as f:
        test_ids = [r["image_id"] for r in csv.DictReader(f)]
    xt = load(os.path.join(a.data, "test", "images"), test_ids)
    # Upsample the small synthetic images so the GPU has real work.
    up = lambda t: torch.nn.functional.interpolate(t, size=(256, 256), mode="bilinear")
    x, xt, y = up(x).to(dev), up(xt).to(dev), y.to(dev)
    net = torch.nn.Sequential(
        torch.nn.Conv2d(1, 64, 3, padding=1), torch.nn.ReLU(),
        torch.nn.Conv2d(64, 128, 3, padding=1, stride=2), torch.nn.ReLU(),
        torch.nn.Conv2d(128, 256, 3, padding=1, stride=2), torch.nn.ReLU(),
        torch.nn.Conv2d(256, 256, 3, padding=1), torch.nn.ReLU(),
        torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(256, 1),
    ).to(dev)
    opt = torch.optim.Adam(net.parameters(), 1e-3)
    t0, step = time.time(), 0
    while time.time() - t0 < a.train_seconds:
        idx = torch.randint(0, len(x), (64,), device=dev)
        xb = x[idx] + 0.05 * torch.randn_like(x[idx])
        loss = torch.nn.functional.mse_loss(net(xb), y[idx])
        opt.zero_grad(); loss.backward(); opt.step(); step += 1
        if step % 200 == 0:
            say(f"step {step} loss {loss.item():.4f} t={time.time()-t0:.0f}s")
    say(f"trained {step} steps in {time.time()-t0:.1f}s, final loss {loss.item():.4f}")
    with torch.no_grad():
        pred = net(xt).clamp(0, 4).squeeze(1).cpu().numpy()
    os.makedirs(a.submission, exist_ok=True)
    tmp = os.path.join(a.submission, ".submission.csv.tmp")
    with open(tmp, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["image_id", "quality_score"])
        for i, v in zip(test_ids, pred):
            w.writerow([i, f"{v:.5f}"])
    os.replace(tmp, os.path.join(a.submission, "submission.csv"))
    agent = "/run/rexmle/bin/rexmle-agent" if os.path.exists("/run/rexmle/bin/rexmle-agent") else "rexmle-agent"
    try:
        out = subprocess.run([agent, "validate", a.submission], capture_output=True, text=True, timeout=120)
        say("validation:", out.stdout.strip() or out.stderr.strip())
    except OSError as e:
        say("validation client not found:", e)


if __name__ == "__main__":
    main()
