#!/usr/bin/env python3
"""Generate testdata/goldens/probnames.json and probnames_prob.json: goldens of class NAMES as
labels of the ranking metrics (package metrics/rank: auroc, average_precision; binary and multiclass, where score
column j belongs to the j-th sorted name) and of log_loss and brier (package metrics/prob).

Records hold one score (or a 2-element score list) and a string label. Every value is the REAL
scikit-learn (pinned in requirements.txt) given the same string labels:
  - roc_auc_score takes the greater of the two labels in np.unique order (code point order,
    the byte order of UTF-8 that evalstream sorts by) as the positive class; one label: NaN
    (null here); three labels with one score per record: it raises (null here).
  - average_precision_score needs pos_label for two string labels (default 1 raises: null
    here); a pos_label that is not one of two labels raises (null); with one label it scores
    0.0 when that label is not pos_label (also without pos_label: the integer 1 is no string
    label, not even "1") and 1.0 when it is, with a warning only.
  - brier_score_loss of a list: column j is the j-th sorted label; of a float, with pos_label: the records of pos_label are positive, every other label
    negative (a pos_label that is no label: all negative); without pos_label it raises; three
    labels raise.
  - log_loss reads probability column j as that of the j-th sorted label (a binary p as that
    of the greater label); one label, or a label count other than the column count: it raises.
Where sklearn raises, the case checks that evalstream gives null (the Go tests check the
reason). Labels mixing ids and names are null too (sklearn raises on mixed types).

Run: /tmp/goldenvenv/bin/python testdata/goldens/gen_probnames.py  (from the repository root)
"""
import json
import math
import os
import random
import sys
import warnings

import numpy as np
import sklearn
from sklearn.metrics import average_precision_score, brier_score_loss, log_loss, roc_auc_score

warnings.filterwarnings("ignore")
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "probnames.json")
OUT_PROB = os.path.join(os.path.dirname(os.path.abspath(__file__)), "probnames_prob.json")

cases = []
seen_names = set()


def add(name, metric, records, value, details=None, reject=None):
    assert name not in seen_names, name
    seen_names.add(name)
    c = {"name": name, "metric": metric, "records": records, "value": value, "rtol": 1e-12}
    if details:
        c["details"] = details
    if reject:
        c["reject"] = reject
        c.pop("value")
    cases.append(c)


def sk(f):
    """The value of f(), or None where sklearn raises or returns NaN."""
    try:
        v = float(f())
    except (ValueError, TypeError):
        return None
    return None if math.isnan(v) else v


def records(rng, n, names, skill, as_list=False):
    out = []
    for _ in range(n):
        y = rng.choice(names)
        s = round(min(1.0, max(0.0, rng.random() * (1 - skill) + (skill if y == max(names) else 0))), 2)
        out.append({"prediction": [round(1 - s, 2), s] if as_list else s, "label": y})
    return out


def xy(recs):
    y = np.asarray([r["label"] for r in recs])
    s = np.asarray([r["prediction"][1] if isinstance(r["prediction"], list) else r["prediction"] for r in recs])
    return y, s


rng = random.Random(20)
pools = {
    "negpos": ["neg", "pos"],
    "ba": ["b", "a"],
    "case": ["a", "Z"],  # 'Z' < 'a' in code point order
    "accent": ["é", "z"],  # 'z' < 'é'
    "digits": ["10", "9"],  # strings, not numbers: '10' < '9'
}
for tag, names in pools.items():
    for n, skill, as_list in ((40, 0.3, False), (200, 0.1, True)):
        recs = records(rng, n, names, skill, as_list)
        y, s = xy(recs)
        cls = [str(x) for x in np.unique(y)]
        det = {"classes": cls}
        form = "list" if as_list else "score"
        add(f"auroc-{tag}-{form}-{n}", {"type": "auroc"}, recs, sk(lambda: roc_auc_score(y, s)), det)
        add(f"auroc-{tag}-{form}-{n}-maxfpr", {"type": "auroc", "max_fpr": 0.4}, recs,
            sk(lambda: roc_auc_score(y, s, max_fpr=0.4)), det)
        for pos in names:
            add(f"ap-{tag}-{form}-{n}-pos-{pos}", {"type": "average_precision", "pos_label": pos}, recs,
                sk(lambda: average_precision_score(y, s, pos_label=pos)), det)
        v = sk(lambda: average_precision_score(y, s))
        assert v is None
        add(f"ap-{tag}-{form}-{n}-no-pos-label", {"type": "average_precision"}, recs, v)
        v = sk(lambda: average_precision_score(y, s, pos_label="nope"))
        assert v is None
        add(f"ap-{tag}-{form}-{n}-pos-label-not-a-class", {"type": "average_precision", "pos_label": "nope"},
            recs, v)

# One name only.
one = [{"prediction": x, "label": "cat"} for x in (0.1, 0.9, 0.3, 0.3)]
y, s = xy(one)
add("auroc-one-name", {"type": "auroc"}, one, sk(lambda: roc_auc_score(y, s)))
add("ap-one-name-is-pos", {"type": "average_precision", "pos_label": "cat"}, one,
    sk(lambda: average_precision_score(y, s, pos_label="cat")), {"classes": ["cat"]})
add("ap-one-name-not-pos", {"type": "average_precision", "pos_label": "dog"}, one,
    sk(lambda: average_precision_score(y, s, pos_label="dog")), {"classes": ["cat"]})
# Without pos_label, sklearn's default pos_label=1 (an integer) is no class name: with one
# name every record is negative and it scores 0.0 with a warning only (two names raise).
v = sk(lambda: average_precision_score(y, s))
assert v == 0.0, v
add("ap-one-name-no-pos-label", {"type": "average_precision"}, one, v, {"classes": ["cat"]})
add("auroc-one-name-list", {"type": "auroc"}, [{"prediction": [round(1 - r["prediction"], 2), r["prediction"]],
                                                "label": "cat"} for r in one],
    sk(lambda: roc_auc_score(y, np.stack([1 - s, s], axis=1)[:, 1])), {"classes": ["cat"]})
# A name that reads as a number is still a string: not the default integer pos_label 1, but
# the pos_label "1" of a config (evalstream compares pos_label with names as text, which is
# sklearn's pos_label="1").
digit = [{"prediction": x, "label": "1"} for x in (0.1, 0.9, 0.3, 0.3)]
yd, sd = xy(digit)
v = sk(lambda: average_precision_score(yd, sd))
assert v == 0.0, v
add("ap-one-name-digit-no-pos-label", {"type": "average_precision"}, digit, v, {"classes": ["1"]})
for pos in ("1", "0"):
    add(f"ap-one-name-digit-pos-{pos}", {"type": "average_precision", "pos_label": pos}, digit,
        sk(lambda: average_precision_score(yd, sd, pos_label=pos)), {"classes": ["1"]})

# Three names with one score per record: sklearn raises.
three = [{"prediction": x, "label": c} for x, c in ((0.1, "a"), (0.9, "b"), (0.3, "c"), (0.6, "a"))]
y, s = xy(three)
v = sk(lambda: roc_auc_score(y, s))
assert v is None
add("auroc-three-names", {"type": "auroc"}, three, v)
v = sk(lambda: average_precision_score(y, s, pos_label="a"))
assert v is None
add("ap-three-names", {"type": "average_precision", "pos_label": "a"}, three, v)

# Class ids with pos_label (the option works for ids as sklearn's does).
ids = [{"prediction": x, "label": c} for x, c in ((0.1, 0), (0.9, 1), (0.3, 0), (0.6, 1), (0.6, 0), (0.2, 1))]
y = np.asarray([r["label"] for r in ids])
s = np.asarray([r["prediction"] for r in ids])
for pos in (0, 1):
    add(f"ap-ids-pos-label-{pos}", {"type": "average_precision", "pos_label": pos}, ids,
        sk(lambda: average_precision_score(y, s, pos_label=pos)))
v = sk(lambda: average_precision_score(y, s, pos_label=2))
assert v is None
add("ap-ids-pos-label-2", {"type": "average_precision", "pos_label": 2}, ids, v)
# One id only: sklearn checks pos_label against the labels present only when there are two,
# so a pos_label that is no class makes every record negative (0.0, a warning only).
for cls in (0, 1):
    one_id = [{"prediction": x, "label": cls} for x in (0.1, 0.9, 0.3)]
    y1 = np.asarray([cls] * 3)
    s1 = np.asarray([0.1, 0.9, 0.3])
    add(f"ap-ids-only-{cls}", {"type": "average_precision"}, one_id, sk(lambda: average_precision_score(y1, s1)))
    for pos in (0, 1, 2, "a"):
        add(f"ap-ids-only-{cls}-pos-label-{pos}", {"type": "average_precision", "pos_label": pos}, one_id,
            sk(lambda: average_precision_score(y1, s1, pos_label=pos)))

# Mixed ids and names: sklearn raises on mixed label types.
mixed = [{"prediction": 0.1, "label": 0}, {"prediction": 0.9, "label": "pos"}]
try:
    roc_auc_score(np.asarray([0, "pos"], dtype=object), [0.1, 0.9])
    raise SystemExit("sklearn accepted mixed label types")
except (ValueError, TypeError):
    pass
add("auroc-mixed-ids-and-names", {"type": "auroc"}, mixed, None)

# Rejected records: names are binary only, and compat torchmetrics takes ids only.

# Multiclass: score column j belongs to the j-th sorted name of the whole input.
def mc_rank_records(rng, n, names):
    out = []
    for _ in range(n):
        w = [rng.randint(1, 6) for _ in names]
        t = sum(w)
        out.append({"prediction": [x / t for x in w], "label": rng.choice(names)})
    return out


for tag, names in (("abc", ["c", "a", "b"]), ("animals", ["dog", "cat", "émeu", "Zebra"])):
    recs = mc_rank_records(rng, 90, names)
    y = np.asarray([r["label"] for r in recs])
    p = np.asarray([r["prediction"] for r in recs])
    det = {"classes": [str(x) for x in np.unique(y)]}
    for mc in ("ovr", "ovo"):
        for avg in ("macro", "weighted", "none"):
            if mc == "ovo" and avg == "none":
                continue
            v = sk(lambda: roc_auc_score(y, p, multi_class=mc, average=None if avg == "none" else avg)) \
                if avg != "none" else [float(x) for x in roc_auc_score(y, p, multi_class=mc, average=None)]
            add(f"auroc-mc-{tag}-{mc}-{avg}", {"type": "auroc", "multi_class": mc, "average": avg}, recs, v, det)
    for avg in ("macro", "weighted", "none"):
        v = sk(lambda: average_precision_score(y, p, average=avg)) if avg != "none" else \
            [float(x) for x in average_precision_score(y, p, average=None)]
        add(f"ap-mc-{tag}-{avg}", {"type": "average_precision", "average": avg}, recs, v, det)
few = [{"prediction": [0.2, 0.3, 0.5], "label": c} for c in ("a", "b", "a")]
v = sk(lambda: roc_auc_score(np.asarray(["a", "b", "a"]), [[0.2, 0.3, 0.5]] * 3, multi_class="ovr"))
assert v is None
add("auroc-mc-fewer-names-than-columns", {"type": "auroc"}, few, v)
many = [{"prediction": [0.2, 0.3, 0.5], "label": c} for c in ("a", "b", "c", "d")]
v = sk(lambda: roc_auc_score(np.asarray(["a", "b", "c", "d"]), [[0.2, 0.3, 0.5]] * 4, multi_class="ovr"))
assert v is None
add("auroc-mc-more-names-than-columns", {"type": "auroc"}, many, v)
add("reject-name-torchmetrics", {"type": "average_precision", "compat": "torchmetrics"},
    [{"prediction": 0.2, "label": "a"}], None, reject="wrong type")
add("reject-empty-name", {"type": "auroc"}, [{"prediction": 0.2, "label": ""}], None, reject="missing field")

def write(path, cs):
    out = {
        "generator": "testdata/goldens/gen_probnames.py",
        "versions": {"scikit-learn": sklearn.__version__, "numpy": np.__version__, "python": sys.version.split()[0]},
        "cases": cs,
    }
    with open(path, "w") as f:
        json.dump(out, f, separators=(",", ":"), ensure_ascii=False)
    print(f"{len(cs)} cases -> {path}")


write(OUT, cases)

# log_loss (package metrics/prob), binary: sklearn reads p as the probability of the greater
# label in np.unique order (a 2-element list as the columns of the sorted labels).
cases = []
for tag, names in pools.items():
    for n, skill, as_list in ((40, 0.3, False), (200, 0.1, True)):
        recs = records(rng, n, names, skill, as_list)
        y = np.asarray([r["label"] for r in recs])
        p = np.asarray([r["prediction"] for r in recs])
        det = {"classes": [str(x) for x in np.unique(y)]}
        form = "list" if as_list else "score"
        add(f"log_loss-{tag}-{form}-{n}", {"type": "log_loss"}, recs, sk(lambda: log_loss(y, p)), det)
        add(f"log_loss-{tag}-{form}-{n}-sum", {"type": "log_loss", "normalize": False}, recs,
            sk(lambda: log_loss(y, p, normalize=False)), det)
        if not as_list:
            # eps clips before sklearn's own clip; sklearn 1.9 has no eps: clip the input.
            add(f"log_loss-{tag}-{form}-{n}-eps", {"type": "log_loss", "eps": 0.05}, recs,
                sk(lambda: log_loss(y, np.clip(p, 0.05, 1 - 0.05))), det)
y = np.asarray(["cat"] * 3)
v = sk(lambda: log_loss(y, [0.1, 0.9, 0.3]))
assert v is None
add("log_loss-one-name", {"type": "log_loss"}, [{"prediction": x, "label": "cat"} for x in (0.1, 0.9, 0.3)], v,
    {"classes": ["cat"]})
v = sk(lambda: log_loss(np.asarray(["a", "b", "c"]), [0.1, 0.9, 0.3]))
assert v is None
add("log_loss-three-names", {"type": "log_loss"},
    [{"prediction": x, "label": c} for x, c in ((0.1, "a"), (0.9, "b"), (0.3, "c"))], v)
add("log_loss-mixed-ids-and-names", {"type": "log_loss"},
    [{"prediction": 0.1, "label": 0}, {"prediction": 0.9, "label": "pos"}, {"prediction": 0.8, "label": 1}], None)
# Multiclass: column j is the j-th sorted name of the whole input.
def mc_records(rng, n, names, k):
    out = []
    for _ in range(n):
        w = [rng.randint(1, 9) for _ in range(k)]
        t = sum(w)
        out.append({"prediction": [x / t for x in w], "label": rng.choice(names)})
    return out


for tag, names in (("abc", ["c", "a", "b"]), ("animals", ["dog", "cat", "émeu", "Zebra"]),
                   ("digits", ["10", "9", "2"])):
    recs = mc_records(rng, 80, names, len(names))
    y = np.asarray([r["label"] for r in recs])
    p = np.asarray([r["prediction"] for r in recs])
    det = {"classes": [str(x) for x in np.unique(y)]}
    add(f"log_loss-mc-{tag}", {"type": "log_loss"}, recs, sk(lambda: log_loss(y, p)), det)
    add(f"log_loss-mc-{tag}-sum", {"type": "log_loss", "normalize": False}, recs,
        sk(lambda: log_loss(y, p, normalize=False)), det)
    add(f"log_loss-mc-{tag}-eps", {"type": "log_loss", "eps": 0.1}, recs,
        sk(lambda: log_loss(y, np.clip(p, 0.1, 1 - 0.1))), det)
    add(f"brier-mc-{tag}", {"type": "brier"}, recs, sk(lambda: brier_score_loss(y, p)), det)
# brier with a 2-element list and names: the columns of the sorted names (halved).
recs = [{"prediction": [round(1 - x, 2), x], "label": c} for x, c in
        ((0.1, "neg"), (0.8, "pos"), (0.4, "neg"), (0.35, "pos"), (0.9, "pos"), (0.55, "neg"))]
y = np.asarray([r["label"] for r in recs])
p = np.asarray([r["prediction"] for r in recs])
add("brier-list2-names", {"type": "brier"}, recs, sk(lambda: brier_score_loss(y, p)), {"classes": ["neg", "pos"]})
v = sk(lambda: brier_score_loss(np.asarray(["a", "b", "a"]), [[0.2, 0.3, 0.5]] * 3))
assert v is None
add("brier-mc-fewer-names-than-columns", {"type": "brier"},
    [{"prediction": [0.2, 0.3, 0.5], "label": c} for c in ("a", "b", "a")], v)
v = sk(lambda: brier_score_loss(np.asarray(["a", "a"]), [[0.9, 0.1], [0.2, 0.8]]))
assert v is None
add("brier-list-one-name", {"type": "brier"}, [{"prediction": [0.9, 0.1], "label": "a"}, {"prediction": [0.2, 0.8], "label": "a"}], v)
# Fewer names than columns: sklearn raises (null here).
recs = [{"prediction": [0.2, 0.3, 0.5], "label": c} for c in ("a", "b", "a")]
v = sk(lambda: log_loss(np.asarray(["a", "b", "a"]), [[0.2, 0.3, 0.5]] * 3))
assert v is None
add("log_loss-mc-fewer-names-than-columns", {"type": "log_loss"}, recs, v)
add("reject-brier-pos-label-with-list", {"type": "brier", "pos_label": "a"}, [{"prediction": [0.2, 0.8], "label": "a"}],
    None, reject="wrong type")
add("reject-brier-name-pos-label-with-id", {"type": "brier", "pos_label": "a"}, [{"prediction": 0.2, "label": 1}],
    None, reject="wrong type")

# brier, binary with a float prediction: the records of pos_label are positive, every other
# name negative (a pos_label that is no name makes all negative: sklearn does not raise).
# (evalstream reads an integer pos_label as a class id, 0 or 1, so the digit names are left out.)
for tag, names in pools.items():
    if tag == "digits":
        continue
    recs = records(rng, 60, names, 0.2)
    y = np.asarray([r["label"] for r in recs])
    p = np.asarray([r["prediction"] for r in recs])
    det = {"classes": [str(x) for x in np.unique(y)]}
    for pos in names + ["nope"]:
        add(f"brier-{tag}-pos-{pos}", {"type": "brier", "pos_label": pos}, recs,
            sk(lambda: brier_score_loss(y, p, pos_label=pos)), det)
    add(f"brier-{tag}-pos-1", {"type": "brier", "pos_label": 1}, recs,
        sk(lambda: brier_score_loss(y, p, pos_label=1)), det)
    v = sk(lambda: brier_score_loss(y, p))
    assert v is None
    add(f"brier-{tag}-no-pos-label", {"type": "brier"}, recs, v, det)
one = [{"prediction": x, "label": "cat"} for x in (0.1, 0.9, 0.3)]
for pos in ("cat", "dog"):
    add(f"brier-one-name-pos-{pos}", {"type": "brier", "pos_label": pos}, one,
        sk(lambda: brier_score_loss(np.asarray(["cat"] * 3), [0.1, 0.9, 0.3], pos_label=pos)), {"classes": ["cat"]})
v = sk(lambda: brier_score_loss(np.asarray(["cat"] * 3), [0.1, 0.9, 0.3]))
assert v is None
add("brier-one-name-no-pos-label", {"type": "brier"}, one, v)
# A name that reads as a number, with pos_label given as text (sklearn's pos_label="1").
digit = [{"prediction": x, "label": "1"} for x in (0.1, 0.9, 0.3)]
for pos in ("1", "0"):
    add(f"brier-one-name-digit-pos-{pos}", {"type": "brier", "pos_label": pos}, digit,
        sk(lambda: brier_score_loss(np.asarray(["1"] * 3), [0.1, 0.9, 0.3], pos_label=pos)), {"classes": ["1"]})
v = sk(lambda: brier_score_loss(np.asarray(["1"] * 3), [0.1, 0.9, 0.3]))
assert v is None
add("brier-one-name-digit-no-pos-label", {"type": "brier"}, digit, v)
v = sk(lambda: log_loss(np.asarray(["1"] * 3), [0.1, 0.9, 0.3]))
assert v is None
add("log_loss-one-name-digit", {"type": "log_loss"}, digit, v)
v = sk(lambda: log_loss(np.asarray(["cat"] * 2), [[0.9, 0.1], [0.2, 0.8]]))
assert v is None
add("log_loss-list-one-name", {"type": "log_loss"},
    [{"prediction": [0.9, 0.1], "label": "cat"}, {"prediction": [0.2, 0.8], "label": "cat"}], v)
three = [{"prediction": x, "label": c} for x, c in ((0.1, "a"), (0.9, "b"), (0.3, "c"))]
v = sk(lambda: brier_score_loss(np.asarray(["a", "b", "c"]), [0.1, 0.9, 0.3], pos_label="a"))
assert v is None
add("brier-three-names", {"type": "brier", "pos_label": "a"}, three, v)
add("brier-mixed-ids-and-names", {"type": "brier", "pos_label": 1},
    [{"prediction": 0.1, "label": 0}, {"prediction": 0.9, "label": "pos"}], None)
add("reject-calibration-name", {"type": "calibration_error"}, [{"prediction": 0.2, "label": "a"}], None,
    reject="wrong type")
write(OUT_PROB, cases)

