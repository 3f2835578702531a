package imagetest

// WebpScript writes WebP pictures with Pillow (lossy at several qualities,
// lossless, with and without alpha, odd and even sizes, under .png names)
// and prints numpy.array(Image.open(f)) of each.
const WebpScript = `
import json, sys, os, numpy as np, PIL
from PIL import Image, features
if not features.check('webp'):
    print(json.dumps({'version': PIL.__version__, 'files': None})); sys.exit()
out, rs, res = sys.argv[1], np.random.RandomState(35), []
for i in range(24):
    w, h = int(rs.randint(1, 40)), int(rs.randint(1, 30))
    yy, xx = np.mgrid[0:h, 0:w]
    base = (80 + 60 * np.sin(xx / 4.0) * np.cos(yy / 5.0) + rs.randint(0, 50, (h, w))).clip(0, 255)
    rgb = np.stack([base, (base * 0.7 + xx * 3) % 256, (255 - base + yy * 5) % 256], -1).astype('uint8')
    alpha = i % 3 == 2
    im = Image.fromarray(np.dstack([rgb, rs.randint(0, 256, (h, w)).astype('uint8')]), 'RGBA') if alpha else Image.fromarray(rgb, 'RGB')
    if i % 4 == 3:
        im = im.convert('L').convert('RGB')
    lossless = i % 5 == 4
    p = os.path.join(out, 'w%02d.png' % i)
    im.save(p, 'WEBP', lossless=lossless, quality=int(rs.choice([10, 50, 80, 100])))
    r = Image.open(p)
    a = np.array(r)
    res.append({'path': p, 'mode': r.mode, 'shape': list(a.shape), 'values': a.astype(float).ravel().tolist(), 'l': np.array(r.convert('L')).astype(float).ravel().tolist()})
print(json.dumps({'version': PIL.__version__, 'files': res}))
`
