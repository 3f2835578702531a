# LDCT-IQA: ridge regression of the quality score on intensity statistics.
import pandas as pd
from PIL import Image
from sklearn.linear_model import Ridge
from scipy.stats import pearsonr, spearmanr, kendalltau


def feats(path):
    a = np.asarray(Image.open(path), dtype=np.float64)
    g = np.abs(np.diff(a, axis=0)).mean() + np.abs(np.diff(a, axis=1)).mean()
    return [a.mean(), a.std(), g, np.percentile(a, 90) - np.percentile(a, 10)]


labels = pd.read_csv("input/train_labels.csv", dtype={"image_id": str})
X = np.array([feats("input/train/images/%s.tif" % i) for i in labels.image_id])
y = labels.quality_score.to_numpy()
idx = rng.permutation(len(y))
val, tr = idx[: len(y) // 4], idx[len(y) // 4:]
model = Ridge(alpha=1.0).fit(X[tr], y[tr])
p = model.predict(X[val]) + NOISE * rng.standard_normal(len(val))
score = abs(pearsonr(p, y[val])[0]) + abs(spearmanr(p, y[val])[0]) + abs(kendalltau(p, y[val])[0])
model.fit(X, y)
test = pd.read_csv("input/sample_submission.csv", dtype={"image_id": str})
fresh_submission()
if MODE == "long":
    test.head(3).to_csv(os.path.join(SUB, "submission.csv"), index=False)
    train_for_ever()
pred = model.predict(np.array([feats("input/test/images/%s.tiff" % i) for i in test.image_id]))
test["quality_score"] = pred + NOISE * rng.standard_normal(len(pred))
if MODE == "bug":
    test[["image_id", "quality"]].to_csv(os.path.join(SUB, "submission.csv"), index=False)
test.to_csv(os.path.join(SUB, "submission.csv"), index=False)
finish(score)
