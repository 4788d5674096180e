#!/usr/bin/env python3
"""Generate metrics/stats/testdata/percentile.json: numpy's default percentile (method
"linear") and ddof-1 standard deviation, which stats.Percentile and stats.Spread reproduce.

Values and results are written with Python's float repr, which round-trips exactly, so the
Go test compares bits. numpy is pinned in testdata/goldens/requirements.txt.

Run: testdata/goldens/generate.sh, or <venv>/bin/python metrics/stats/testdata/gen_percentile.py
"""
import json
import os

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "percentile.json")

# The q (in percent) of the usual interval levels and of the edges, plus awkward ones whose
# q·(n−1) lands just beside an integer or at t = 0.5 (numpy's two lerp branches).
QS = [0, 100, 50, 2.5, 97.5, 5, 95, 0.5, 99.5, 25, 75, 10, 90, 1e-9, 100 - 1e-9,
      100 / 3, 200 / 3, 12.5, 87.5, 0.1, 99.9]
# (level, low q, high q): the percentiles a numpy user writes for a `level` interval.
LEVELS = [(0.95, 2.5, 97.5), (0.9, 5, 95), (0.99, 0.5, 99.5), (0.8, 10, 90), (0.5, 25, 75)]


def arrays():
    rng = np.random.default_rng(20261125)
    for n in [1, 2, 3, 4, 5, 7, 10, 39, 40, 41, 199, 200, 201, 999, 1000, 1001]:
        yield f"uniform_n{n}", rng.random(n)
    for n in [2, 10, 200, 1000]:
        yield f"normal_n{n}", rng.normal(-3.0, 7.5, n)
        yield f"ties_n{n}", np.round(rng.random(n), 1)
        yield f"bleu_like_n{n}", 0.27 + 0.004 * rng.standard_normal(n)
        # Mixed magnitudes: the lerp rounding differs between a + d·t and b − d·(1−t).
        yield f"mixed_n{n}", rng.standard_normal(n) * 10.0 ** rng.integers(-12, 12, n)
    yield "constant_n500", np.full(500, 0.1)
    yield "negative_zero", np.array([-0.0, 0.0, -0.0, 1.0])
    yield "huge", np.array([-1e308, -1e300, 1e300, 1e308])
    yield "tiny", np.array([5e-324, 1e-320, 2e-310, 1e-300])


def main():
    rng = np.random.default_rng(7)
    cases = []
    for name, x in arrays():
        x = np.asarray(x, dtype=np.float64)
        qs = QS + [float(q) for q in rng.random(8) * 100]
        pct = [float(np.percentile(x, q)) for q in qs]
        spreads = []
        for level, lo, hi in LEVELS:
            low, high = np.percentile(x, [lo, hi])
            with np.errstate(over="ignore"):
                std = float(np.std(x, ddof=1)) if len(x) > 1 else None
            if std is not None and not np.isfinite(std):
                std = None  # the squares overflow: nothing to compare
            spreads.append({"level": level, "low": float(low), "high": float(high), "stderr": std})
        cases.append({"name": name, "values": [float(v) for v in x], "q": qs,
                      "percentile": pct, "spread": spreads})
    with open(OUT, "w") as f:
        json.dump({"generator": "metrics/stats/testdata/gen_percentile.py",
                   "versions": {"numpy": np.__version__}, "cases": cases}, f, indent=1, allow_nan=False)
        f.write("\n")
    print(f"wrote {OUT}: {len(cases)} cases")


if __name__ == "__main__":
    main()
