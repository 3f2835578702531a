#!/usr/bin/env python3
"""Time the paper's reference grader (rajpurkarlab/ReX-MLE) on one folder pair.

bench/graders.sh runs each Go grade benchmark with REXMLE_BENCH_KEEP so that
its generated answers and submission stay on disk, then runs this script on
exactly those folders. The timed part is what our benchmark times: read the
submission CSV and the answers CSV, then grade (the reference's public grade
function of the challenge, called the way its Grader does). Python start-up
and the imports of the reference's grade module are measured separately and
reported, not timed. The grade runs --repeat times in this process; the
first run includes any just-in-time compilation (the NeurIPS-CellSeg grader
uses numba), so the first time and the minimum are both reported, with the
CPU seconds of each run (on a loaded machine the wall time of a one-thread
grader is inflated more than its CPU time).

The reference checkout comes from --reference or REXMLE_REFERENCE: either
the repository root or its rex-mle/ folder (the one holding the rexmle
package). Nothing of it is copied; it is imported from there.

Output: one JSON object on stdout (challenge, times, values of the last run,
or "error" with the reason it cannot be timed, e.g. a missing module). The
reference's own prints go to stderr.

Usage:
  reference_time.py --challenge usenhance --private DIR --submission DIR \
      [--reference PATH] [--repeat 3] [--cores 2] [--ours ours.json]
"""

import argparse
import contextlib
import importlib
import inspect
import json
import math
import os
import shutil
import sys
import time

T_START = time.perf_counter()

# Our benchmark name -> the reference's challenge id and the third-party
# modules its grader needs at grade time (beyond numpy/pandas). A grader
# whose module imports but silently degrades without one of them (dentex's
# pycocotools, the MHA/NRRD readers behind load_medical_image) is caught here
# instead of timing a grader that does not grade.
CHALLENGES = {
    "usenhance": ("usenhance", ["skimage", "cv2", "PIL"]),
    "usenhance-fan": ("usenhance", ["skimage", "cv2", "PIL"]),
    "usenhance-noisy": ("usenhance", ["skimage", "cv2", "PIL"]),
    "usenhance-16bit": ("usenhance", ["skimage", "cv2", "PIL"]),
    "usenhance-rgb": ("usenhance", ["skimage", "cv2", "PIL"]),
    "dentex": ("dentex", ["pycocotools"]),
    "puma-tissue": ("puma-track1-task1", ["PIL"]),
    "puma-nuclei": ("puma-track2-task2", []),
    "cellseg": ("neurips-cellseg", ["numba", "skimage", "tifffile", "PIL"]),
    "isles22": ("isles22", ["cc3d", "nibabel"]),
    "isles22-case": ("isles22", ["cc3d", "nibabel"]),
    "panther": ("panther-task1", ["surface_distance"]),
    "sega": ("seg_a", ["monai", "joblib"]),
    "topcow": ("topcow-track1-task1", ["SimpleITK", "monai", "skimage", "sklearn"]),
    "topbrain": ("topbrain-track1", ["SimpleITK", "monai", "skimage"]),
    "ldctiqa": ("ldct-iqa", ["scipy"]),
}


# Challenges whose reference reads MetaImage or NRRD files through
# SimpleITK (load_medical_image) and uses it for nothing else: where
# SimpleITK is not installed (it has no Debian package and is compiled
# C++), a stand-in module of this script's own reads the files the
# benchmarks write (MetaImage with local, zlib-compressed or raw data;
# NRRD with raw or gzip encoding) with numpy and zlib, and the rest of the
# reference grader runs as published. The result says so ("basis").
SITK_READ_ONLY = {"panther", "sega"}
# TopCoW and TopBrain also use SimpleITK's label-overlap filter, casts and
# padding: the stand-in does those in numpy (as costly per voxel as ITK's
# single-threaded filter); their skeletons, components and MONAI distances
# run as published.
SITK_LABEL_OPS = {"topcow", "topbrain"}


# The stand-in's source: written to a temporary folder put first on
# PYTHONPATH, so that the worker processes a reference starts (SEG.A's
# joblib) import it too.
SITK_STANDIN = r'''"""rexmle bench stand-in for SimpleITK's file reads (bench/reference_time.py)."""
import gzip
import zlib
import numpy as np

_DTYPES = {"MET_UCHAR": np.uint8, "MET_CHAR": np.int8, "MET_USHORT": np.uint16, "MET_SHORT": np.int16,
           "MET_UINT": np.uint32, "MET_INT": np.int32, "MET_FLOAT": np.float32, "MET_DOUBLE": np.float64,
           "uint8": np.uint8, "int8": np.int8, "uint16": np.uint16, "int16": np.int16, "uint32": np.uint32,
           "int32": np.int32, "float": np.float32, "double": np.float64, "unsigned char": np.uint8}
rexmle_bench_standin = True


class Image:
    def __init__(self, arr, spacing, origin, direction):
        self.arr, self.spacing, self.origin, self.direction = arr, spacing, origin, direction

    def GetSpacing(self):
        return self.spacing

    def GetOrigin(self):
        return self.origin

    def GetDirection(self):
        return self.direction


def _read_mha(b):
    head, i = {}, 0
    while True:
        j = b.index(b"\n", i)
        k, _, v = b[i:j].decode().partition("=")
        head[k.strip()] = v.strip()
        i = j + 1
        if k.strip() == "ElementDataFile":
            break
    if head["ElementDataFile"] != "LOCAL":
        raise RuntimeError("stand-in reads local MetaImage data only")
    data = b[i:]
    if head.get("CompressedData", "False") == "True":
        data = zlib.decompress(data)
    dims = [int(x) for x in head["DimSize"].split()]
    arr = np.frombuffer(data, dtype=_DTYPES[head["ElementType"]]).reshape(dims[::-1])
    sp = tuple(float(x) for x in head.get("ElementSpacing", "1 1 1").split())
    org = tuple(float(x) for x in head.get("Offset", "0 0 0").split())
    tm = tuple(float(x) for x in head.get("TransformMatrix", "1 0 0 0 1 0 0 0 1").split())
    return Image(arr, sp, org, tm)


def _read_nrrd(b):
    i = b.index(b"\n\n")
    head = {}
    for line in b[:i].decode().splitlines()[1:]:
        if line.startswith("#") or ":" not in line:
            continue
        k, _, v = line.partition(":")
        head[k.strip()] = v.lstrip("=").strip()
    data = b[i + 2:]
    if head.get("encoding") in ("gzip", "gz"):
        data = gzip.decompress(data)
    dims = [int(x) for x in head["sizes"].split()]
    arr = np.frombuffer(data, dtype=_DTYPES[head["type"]]).reshape(dims[::-1])
    sp = (1.0,) * len(dims)
    if "space directions" in head:
        vecs = [tuple(float(x) for x in v.strip("()").split(",")) for v in head["space directions"].split()]
        sp = tuple(float(np.sqrt(sum(c * c for c in v))) for v in vecs)
    org = tuple(float(x) for x in head.get("space origin", "(0,0,0)").strip("()").split(","))
    return Image(arr, sp, org, (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0))


def _read_nifti(path):
    import nibabel as nib
    img = nib.load(path)
    arr = np.asanyarray(img.dataobj)
    arr = np.ascontiguousarray(arr.transpose(tuple(range(arr.ndim))[::-1]))  # ITK's array order: z, y, x
    sp = tuple(float(z) for z in img.header.get_zooms()[:arr.ndim])
    return Image(arr, sp, (0.0,) * arr.ndim, (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0))


def ReadImage(path):
    path = str(path)
    if path.lower().endswith((".nii", ".nii.gz")):
        return _read_nifti(path)
    with open(path, "rb") as f:
        b = f.read()
    return _read_nrrd(b) if b.startswith(b"NRRD") else _read_mha(b)


def GetArrayFromImage(im):
    return im.arr.copy()


# The label-map operations TopCoW's and TopBrain's graders make, in numpy.
sitkUInt8 = np.uint8
sitkNearestNeighbor = "nearest"


def _eq(self, other):
    return Image((self.arr == other).astype(np.uint8), self.spacing, self.origin, self.direction)


Image.__eq__ = _eq
Image.GetSize = lambda self: tuple(self.arr.shape[::-1])
Image.GetDimension = lambda self: self.arr.ndim


def _copy_information(self, other):
    self.spacing, self.origin, self.direction = other.spacing, other.origin, other.direction


Image.CopyInformation = _copy_information


def GetSize(im):
    return im.GetSize()


def GetSpacing(im):
    return im.GetSpacing()


def CopyInformation(dst, src):
    dst.CopyInformation(src)


def ConstantPad(im, lo, hi, value=0):
    pad = [(int(a), int(b)) for a, b in zip(lo[::-1], hi[::-1])]
    return Image(np.pad(im.arr, pad, constant_values=value), im.spacing, im.origin, im.direction)


class CastImageFilter:
    def SetNumberOfThreads(self, n):
        pass

    def SetOutputPixelType(self, t):
        self.t = t

    def Execute(self, im):
        return Image(im.arr.astype(self.t), im.spacing, im.origin, im.direction)


class LabelOverlapMeasuresImageFilter:
    def SetNumberOfThreads(self, n):
        pass

    def Execute(self, a, b):
        self.a, self.b = a.arr, b.arr

    def _counts(self, label):
        sa, sb = self.a == label, self.b == label
        return float(np.count_nonzero(sa & sb)), float(np.count_nonzero(sa)), float(np.count_nonzero(sb))

    def GetJaccardCoefficient(self, label):
        i, na, nb = self._counts(label)
        return i / (na + nb - i) if na + nb - i else 0.0

    def GetDiceCoefficient(self, label):
        i, na, nb = self._counts(label)
        return 2 * i / (na + nb) if na + nb else 0.0


class ResampleImageFilter:
    def __init__(self):
        raise NotImplementedError("the stand-in does not resample (the benchmarks' predictions have the answers' size)")
'''


STANDIN_DIRS = []
PINS = {}  # the reference's version pins (reference_pins), filled in main

# References whose memory grows with the answers: bytes per answer row, as
# measured here. PUMA track 1's grader keeps every class mask of every ROI as
# int64 and concatenates them (5 classes x truth and prediction x 8 bytes,
# twice): 4.1 GB peak for 25 ROIs of 1024x1024, so 16.6 GB for 100.
MEMORY_PER_ROW = {"puma-tissue": 165e6}


def memory_available():
    """MemAvailable of /proc/meminfo in bytes, or None where unknown."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def memory_shortfall(challenge, answers_csv):
    """Why the reference would not fit in memory now (None when it fits or is not known to grow)."""
    per = MEMORY_PER_ROW.get(challenge)
    avail = memory_available()
    if not per or avail is None:
        return None
    try:
        with open(answers_csv) as f:
            rows = max(sum(1 for _ in f) - 1, 0)
    except OSError:
        return None
    need = rows * per
    if need * 1.1 <= avail:
        return None
    return (f"cannot time: the reference would need ~{need / 1e9:.1f} GB for {rows} answer rows "
            f"({per / 1e6:.0f} MB each, measured) and {avail / 1e9:.1f} GB is available; "
            f"run it on fewer rows or a larger machine")


def tree_cpu():
    """CPU seconds of this process and of its live and reaped child
    processes (SEG.A's joblib workers do its grading and outlive each
    grade): with psutil, else this process's and its reaped children's."""
    try:
        import psutil
        me = psutil.Process()
        total = sum(me.cpu_times()[:4])  # user, system, children_user, children_system
        for ch in me.children(recursive=True):
            try:
                t = ch.cpu_times()
                total += t.user + t.system
            except psutil.Error:
                pass
        return total
    except ImportError:
        t = os.times()
        return t.user + t.system + t.children_user + t.children_system


def install_sitk_standin():
    """Put the stand-in SimpleITK first on the module path, here and in
    every process this one starts; the folder is removed at exit."""
    import tempfile
    d = tempfile.mkdtemp(prefix="rexmle-sitk-standin-")
    STANDIN_DIRS.append(d)
    with open(os.path.join(d, "SimpleITK.py"), "w") as f:
        f.write(SITK_STANDIN)
    sys.path.insert(0, d)
    os.environ["PYTHONPATH"] = d + (os.pathsep + os.environ["PYTHONPATH"] if os.environ.get("PYTHONPATH") else "")


def limit_cores(n):
    """Pin this process (and the threads numpy/numba start) to n cores."""
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
        os.environ[var] = str(n)
    try:
        avail = sorted(os.sched_getaffinity(0))
        os.sched_setaffinity(0, avail[:n])
        return len(avail[:n])
    except (AttributeError, OSError):
        return os.cpu_count() or 0


def package_root(ref):
    """The folder that holds the reference's rexmle package."""
    for cand in (ref, os.path.join(ref, "rex-mle")):
        if os.path.isfile(os.path.join(cand, "rexmle", "grade_helpers.py")):
            return cand
    raise SystemExit(f"reference_time: no rexmle package under {ref} (want <ref>/rex-mle/rexmle or <ref>/rexmle)")


def missing_modules(names):
    out = []
    for name in names:
        try:
            importlib.import_module(name)
        except Exception as e:  # ImportError, or a broken install
            out.append(f"{name} ({type(e).__name__}: {e})")
    return out


def module_origin(name):
    """How a module the reference needs was obtained: version and where it
    was imported from (a Debian package, pip, a source tree on PYTHONPATH,
    or this script's stand-in)."""
    m = sys.modules.get(name)
    if m is None:
        return None
    version = getattr(m, "__version__", None) or getattr(m, "VERSION", None)
    f = getattr(m, "__file__", "") or ""
    if getattr(m, "rexmle_bench_standin", False):
        where = "bench/reference_time.py's stand-in"
    elif "/dist-packages/" in f and f.startswith("/usr/lib/"):
        where = "Debian package"
    elif "/site-packages/" in f or "/dist-packages/" in f:
        where = "pip-installed"
    else:
        tree = os.path.dirname(os.path.dirname(f) if f.endswith("__init__.py") else f)
        where = "from source on PYTHONPATH: " + tree
        if not version:
            version = git_output(tree, "describe", "--tags", "--always")
    pin = PINS.get(PIP_NAMES.get(name, name).lower())
    return f"{name} {version or '(no version)'} ({where}{'; the reference pins ' + pin if pin else ''})"


# Import name -> the name the reference's environment file pins it under.
PIP_NAMES = {"skimage": "scikit-image", "cv2": "opencv-python", "PIL": "pillow", "cc3d": "connected-components-3d",
             "sklearn": "scikit-learn", "surface_distance": "surface-distance"}


def reference_pins(root):
    """The version pins of the reference's environment file (rexmle.yml at
    the checkout's root), by lower-case package name."""
    import re
    pins = {}
    for cand in (os.path.join(root, "rexmle.yml"), os.path.join(os.path.dirname(root.rstrip("/")), "rexmle.yml")):
        try:
            with open(cand) as f:
                for line in f:
                    m = re.match(r"\s*-\s*([A-Za-z0-9_.\-]+)\s*([<>=!~][^#]*)?", line)
                    if m:
                        pins[m.group(1).lower()] = (m.group(1) + (m.group(2) or "")).strip()
            return pins
        except OSError:
            continue
    return pins


def git_output(tree, *args):
    """The output of git in a source tree that is a git work tree, else None
    (the reference checkout's commit, a source module's tag)."""
    import subprocess
    try:
        r = subprocess.run(["git", "-C", tree, *args], capture_output=True, text=True, timeout=10)
        return r.stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def plain(v):
    """JSON-safe copy of a grade result (numpy scalars, NaN)."""
    if isinstance(v, dict):
        return {str(k): plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    try:
        f = float(v)
    except (TypeError, ValueError):
        return str(v)
    if math.isnan(f) or math.isinf(f):
        return str(f)
    return f


def compare(ours, ref):
    """Common numeric keys of our values and the reference's: both values and the difference."""
    rows = []
    for k in sorted(set(ours) & set(ref)):
        a, b = ours[k], ref[k]
        if not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
            rows.append({"metric": k, "ours": a, "reference": b, "agree": a == b})
            continue
        d = abs(a - b)
        rows.append({"metric": k, "ours": a, "reference": b, "abs_diff": d,
                     "agree_5dp": round(a, 5) == round(b, 5)})
    return rows


class Profile:
    """Per-function wall and CPU seconds of a reference grade: every function
    the grade module defines or imports by name (skeletonize, get_mask_edges,
    ...) and, where the SimpleITK stand-in is used, the stand-in's functions
    and filters, wrapped in timers (about a microsecond a call). Times are
    inclusive: a function's time holds those of the functions it calls."""

    def __init__(self):
        self.stats = {}

    def wrap(self, name, fn):
        st = self.stats.setdefault(name, [0, 0.0, 0.0])

        def timed(*args, **kw):
            t, c = time.perf_counter(), time.process_time()
            try:
                return fn(*args, **kw)
            finally:
                st[0] += 1
                st[1] += time.perf_counter() - t
                st[2] += time.process_time() - c
        timed.__wrapped__ = fn
        return timed

    def instrument_module(self, mod, label):
        import types
        for k, v in list(vars(mod).items()):
            if k.startswith("__") or k == "grade":
                continue
            if isinstance(v, (types.FunctionType, types.BuiltinFunctionType)):
                setattr(mod, k, self.wrap(f"{label}.{k}", v))
            elif isinstance(v, type) and getattr(v, "__module__", "") == mod.__name__:
                for m, f in list(vars(v).items()):
                    if isinstance(f, types.FunctionType) and (m == "__eq__" or not m.startswith("__")):
                        setattr(v, m, self.wrap(f"{label}.{k}.{m}", f))

    def report(self, top=12):
        rows = sorted(self.stats.items(), key=lambda kv: -kv[1][1])
        return [{"function": n, "calls": c, "wall_s": w, "cpu_s": u} for n, (c, w, u) in rows if c][:top]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--challenge", required=True, choices=sorted(CHALLENGES))
    ap.add_argument("--private", required=True, help="answers folder (holds test_labels.csv)")
    ap.add_argument("--submission", required=True, help="submission folder (holds submission.csv)")
    ap.add_argument("--reference", default=os.environ.get("REXMLE_REFERENCE", ""))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument("--ours", help="JSON file of our grader's values on the same folders, to compare")
    ap.add_argument("--profile", action="store_true",
                    help="also report where the reference's time goes: wall and CPU seconds per function "
                         "of its grade module (and of the SimpleITK stand-in), inclusive")
    a = ap.parse_args()
    if not a.reference:
        raise SystemExit("reference_time: set REXMLE_REFERENCE or --reference to a ReX-MLE checkout")

    cores = limit_cores(a.cores)
    ref_id, needs = CHALLENGES[a.challenge]
    out = {"challenge": a.challenge, "reference_id": ref_id, "cores": cores,
           "startup_s": time.perf_counter() - T_START}
    sys.path.insert(0, package_root(a.reference))

    t0 = time.perf_counter()
    if a.challenge in SITK_READ_ONLY | SITK_LABEL_OPS and missing_modules(["SimpleITK"]):
        install_sitk_standin()
        out["basis"] = ("SimpleITK not installed: its file reads (ReadImage, GetArrayFromImage, spacing) "
                        "by bench/reference_time.py's numpy+zlib stand-in; the rest of the reference as published")
        if a.challenge in SITK_LABEL_OPS:
            out["basis"] = ("SimpleITK not installed: its reads (nibabel), label comparisons, casts, padding and "
                            "LabelOverlapMeasures (Jaccard, Dice) by bench/reference_time.py's numpy stand-in; "
                            "skimage skeletons and labels, MONAI surface distances as published")
    short = memory_shortfall(a.challenge, os.path.join(a.private, "test_labels.csv"))
    if short:
        out["error"] = short
        print(json.dumps(out))
        return 3
    miss = missing_modules(needs)
    if miss:
        out["error"] = "cannot time: missing " + "; ".join(miss)
        print(json.dumps(out))
        return 3
    import pandas as pd  # noqa: E402 (after the core limit)
    from pathlib import Path
    try:
        mod = importlib.import_module(f"rexmle.challenges.{ref_id}.grade")
    except Exception as e:
        out["error"] = f"cannot time: import rexmle.challenges.{ref_id}.grade: {type(e).__name__}: {e}"
        print(json.dumps(out))
        return 3
    out["import_s"] = time.perf_counter() - t0
    rev = git_output(a.reference, "rev-parse", "--short", "HEAD")
    PINS.update(reference_pins(a.reference))
    mods = [o for o in (module_origin(n) for n in needs + (["SimpleITK"] if "SimpleITK" not in needs and
                                                          "SimpleITK" in sys.modules else [])) if o]
    out["obtained"] = (f"timed here: rexmle.challenges.{ref_id}.grade as published"
                       + (f" (ReX-MLE {rev})" if rev else "")
                       + ("; modules: " + ", ".join(mods) if mods else "; numpy/pandas only"))
    prof = None
    if a.profile:
        prof = Profile()
        prof.instrument_module(mod, "grade")
        sitk = sys.modules.get("SimpleITK")
        if sitk is not None and getattr(sitk, "rexmle_bench_standin", False):
            prof.instrument_module(sitk, "standin")

    grade = mod.grade
    params = inspect.signature(grade).parameters
    priv, sub = Path(a.private), Path(a.submission)
    times, cpu, result = [], [], None
    for _ in range(a.repeat):
        t, c = time.perf_counter(), tree_cpu()
        with contextlib.redirect_stdout(sys.stderr):
            submission = pd.read_csv(sub / "submission.csv")
            answers = pd.read_csv(priv / "test_labels.csv")
            kw = {}
            if "submission_dir" in params:
                kw["submission_dir"] = sub
            if "answers_dir" in params:
                kw["answers_dir"] = priv
            try:
                result = grade(submission, answers, **kw)
            except Exception as e:
                out["error"] = f"reference grade failed: {type(e).__name__}: {e}"
                print(json.dumps(out), file=sys.__stdout__)
                return 4
        times.append(time.perf_counter() - t)
        cpu.append(tree_cpu() - c)
    out["times_s"] = times
    out["cpu_s"] = cpu  # CPU seconds of all threads: less sensitive than wall time to a loaded machine
    out["first_s"] = times[0]
    out["min_s"] = min(times)
    values = plain(result if isinstance(result, dict) else {"score": result})
    out["values"] = values
    try:
        import resource
        # Peak resident memory of this process (and of reaped children, e.g. joblib's), in MB.
        out["peak_rss_mb"] = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                                 resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) / 1024
    except (ImportError, OSError):
        pass
    if prof:
        out["profile"] = prof.report()
    if a.ours:
        with open(a.ours) as f:
            ours = json.load(f)
        out["compare"] = compare(ours, values)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    rc = main()
    # A reference that ran joblib leaves its idle worker processes behind,
    # and the interpreter's exit waits minutes for them: the result is
    # written, so leave at once (the stand-in's folder removed first).
    sys.stdout.flush()
    sys.stderr.flush()
    for d in STANDIN_DIRS:
        shutil.rmtree(d, True)
    os._exit(rc or 0)
