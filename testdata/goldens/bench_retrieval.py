#!/usr/bin/env python3
"""Time pytrec_eval (ndcg_cut_10 + recip_rank) on the queries of metrics/retrieval's
BenchmarkNDCG10MRR1M (same splitmix64 generator), compute only: the qrels and run dicts are
built before timing; the evaluator's construction (it parses the qrels) and evaluate() are
timed, and the mean of each measure taken. Prints wall and process CPU time (the machine may
be shared: CPU time is the fairer figure). Compare with:

    go test -run X -bench NDCG10MRR1M -benchtime 3x ./metrics/retrieval/

Run: <venv>/bin/python testdata/goldens/bench_retrieval.py [n]
"""
import sys
import time

import pytrec_eval

M64 = (1 << 64) - 1
POOL = 50
IDS = [f"d{i}" for i in range(POOL)]
STEPS = [1, 3, 7, 9, 11, 13]


def splitmix64(x):
    x = (x + 0x9E3779B97F4A7C15) & M64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & M64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & M64
    return x ^ (x >> 31)


def query(i):
    h = splitmix64(i)
    n = 10 + h % 20
    start, step = (h >> 8) % POOL, STEPS[(h >> 16) % 6]
    ranking = [IDS[(start + r * step) % POOL] for r in range(n)]
    m = 1 + (h >> 24) % 8
    jstart = (h >> 32) % POOL
    rel = {}
    for r in range(m):
        rel[IDS[(jstart + r * 7) % POOL]] = (h >> (40 + r)) % 4
    return ranking, rel


n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
qrels, run = {}, {}
for i in range(n):
    ranking, rel = query(i)
    q = str(i)
    qrels[q] = rel
    run[q] = {d: float(len(ranking) - r) for r, d in enumerate(ranking)}
t0, c0 = time.perf_counter(), time.process_time()
res = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut_10", "recip_rank"}).evaluate(run)
ndcg = sum(v["ndcg_cut_10"] for v in res.values()) / len(res)
mrr = sum(v["recip_rank"] for v in res.values()) / len(res)
dt, ct = time.perf_counter() - t0, time.process_time() - c0
print(f"pytrec_eval n={n}: ndcg@10={ndcg!r} mrr={mrr!r} wall {dt:.3f} s, cpu {ct:.3f} s ({n / ct:.0f} queries/cpu-s)")
