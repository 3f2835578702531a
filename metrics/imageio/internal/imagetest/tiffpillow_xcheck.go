package imagetest

// TifffileLayoutsScript writes small TIFFs of every dtype × byte order ×
// compression × channel layout × photometric × planar configuration with
// tifffile and prints numpy.array(Image.open(f)) of each (or Pillow's
// error).
const TifffileLayoutsScript = `
import json, sys, os, warnings
warnings.filterwarnings('ignore')
import numpy as np, tifffile, PIL
from PIL import Image
out = sys.argv[1]
rs = np.random.RandomState(7)
h, w = 5, 7
res = []
def add(name, arr, **kw):
    p = os.path.join(out, name)
    try:
        tifffile.imwrite(p, arr, **kw)
    except Exception as e:
        return
    try:
        im = Image.open(p); a = np.array(im)
        r = {'path': p, 'mode': im.mode, 'shape': list(a.shape), 'values': a.astype(float).flatten().tolist()}
    except Exception as e:
        r = {'path': p, 'error': type(e).__name__ + ': ' + str(e)}
    res.append(r)
dts = ['uint8', 'int8', 'uint16', 'int16', 'uint32', 'int32', 'int64', 'uint64', 'float32', 'float64', 'float16']
for dt in dts:
    info = np.iinfo(dt) if np.dtype(dt).kind in 'iu' else None
    def sample(shape):
        if info is None:
            return (rs.rand(*shape) * 1000 - 300).astype(dt)
        lo, hi = max(info.min, -2**40), min(info.max, 2**40)
        return rs.randint(lo, hi, size=shape, dtype='int64' if dt != 'uint64' else 'uint64').astype(dt)
    for bo in '<>':
        for comp in [None, 'zlib']:
            for ch, extra in [(1, None), (2, ['unassalpha']), (2, None), (3, None), (4, ['unassalpha']), (4, ['assocalpha']), (4, ['unspecified'])]:
                phots = ['minisblack', 'miniswhite'] if ch <= 2 else ['rgb']
                for ph in phots:
                    for pc in (['contig', 'separate'] if ch > 1 else ['contig']):
                        shape = (h, w, ch) if ch > 1 and pc == 'contig' else ((ch, h, w) if ch > 1 else (h, w))
                        a = sample(shape)
                        kw = dict(byteorder=bo, compression=comp, photometric=ph)
                        if ch > 1: kw['planarconfig'] = pc
                        if extra: kw['extrasamples'] = extra
                        add(f'{dt}_{"le" if bo=="<" else "be"}_{comp}_{ch}{"".join(e[:3] for e in extra or [])}_{ph}_{pc}.tif', a, **kw)
for bo in '<>':
    for ph in ['minisblack', 'miniswhite']:
        for comp in [None, 'zlib', 'packbits']:
            add(f'bool_{bo=="<"}_{ph}_{comp}.tif', rs.rand(h, 13) > 0.5, byteorder=bo, photometric=ph, compression=comp)
print(json.dumps({'version': PIL.__version__, 'cases': res}))
`
