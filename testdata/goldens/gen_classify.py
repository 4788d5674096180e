#!/usr/bin/env python3
"""Generate testdata/goldens/classify.json: goldens for package metrics/classify.

Reference values come from the REAL scikit-learn (pinned in requirements.txt):
precision_recall_fscore_support (every average, labels=, zero_division=, beta), matthews_corrcoef,
confusion_matrix, accuracy_score and top_k_accuracy_score. MindNLP cannot be installed, so its
values come from small faithful re-implementations of mindnlp/metrics/*.py (spec §6), which are
asserted against the MindNLP seed values first.

Run: /tmp/goldenvenv/bin/python testdata/goldens/gen_classify.py  (from the repository root)
"""
import json
import math
import os
import random
import sys
import warnings

import numpy as np
import sklearn
from sklearn.metrics import (accuracy_score, confusion_matrix, matthews_corrcoef,
                             precision_recall_fscore_support, top_k_accuracy_score)

warnings.filterwarnings("ignore")
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "classify.json")
EPS = sys.float_info.min

# ---------------------------------------------------------------------------------------------
# MindNLP re-implementations (mindnlp/metrics @ 94b64df3; spec §6).


def mn_argmax(row):
    """numpy argmax: first maximum."""
    return int(np.argmax(np.asarray(row, dtype=np.float64)))


def mn_accuracy(preds, labels):
    """MindNLP Accuracy: argmax, or np.around (half to even) when C == 1."""
    correct = 0
    for p, y in zip(preds, labels):
        if len(p) == 1:
            correct += int(np.around(p[0]) == y)
        else:
            correct += int(mn_argmax(p) == y)
    return correct / len(preds)


def mn_counts(preds, labels, c):
    tp = np.zeros(c)
    pos = np.zeros(c)
    act = np.zeros(c)
    for p, y in zip(preds, labels):
        k = mn_argmax(p) if isinstance(p, list) else p
        pos[k] += 1
        act[y] += 1
        if k == y:
            tp[k] += 1
    return tp, pos, act


def mn_precision(preds, labels, c):
    tp, pos, _ = mn_counts(preds, labels, c)
    return tp / (pos + EPS)


def mn_recall(preds, labels, c):
    tp, _, act = mn_counts(preds, labels, c)
    return tp / (act + EPS)


def mn_f1(preds, labels, c):
    tp, pos, act = mn_counts(preds, labels, c)
    return 2 * tp / (act + pos + EPS)


def mn_mcc(preds, labels):
    tp = fp = tn = fn = 0
    for p, y in zip(preds, labels):
        k = mn_argmax(p) if isinstance(p, list) else p
        if k == 1:
            if k == y:
                tp += 1
            else:
                fp += 1
        else:
            if k == y:
                tn += 1
            else:
                fn += 1
    if tp == 0 or fp == 0 or tn == 0 or fn == 0:
        return 0.0
    return (tp * tn - fp * fn) / math.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))


def mn_confusion(preds, labels, c):
    m = np.zeros((c, c))
    for p, y in zip(preds, labels):
        k = mn_argmax(p) if isinstance(p, list) else p
        m[y][k] += 1
    return m


def mn_average(per, support, average):
    """Our documented averages over MindNLP's per-class arrays (every class 0..C-1)."""
    per = np.asarray(per, dtype=np.float64)
    if average == "macro":
        return math.fsum(per) / len(per)
    if average == "weighted":
        s = sum(support)
        return math.fsum(v * w for v, w in zip(per, support)) / s
    raise ValueError(average)


# Seeds (MindNLP docstrings, spec §6).
S9_P = [[0.2, 0.5], [0.3, 0.1], [0.9, 0.6]]
S9_L = [1, 0, 1]
assert mn_accuracy(S9_P, S9_L) == 0.6666666666666666
assert list(mn_precision(S9_P, S9_L, 2)) == [0.5, 1.0]
assert list(mn_recall(S9_P, S9_L, 2)) == [1.0, 0.5]
assert [round(v, 4) for v in mn_f1(S9_P, S9_L, 2)] == [0.6667, 0.6667]
S6_P = [[0.8, 0.2], [-0.5, 0.5], [0.1, 0.4], [0.6, 0.3], [0.6, 0.3]]
S6_L = [0, 1, 0, 1, 0]
assert mn_mcc(S6_P, S6_L) == 0.16666666666666666
assert matthews_corrcoef(S6_L, [mn_argmax(p) for p in S6_P]) == 0.16666666666666666
assert mn_confusion([1, 0, 1, 0], [1, 0, 0, 1], 2).tolist() == [[1, 1], [1, 1]]
# §6.3 example: argmax [0,0,1] vs labels [0,1,1], C = 3.
E63_P = [[0.9, 0.1, 0.0], [0.8, 0.1, 0.1], [0.1, 0.8, 0.1]]
E63_L = [0, 1, 1]
assert list(mn_precision(E63_P, E63_L, 3)) == [0.5, 1.0, 0.0]
assert list(mn_recall(E63_P, E63_L, 3)) == [1.0, 0.5, 0.0]
assert [round(v, 3) for v in mn_f1(E63_P, E63_L, 3)] == [0.667, 0.667, 0.0]
# MCC quirk: perfect → 0.0 (sklearn 1.0), perfectly wrong → 0.0 (sklearn -1.0).
assert mn_mcc([[0, 1], [1, 0]], [1, 0]) == 0.0 and matthews_corrcoef([1, 0], [1, 0]) == 1.0
assert mn_mcc([[1, 0], [0, 1]], [1, 0]) == 0.0 and matthews_corrcoef([1, 0], [0, 1]) == -1.0

# ---------------------------------------------------------------------------------------------

cases = []
names = set()


def add(name, metric, records, value, details=None, rtol=1e-12, reject=None):
    assert name not in names, name
    names.add(name)
    c = {"name": name, "metric": metric, "records": records, "value": value, "rtol": rtol}
    if details:
        c["details"] = details
    if reject:
        c["reject"] = reject
        c.pop("value")
    cases.append(c)


def tolist(x):
    if isinstance(x, np.ndarray):
        return [tolist(v) for v in x.tolist()] if x.ndim > 1 else [float(v) for v in x.tolist()]
    if isinstance(x, list):
        return [tolist(v) for v in x]
    return float(x)


def recs(preds, labels):
    return [{"prediction": p, "label": y} for p, y in zip(preds, labels)]


# --- seeds ------------------------------------------------------------------------------------
add("seed9-accuracy", {"type": "accuracy"}, recs(S9_P, S9_L), 0.6666666666666666)
add("seed9-precision", {"type": "precision"}, recs(S9_P, S9_L), [0.5, 1.0])
add("seed9-recall", {"type": "recall"}, recs(S9_P, S9_L), [1.0, 0.5])
add("seed9-f1", {"type": "f1"}, recs(S9_P, S9_L), tolist(mn_f1(S9_P, S9_L, 2)))
add("seed6-mcc-mindnlp", {"type": "mcc", "compat": "mindnlp"}, recs(S6_P, S6_L), 0.16666666666666666,
    {"tp": 1, "fp": 1, "tn": 2, "fn": 1})
add("seed6-mcc-sklearn", {"type": "mcc"}, recs(S6_P, S6_L), 0.16666666666666666)
add("seed11-confusion", {"type": "confusion_matrix"}, recs([1, 0, 1, 0], [1, 0, 0, 1]), [[1.0, 1.0], [1.0, 1.0]])

# --- §6.3 example table ----------------------------------------------------------------------
e_pred = [mn_argmax(p) for p in E63_P]
for typ, fn, idx in (("precision", mn_precision, 0), ("recall", mn_recall, 1), ("f1", mn_f1, 2)):
    add(f"e63-{typ}-mindnlp", {"type": typ}, recs(E63_P, E63_L), tolist(fn(E63_P, E63_L, 3)))
    r = precision_recall_fscore_support(E63_L, e_pred, average=None, zero_division=0)
    add(f"e63-{typ}-sklearn-none", {"type": typ, "compat": "sklearn"}, recs(E63_P, E63_L), tolist(r[idx]),
        {"classes": [0, 1], "support": [1, 2]})
    for avg in ("micro", "macro", "weighted"):
        r = precision_recall_fscore_support(E63_L, e_pred, average=avg, zero_division=0)
        add(f"e63-{typ}-sklearn-{avg}", {"type": typ, "compat": "sklearn", "average": avg},
            recs(E63_P, E63_L), float(r[idx]))
    r = precision_recall_fscore_support(E63_L, e_pred, average=None, labels=[0, 1, 2], zero_division=1)
    add(f"e63-{typ}-sklearn-labels-zd1", {"type": typ, "compat": "sklearn", "num_classes": 3, "zero_division": 1},
        recs(E63_P, E63_L), tolist(r[idx]), {"classes": [0, 1, 2]})
# the spec's rounded numbers
r = precision_recall_fscore_support(E63_L, e_pred, average="macro", zero_division=0)
assert [round(v, 4) for v in r[:3]] == [0.75, 0.75, 0.6667]
r = precision_recall_fscore_support(E63_L, e_pred, average="weighted", zero_division=0)
assert [round(v, 4) for v in r[:3]] == [0.8333, 0.6667, 0.6667]

# --- MCC quirk cases -------------------------------------------------------------------------
quirk = {
    "perfect": ([1, 0, 1, 0], [1, 0, 1, 0]),
    "perfectly-wrong": ([0, 1, 0, 1], [1, 0, 1, 0]),
    "all-one-class": ([1, 1, 1], [1, 1, 1]),
}
# a 3-class case where sklearn gives 0.7 and MindNLP 0.0 (spec §6.4)
rng = random.Random(6)
for _ in range(200000):
    m = rng.randrange(4, 13)
    yt = [rng.randrange(3) for _ in range(m)]
    yp = [rng.randrange(3) for _ in range(m)]
    if abs(matthews_corrcoef(yt, yp) - 0.7) < 1e-12 and mn_mcc(yp, yt) == 0.0:
        quirk["3class-0.7"] = (yp, yt)
        break
assert "3class-0.7" in quirk
for name, (yp, yt) in quirk.items():
    add(f"mcc-quirk-{name}-mindnlp", {"type": "mcc", "compat": "mindnlp"}, recs(yp, yt), mn_mcc(yp, yt))
    add(f"mcc-quirk-{name}-sklearn", {"type": "mcc"}, recs(yp, yt), float(matthews_corrcoef(yt, yp)))

# --- accuracy quirks (re-implementation) ------------------------------------------------------
single = [[0.5], [2.5], [1.5], [0.49], [-0.5], [3.5000001]]
single_l = [0, 2, 2, 1, 0, 4]
add("accuracy-single-score-round-half-even", {"type": "accuracy"}, recs(single, single_l),
    mn_accuracy(single, single_l))
ties = [[0.5, 0.5], [0.2, 0.2, 0.1], [0.1, 0.3, 0.3]]
ties_l = [0, 1, 1]
add("accuracy-ties-first-max", {"type": "accuracy"}, recs(ties, ties_l), mn_accuracy(ties, ties_l))
# one-hot labels
oh_l = [[0, 1], [1, 0], [0, 1]]
add("seed9-accuracy-onehot", {"type": "accuracy"}, recs(S9_P, oh_l), 0.6666666666666666)
add("seed9-precision-onehot", {"type": "precision"}, recs(S9_P, oh_l), [0.5, 1.0])


def topk_ref(scores, labels, k):
    """Our documented top-k rule: rank = #higher + #equal at a lower index."""
    hit = 0
    for s, y in zip(scores, labels):
        if len(s) == 1:
            hit += int(np.around(s[0]) == y)
            continue
        if y >= len(s):
            continue
        rank = sum(1 for i, x in enumerate(s) if x > s[y] or (x == s[y] and i < y))
        hit += int(rank < k)
    return hit / len(scores)


# --- randomized corpora ------------------------------------------------------------------------
rng = random.Random(20240914)
for i in range(36):
    c = 2 + i % 6  # 2..7 classes
    n = rng.choice([1, 2, 3, 5, 8, 13, 21, 40])
    mode = rng.choice(["scores", "scores-ties", "ids"])
    present = list(range(c))
    if i % 5 == 1:  # missing classes
        present = sorted(rng.sample(range(c), max(1, c // 2)))
    if i % 9 == 4:  # all one class
        present = [rng.randrange(c)]
    y = [rng.choice(present) for _ in range(n)]
    if mode == "ids":
        pred_present = present if rng.random() < 0.5 else list(range(c))
        preds = [yy if rng.random() < 0.5 else rng.choice(pred_present) for yy in y]
        yp = preds
    else:
        preds = []
        for yy in y:
            if mode == "scores-ties":
                row = [rng.choice([0.0, 0.25, 0.5]) for _ in range(c)]
            else:
                row = [round(rng.random(), 6) for _ in range(c)]
                if rng.random() < 0.4:
                    row[yy] += 0.5
            preds.append(row)
        yp = [mn_argmax(p) for p in preds]
    records = recs(preds, y)
    tag = f"r{i:02d}-c{c}-n{n}-{mode}"
    support_present = sorted(set(y) | set(yp))

    # sklearn P/R/F with every average, beta != 1, labels= and zero_division
    beta = rng.choice([1.0, 0.5, 2.0, 3.0])
    zd = rng.choice([0, 1])
    for avg in (None, "micro", "macro", "weighted"):
        for use_labels in (False, True):
            labels = list(range(c)) if use_labels else None
            r = precision_recall_fscore_support(y, yp, beta=beta, labels=labels, average=avg, zero_division=zd)
            for typ, idx in (("precision", 0), ("recall", 1), ("f1", 2)):
                metric = {"type": typ, "compat": "sklearn", "average": avg or "none", "zero_division": zd}
                if typ == "f1":
                    metric["beta"] = beta
                if use_labels:
                    metric["num_classes"] = c
                val = tolist(r[idx]) if avg is None else float(r[idx])
                det = None
                if avg is None:
                    det = {"classes": labels if use_labels else support_present,
                           "support": [int(v) for v in r[3]]}
                add(f"{tag}-{typ}-sklearn-{avg or 'none'}{'-labels' if use_labels else ''}", metric,
                    records, val, det)
    # MindNLP P/R/F: every class 0..C-1 (C = the score width; ids: num_classes)
    mn_metric_extra = {"num_classes": c} if mode == "ids" else {}
    for typ, fn in (("precision", mn_precision), ("recall", mn_recall), ("f1", mn_f1)):
        per = fn(preds, y, c)
        add(f"{tag}-{typ}-mindnlp", {"type": typ, **mn_metric_extra}, records, tolist(per),
            {"classes": list(range(c))})
        tp, pos, act = mn_counts(preds, y, c)
        for avg in ("macro", "weighted"):
            add(f"{tag}-{typ}-mindnlp-{avg}", {"type": typ, "average": avg, **mn_metric_extra}, records,
                mn_average(per, act, avg))
        add(f"{tag}-{typ}-mindnlp-micro", {"type": typ, "average": "micro", **mn_metric_extra}, records,
            float(accuracy_score(y, yp)))
    # MCC, confusion matrix, accuracy
    add(f"{tag}-mcc-sklearn", {"type": "mcc"}, records, float(matthews_corrcoef(y, yp)))
    add(f"{tag}-mcc-mindnlp", {"type": "mcc", "compat": "mindnlp"}, records, mn_mcc(preds, y))
    add(f"{tag}-confusion", {"type": "confusion_matrix", "num_classes": c}, records,
        tolist(confusion_matrix(y, yp, labels=list(range(c))).astype(np.float64)))
    acc = float(accuracy_score(y, yp))
    if mode != "ids":
        assert acc == mn_accuracy(preds, y)
    add(f"{tag}-accuracy", {"type": "accuracy"}, records, acc)
    if mode == "scores" and c >= 3:
        for k in range(2, c):
            want = float(top_k_accuracy_score(y, preds, k=k, labels=list(range(c))))
            assert want == topk_ref(preds, y, k)
            add(f"{tag}-accuracy-top{k}", {"type": "accuracy", "top_k": k}, records, want)
    if mode == "scores-ties" and c >= 3:
        add(f"{tag}-accuracy-top2-ties", {"type": "accuracy", "top_k": 2}, records, topk_ref(preds, y, 2))

# --- binary MCC at scale (sklearn), larger counts -------------------------------------------
rng = random.Random(77)
for i in range(6):
    n = 300
    c = 2 if i < 3 else 5
    y = [rng.randrange(c) for _ in range(n)]
    yp = [yy if rng.random() < 0.6 else rng.randrange(c) for yy in y]
    add(f"mcc-large-{i}-c{c}-sklearn", {"type": "mcc"}, recs(yp, y), float(matthews_corrcoef(y, yp)))
    add(f"mcc-large-{i}-c{c}-mindnlp", {"type": "mcc", "compat": "mindnlp"}, recs(yp, y), mn_mcc(yp, y))

# --- rejections -------------------------------------------------------------------------------
add("reject-negative-label", {"type": "precision"}, [{"prediction": [0.1, 0.9], "label": -1}], None,
    reject="label out of range")
add("reject-label-ge-num-classes", {"type": "f1", "num_classes": 2}, [{"prediction": 1, "label": 2}], None,
    reject="label out of range")
# Without num_classes the matrix covers the ids 0..max seen (an unseen id in between is a zero
# row and column, as MindNLP's matrix of num_classes = max + 1).
add("confusion-inferred", {"type": "confusion_matrix"}, recs([2, 0, 4, 1, 4], [0, 1, 4, 1, 2]),
    tolist(confusion_matrix([0, 1, 4, 1, 2], [2, 0, 4, 1, 4], labels=list(range(5))).astype(np.float64)))
add("reject-confusion-id-1024", {"type": "confusion_matrix"}, [{"prediction": 1024, "label": 0}], None,
    reject="label out of range")
add("reject-ragged-scores", {"type": "recall", "num_classes": 3}, [{"prediction": [0.1, 0.9], "label": 1}], None,
    reject="ragged scores")
add("reject-not-one-hot", {"type": "accuracy"}, [{"prediction": [0.1, 0.9], "label": [0.5, 0.5]},
                                                 {"prediction": [0.1, 0.9], "label": [1, 1]}], None,
    reject="wrong type")
# A class name and an id in one record: nothing says which name the id stands for.
add("reject-string", {"type": "mcc"}, [{"prediction": "cat", "label": 1}], None, reject="mixed class types")
add("reject-missing", {"type": "mcc"}, [{"prediction": 1}, {"label": 1}, {"prediction": None, "label": 0}], None,
    reject="missing field")
add("reject-empty-scores", {"type": "accuracy"}, [{"prediction": [], "label": 0}], None, reject="wrong length")
add("reject-topk-needs-scores", {"type": "accuracy", "top_k": 2}, [{"prediction": 1, "label": 0}], None,
    reject="wrong type")

out = {
    "generator": "gen_classify.py",
    "versions": {"scikit-learn": sklearn.__version__, "numpy": np.__version__,
                 "python": sys.version.split()[0], "mindnlp": "re-implementation of mindnlp/metrics @ 94b64df3"},
    "cases": cases,
}
with open(OUT, "w") as f:
    json.dump(out, f, separators=(",", ":"))
    f.write("\n")
print(f"wrote {OUT}: {len(cases)} cases, {os.path.getsize(OUT)} bytes")
