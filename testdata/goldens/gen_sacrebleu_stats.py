#!/usr/bin/env python3
"""Generate testdata/goldens/stats/sacrebleu_stats.json and stats/npyrand.json from the REAL sacrebleu + numpy.

sacrebleu (2.6.0) and numpy (2.x) are pinned in requirements.txt. Every number comes from
them; nothing is re-implemented here:

- stats/npyrand.json: raw draws of numpy's default_rng(seed) (PCG64 seeded through SeedSequence),
  Generator.choice(n, size, replace=True) for several n (powers of two and not, one close to
  2^32 so that Lemire's rejection loop runs), Generator.integers(2, size, dtype=bool), and the
  bool-then-choice sequence that sacrebleu's paired AR test draws from one generator.
- stats/sacrebleu_stats.json: for BLEU, chrF and TER with their default options (the presets
  evalstream calls `sacrebleu`): the per-segment statistics of every system
  (metric._extract_corpus_statistics), the `--confidence` result of every system
  (corpus_score(n_bootstrap=1000): score, mean, half-width), and the `--paired-bs` and
  `--paired-ar` results of a baseline against the other systems (significance.PairedTest,
  the code the CLI runs; its `-f json` output crashes on paired results under numpy 2), with
  SACREBLEU_SEED 12345 and 7.

Corpora: `wmt17` = 250 segments of four WMT17 en-de systems, copied from
/work/shared/data/wmt17/newstest2017-en-de.jsonl.gz into wmt17/sacre_slice.jsonl.gz (the Go
tests read the copy); `tiny` = six hand-written segments with no-match, one-word and empty
hypotheses, written into the JSON itself.

Run from the repository root with the pinned venv:
    .cache/goldenvenv/bin/python testdata/goldens/gen_sacrebleu_stats.py
"""

import gzip
import json
import os
import platform
import sys

import numpy as np
import sacrebleu
from sacrebleu.metrics import BLEU, CHRF, TER
from sacrebleu.significance import PairedTest

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "stats", "sacrebleu_stats.json")
OUT_RNG = os.path.join(HERE, "stats", "npyrand.json")
SLICE = os.path.join(HERE, "wmt17", "sacre_slice.jsonl.gz")
WMT = "/work/shared/data/wmt17/newstest2017-en-de.jsonl.gz"
SYSTEMS = ["uedin-nmt", "LIUM-NMT", "PROMT-Rule-based", "C-3MA"]  # baseline first
NSEG = 250
SEEDS = [12345, 7]

TINY_REFS = [
    "The cat sat on the mat.",
    "A quick brown fox jumps over the lazy dog.",
    "Hello world",
    "It was raining all day long , and nobody came .",
    "Zero overlap here",
    "x",
]
TINY_SYSTEMS = {
    "base": ["The cat sat on the mat.", "A fast brown fox jumps over a lazy dog.", "Hello world",
             "It rained all day and nobody came.", "nothing matches", "x"],
    "cand1": ["the cat sat on a mat", "A quick brown fox jumped over the lazy dog.", "Hello",
              "It was raining all day long, and nobody came.", "", "y"],
    "cand2": ["The cat is on the mat.", "quick fox", "Hello world !",
              "Raining all day , nobody came .", "Zero overlap here", "x"],
}


def metrics():
    """The default-option metrics, keyed by evalstream type."""
    return {"bleu": BLEU, "chrf": CHRF, "ter": TER}


def rng_goldens():
    seeds = [12345, 7, 0, 1, 2**32 + 5, 987654321]
    ns = [1, 2, 3, 7, 8, 100, 250, 1000, 3004, 2**31 + 11, 2**32 - 1, 2**32]
    out = {"numpy": np.__version__, "cases": []}
    for seed in seeds:
        raw = np.random.default_rng(seed).bit_generator.random_raw(8)
        case = {"seed": seed, "raw": [str(int(x)) for x in raw], "choice": [], "bools": []}
        for n in ns:
            draws = np.random.default_rng(seed).choice(n, size=(3, 7), replace=True)
            case["choice"].append({"n": n, "rows": 3, "cols": 7, "draws": [int(x) for x in draws.ravel()]})
        for rows, cols in [(1, 1), (5, 37), (2, 64)]:
            draws = np.random.default_rng(seed).integers(2, size=(rows, cols), dtype=bool)
            case["bools"].append({"rows": rows, "cols": cols, "draws": [int(x) for x in draws.ravel()]})
        # sacrebleu's paired AR with confidence: bools first, then choice, from one generator.
        g = np.random.default_rng(seed)
        b = g.integers(2, size=(3, 10), dtype=bool)
        c = g.choice(10, size=(2, 10), replace=True)
        case["bools_then_choice"] = {"n": 10, "bool_rows": 3, "choice_rows": 2,
                                     "bools": [int(x) for x in b.ravel()],
                                     "choice": [int(x) for x in c.ravel()]}
        out["cases"].append(case)
    return out


def write_slice():
    if not os.path.exists(WMT):
        print("missing %s: keeping the committed slice" % WMT, file=sys.stderr)
        return
    by = {s: [] for s in SYSTEMS}
    with gzip.open(WMT, "rt", encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            if r["system"] in by and len(by[r["system"]]) < NSEG:
                by[r["system"]].append(r)
    with gzip.GzipFile(SLICE, "wb", mtime=0) as raw:
        for s in SYSTEMS:
            for r in by[s]:
                raw.write((json.dumps(r, ensure_ascii=False) + "\n").encode("utf-8"))


def read_slice():
    hyps, refs = {}, None
    with gzip.open(SLICE, "rt", encoding="utf-8") as f:
        rows = [json.loads(l) for l in f]
    for s in SYSTEMS:
        rs = [r for r in rows if r["system"] == s]
        hyps[s] = [r["prediction"] for r in rs]
        these = [r["references"][0] for r in rs]
        assert refs is None or refs == these
        refs = these
    return hyps, refs


def f(x):
    """A JSON number: float32 and float64 scalars convert to float exactly."""
    return None if x is None else float(x)


def corpus_cases(corpus, names, hyps, refs):
    cases = []
    stats = {}
    for mtype, cls in metrics().items():
        m = cls()
        stats[mtype] = {s: [[float(v) for v in row] for row in m._extract_corpus_statistics(hyps[s], [refs])]
                        for s in names}
        for seed in SEEDS:
            os.environ["SACREBLEU_SEED"] = str(seed)
            for s in names:
                m = cls()
                case = {"corpus": corpus, "metric": mtype, "kind": "confidence", "seed": seed,
                        "resamples": 1000, "system": s}
                try:
                    sc = m.corpus_score(hyps[s], [refs], n_bootstrap=1000)
                    case.update(score=f(sc.score), mean=f(sc._mean), half_width=f(sc._ci))
                except TypeError as e:
                    # statistics.mean cannot mix the Python floats of undefined resamples
                    # with numpy float32 scores: sacrebleu --confidence crashes.
                    case["error"] = "TypeError: %s" % e
                cases.append(case)
            for test, n, nconf in [("bs", 1000, -1), ("ar", 10000, -1)] + (
                    [("ar", 2000, 1000)] if seed == SEEDS[0] else []):
                m = cls(references=[refs])
                named = [(s, hyps[s]) for s in names]
                _, scores = PairedTest(named, {mtype: m}, references=None, test_type=test,
                                       n_samples=n, n_ar_confidence=nconf)()
                (key,) = [k for k in scores if k != "System"]
                res = [{"system": sn, "score": f(r.score), "p_value": f(r.p_value),
                        "mean": f(r.mean), "half_width": f(r.ci)}
                       for sn, r in zip(scores["System"], scores[key])]
                cases.append({"corpus": corpus, "metric": mtype, "kind": "paired-" + test, "seed": seed,
                              "resamples": n, "ar_confidence": nconf, "baseline": names[0], "results": res})
    os.environ.pop("SACREBLEU_SEED", None)
    return cases, stats


def main():
    with open(OUT_RNG, "w") as fh:
        json.dump(rng_goldens(), fh, indent=0)
        fh.write("\n")
    write_slice()
    hyps, refs = read_slice()
    tiny_names = list(TINY_SYSTEMS)
    c1, s1 = corpus_cases("wmt17", SYSTEMS, hyps, refs)
    c2, s2 = corpus_cases("tiny", tiny_names, TINY_SYSTEMS, TINY_REFS)
    out = {
        "generator": "gen_sacrebleu_stats.py",
        "sacrebleu": sacrebleu.__version__,
        "numpy": np.__version__,
        "python": platform.python_version(),
        "corpora": {
            "wmt17": {"file": "wmt17/sacre_slice.jsonl.gz", "systems": SYSTEMS},
            "tiny": {"refs": TINY_REFS, "systems": TINY_SYSTEMS, "order": tiny_names},
        },
        "stats": {"wmt17": s1, "tiny": s2},
        "cases": c1 + c2,
    }
    with open(OUT, "w") as fh:
        json.dump(out, fh, indent=0, ensure_ascii=False)
        fh.write("\n")
    print("wrote", OUT, len(out["cases"]), "cases")


if __name__ == "__main__":
    main()
