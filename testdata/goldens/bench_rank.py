#!/usr/bin/env python3
"""Time scikit-learn's roc_auc_score + average_precision_score on the scores of
metrics/rank's BenchmarkExactBinary10M (same splitmix64 generator), compute only (the arrays
are built before timing). Compare with: go test -run X -bench ExactBinary10M ./metrics/rank/

Run: <venv>/bin/python testdata/goldens/bench_rank.py [n]
"""
import sys
import time

import numpy as np
from sklearn.metrics import average_precision_score, roc_auc_score

n = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000_000
with np.errstate(over="ignore"):
    x = np.arange(n, dtype=np.uint64) + np.uint64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    x = x ^ (x >> np.uint64(31))
label = (x & np.uint64(1)).astype(np.int64)
u = (x >> np.uint64(11)).astype(np.float64) / float(1 << 53)
score = np.minimum(1.0, u + 0.2 * label).astype(np.float32).astype(np.float64)
t0 = time.perf_counter()
auc = roc_auc_score(label, score)
ap = average_precision_score(label, score)
dt = time.perf_counter() - t0
print(f"sklearn n={n}: auroc={auc!r} ap={ap!r} {dt:.3f} s ({n / dt:.0f} records/s)")
