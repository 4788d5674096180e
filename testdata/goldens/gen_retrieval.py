#!/usr/bin/env python3
"""Generate testdata/goldens/retrieval.json: mrr, ndcg, map, precision_at_k, recall_at_k and
hit_rate (metrics/retrieval).

Every value comes from the REAL trec_eval as pytrec_eval (pytrec_eval-terrier, pinned in
requirements.txt) computes it: recip_rank, ndcg / ndcg_cut_k, map / map_cut_k, P_k, recall_k,
success_k.

evalstream's semantics, as fed to pytrec_eval here:
  - one record per query; `prediction` is the ranking, given to pytrec_eval as the run
    {doc: n - rank} (distinct scores, so trec_eval's tie-breaking by document id never acts);
  - `references` (relevant ids) become qrels {doc: 1}; `relevance` maps are the qrels as they are;
    integer ids become str(id);
  - a query with no judged document is not in the qrels, so trec_eval leaves it out; the
    value is the mean over the queries pytrec_eval returns (math.fsum / count), null when there
    are none;
  - mrr with k evaluates recip_rank on the run cut to its first k documents;
  - relevance_threshold is pytrec_eval's relevance_level.

Run: <venv>/bin/python testdata/goldens/gen_retrieval.py  (from the repository root)
"""
import json
import math
import os
import platform
import random
from importlib.metadata import version

import pytrec_eval

HERE = os.path.dirname(os.path.abspath(__file__))
cases = []

TYPES = ["mrr", "ndcg", "map", "precision_at_k", "recall_at_k", "hit_rate"]
NEEDS_K = {"precision_at_k", "recall_at_k", "hit_rate"}


def measure(typ, k):
    if typ == "mrr":
        return "recip_rank"
    if typ == "ndcg":
        return "ndcg" if k is None else f"ndcg_cut_{k}"
    if typ == "map":
        return "map" if k is None else f"map_cut_{k}"
    return {"precision_at_k": "P", "recall_at_k": "recall", "hit_rate": "success"}[typ] + f"_{k}"


def judgments(rec):
    if "relevance" in rec:
        return {str(d): int(g) for d, g in rec["relevance"].items()}
    return {str(d): 1 for d in rec["references"]}


def trec_value(typ, k, threshold, records):
    """The mean of pytrec_eval's per-query values, and the counts of judged / unjudged queries."""
    qrels, run = {}, {}
    for i, rec in enumerate(records):
        q = f"q{i}"
        ranking = [str(d) for d in rec["prediction"]]
        if typ == "mrr" and k is not None:
            ranking = ranking[:k]
        run[q] = {d: float(len(ranking) - r) for r, d in enumerate(ranking)}
        j = judgments(rec)
        if j:
            qrels[q] = j
    m = measure(typ, k)
    ev = pytrec_eval.RelevanceEvaluator(qrels, {m}, relevance_level=threshold)
    res = ev.evaluate(run)
    assert set(res) == set(qrels), (set(res), set(qrels))
    vals = [res[q][m] for q in sorted(res)]
    details = {"queries": len(vals), "unjudged_queries": len(records) - len(vals)}
    if not vals:
        return None, details
    return math.fsum(vals) / len(vals), details


def add(name, typ, records, k=None, threshold=None, rtol=1e-12):
    metric = {"type": typ}
    if k is not None:
        metric["k"] = k
    if threshold is not None:
        metric["relevance_threshold"] = threshold
    value, details = trec_value(typ, k, 1 if threshold is None else threshold, records)
    cases.append({"name": name, "metric": metric, "records": records, "value": value,
                  "details": details, "rtol": rtol})


def reject(name, typ, records, reason, k=None):
    metric = {"type": typ}
    if k is not None:
        metric["k"] = k
    cases.append({"name": name, "metric": metric, "records": records, "reject": reason,
                  "rtol": 1e-12})


rng = random.Random(16)


def random_records(n, docs=30, graded=True, with_unjudged=True, ints=False):
    out = []
    for _ in range(n):
        pool = [f"d{j}" for j in range(docs)]
        rng.shuffle(pool)
        ranking = pool[: rng.choice([0, 1, 3, 5, 8, 12, 20])]
        judged = rng.sample(pool, rng.randint(0 if with_unjudged else 1, 10))
        if ints:
            ranking = [int(d[1:]) for d in ranking]
            judged = [int(d[1:]) for d in judged]
        if graded:
            rel = {str(d): rng.choice([-1, 0, 0, 1, 1, 2, 3]) for d in judged}
            out.append({"prediction": ranking, "relevance": rel})
        else:
            out.append({"prediction": ranking, "references": judged})
    return out


datasets = {
    "graded": random_records(60),
    "binary-refs": random_records(60, graded=False),
    "int-ids": random_records(40, graded=False, ints=True),
    "int-ids-graded": random_records(40, ints=True),
    "perfect": [
        {"prediction": ["a", "b", "c", "x"], "relevance": {"a": 3, "b": 2, "c": 1}},
        {"prediction": ["p", "q"], "references": ["p", "q"]},
    ],
    "inverted": [
        {"prediction": ["x", "y", "c", "b", "a"], "relevance": {"a": 3, "b": 2, "c": 1}},
        {"prediction": ["n1", "n2", "n3", "r"], "references": ["r"]},
    ],
    "empty-rankings": [
        {"prediction": [], "references": ["a"]},
        {"prediction": ["a"], "references": ["a"]},
        {"prediction": [], "relevance": {"b": 2}},
    ],
    "below-threshold": [
        {"prediction": ["a", "b"], "relevance": {"a": 0, "b": -1}},
        {"prediction": ["a", "b"], "relevance": {"b": 1}},
    ],
    "unjudged-left-out": [
        {"prediction": ["a", "b"], "references": []},
        {"prediction": ["a", "b"], "relevance": {}},
        {"prediction": ["a", "b"], "references": ["b"]},
    ],
    "long": [{"prediction": [f"d{j}" for j in range(300)],
              "relevance": {f"d{j}": (j % 4) for j in range(0, 400, 7)}}],
}

for typ in TYPES:
    ks = [1, 3, 10, 1000] if typ in NEEDS_K else [None, 1, 5, 10, 1000]
    for dname, recs in datasets.items():
        for k in ks:
            add(f"{typ}-{dname}-k{k}", typ, recs, k=k)
    for th in (2, 3):
        add(f"{typ}-graded-threshold{th}", typ, datasets["graded"],
            k=3 if typ in NEEDS_K else None, threshold=th)
    kk = 5 if typ in NEEDS_K else None
    add(f"{typ}-binary-refs-threshold2", typ, datasets["binary-refs"], k=kk, threshold=2)
    add(f"{typ}-repeated-references", typ, [
        {"prediction": ["a", "b", "c"], "references": ["b", "b", "c"]},
        {"prediction": ["c"], "references": ["a", "a"]}], k=kk)
    add(f"{typ}-integer-ids-string-judgments", typ, [
        {"prediction": [7, 3, 12], "references": ["3"]},
        {"prediction": [5], "relevance": {"5": 2, "6": 1}}], k=kk)
    add(f"{typ}-no-judged-queries", typ, [{"prediction": ["a"], "references": []}], k=kk)
    add(f"{typ}-no-records", typ, [], k=kk)
    reject(f"{typ}-reject-duplicate-retrieved", typ,
           [{"prediction": ["a", "b", "a"], "references": ["a"]}], "duplicate id", k=kk)
    reject(f"{typ}-reject-both-judgments", typ,
           [{"prediction": ["a"], "references": ["a"], "relevance": {"a": 1}}], "ambiguous relevance", k=kk)
    reject(f"{typ}-reject-missing-judgments", typ, [{"prediction": ["a"]}], "missing field", k=kk)
    reject(f"{typ}-reject-missing-prediction", typ, [{"references": ["a"]}], "missing field", k=kk)
    reject(f"{typ}-reject-fractional-grade", typ,
           [{"prediction": ["a"], "relevance": {"a": 1.5}}], "wrong type", k=kk)
    reject(f"{typ}-reject-fractional-id", typ,
           [{"prediction": [1.5, 2], "references": [2]}], "wrong type", k=kk)
    reject(f"{typ}-reject-string-prediction", typ,
           [{"prediction": "a b", "references": ["a"]}], "wrong type", k=kk)

out = {
    "generator": "gen_retrieval.py",
    "versions": {"pytrec_eval-terrier": version("pytrec_eval-terrier"),
                 "python": platform.python_version()},
    "cases": cases,
}
with open(os.path.join(HERE, "retrieval.json"), "w") as f:
    json.dump(out, f, separators=(",", ":"))
    f.write("\n")
print(f"retrieval.json: {len(cases)} cases")
