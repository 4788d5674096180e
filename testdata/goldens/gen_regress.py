#!/usr/bin/env python3
"""Generate testdata/goldens/regress.json: goldens for package metrics/regress.

Reference values come from the REAL scipy (pearsonr, spearmanr) and the REAL pytorch-ignite
Perplexity (pinned in requirements.txt). MindNLP cannot be installed, so its values come from
small faithful re-implementations of mindnlp/metrics/{pearson,spearman,perplexity}.py (spec
§7–§9), asserted against the MindNLP seed values first.

Run: /tmp/goldenvenv/bin/python testdata/goldens/gen_regress.py  (from the repository root)
"""
import json
import math
import os
import random
import sys
import warnings

import numpy as np
import scipy
from scipy import stats

warnings.filterwarnings("ignore")
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "regress.json")

try:
    import torch
    import ignite
    from ignite.metrics.nlp import Perplexity as IgnitePerplexity
except ImportError:  # pragma: no cover - the pinned venv has them
    torch = None

# ---------------------------------------------------------------------------------------------
# MindNLP re-implementations.


def f32(xs):
    return [float(np.float32(v)) for v in xs]


def mn_pearson(x, y):
    """mindnlp/metrics/pearson.py: plain left-to-right sums, one-pass formula."""
    n = len(x)
    sum1 = sum(float(v) for v in x)
    sum2 = sum(float(v) for v in y)
    sum1_pow = sum(pow(v, 2.0) for v in x)
    sum2_pow = sum(pow(v, 2.0) for v in y)
    p_sum = sum(a * b for a, b in zip(x, y))
    num = p_sum - (sum1 * sum2 / n)
    den = math.sqrt((sum1_pow - pow(sum1, 2) / n) * (sum2_pow - pow(sum2, 2) / n))
    if den == 0:
        return 0.0
    return num / den


def mn_rank(xs, stable=True):
    """mindnlp/metrics/utils.py _get_rank: descending ordinal ranks. stable=True is the
    specified tie rule (record order); stable=False is numpy's default argsort."""
    a = np.array(xs, dtype=np.float64)
    order = np.argsort(-a, kind="stable" if stable else None)
    r = np.empty(len(a), dtype=int)
    for i, k in enumerate(order):
        r[k] = i + 1
    return r


def mn_spearman(x, y, stable=True):
    rx, ry = mn_rank(x, stable), mn_rank(y, stable)
    n = len(x)
    total = sum(int(a - b) ** 2 for a, b in zip(rx, ry))
    return 1 - float(6 * total) / (n * (pow(n, 2) - 1))


def mn_perplexity(batches, ignore_label=None):
    """mindnlp/metrics/perplexity.py: probabilities, log clipped at 1e-10, sum per update."""
    ce_sum, words = 0.0, 0
    for preds, labels in batches:
        pred = np.array(preds, dtype=np.float64)
        label = np.array(labels)
        p = pred[np.arange(len(label)), label.astype(int)]
        word_num = 0
        if ignore_label is not None:
            ignore = (label == ignore_label).astype(pred.dtype)
            word_num -= np.sum(ignore)
            p = p * (1 - ignore) + ignore
        ce = -np.sum(np.log(np.maximum(1e-10, p)))
        word_num += p.size
        ce_sum += ce
        words += word_num
    return float(np.exp(ce_sum / words))


# Seeds (MindNLP docstrings, spec §7–§9).
S7_P = [0.1, 1.0, 2.4, 0.9]
S7_L = [0.0, 1.0, 2.9, 1.0]
assert mn_pearson(f32(S7_P), f32(S7_L)) == 0.9985229081857804
assert mn_pearson(S7_P, S7_L) == 0.9985229080895216
# spec §7 (scipy 1.10) printed 0.9985229080895217; scipy 1.17.1 gives 0.9985229080895216
assert abs(stats.pearsonr(S7_P, S7_L).statistic - 0.9985229080895217) <= 1.2e-16
assert mn_spearman(f32(S7_P), f32(S7_L)) == 1.0
assert stats.spearmanr(S7_P, S7_L).statistic == 0.9486832980505139
assert mn_spearman([0.1, 0.9, 2.4, 1.0], S7_L) == 0.8
S8_P = [[0.2, 0.5], [0.3, 0.1], [0.9, 0.6]]
S8_L = [1, 0, 1]
assert mn_perplexity([(S8_P, S8_L)]) == 2.231443166940565
P3 = [[.6, .5, .1], [.3, .6, .05], [.1, .6, .2], [.1, .2, .7]]
L3 = [2, 1, 0, 1]
assert mn_perplexity([(P3, L3)]) == 5.37284965911771
P2b = [[.6, .5], [.3, .6], [.1, .6]]
L2b = [0, 1, 0]
assert mn_perplexity([(S8_P, S8_L), (P2b, L2b)]) == 2.599615782630921


def ignite_perplexity(preds, labels, ignore_index=-100):
    m = IgnitePerplexity(ignore_index=ignore_index)
    m.update((torch.tensor(preds, dtype=torch.float64), torch.tensor(labels, dtype=torch.long)))
    return float(m.compute())


if torch is not None:
    v = ignite_perplexity(S8_P, S8_L)
    assert abs(v - 1.9521859884) < 1e-9, v

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


def recs(preds, labels):
    return [{"prediction": p, "label": y} for p, y in zip(preds, labels)]


def scipy_value(fn, x, y):
    if len(x) < 2:
        return None, "fewer than 2 records"
    v = float(fn(x, y).statistic)
    if math.isnan(v):
        return None, "constant input"
    return v, None


# --- seeds -------------------------------------------------------------------------------------
# MindNLP sums left to right; our exact sums give 0.9985229081857803 (1 ulp): rtol 1e-15.
add("seed7-pearson-mindnlp-float32", {"type": "pearson", "compat": "mindnlp", "dtype": "float32"},
    recs(S7_P, S7_L), 0.9985229081857804, rtol=1e-15)
add("seed7-pearson-mindnlp-float64", {"type": "pearson", "compat": "mindnlp"}, recs(S7_P, S7_L),
    0.9985229080895216, rtol=1e-15)
add("seed7-pearson-scipy", {"type": "pearson"}, recs(S7_P, S7_L), float(stats.pearsonr(S7_P, S7_L).statistic))
add("seed7-spearman-mindnlp", {"type": "spearman", "compat": "mindnlp"}, recs(S7_P, S7_L), 1.0)
add("seed7-spearman-mindnlp-swapped", {"type": "spearman", "compat": "mindnlp"},
    recs([0.1, 0.9, 2.4, 1.0], S7_L), 0.8)
add("seed7-spearman-scipy", {"type": "spearman"}, recs(S7_P, S7_L), 0.9486832980505139, rtol=1e-15)
add("seed8-perplexity-mindnlp", {"type": "perplexity"}, recs(S8_P, S8_L), 2.231443166940565, rtol=1e-15)
add("perplexity-3class-mindnlp", {"type": "perplexity"}, recs(P3, L3), 5.37284965911771, rtol=1e-15)
add("perplexity-two-updates-mindnlp", {"type": "perplexity"}, recs(S8_P + P2b, S8_L + L2b),
    2.599615782630921, rtol=1e-15)

# --- pearson / spearman randomized (scipy) ------------------------------------------------------
rng = random.Random(31337)
unstable = []
for i in range(60):
    n = rng.choice([2, 2, 3, 4, 5, 8, 13, 30, 100, 257])
    kind = ["float", "int", "ties", "offset1e9", "offset1e8", "negative", "tiny"][i % 7]
    if kind == "float":
        x = [rng.gauss(0, 1) for _ in range(n)]
        y = [a * rng.uniform(-2, 2) + rng.gauss(0, 1) for a in x]
    elif kind == "int":
        x = [rng.randrange(-50, 50) for _ in range(n)]
        y = [a + rng.randrange(-20, 20) for a in x]
    elif kind == "ties":
        x = [rng.randrange(4) for _ in range(n)]
        y = [float(rng.randrange(3)) + 0.5 * a for a in x]
    elif kind == "offset1e9":
        x = [1e9 + rng.random() for _ in range(n)]
        y = [a - 1e9 + 0.1 * rng.random() for a in x]
    elif kind == "offset1e8":
        x = [1e8 + rng.random() for _ in range(n)]
        y = [1e8 + 2 * (a - 1e8) + rng.random() for a in x]
    elif kind == "negative":
        x = [rng.uniform(-5, 5) for _ in range(n)]
        y = [-a + rng.gauss(0, 0.3) for a in x]
    else:
        x = [rng.gauss(0, 1) * 1e-150 for _ in range(n)]
        y = [a * 3 + rng.gauss(0, 1) * 1e-151 for a in x]
    tag = f"r{i:02d}-{kind}-n{n}"
    v, reason = scipy_value(stats.pearsonr, x, y)
    add(f"{tag}-pearson-scipy", {"type": "pearson"}, recs(x, y), v, {"reason": reason} if reason else None,
        rtol=1e-12)
    v, reason = scipy_value(stats.spearmanr, x, y)
    add(f"{tag}-spearman-scipy", {"type": "spearman"}, recs(x, y), v, {"reason": reason} if reason else None,
        rtol=1e-12)
    if kind in ("float", "int", "negative") and n >= 2:
        add(f"{tag}-pearson-mindnlp", {"type": "pearson", "compat": "mindnlp"}, recs(x, y), mn_pearson(x, y),
            rtol=1e-12)
        x32, y32 = f32(x), f32(y)
        add(f"{tag}-pearson-mindnlp-float32", {"type": "pearson", "compat": "mindnlp", "dtype": "float32"},
            recs(x, y), mn_pearson(x32, y32), rtol=1e-12)
    if n >= 2:
        # mindnlp spearman: our specified stable tie rule. The spec (numpy 1.x) found numpy's
        # default argsort stable for n <= 16; numpy 2.x's SIMD sort is not, so with ties MindNLP's
        # own value depends on the numpy build. We count the disagreements for the record.
        want = mn_spearman(x, y, stable=True)
        if want != mn_spearman(x, y, stable=False):
            unstable.append(tag)
        add(f"{tag}-spearman-mindnlp", {"type": "spearman", "compat": "mindnlp"}, recs(x, y), want)

# the large-offset claim of the spec (§7): scipy 0.99438-like values survive, MindNLP's formula does not
rng = random.Random(5)
x = [1e9 + rng.random() for _ in range(50)]
y = [a - 1e9 + 0.05 * rng.random() for a in x]
v = float(stats.pearsonr(x, y).statistic)
assert v > 0.99
add("pearson-offset-1e9-scipy-tight", {"type": "pearson"}, recs(x, y), v, rtol=1e-9)
# constant input, n = 1, n = 2
add("pearson-constant-scipy", {"type": "pearson"}, recs([1, 2, 3], [0.7, 0.7, 0.7]), None,
    {"reason": "constant input"})
add("spearman-constant-scipy", {"type": "spearman"}, recs([1, 2, 3], [4, 4, 4]), None,
    {"reason": "constant input"})
add("spearman-constant-mindnlp", {"type": "spearman", "compat": "mindnlp"}, recs([1, 2, 3], [4, 4, 4]),
    mn_spearman([1, 2, 3], [4, 4, 4]))
assert mn_spearman([1, 2, 3], [4, 4, 4]) == -1.0
add("pearson-n1", {"type": "pearson"}, recs([1.5], [2.5]), None, {"reason": "fewer than 2 records"})
add("spearman-n1", {"type": "spearman", "compat": "mindnlp"}, recs([1.5], [2.5]), None,
    {"reason": "fewer than 2 records"})
add("pearson-n2-negative", {"type": "pearson"}, recs([0.1, 0.3], [5, -7]), float(stats.pearsonr([0.1, 0.3], [5, -7]).statistic))
add("pearson-mindnlp-constant-exact", {"type": "pearson", "compat": "mindnlp"}, recs([1, 2, 3], [2, 2, 2]),
    mn_pearson([1, 2, 3], [2, 2, 2]))
# mindnlp spearman with many ties (n > 16): the specified stable rule (MindNLP's own order is
# implementation-defined there)
rng = random.Random(40)
x = [rng.randrange(3) for _ in range(40)]
y = [rng.randrange(3) for _ in range(40)]
add("spearman-mindnlp-heavy-ties-n40-stable", {"type": "spearman", "compat": "mindnlp"}, recs(x, y),
    mn_spearman(x, y, stable=True))
v, _ = scipy_value(stats.spearmanr, x, y)
add("spearman-scipy-heavy-ties-n40", {"type": "spearman"}, recs(x, y), v)

# --- perplexity ---------------------------------------------------------------------------------
rng = random.Random(99)
for i in range(24):
    c = rng.choice([2, 3, 5, 10])
    n = rng.choice([1, 2, 5, 20])
    probs = []
    for _ in range(n):
        row = [rng.random() for _ in range(c)]
        s = sum(row)
        row = [round(v / s, 6) for v in row]
        if rng.random() < 0.15:
            row[rng.randrange(c)] = 0.0  # exercises the 1e-10 floor
        probs.append(row)
    labels = [rng.randrange(c) for _ in range(n)]
    ignore = None
    if i % 4 == 3:
        ignore = rng.randrange(c)
        if all(l == ignore for l in labels):
            labels[0] = (ignore + 1) % c
    metric = {"type": "perplexity"}
    if ignore is not None:
        metric["ignore_label"] = ignore
    add(f"ppl-r{i:02d}-mindnlp-c{c}-n{n}", metric, recs(probs, labels), mn_perplexity([(probs, labels)], ignore),
        {"tokens": sum(1 for l in labels if l != ignore)})
    # logits through the real ignite (float32 accumulator: rtol 1e-6)
    logits = [[rng.gauss(0, 3) for _ in range(c)] for _ in range(n)]
    ilabels = list(labels)
    if i % 3 == 0:
        ilabels[rng.randrange(n)] = -100
    if all(l == -100 for l in ilabels):
        ilabels[0] = 0
    if torch is not None:
        want = ignite_perplexity(logits, ilabels)
        add(f"ppl-r{i:02d}-ignite-logits-c{c}-n{n}", {"type": "perplexity", "compat": "ignite"},
            recs(logits, ilabels), want, rtol=1e-6)
    # exact float64 logits reference (our computation's semantics), tight tolerance
    nll = []
    for row, l in zip(logits, ilabels):
        if l == -100:
            continue
        m = max(row)
        nll.append(m + math.log(math.fsum(math.exp(v - m) for v in row)) - row[l])
    add(f"ppl-r{i:02d}-logits-float64-c{c}-n{n}", {"type": "perplexity", "compat": "ignite"},
        recs(logits, ilabels), math.exp(math.fsum(nll) / len(nll)), rtol=1e-12)
    # logprobs: each token counts
    seqs = [[math.log(max(1e-12, rng.random())) for _ in range(rng.randrange(0, 8))] for _ in range(n)]
    if sum(len(s) for s in seqs) == 0:
        seqs[0] = [-0.5]
    toks = [v for s in seqs for v in s]
    add(f"ppl-r{i:02d}-logprobs-n{n}", {"type": "perplexity", "input": "logprobs"},
        [{"prediction": s} for s in seqs], math.exp(math.fsum(-v for v in toks) / len(toks)),
        {"tokens": len(toks)})
if torch is not None:
    add("seed8-perplexity-ignite", {"type": "perplexity", "compat": "ignite"}, recs(S8_P, S8_L),
        ignite_perplexity(S8_P, S8_L), rtol=1e-6)

# --- rejections ---------------------------------------------------------------------------------
add("reject-prob-above-1", {"type": "perplexity"}, [{"prediction": [1.5, 0.2], "label": 0},
                                                    {"prediction": [-0.1, 0.2], "label": 1}], None,
    reject="probability out of range")
add("reject-logprob-positive", {"type": "perplexity", "input": "logprobs"}, [{"prediction": [-0.1, 0.2]}], None,
    reject="probability out of range")
add("reject-ppl-label-range", {"type": "perplexity"}, [{"prediction": [0.5, 0.5], "label": 2},
                                                       {"prediction": [0.5, 0.5], "label": -1}], None,
    reject="label out of range")
add("reject-ppl-empty", {"type": "perplexity", "compat": "ignite"}, [{"prediction": [], "label": 0}], None,
    reject="wrong length")
add("reject-pearson-string", {"type": "pearson"}, [{"prediction": "1.0", "label": 1}], None, reject="wrong type")
add("reject-spearman-missing", {"type": "spearman"}, [{"prediction": 1.0}, {"prediction": None, "label": 1}], None,
    reject="missing field")
add("reject-pearson-float32-overflow", {"type": "pearson", "dtype": "float32"}, [{"prediction": 1e300, "label": 1}],
    None, reject="non-finite value")

versions = {"scipy": scipy.__version__, "numpy": np.__version__, "python": sys.version.split()[0],
            "mindnlp": "re-implementation of mindnlp/metrics @ 94b64df3"}
if torch is not None:
    versions.update({"pytorch-ignite": ignite.__version__, "torch": torch.__version__})
out = {"generator": "gen_regress.py", "versions": versions, "cases": cases}
with open(OUT, "w") as f:
    json.dump(out, f, separators=(",", ":"))
    f.write("\n")
print(f"mindnlp spearman cases where numpy {np.__version__}'s default argsort breaks ties differently: {unstable}")
print(f"wrote {OUT}: {len(cases)} cases, {os.path.getsize(OUT)} bytes")
