# DENTEX: each training box's position, averaged per (quadrant, tooth,
# diagnosis) label, predicted on every test image.
import pandas as pd

coco = json.load(open("input/train/train_quadrant_enumeration_disease.json"))
anns = coco["annotations"]
ids = sorted({a["image_id"] for a in anns})
idx = rng.permutation(len(ids))
val = {ids[i] for i in idx[: max(1, len(ids) // 4)]}


def fit(train):
    boxes = {}
    for a in train:
        boxes.setdefault((a["category_id_1"], a["category_id_2"], a["category_id_3"]), []).append(a["bbox"])
    return {k: np.mean(v, axis=0) + NOISE * rng.standard_normal(4) for k, v in boxes.items()}


def iou(a, b):
    ax2, ay2, bx2, by2 = a[0] + a[2], a[1] + a[3], b[0] + b[2], b[1] + b[3]
    w = max(0.0, min(ax2, bx2) - max(a[0], b[0]))
    h = max(0.0, min(ay2, by2) - max(a[1], b[1]))
    u = a[2] * a[3] + b[2] * b[3] - w * h
    return 0.0 if u <= 0 else w * h / u


model = fit([a for a in anns if a["image_id"] not in val])
hits = [max([iou(a["bbox"], b) for b in model.values()] or [0.0]) for a in anns if a["image_id"] in val]
score = float(np.mean(hits)) if hits else 0.0
model = fit(anns)
sample = pd.read_csv("input/sample_submission.csv")
fresh_submission()
os.makedirs(os.path.join(SUB, "predictions"))
if MODE == "long":
    sample.to_csv(os.path.join(SUB, "submission.csv"), index=False)
    train_for_ever()
for image_id, rel in zip(sample.image_id, sample.predictions_json):
    preds = []
    for (q, t, d), box in model.items():
        x, y, w, h = (float(v) for v in box)
        preds.append({"image_id": image_id, "bbox": [round(x, 1), round(y, 1), round(max(w, 1.0), 1), round(max(h, 1.0), 1)],
                      "score": 0.5, "category_id_1": int(q), "category_id_2": int(t), "category_id_3": int(d)})
    if MODE == "bug":
        preds = preds[0]["boxes"]
    with open(os.path.join(SUB, rel), "w") as f:
        json.dump(preds, f)
sample.to_csv(os.path.join(SUB, "submission.csv"), index=False)
finish(score)
