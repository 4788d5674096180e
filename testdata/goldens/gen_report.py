#!/usr/bin/env python3
"""Generate testdata/goldens/report.json: goldens of the classification_report metric
(metrics/classify).

Every value is the REAL scikit-learn's classification_report(y, p, output_dict=True) (pinned in
requirements.txt): per-class precision, recall, f1-score and support keyed by the class id as a
string, "accuracy", "macro avg" and "weighted avg". sklearn writes every support as a float; the
values compare as numbers. Predictions given as score lists and labels given one-hot are
argmax'ed (first maximum) before sklearn sees them, as evalstream does.

With the classes option, records hold class names; sklearn gets the names and labels=classes
(every named class reported, in that order, keyed by name). The same data checks the classes
option of f1, precision, accuracy and confusion_matrix.

Run: /tmp/goldenvenv/bin/python testdata/goldens/gen_report.py  (from the repository root)
"""
import json
import os
import random
import sys
import warnings

import numpy as np
import sklearn
from sklearn.metrics import accuracy_score, classification_report, confusion_matrix, f1_score, precision_score

warnings.filterwarnings("ignore")
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "report.json")

cases = []
names = set()


def add(name, metric, records, value, rtol=1e-12, reject=None):
    assert name not in names, name
    names.add(name)
    c = {"name": name, "metric": metric, "records": records, "value": value, "rtol": rtol}
    if reject:
        c["reject"] = reject
        c.pop("value")
    cases.append(c)


def cls(v):
    return int(np.argmax(np.asarray(v, dtype=np.float64))) if isinstance(v, list) else v


def report(records, zero_division=0):
    y = [cls(r["label"]) for r in records]
    p = [cls(r["prediction"]) for r in records]
    return classification_report(y, p, output_dict=True, zero_division=zero_division)


def case(name, records, **opts):
    metric = {"type": "classification_report"}
    metric.update(opts)
    add(name, metric, records, report(records, opts.get("zero_division", 0)))


rng = random.Random(20)

# Random multiclass data with a skill knob.
for n, k, skill in [(10, 2, 0.6), (50, 3, 0.7), (200, 5, 0.5), (1000, 4, 0.8), (37, 7, 0.3)]:
    recs = []
    for _ in range(n):
        y = rng.randrange(k)
        p = y if rng.random() < skill else rng.randrange(k)
        recs.append({"prediction": p, "label": y})
    case(f"random-n{n}-k{k}", recs)

# Class ids with gaps: only the classes seen are reported, keyed by id.
case("gaps", [{"prediction": p, "label": y} for p, y in [(0, 0), (5, 5), (9, 5), (5, 9), (9, 9), (0, 9), (12, 0)]])
# A class only predicted (recall undefined) and one only true (precision undefined), both
# zero_division values.
only = [{"prediction": p, "label": y} for p, y in [(0, 0), (1, 0), (2, 3), (0, 3), (1, 1), (2, 0)]]
case("only-predicted-only-true", only)
case("only-predicted-only-true-zd1", only, zero_division=1)
# Everything wrong: f1 0 everywhere; and a perfect classifier.
case("all-wrong", [{"prediction": 1 - y, "label": y} for y in [0, 1, 1, 0, 1]])
case("all-wrong-zd1", [{"prediction": 1 - y, "label": y} for y in [0, 1, 1, 0, 1]], zero_division=1)
case("perfect", [{"prediction": y, "label": y} for y in [0, 1, 2, 2, 1, 0, 2]])
# A single class in both fields.
case("single-class", [{"prediction": 3, "label": 3}] * 4)
# Score lists (argmax, first maximum wins) and one-hot labels.
case("scores-and-one-hot", [
    {"prediction": [0.1, 0.7, 0.2], "label": [0, 1, 0]},
    {"prediction": [0.5, 0.5, 0.0], "label": [0, 0, 1]},
    {"prediction": [0.2, 0.2, 0.6], "label": [0, 0, 1]},
    {"prediction": [0.9, 0.05, 0.05], "label": [1, 0, 0]},
    {"prediction": [0.3, 0.3, 0.4], "label": [0, 1, 0]},
])

# Class names (the classes option): sklearn with labels=classes.
class_names = ["neg", "neu", "pos"]
for n, k_names, skill in [(12, class_names, 0.6), (300, class_names, 0.7), (80, ["cat", "dog", "bird", "fish"], 0.5)]:
    recs = []
    for _ in range(n):
        y = rng.choice(k_names[:-1]) if k_names[-1] == "fish" else rng.choice(k_names)  # "fish" never true
        p = y if rng.random() < skill else rng.choice(k_names[:-1])  # a wrong guess is never the last class
        recs.append({"prediction": p, "label": y})
    y = [r["label"] for r in recs]
    p = [r["prediction"] for r in recs]
    tag = f"names-n{n}-k{len(k_names)}"
    add(f"{tag}-report", {"type": "classification_report", "classes": k_names}, recs,
        classification_report(y, p, labels=k_names, output_dict=True, zero_division=0))
    add(f"{tag}-report-zd1", {"type": "classification_report", "classes": k_names, "zero_division": 1}, recs,
        classification_report(y, p, labels=k_names, output_dict=True, zero_division=1))
    add(f"{tag}-f1-none", {"type": "f1", "compat": "sklearn", "classes": k_names}, recs,
        [float(x) for x in f1_score(y, p, labels=k_names, average=None, zero_division=0)])
    add(f"{tag}-f1-macro", {"type": "f1", "compat": "sklearn", "average": "macro", "classes": k_names}, recs,
        float(f1_score(y, p, labels=k_names, average="macro", zero_division=0)))
    add(f"{tag}-precision-weighted", {"type": "precision", "compat": "sklearn", "average": "weighted", "classes": k_names}, recs,
        float(precision_score(y, p, labels=k_names, average="weighted", zero_division=0)))
    add(f"{tag}-accuracy", {"type": "accuracy", "classes": k_names}, recs, float(accuracy_score(y, p)))
    add(f"{tag}-confusion", {"type": "confusion_matrix", "classes": k_names}, recs,
        confusion_matrix(y, p, labels=k_names).astype(float).tolist())
add("names-reject-unknown", {"type": "classification_report", "classes": class_names}, [{"prediction": "neg", "label": "positive"}], None,
    reject="unknown class")
# num_classes fixes the classes to the ids 0..C-1: a name cannot be one of them.
add("names-reject-with-num-classes", {"type": "f1", "compat": "sklearn", "num_classes": 2}, [{"prediction": "neg", "label": "neg"}], None,
    reject="wrong type")

# No records: null with a reason (sklearn raises on empty input).
add("no-records", {"type": "classification_report"}, [], None)
add("reject-string", {"type": "classification_report"}, [{"prediction": "neg", "label": 1}], None, reject="mixed class types")
add("reject-negative", {"type": "classification_report"}, [{"prediction": -1, "label": 1}], None,
    reject="label out of range")

out = {
    "generator": "gen_report.py",
    "versions": {"scikit-learn": sklearn.__version__, "numpy": np.__version__, "python": sys.version.split()[0]},
    "cases": cases,
}
with open(OUT, "w") as f:
    json.dump(out, f, separators=(",", ":"))
    f.write("\n")
print(f"wrote {OUT}: {len(cases)} cases, {os.path.getsize(OUT)} bytes")
