#!/usr/bin/env python3
"""Generate testdata/goldens/prob.json: log_loss and brier (scikit-learn), calibration_error
(torchmetrics), for metrics/prob.

Every value comes from the REAL libraries pinned in requirements.txt (scikit-learn 1.9.1,
torchmetrics 1.9.0 with torch). Conventions the Go code follows (metrics.md Part 1b):
  - log_loss and brier are called with labels=range(C), C = the largest class id + 1; where
    scikit-learn raises, the golden value is null and the case asserts that it raises;
  - log_loss's `eps` clips the probabilities before scikit-learn does (np.clip(p, eps, 1-eps));
  - brier's binary path gets pos_label explicitly (our preset's default is 1);
  - calibration_error: binary predictions as float64 tensors, multiclass as float64 tensors
    (torchmetrics casts the confidences to float32), num_classes = the list length.
The generator also checks that the Go code's torch.linspace formula (metrics/prob/calib.go) is
bit-identical to torch.linspace for n_bins = 1..2000 in float32 and float64.

Run: /path/to/venv/bin/python testdata/goldens/gen_prob.py  (from the repository root)
"""
import json
import os
import sys
import warnings
from fractions import Fraction as F

import numpy as np
import sklearn
import torch
import torchmetrics
from sklearn.metrics import brier_score_loss, log_loss
from torchmetrics.classification import BinaryCalibrationError, MulticlassCalibrationError

warnings.filterwarnings("ignore")
HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(20261125)


# ---------------------------------------------------------------------------------------------
# The Go code's linspace (one rounding of the fused multiply-add), checked against torch.

def go_linspace(n):
    steps, half = n + 1, (n + 1) // 2
    step64 = 1.0 / n
    step32 = float(np.float32(1) / np.float32(n))
    e64, e32 = [], []
    for i in range(steps):
        if i < half:
            e64.append(float(F(step64) * i))
            e32.append(np.float32(step32 * i))
        else:
            k = steps - i - 1
            e64.append(float(1 - F(step64) * k))
            e32.append(np.float32(1 - step32 * k))
    return np.array(e64), np.array(e32, dtype=np.float32)


for n in range(1, 2001):
    g64, g32 = go_linspace(n)
    assert np.array_equal(g64, torch.linspace(0, 1, n + 1, dtype=torch.float64).numpy()), n
    assert np.array_equal(g32, torch.linspace(0, 1, n + 1, dtype=torch.float32).numpy()), n
# torch.max returns the first maximum, as the Go code does.
assert int(torch.tensor([[0.3, 0.3, 0.1]], dtype=torch.float64).max(dim=1).indices[0]) == 0

cases = []
names = set()


def add(name, metric, records, value, details=None, rtol=1e-12, reject=None):
    assert name not in names, name
    names.add(name)
    c = {"name": name, "metric": metric, "records": records, "rtol": rtol}
    if reject:
        c["reject"] = reject
    else:
        c["value"] = value
    if details:
        c["details"] = details
    cases.append(c)


def recs(preds, labels):
    out = []
    for p, y in zip(preds, labels):
        p = [float(x) for x in p] if isinstance(p, (list, np.ndarray)) else float(p)
        out.append({"prediction": p, "label": int(y)})
    return out


def raises(f):
    try:
        f()
    except ValueError:
        return True
    return False


def dirichlet(n, k, conc=1.0):
    return rng.dirichlet([conc] * k, size=n)


# ---------------------------------------------------------------------------------------------
# log_loss

def ll_case(name, p, y, eps=None, normalize=True):
    metric = {"type": "log_loss"}
    if eps is not None:
        metric["eps"] = eps
    if not normalize:
        metric["normalize"] = False
    pa = np.asarray(p, dtype=np.float64)
    if eps is not None:
        pa = np.clip(pa, eps, 1 - eps)
    C = int(max(y)) + 1
    call = lambda: log_loss(y, pa, labels=list(range(C)), normalize=normalize)
    if C < 2:
        assert raises(call), name
        add(name, metric, recs(p, y), None, {"reason": "fewer than 2 classes"})
    elif pa.ndim == 2 and pa.shape[1] != C:
        assert raises(call), name
        add(name, metric, recs(p, y), None, {"reason": "class count mismatch"})
    else:
        add(name, metric, recs(p, y), call(), {"n": len(y)})


y = rng.integers(0, 2, 60)
p = rng.random(60)
ll_case("ll-binary", p, y)
ll_case("ll-binary-sum", p, y, normalize=False)
edge_p = [0.0, 1.0, 0.0, 1.0, 0.5, 1e-20, 1 - 1e-16, 0.25]
edge_y = [1, 0, 0, 1, 1, 1, 0, 0]
ll_case("ll-binary-edges-clipped", edge_p, edge_y)
ll_case("ll-binary-edges-eps-1e-3", edge_p, edge_y, eps=1e-3)
ll_case("ll-binary-edges-eps-0.1-sum", edge_p, edge_y, eps=0.1, normalize=False)
ll_case("ll-binary-eps-1e-15", p, y, eps=1e-15)
ll_case("ll-binary-one-record", [0.3], [1])
ll_case("ll-binary-one-class", [0.3, 0.2, 0.9], [0, 0, 0])
P3 = dirichlet(50, 3)
y3 = rng.integers(0, 3, 50)
y3[:3] = [0, 1, 2]
ll_case("ll-multi3", P3, y3)
ll_case("ll-multi3-sum", P3, y3, normalize=False)
ll_case("ll-multi3-eps-0.05", P3, y3, eps=0.05)
P5 = dirichlet(40, 5, 0.3)
P5[0] = [0, 0, 1, 0, 0]
P5[1] = [1, 0, 0, 0, 0]
y5 = rng.integers(0, 5, 40)
y5[:5] = [0, 2, 2, 3, 4]
ll_case("ll-multi5-edges", P5, y5)
unnorm = rng.random((20, 4))
y4 = rng.integers(0, 4, 20)
y4[0] = 3
ll_case("ll-multi4-rows-not-normalised", unnorm, y4)
P2 = dirichlet(30, 2)
y2 = rng.integers(0, 2, 30)
y2[0] = 1
ll_case("ll-two-columns", P2, y2)
ll_case("ll-multi-one-record", [[0.2, 0.3, 0.5]], [2])
ll_case("ll-multi-missing-top-class", P3[:10], [0, 1] * 5)
ll_case("ll-multi3-missing-middle-class", P3[:10], [0, 2] * 5)
add("ll-ragged", {"type": "log_loss"}, recs([[0.5, 0.5], [0.2, 0.3, 0.5]], [0, 2]), None, {"reason": "ragged scores"})
add("ll-ragged-float-and-list", {"type": "log_loss"}, recs([0.5, [0.2, 0.3, 0.5]], [1, 2]), None, {"reason": "ragged scores"})
assert raises(lambda: log_loss([0, 1], [1.5, 0.5]))
add("ll-reject-above-1", {"type": "log_loss"}, recs([1.5, [0.2, 1.2]], [1, 0]), None, reject="probability out of range")
add("ll-reject-negative", {"type": "log_loss"}, recs([-0.1, [0.5, -1e-9, 0.5]], [1, 0]), None, reject="probability out of range")
add("ll-reject-label", {"type": "log_loss"}, recs([0.5, [0.2, 0.8], 0.5], [2, 2, -1]), None, reject="label out of range")
add("ll-reject-empty", {"type": "log_loss"}, [{"prediction": [], "label": 0}], None, reject="wrong length")
add("ll-reject-missing", {"type": "log_loss"}, [{"prediction": 0.5}, {"label": 1}], None, reject="missing field")

# ---------------------------------------------------------------------------------------------
# brier

def br_case(name, p, y, pos_label=None):
    metric = {"type": "brier"}
    if pos_label is not None:
        metric["pos_label"] = pos_label
    pa = np.asarray(p, dtype=np.float64)
    if pa.ndim == 1:
        v = brier_score_loss(y, pa, pos_label=1 if pos_label is None else pos_label)
        add(name, metric, recs(p, y), v, {"n": len(y)})
        return
    C = int(max(y)) + 1
    call = lambda: brier_score_loss(y, pa, labels=list(range(C)))
    if C < 2:
        assert raises(call), name
        add(name, metric, recs(p, y), None, {"reason": "fewer than 2 classes"})
    elif pa.shape[1] != C:
        assert raises(call), name
        add(name, metric, recs(p, y), None, {"reason": "class count mismatch"})
    else:
        add(name, metric, recs(p, y), call(), {"n": len(y)})


br_case("br-binary", p, y)
br_case("br-binary-pos-label-0", p, y, pos_label=0)
br_case("br-binary-pos-label-1", p, y, pos_label=1)
br_case("br-binary-edges", edge_p, edge_y)
br_case("br-binary-edges-pos-label-0", edge_p, edge_y, pos_label=0)
br_case("br-binary-one-class", [0.3, 0.2, 0.9], [1, 1, 1])
br_case("br-binary-one-record", [0.7], [0])
br_case("br-multi3", P3, y3)
br_case("br-multi5-edges", P5, y5)
br_case("br-multi4-rows-not-normalised", unnorm, y4)
br_case("br-two-columns-halved", P2, y2)
br_case("br-multi-one-record", [[0.2, 0.3, 0.5]], [1])
br_case("br-multi-missing-top-class", P3[:10], [0, 1] * 5)
br_case("br-multi3-missing-middle-class", P3[:10], [0, 2] * 5)
add("br-ragged", {"type": "brier"}, recs([[0.5, 0.5], [0.2, 0.3, 0.5]], [0, 2]), None, {"reason": "ragged scores"})
add("br-reject-above-1", {"type": "brier"}, recs([1.0000001, [0.2, 1.2]], [1, 0]), None, reject="probability out of range")
add("br-reject-label", {"type": "brier"}, recs([0.5, [0.2, 0.8]], [3, 2]), None, reject="label out of range")
add("br-reject-pos-label-with-list", {"type": "brier", "pos_label": 0}, recs([[0.2, 0.8]], [1]), None, reject="wrong type")

# ---------------------------------------------------------------------------------------------
# calibration_error

def ce_case(name, p, y, n_bins=None, norm=None, rtol=None):
    metric = {"type": "calibration_error"}
    kw = {}
    if n_bins is not None:
        metric["n_bins"] = n_bins
        kw["n_bins"] = n_bins
    if norm is not None:
        metric["norm"] = norm
        kw["norm"] = norm
    pa = torch.tensor(np.asarray(p, dtype=np.float64), dtype=torch.float64)
    ta = torch.tensor(np.asarray(y, dtype=np.int64))
    if pa.ndim == 1:
        m = BinaryCalibrationError(**kw)
        rtol = rtol or 1e-12
    else:
        m = MulticlassCalibrationError(num_classes=pa.shape[1], **kw)
        rtol = rtol or 1e-5
    m.update(pa, ta)
    v = float(m.compute())
    add(name, metric, recs(p, y), v, {"n": len(y)}, rtol=rtol)


yb = rng.integers(0, 2, 300)
pb = np.clip(yb * 0.3 + rng.random(300) * 0.7, 0, 1)
for nb in (None, 1, 5, 10, 100):
    for norm in (None, "l2", "max"):
        ce_case(f"ce-binary-bins{nb or 15}-{norm or 'l1'}", pb, yb, nb, norm)
for nb in (5, 15):
    e64, _ = go_linspace(nb)
    pe = list(e64) * 3
    ye = [int(i % 2) for i in range(len(pe))]
    for norm in (None, "l2", "max"):
        ce_case(f"ce-binary-on-edges-bins{nb}-{norm or 'l1'}", pe, ye, nb, norm)
ce_case("ce-binary-zero-one", [0.0, 1.0, 1.0, 0.0, 0.5], [0, 1, 0, 1, 1])
ce_case("ce-binary-perfect-l2", [0.0, 1.0, 1.0, 0.0], [0, 1, 1, 0], norm="l2")
ce_case("ce-binary-one-record", [0.42], [1])

Pm = dirichlet(300, 4, 0.5)
ym = np.array([rng.choice(4, p=row) for row in Pm])
for nb in (None, 1, 7, 100):
    for norm in (None, "l2", "max"):
        ce_case(f"ce-multi4-bins{nb or 15}-{norm or 'l1'}", Pm, ym, nb, norm)
Pt = np.array([[0.4, 0.4, 0.2], [0.3, 0.3, 0.3], [0.1, 0.45, 0.45], [0.5, 0.25, 0.25]] * 5)
ce_case("ce-multi3-ties", Pt, [1, 0, 1, 0] * 5)
# Confidences on the float32 edges, and decimal values whose float32 rounding decides the bin.
for nb in (5, 15):
    _, e32 = go_linspace(nb)
    rows, labels = [], []
    for i, e in enumerate(e32):
        c = float(e)
        rows.append([c, (1 - c) / 2, (1 - c) / 2] if c >= 1 / 3 else [1 / 3, 1 / 3, 1 / 3 - 1e-12])
        labels.append(i % 3)
    for c in (0.2, 0.4, 0.6, 0.8, 0.4666666666666667, 0.7333333333333333, 0.9333333333333333, 1.0):
        rows.append([(1 - c) / 2, c, (1 - c) / 2])
        labels.append(1)
    for norm in (None, "l2", "max"):
        ce_case(f"ce-multi3-on-edges-bins{nb}-{norm or 'l1'}", rows, labels, nb, norm)
ce_case("ce-two-columns", P2, y2)
ce_case("ce-multi-one-record", [[0.2, 0.3, 0.5]], [2])
add("ce-ragged", {"type": "calibration_error"}, recs([[0.5, 0.5], [0.2, 0.3, 0.5]], [0, 2]), None, {"reason": "ragged scores"})
add("ce-reject-above-1", {"type": "calibration_error"}, recs([1.5, [0.2, 1.2]], [1, 0]), None, reject="probability out of range")
add("ce-reject-label", {"type": "calibration_error"}, recs([0.5, [0.2, 0.8]], [2, 2]), None, reject="label out of range")

# Ten classes, 400 records, for all three metrics (appended last: earlier cases keep their data).
P10 = dirichlet(400, 10, 0.2)
y10 = np.array([rng.choice(10, p=row) for row in P10])
y10[:10] = np.arange(10)
ll_case("ll-multi10", P10, y10)
br_case("br-multi10", P10, y10)
ce_case("ce-multi10", P10, y10)
ce_case("ce-multi10-bins20-l2", P10, y10, 20, "l2")

versions = {"scikit-learn": sklearn.__version__, "torchmetrics": torchmetrics.__version__,
            "torch": torch.__version__, "numpy": np.__version__, "python": sys.version.split()[0]}
out = os.path.join(HERE, "prob.json")
with open(out, "w") as f:
    json.dump({"generator": "gen_prob.py", "versions": versions, "cases": cases}, f, separators=(",", ":"))
    f.write("\n")
print(f"wrote {out}: {len(cases)} cases, {os.path.getsize(out)} bytes")
