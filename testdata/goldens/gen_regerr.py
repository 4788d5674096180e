#!/usr/bin/env python3
"""Generate the goldens of issue 15's scikit-learn metrics:

  testdata/goldens/regerr_regress.json   mse, rmse, mae, mape, r2, explained_variance (metrics/regress)
  testdata/goldens/regerr_classify.json  cohen_kappa, balanced_accuracy (metrics/classify)

Every value comes from the REAL scikit-learn (pinned in requirements.txt). evalstream sums
exactly where sklearn uses numpy's rounded pairwise sums, so each case's rtol is
max(1e-12, 2 × sklearn's own relative error), that error being measured against the exact
rational value of sklearn's formula (fractions.Fraction). The largest such error is printed.
Cases named "-exact" hold the exactly rounded value itself, with a tight rtol: they check that
our sums are exact where sklearn's rounding is visible (magnitudes of 1e15). Where sklearn's
own error exceeds 1e-9 (r2 and explained_variance of 1e15 + U(0, 1): numpy's rounded mean is
off by up to 0.0625, so sklearn is off by up to 29% there), only the -exact case is kept; the
generator prints those sklearn values.

Run: /tmp/goldenvenv/bin/python testdata/goldens/gen_regerr.py  (from the repository root)
"""
import json
import math
import os
import random
import sys
import warnings
from fractions import Fraction as F

import numpy as np
import sklearn
from sklearn.metrics import (balanced_accuracy_score, cohen_kappa_score, explained_variance_score,
                             mean_absolute_error, mean_absolute_percentage_error, mean_squared_error,
                             r2_score, root_mean_squared_error)

warnings.filterwarnings("ignore")
HERE = os.path.dirname(os.path.abspath(__file__))
EPS = float(np.finfo(np.float64).eps)

# ---------------------------------------------------------------------------------------------
# Exact rational references (the semantics evalstream implements).


def ex_sse(y, p):
    return sum((F(a) - F(b)) ** 2 for a, b in zip(y, p))


def ex_sst(y):
    n = len(y)
    s = sum(F(a) for a in y)
    return sum(F(a) ** 2 for a in y) - s * s / n


def force_finite(num, den):
    if num == 0:
        return 1.0
    if den == 0:
        return 0.0
    return float(1 - num / den)


def exact(typ, y, p):
    n = len(y)
    if typ == "mse":
        return float(ex_sse(y, p) / n)
    if typ == "rmse":
        return math.sqrt(float(ex_sse(y, p) / n))
    if typ == "mae":
        return float(sum(abs(F(a) - F(b)) for a, b in zip(y, p)) / n)
    if typ == "mape":
        # each term rounded as numpy computes it, summed exactly
        terms = [abs(b - a) / max(abs(a), EPS) for a, b in zip(y, p)]
        return float(sum(F(t) for t in terms) / n)
    if typ == "r2":
        if n < 2:
            return None
        return force_finite(ex_sse(y, p), ex_sst(y))
    if typ == "explained_variance":
        d = [F(a) - F(b) for a, b in zip(y, p)]
        sd = sum(d)
        num = sum(x * x for x in d) - sd * sd / n
        return force_finite(num, ex_sst(y))
    raise ValueError(typ)


SK = {"mse": mean_squared_error, "rmse": root_mean_squared_error, "mae": mean_absolute_error,
      "mape": mean_absolute_percentage_error, "r2": r2_score, "explained_variance": explained_variance_score}
REG_TYPES = list(SK)


def relerr(want, got):
    if want == got:
        return 0.0
    return abs(got - want) / max(abs(want), 1e-300)


# ---------------------------------------------------------------------------------------------

files = {"regress": [], "classify": []}
names = set()
worst = {}
inaccurate = []


def add(fam, name, metric, records, value, details=None, rtol=1e-12, reject=None):
    assert name not in names, name
    names.add(name)
    c = {"name": name, "metric": metric, "records": records, "value": value, "rtol": rtol}
    if details:
        c["details"] = details
    if reject:
        c["reject"] = reject
        c.pop("value")
    files[fam].append(c)


def recs(preds, labels):
    return [{"prediction": p, "label": y} for p, y in zip(preds, labels)]


def reg_case(tag, typ, y, p, exact_case=False):
    """sklearn's value (rtol covering its rounding) and, with exact_case, the exact value."""
    metric = {"type": typ}
    want = exact(typ, y, p)
    sk = float(SK[typ](np.array(y, dtype=np.float64), np.array(p, dtype=np.float64)))
    if want is None:
        assert math.isnan(sk), (tag, typ, sk)
        add("regress", f"{tag}-{typ}", metric, recs(p, y), None, {"reason": "fewer than 2 records", "n": len(y)})
        return
    assert math.isfinite(sk), (tag, typ, sk)
    e = relerr(want, sk)
    if e > 1e-9:
        # sklearn's rounded mean is off by up to half an ulp of the offset, comparable to the
        # spread of the data: its value is not a meaningful reference there, ours is exact.
        assert exact_case, (tag, typ, e)
        inaccurate.append(f"{tag}-{typ}: sklearn {sk!r}, exact {want!r}")
    else:
        worst[typ] = max(worst.get(typ, 0.0), e)
        add("regress", f"{tag}-{typ}", metric, recs(p, y), sk, {"n": len(y)}, rtol=max(1e-12, 2 * e))
    if exact_case:
        add("regress", f"{tag}-{typ}-exact", metric, recs(p, y), want, {"n": len(y)}, rtol=1e-14)


def all_reg(tag, y, p, exact_case=False):
    for typ in REG_TYPES:
        reg_case(tag, typ, y, p, exact_case)


# --- sklearn docstring seeds ------------------------------------------------------------------
Y0, P0 = [3, -0.5, 2, 7], [2.5, 0.0, 2, 8]
assert mean_squared_error(Y0, P0) == 0.375
assert mean_absolute_error(Y0, P0) == 0.5
assert abs(r2_score(Y0, P0) - 0.9486081370449679) < 1e-15
assert abs(explained_variance_score(Y0, P0) - 0.9571734475374732) < 1e-15
all_reg("seed-doc", Y0, P0)
Y1, P1 = [1.0, 0.0, 2.4, 7.0], [1.2, 0.1, 2.4, 8.0]
assert mean_absolute_percentage_error(Y1, P1) == 112589990684262.48
all_reg("seed-doc-mape-zero", Y1, P1)

# --- generated data ---------------------------------------------------------------------------
rng = random.Random(15)
for i in range(36):
    n = rng.choice([1, 2, 3, 5, 17, 100, 400])
    kind = ["float", "int", "offset", "negative", "tiny", "mixed"][i % 6]
    if kind == "float":
        y = [rng.gauss(0, 1) for _ in range(n)]
        p = [a + rng.gauss(0, 0.5) for a in y]
    elif kind == "int":
        y = [rng.randrange(-50, 50) for _ in range(n)]
        p = [a + rng.randrange(-5, 6) for a in y]
    elif kind == "offset":
        y = [1e6 + rng.random() for _ in range(n)]
        p = [a + rng.gauss(0, 0.1) for a in y]
    elif kind == "negative":
        y = [rng.uniform(-100, -1) for _ in range(n)]
        p = [-a * rng.uniform(-1, 0) for a in y]
    elif kind == "tiny":
        y = [rng.gauss(0, 1) * 1e-150 for _ in range(n)]
        p = [a + rng.gauss(0, 1) * 1e-151 for a in y]
    else:
        y = [rng.choice([0, 0.0, rng.gauss(0, 10), rng.randrange(100)]) for _ in range(n)]
        p = [rng.choice([a, rng.gauss(0, 10), 0]) for a in y]
    all_reg(f"g{i:02d}-{kind}-n{n}", y, p)

# --- large magnitudes: sklearn's rounded mean and sums show; the -exact cases check ours -------
rng = random.Random(1015)
for n in (3, 50, 300):
    y = [1e15 + rng.random() for _ in range(n)]
    p = [a + rng.choice([-1, 1]) * rng.random() for a in y]
    all_reg(f"big1e15-n{n}", y, p, exact_case=True)
y = [rng.choice([-1, 1]) * 1e15 * rng.random() for _ in range(200)]
p = [a * (1 + rng.gauss(0, 1e-3)) for a in y]
all_reg("big-spread-1e15-n200", y, p, exact_case=True)
# values that cancel: 1e15 and ±small, whose plain sum loses the small ones
y = [1e15, 1.0, -1e15, 3.0, 2.5, 1e-3]
p = [1e15 + 0.125, 0.0, -1e15 - 0.25, 3.5, 2.0, 0.0]
all_reg("cancel-1e15", y, p, exact_case=True)
y = [rng.gauss(0, 1) * 1e-150 for _ in range(100)]
p = [a * 1.5 for a in y]
all_reg("tiny1e-150-n100", y, p, exact_case=True)

# --- edge cases -------------------------------------------------------------------------------
all_reg("single", [2.5], [3.0])
all_reg("single-perfect", [2.5], [2.5])
all_reg("two", [1.0, 4.0], [2.0, 2.0])
# constant labels (values numpy averages exactly, so sklearn's force_finite rules show plainly)
all_reg("const-perfect", [2.0] * 4, [2.0] * 4)
all_reg("const-imperfect", [2.0] * 4, [2.0, 3.0, 2.0, 1.5])
all_reg("const-offset", [2.0] * 4, [3.0] * 4)  # explained_variance 1.0, r2 0.0
all_reg("const-zero-labels", [0.0] * 3, [0.0, 1.0, -1.0])
all_reg("perfect-nonconst", [1.0, 2.0, 4.0], [1.0, 2.0, 4.0])
all_reg("offset-nonconst", [1.0, 2.0, 4.0], [2.0, 3.0, 5.0])  # explained_variance 1.0
all_reg("ints", [1, 2, 3, 4, 10], [1, 3, 3, 2, 12])
# zeros in labels for mape: divided by float64 epsilon
all_reg("mape-zeros", [0.0, 0, 1.0, 0.0], [0.5, 0, 1.5, -2.0])
all_reg("mape-all-zero-labels", [0.0, 0.0], [1e-300, 3.0])
all_reg("mape-tiny-labels", [1e-17, -1e-20, 2.0], [0.0, 1e-20, 2.5])

rej = [
    ("reject-mse-string", "mse", [{"prediction": "1.0", "label": 1}], "wrong type"),
    ("reject-r2-bool", "r2", [{"prediction": True, "label": 1.0}], "wrong type"),
    ("reject-mae-list", "mae", [{"prediction": [1.0, 2.0], "label": 1.0}], "wrong type"),
    ("reject-mape-missing", "mape", [{"prediction": 1.0}, {"prediction": None, "label": 2.0}], "missing field"),
    ("reject-ev-missing", "explained_variance", [{"label": 1.0}], "missing field"),
    ("reject-rmse-string-label", "rmse", [{"prediction": 1.0, "label": "x"}], "wrong type"),
]
for name, typ, rs, reason in rej:
    add("regress", name, {"type": typ}, rs, None, reject=reason)

# ---------------------------------------------------------------------------------------------
# cohen_kappa and balanced_accuracy


def ex_kappa(a, b, weights):
    classes = sorted(set(a) | set(b))
    pos = {c: i for i, c in enumerate(classes)}
    n = len(a)

    def w(i, j):
        if weights == "linear":
            return abs(i - j)
        if weights == "quadratic":
            return (i - j) ** 2
        return int(i != j)
    obs = sum(w(pos[x], pos[y]) for x, y in zip(a, b))
    ca = {c: a.count(c) for c in classes}
    cb = {c: b.count(c) for c in classes}
    expn = sum(w(pos[x], pos[y]) * ca[x] * cb[y] for x in classes for y in classes)
    if expn == 0:
        return None
    return float(1 - F(obs * n, expn))


def ex_balanced(t, p, adjusted):
    classes = sorted(set(t))
    per = [sum(1 for x, y in zip(t, p) if x == c and y == c) / t.count(c) for c in classes]
    s = float(sum(F(v) for v in per) / len(per))
    if adjusted:
        if len(per) == 1:
            return None
        chance = 1 / len(per)
        s -= chance
        s /= 1 - chance
    return s


def to_py(v):
    return v.item() if hasattr(v, "item") else v


def kappa_case(tag, preds, labels, weights=None, pred_field=None, label_field=None):
    """preds/labels are class ids; pred_field/label_field what the records hold (scores,
    one-hot lists, booleans), defaulting to the ids."""
    metric = {"type": "cohen_kappa"}
    if weights is not None:
        metric["weights"] = weights
    w = weights if weights is not None else "none"
    name = f"{tag}-kappa-{w}"
    rs = recs(pred_field or preds, label_field or labels)
    want = ex_kappa(labels, preds, w)
    sk = float(cohen_kappa_score(labels, preds, weights=None if w == "none" else w))
    classes = sorted(set(preds) | set(labels))
    if want is None:
        assert math.isnan(sk), (name, sk)
        add("classify", name, metric, rs, None, {"reason": "only one class", "classes": classes})
        return
    e = relerr(want, sk)
    worst["cohen_kappa"] = max(worst.get("cohen_kappa", 0.0), e)
    add("classify", name, metric, rs, sk, {"classes": classes, "records": len(preds)}, rtol=max(1e-12, 2 * e))


def balanced_case(tag, preds, labels, adjusted=False, pred_field=None, label_field=None):
    metric = {"type": "balanced_accuracy"}
    if adjusted:
        metric["adjusted"] = True
    name = f"{tag}-balanced{'-adjusted' if adjusted else ''}"
    rs = recs(pred_field or preds, label_field or labels)
    want = ex_balanced(labels, preds, adjusted)
    sk = float(balanced_accuracy_score(labels, preds, adjusted=adjusted))
    classes = sorted(set(labels))
    if want is None:
        assert not math.isfinite(sk), (name, sk)
        add("classify", name, metric, rs, None, {"reason": "adjusted with a single true class", "classes": classes})
        return
    e = relerr(want, sk)
    worst["balanced_accuracy"] = max(worst.get("balanced_accuracy", 0.0), e)
    add("classify", name, metric, rs, sk, {"classes": classes, "records": len(preds)}, rtol=max(1e-12, 2 * e))


def all_class(tag, preds, labels, **kw):
    for w in (None, "linear", "quadratic"):
        kappa_case(tag, preds, labels, w, **kw)
    for adj in (False, True):
        balanced_case(tag, preds, labels, adj, **kw)


# sklearn docstring seeds
assert cohen_kappa_score(["negative", "positive", "negative", "neutral", "positive"],
                         ["negative", "positive", "negative", "neutral", "negative"]) == 0.6875
assert balanced_accuracy_score([0, 1, 0, 0, 1, 0], [0, 1, 0, 0, 0, 1]) == 0.625
all_class("seed-doc-kappa", [0, 2, 0, 1, 0], [0, 2, 0, 1, 2])
all_class("seed-doc-balanced", [0, 1, 0, 0, 0, 1], [0, 1, 0, 0, 1, 0])

rng = random.Random(1515)
for i in range(30):
    n = rng.choice([1, 2, 5, 20, 100, 500])
    kind = ["dense", "sparse-ids", "skewed", "binary", "never-predicted", "only-predicted"][i % 6]
    if kind == "dense":
        k = rng.choice([2, 3, 5, 8])
        labels = [rng.randrange(k) for _ in range(n)]
        preds = [y if rng.random() < 0.6 else rng.randrange(k) for y in labels]
    elif kind == "sparse-ids":
        ids = sorted(rng.sample(range(0, 40), rng.choice([2, 3, 4, 6])))
        labels = [rng.choice(ids) for _ in range(n)]
        preds = [y if rng.random() < 0.5 else rng.choice(ids) for y in labels]
    elif kind == "skewed":
        labels = [0 if rng.random() < 0.9 else rng.randrange(1, 4) for _ in range(n)]
        preds = [y if rng.random() < 0.7 else 0 for y in labels]
    elif kind == "binary":
        labels = [rng.randrange(2) for _ in range(n)]
        preds = [rng.randrange(2) for _ in range(n)]
    elif kind == "never-predicted":  # class 3 (and 4) are true but never predicted
        labels = [rng.randrange(5) for _ in range(n)]
        preds = [y if y < 3 and rng.random() < 0.7 else rng.randrange(3) for y in labels]
    else:  # classes 6, 9 only predicted, never true
        labels = [rng.randrange(3) for _ in range(n)]
        preds = [y if rng.random() < 0.5 else rng.choice([0, 1, 2, 6, 9]) for y in labels]
    all_class(f"g{i:02d}-{kind}-n{n}", preds, labels)

# score lists (argmax, first maximum) and one-hot labels; booleans are ids 0/1
rng = random.Random(77)
labels = [rng.randrange(4) for _ in range(40)]
scores = [[round(rng.random(), 2) for _ in range(4)] for _ in range(40)]
scores[0] = [0.3, 0.3, 0.1, 0.3]  # ties: first maximum
preds = [int(np.argmax(s)) for s in scores]
onehot = [[1 if j == y else 0 for j in range(4)] for y in labels]
all_class("scores-onehot-n40", preds, labels, pred_field=scores, label_field=onehot)
bl = [rng.random() < 0.5 for _ in range(30)]
bp = [b if rng.random() < 0.7 else not b for b in bl]
all_class("booleans-n30", [int(b) for b in bp], [int(b) for b in bl], pred_field=bp, label_field=bl)

# edge cases
all_class("one-class-only", [3, 3, 3], [3, 3, 3])
all_class("one-class-true-two-predicted", [3, 5, 3], [3, 3, 3])
all_class("one-class-predicted-two-true", [1, 1, 1, 1], [0, 1, 1, 2])
all_class("single-record", [2], [2])
all_class("single-record-wrong", [2], [0])
all_class("noncontiguous-ids", [0, 10, 10, 50, 100, 0, 50], [0, 10, 50, 50, 100, 100, 0])
all_class("perfect", [0, 1, 2, 2, 1], [0, 1, 2, 2, 1])
all_class("all-wrong", [1, 2, 0, 1], [0, 1, 2, 0])
all_class("never-predicted-class", [0, 0, 1, 1, 0, 1], [0, 2, 1, 2, 0, 1])
all_class("big-ids", [1000, 70000, 1000, 5], [1000, 70000, 5, 5])

crej = [
    ("reject-kappa-negative", "cohen_kappa", [{"prediction": -1, "label": 0}], "label out of range"),
    ("reject-kappa-float-id", "cohen_kappa", [{"prediction": 1.5, "label": 0}], "wrong type"),
    ("reject-balanced-not-one-hot", "balanced_accuracy", [{"prediction": 1, "label": [0.5, 0.5]}], "wrong type"),
    ("reject-balanced-missing", "balanced_accuracy", [{"prediction": 1}, {"label": 1}], "missing field"),
    ("reject-balanced-empty-scores", "balanced_accuracy", [{"prediction": [], "label": 0}], "wrong length"),
    ("reject-kappa-string", "cohen_kappa", [{"prediction": "cat", "label": 0}], "mixed class types"),
]
for name, typ, rs, reason in crej:
    add("classify", name, {"type": typ}, rs, None, reject=reason)

versions = {"scikit-learn": sklearn.__version__, "numpy": np.__version__, "python": sys.version.split()[0]}
for fam, cases in files.items():
    out = os.path.join(HERE, f"regerr_{fam}.json")
    with open(out, "w") as f:
        json.dump({"generator": "gen_regerr.py", "versions": versions, "cases": cases}, f, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {out}: {len(cases)} cases, {os.path.getsize(out)} bytes")
print("sklearn values left out (relative error > 1e-9 against the exact value; the -exact case stays):")
for line in inaccurate:
    print("  " + line)
print("largest relative error of sklearn against the exact value in the kept cases:",
      {k: f"{v:.3g}" for k, v in sorted(worst.items())})
