#!/usr/bin/env python3
"""Generate testdata/goldens/names.json: goldens of class NAMES without the classes option
(package metrics/classify).

Records hold class names (strings) in both fields and the metric has no classes option: the
classes are the names seen, in sorted order. Every value is the REAL scikit-learn (pinned in
requirements.txt) given the same string labels, with no labels= argument: sklearn orders string
labels with np.unique, i.e. by Unicode code point, which is the byte order of their UTF-8 that
evalstream sorts by. details.classes (the names in that order) is checked too, so a wrong order
fails even where the value would not show it.

MindNLP presets are not covered here: MindNLP takes no names, and its per-class arrays over the
classes seen are sklearn's with zero_division 0 (the mindnlp precision/recall/f1 cases below).

Run: /tmp/goldenvenv/bin/python testdata/goldens/gen_names.py  (from the repository root)
"""
import json
import os
import random
import sys
import warnings

import numpy as np
import sklearn
from sklearn.metrics import (accuracy_score, balanced_accuracy_score, classification_report, cohen_kappa_score,
                             confusion_matrix, matthews_corrcoef, precision_recall_fscore_support)

warnings.filterwarnings("ignore")
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "names.json")

cases = []
seen_names = set()


def add(name, metric, records, value, details=None, rtol=1e-12, reject=None):
    assert name not in seen_names, name
    seen_names.add(name)
    c = {"name": name, "metric": metric, "records": records, "value": value, "rtol": rtol}
    if details:
        c["details"] = details
    if reject:
        c["reject"] = reject
        c.pop("value")
    cases.append(c)


def classes_of(y, p):
    """sklearn's label set for string labels: np.unique of both columns (code point order)."""
    return [str(x) for x in np.unique(np.asarray(list(y) + list(p)))]


def true_classes(y):
    return [str(x) for x in np.unique(np.asarray(list(y)))]


def all_types(tag, recs):
    y = [r["label"] for r in recs]
    p = [r["prediction"] for r in recs]
    cls = classes_of(y, p)
    det = {"classes": cls}
    add(f"{tag}-accuracy", {"type": "accuracy"}, recs, float(accuracy_score(y, p)))
    for zd in (0, 1):
        for avg in ("none", "micro", "macro", "weighted"):
            P, R, F, _ = precision_recall_fscore_support(y, p, average=None if avg == "none" else avg,
                                                         zero_division=zd)
            for typ, v in (("precision", P), ("recall", R), ("f1", F)):
                val = [float(x) for x in v] if avg == "none" else float(v)
                opts = {"type": typ, "compat": "sklearn", "average": avg}
                if zd:
                    opts["zero_division"] = zd
                add(f"{tag}-{typ}-{avg}-zd{zd}", opts, recs, val, det)
    for beta in (0.5, 2.0):
        _, _, F, _ = precision_recall_fscore_support(y, p, beta=beta, average=None, zero_division=0)
        add(f"{tag}-f1-beta{beta}", {"type": "f1", "compat": "sklearn", "beta": beta}, recs,
            [float(x) for x in F], det)
    # mindnlp: every class seen, 0 for an undefined ratio.
    P, R, F, _ = precision_recall_fscore_support(y, p, average=None, zero_division=0)
    for typ, v in (("precision", P), ("recall", R), ("f1", F)):
        add(f"{tag}-{typ}-mindnlp", {"type": typ}, recs, [float(x) for x in v], det)
    add(f"{tag}-confusion", {"type": "confusion_matrix"}, recs,
        confusion_matrix(y, p).astype(float).tolist(), det)
    add(f"{tag}-mcc", {"type": "mcc"}, recs, float(matthews_corrcoef(y, p)))
    for w in ("none", "linear", "quadratic"):
        k = cohen_kappa_score(y, p, weights=None if w == "none" else w)
        add(f"{tag}-kappa-{w}", {"type": "cohen_kappa", "weights": w}, recs,
            None if np.isnan(k) else float(k), det)
    tdet = {"classes": true_classes(y)}
    add(f"{tag}-balanced", {"type": "balanced_accuracy"}, recs, float(balanced_accuracy_score(y, p)), tdet)
    if len(true_classes(y)) > 1:
        add(f"{tag}-balanced-adjusted", {"type": "balanced_accuracy", "adjusted": True}, recs,
            float(balanced_accuracy_score(y, p, adjusted=True)), tdet)
    for zd in (0, 1):
        opts = {"type": "classification_report"}
        if zd:
            opts["zero_division"] = zd
        add(f"{tag}-report-zd{zd}", opts, recs,
            classification_report(y, p, output_dict=True, zero_division=zd), det)


rng = random.Random(2020)


def random_records(n, pool, skill, pred_pool=None):
    pred_pool = pred_pool or pool
    recs = []
    for _ in range(n):
        y = rng.choice(pool)
        p = y if rng.random() < skill and y in pred_pool else rng.choice(pred_pool)
        recs.append({"prediction": p, "label": y})
    return recs


# Binary and multiclass sentiment; seen in an order unlike the sorted one.
all_types("binary", random_records(40, ["pos", "neg"], 0.7))
all_types("three", random_records(120, ["pos", "neu", "neg"], 0.6))
# A class only predicted (recall undefined, left out of balanced accuracy) and one only true
# (precision undefined).
all_types("only-one-side", random_records(60, ["cat", "dog", "bird"], 0.5, ["cat", "dog", "fish"]))
# Names whose code point order differs from a locale's or a number's: upper case before lower
# case, digits as text ("10" < "2"), accents and CJK after ASCII, an astral-plane emoji last.
odd = ["b", "B", "a", "Zeta", "10", "2", "9", "é", "e", "日本", "🙂 smile", "a b"]
all_types("code-point-order", random_records(300, odd, 0.4))
# One class everywhere: kappa is NaN in sklearn (null here), MCC 0.
all_types("single", [{"prediction": "spam", "label": "spam"}] * 5)
# Many classes: past the dense matrix (256) into the sparse one (a few types, to keep the
# file small).
many = [f"c{i:03d}" for i in range(270)]
recs = random_records(700, many, 0.5)
y, p = [r["label"] for r in recs], [r["prediction"] for r in recs]
add("many-f1-macro", {"type": "f1", "compat": "sklearn", "average": "macro"}, recs,
    float(precision_recall_fscore_support(y, p, average="macro", zero_division=0)[2]), {"classes": classes_of(y, p)})
add("many-mcc", {"type": "mcc"}, recs, float(matthews_corrcoef(y, p)))
add("many-kappa-linear", {"type": "cohen_kappa", "weights": "linear"}, recs,
    float(cohen_kappa_score(y, p, weights="linear")))
add("many-report", {"type": "classification_report"}, recs, classification_report(y, p, output_dict=True, zero_division=0))

# Rejections: a name beside an id or a score list in one record; an empty name.
add("reject-name-and-id", {"type": "f1", "compat": "sklearn"}, [{"prediction": "pos", "label": 1}, {"prediction": 0, "label": "neg"}],
    None, reject="mixed class types")
add("reject-scores-and-name", {"type": "accuracy"}, [{"prediction": [0.2, 0.8], "label": "pos"}], None, reject="mixed class types")
add("reject-empty-name", {"type": "classification_report"}, [{"prediction": "", "label": "pos"}], None, reject="missing field")
# A name that reads as a number is a string, not the id: "1" beside 1 is a mix of types, which
# sklearn refuses too.
for f in (accuracy_score, lambda y, p: precision_recall_fscore_support(y, p, average="macro")):
    try:
        f(["1", "0"], [1, 0])
        raise SystemExit("sklearn accepted the name '1' beside the id 1")
    except ValueError as e:
        assert "Mix of label input types" in str(e), e
add("reject-digit-name-and-id", {"type": "accuracy"}, [{"prediction": 1, "label": "1"}], None, reject="mixed class types")
add("reject-id-and-digit-name", {"type": "f1", "compat": "sklearn"}, [{"prediction": "0", "label": 0}], None,
    reject="mixed class types")
# Across records: names in one, ids in another (each record valid alone) is null.
try:
    precision_recall_fscore_support(np.asarray(["1", 1], dtype=object), np.asarray(["1", 1], dtype=object),
                                    average="macro")
    raise SystemExit("sklearn accepted names and ids across records")
except (ValueError, TypeError):
    pass
for typ in ("accuracy", "f1", "confusion_matrix"):
    add(f"digit-names-and-ids-across-records-{typ}", {"type": typ},
        [{"prediction": "1", "label": "1"}, {"prediction": 1, "label": 1}], None)

out = {
    "generator": "gen_names.py",
    "versions": {"scikit-learn": sklearn.__version__, "numpy": np.__version__, "python": sys.version.split()[0]},
    "cases": cases,
}
with open(OUT, "w") as f:
    json.dump(out, f, separators=(",", ":"))
    f.write("\n")
print(f"wrote {OUT}: {len(cases)} cases, {os.path.getsize(OUT)} bytes")
