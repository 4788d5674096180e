#!/usr/bin/env python3
"""Generate testdata/goldens/rank.json: auroc and average_precision (metrics/rank).

Every value comes from the REAL scikit-learn (roc_auc_score, average_precision_score) and
torchmetrics (BinaryAUROC, MulticlassAUROC, BinaryAveragePrecision, MulticlassAveragePrecision),
pinned in requirements.txt. Where scikit-learn raises or returns NaN the golden is null.

evalstream's semantics, as fed to the libraries here:
  - binary: a float score (P(class 1)) or a 2-element list (its second element), label 0/1;
  - multiclass: C >= 3 scores, classes 0..C-1 (scikit-learn labels=range(C); torchmetrics
    num_classes=C);
  - torchmetrics gets float64 tensors (our inputs are float64); it computes its curves in
    float32, so its cases have rtol 1e-5. scikit-learn cases are bit-exact (rtol 1e-15).

Run: <venv>/bin/python testdata/goldens/gen_rank.py  (from the repository root)
"""
import json
import math
import os
import random
import sys
import warnings

import numpy as np
import sklearn
import torch
import torchmetrics
from sklearn.metrics import average_precision_score, roc_auc_score
from torchmetrics.classification import (BinaryAUROC, BinaryAveragePrecision, MulticlassAUROC,
                                         MulticlassAveragePrecision)

warnings.filterwarnings("ignore")
HERE = os.path.dirname(os.path.abspath(__file__))
cases = []


def num(v):
    if v is None:
        return None
    if isinstance(v, (list, tuple, np.ndarray)):
        out = [num(x) for x in v]
        return None if any(x is None for x in out) else out
    v = float(v)
    return None if math.isnan(v) else v


def records(scores, labels):
    return [{"prediction": s, "label": int(l)} for s, l in zip(scores, labels)]


def add(name, metric, scores, labels, value, rtol):
    cases.append({"name": name, "metric": metric, "records": records(scores, labels),
                  "value": num(value), "rtol": rtol})


def sk_binary_scores(scores):
    return np.array([s[1] if isinstance(s, list) else s for s in scores], dtype=np.float64)


def sk(typ, scores, labels, **kw):
    """scikit-learn's value, or None where it raises."""
    width = len(scores[0]) if isinstance(scores[0], list) else 1
    y = np.array(labels)
    try:
        if width <= 2:
            s = sk_binary_scores(scores)
            if typ == "auroc":
                return roc_auc_score(y, s, max_fpr=kw.get("max_fpr"))
            return average_precision_score(y, s)
        S = np.array(scores, dtype=np.float64)
        avg = kw.get("average", "macro")
        avg = None if avg == "none" else avg
        if typ == "auroc":
            return roc_auc_score(y, S, multi_class=kw.get("multi_class", "ovr"), average=avg,
                                 labels=list(range(width)))
        return average_precision_score(y, S, average=avg)
    except ValueError as e:
        print("  sklearn raises:", e)
        return None


def tm(typ, scores, labels, **kw):
    width = len(scores[0]) if isinstance(scores[0], list) else 1
    target = torch.tensor(labels, dtype=torch.long)
    th = kw.get("thresholds")
    if width <= 2:
        p = torch.tensor(sk_binary_scores(scores), dtype=torch.float64)
        if typ == "auroc":
            m = BinaryAUROC(max_fpr=kw.get("max_fpr"), thresholds=th)
        else:
            m = BinaryAveragePrecision(thresholds=th)
    else:
        p = torch.tensor(scores, dtype=torch.float64)
        cls = MulticlassAUROC if typ == "auroc" else MulticlassAveragePrecision
        m = cls(num_classes=width, average=kw.get("average", "macro"), thresholds=th)
    m.update(p, target)
    return m.compute().tolist()


def both(name, typ, scores, labels, presets=("sklearn", "torchmetrics"), **kw):
    for preset in presets:
        metric = {"type": typ}
        if preset != "sklearn":
            metric["compat"] = preset
        metric.update({k: v for k, v in kw.items() if v is not None})
        if preset == "sklearn":
            if "thresholds" in kw:
                continue
            v, rtol = sk(typ, scores, labels, **kw), 1e-15
        else:
            if kw.get("multi_class") == "ovo":
                continue
            v, rtol = tm(typ, scores, labels, **kw), 1e-5
        add(f"{typ}-{preset}-{name}", metric, scores, labels, v, rtol)


rng = random.Random(16)


def binary_data(n, decimals, p_pos=0.4):
    labels = [1 if rng.random() < p_pos else 0 for _ in range(n)]
    scores = [round(min(1.0, max(0.0, 0.3 * l + 0.7 * rng.random())), decimals) for l in labels]
    return scores, labels


def simplex(C, grid):
    """A probability vector on a coarse grid (so ties are frequent), summing to 1 in float64."""
    cuts = sorted(rng.randint(0, grid) for _ in range(C - 1))
    parts = [b - a for a, b in zip([0] + cuts, cuts + [grid])]
    return [x / grid for x in parts]


def multiclass_data(n, C, grid, missing=None):
    labels, scores = [], []
    for _ in range(n):
        l = rng.randrange(C)
        while l == missing:
            l = rng.randrange(C)
        s = simplex(C, grid)
        labels.append(l)
        scores.append(s)
    return scores, labels


for typ in ("auroc", "average_precision"):
    s, l = binary_data(60, 1)
    both("binary-ties", typ, s, l)
    both("binary-all-equal", typ, [0.5] * 10, [0, 1] * 5)
    both("binary-one-class-0", typ, [0.1, 0.5, 0.9, 0.5], [0, 0, 0, 0])
    both("binary-one-class-1", typ, [0.1, 0.5, 0.9, 0.5], [1, 1, 1, 1])
    both("binary-perfect", typ, [0.1, 0.2, 0.8, 0.9], [0, 0, 1, 1])
    both("binary-inverted", typ, [0.9, 0.8, 0.2, 0.1], [0, 0, 1, 1])
    both("binary-single-record", typ, [0.3], [1])
    s, l = binary_data(40, 2)
    both("binary-two-element-lists", typ, [[1 - x, x] for x in s], l)
    s, l = binary_data(3000, 3)
    both("binary-large", typ, s, l)
    s, l = binary_data(300, 17)
    both("binary-distinct", typ, s, l)
    s = [rng.gauss(0, 3) for _ in range(80)]
    l = [1 if x + rng.gauss(0, 3) > 0 else 0 for x in s]
    both("binary-real-scores", typ, s, l, presets=("sklearn",))
    for C in (3, 5):
        s, l = multiclass_data(120, C, 10)
        for avg in ("macro", "weighted", "none"):
            both(f"c{C}-ovr-{avg}", typ, s, l, average=avg)
            if typ == "auroc" and avg != "none":
                both(f"c{C}-ovo-{avg}", typ, s, l, multi_class="ovo", average=avg)
        s, l = multiclass_data(90, C, 20, missing=1)
        for avg in ("macro", "weighted", "none"):
            both(f"c{C}-no-positives-{avg}", typ, s, l, average=avg)
            if typ == "auroc" and avg != "none":
                both(f"c{C}-no-positives-ovo-{avg}", typ, s, l, multi_class="ovo", average=avg)
    s, l = multiclass_data(20, 4, 4)
    both("c4-one-class", typ, s, [2] * len(s))
    both("c4-all-label-0", typ, s, [0] * len(s))
    s, l = multiclass_data(1000, 4, 100)
    both("c4-large", typ, s, l)
    # torchmetrics' binned mode.
    for n_th in (2, 5, 11, 100, 1000):
        s, l = binary_data(400, 3)
        both(f"binary-thresholds-{n_th}", typ, s, l, presets=("torchmetrics",), thresholds=n_th)
    s, l = multiclass_data(200, 3, 20)
    for avg in ("macro", "weighted", "none"):
        both(f"c3-thresholds-7-{avg}", typ, s, l, presets=("torchmetrics",), thresholds=7, average=avg)
    s, l = multiclass_data(100, 4, 20, missing=3)
    both("c4-no-positives-thresholds-9", typ, s, l, presets=("torchmetrics",), thresholds=9)
    both("binary-thresholds-one-class", typ, [0.1, 0.6, 0.6], [0, 0, 0], presets=("torchmetrics",), thresholds=5)

for mf in (0.05, 0.1, 0.37, 0.5, 0.8, 1.0):
    s, l = binary_data(200, 2)
    both(f"binary-max-fpr-{mf}", "auroc", s, l, max_fpr=mf)
s, l = binary_data(200, 2)
both("binary-max-fpr-0.3-thresholds-20", "auroc", s, l, presets=("torchmetrics",), max_fpr=0.3, thresholds=20)
both("binary-max-fpr-perfect", "auroc", [0.1, 0.2, 0.8, 0.9], [0, 0, 1, 1], max_fpr=0.25)

# thresholds given as a list (torchmetrics holds it as float32); after every other case, so
# that their random data stay as they were.
for typ in ("auroc", "average_precision"):
    s, l = binary_data(400, 3)
    for name, th in (("linspace", [0.0, 0.25, 0.5, 0.75, 1.0]), ("inner", [0.2, 0.5, 0.8]),
                     ("single", [0.3]), ("uneven", [0.0, 0.05, 0.1, 0.35, 0.9, 1.0]),
                     ("float32-rounding", [0.1, 0.30000001, 0.7])):
        both(f"binary-threshold-list-{name}", typ, s, l, presets=("torchmetrics",), thresholds=th)
    s3, l3 = multiclass_data(200, 3, 20)
    both("c3-threshold-list-macro", typ, s3, l3, presets=("torchmetrics",), thresholds=[0.0, 0.1, 0.4, 0.6, 1.0])
    both("c3-threshold-list-none", typ, s3, l3, presets=("torchmetrics",), thresholds=[0.15, 0.5, 0.95], average="none")

# Rejected records.
cases.append({"name": "auroc-sklearn-reject-sum", "metric": {"type": "auroc"},
              "records": records([[0.5, 0.4, 0.3], [0.2, 0.2, 0.2]], [0, 1]), "value": None,
              "reject": "scores do not sum to 1"})
cases.append({"name": "auroc-torchmetrics-reject-range", "metric": {"type": "auroc", "compat": "torchmetrics"},
              "records": records([1.5, -0.1, [0.2, 1.2]], [0, 1, 0]), "value": None,
              "reject": "probability out of range"})
cases.append({"name": "average_precision-sklearn-reject-label", "metric": {"type": "average_precision"},
              "records": records([0.5, [0.5, 0.5], [0.2, 0.3, 0.5]], [2, 2, 3]), "value": None,
              "reject": "label out of range"})
cases.append({"name": "auroc-sklearn-reject-max-fpr-multiclass", "metric": {"type": "auroc", "max_fpr": 0.5},
              "records": records([[0.2, 0.3, 0.5]], [0]), "value": None, "reject": "wrong length"})

versions = {"scikit-learn": sklearn.__version__, "torchmetrics": torchmetrics.__version__,
            "torch": torch.__version__, "numpy": np.__version__, "python": sys.version.split()[0]}
with open(os.path.join(HERE, "rank.json"), "w") as f:
    json.dump({"generator": "gen_rank.py", "versions": versions, "cases": cases}, f, separators=(",", ":"))
print(f"rank.json: {len(cases)} cases")
