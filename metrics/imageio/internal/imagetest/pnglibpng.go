package imagetest

// LibpngScript prints, per file, cv2.imread(f, IMREAD_GRAYSCALE) (null
// when OpenCV cannot read it) and whether Pillow opens it.
const LibpngScript = `
import json, sys, numpy as np, cv2
from PIL import Image
out = []
for p in sys.argv[1:]:
    try:
        im = Image.open(p); np.array(im.convert('L') if im.mode != 'L' else im); pil = True
    except Exception:
        pil = False
    c = cv2.imread(p, cv2.IMREAD_GRAYSCALE)
    out.append({'path': p, 'pillow': pil, 'cv2': None if c is None else c.astype(int).ravel().tolist()})
print(json.dumps(out))
`
