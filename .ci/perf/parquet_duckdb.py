#!/usr/bin/env python3
"""Classification over a 10M-row Parquet file: evalstream against duckdb and polars (issue 19).

Called by parquet_duckdb.sh, which pins duckdb, pyarrow and polars in its venv and builds
evalstream. Two parts:

1. Classification. A 10M-row file written by pyarrow with its defaults (row groups of 1Mi
   rows, snappy, dictionary pages where they pay): int64 `label` and `prediction` (10
   classes, 80% right) plus two string columns no metric reads (a unique `id` and a
   low-cardinality `source`), as real eval sets carry. A second file holds the classes as
   dictionary-encoded strings (`label_str`, `prediction_str`: pandas categoricals, written
   from Arrow dictionary arrays). `evalstream score --metric accuracy --metric f1 --metric
   confusion_matrix` runs as a whole process (CPU = user+sys of the child, from getrusage(RUSAGE_CHILDREN) around it);
   duckdb's `SELECT label, prediction, count(*) ... GROUP BY ALL` and polars'
   `scan_parquet(...).group_by(...).len()` run inside this process with a fresh connection
   each time, CPU = process time across all their threads, so their interpreter start-up
   and import are NOT counted (the peers get the benefit of the doubt). Runs alternate
   between the tools; medians are printed with ratios peer / evalstream (> 1: evalstream
   is faster). The confusion counts of all three must agree.

2. Text metrics: the same corpus (WMT17 newstest2017 en-de repeated, or generated) as JSONL
   and as Parquet (pyarrow); `evalstream score --metric bleu --metric chrf` on each,
   alternating; ratio Parquet / JSONL (<= 1.2 is the target).
"""

import argparse
import gzip
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time

import duckdb
import numpy as np
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

CLASSES = 10


def gen_classification(path, n, strings):
    rng = np.random.default_rng(19)
    label = rng.integers(0, CLASSES, n, dtype=np.int64)
    wrong = rng.random(n) < 0.2
    pred = np.where(wrong, rng.integers(0, CLASSES, n, dtype=np.int64), label)
    ids = pc.binary_join_element_wise("ex-", pc.cast(pa.array(np.arange(n)), pa.string()), "")
    source = pa.DictionaryArray.from_arrays(
        pa.array(rng.integers(0, 8, n, dtype=np.int32)),
        pa.array([f"suite-{i}" for i in range(8)])).cast(pa.string())
    cols = {"id": ids, "source": source}
    if strings:
        names = pa.array([f"class_{i}" for i in range(CLASSES)])
        cols["label_str"] = pa.DictionaryArray.from_arrays(pa.array(label.astype(np.int32)), names)
        cols["prediction_str"] = pa.DictionaryArray.from_arrays(pa.array(pred.astype(np.int32)), names)
    else:
        cols["label"] = pa.array(label)
        cols["prediction"] = pa.array(pred)
    pq.write_table(pa.table(cols), path + ".tmp")
    os.replace(path + ".tmp", path)


def gen_text(work, wmt, copies):
    jsonl, parquet = os.path.join(work, f"text-x{copies}.jsonl"), os.path.join(work, f"text-x{copies}.parquet")
    if os.path.exists(jsonl) and os.path.exists(parquet):
        return jsonl, parquet
    rows = []
    if wmt and os.path.exists(wmt):
        with gzip.open(wmt, "rt", encoding="utf-8") as f:
            for line in f:
                r = json.loads(line)
                rows.append({"id": r["id"], "prediction": r["prediction"], "references": r["references"]})
    else:
        rng = np.random.default_rng(7)
        words = [f"w{i}" for i in range(5000)]
        for i in range(48064):
            ref = " ".join(words[j] for j in rng.integers(0, 5000, 25))
            hyp = " ".join(w if rng.random() < 0.7 else words[rng.integers(0, 5000)] for w in ref.split())
            rows.append({"id": f"gen-{i}", "prediction": hyp, "references": [ref]})
    rows = rows * copies
    with open(jsonl + ".tmp", "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    os.replace(jsonl + ".tmp", jsonl)
    pq.write_table(pa.Table.from_pylist(rows), parquet + ".tmp")
    os.replace(parquet + ".tmp", parquet)
    return jsonl, parquet


def run_proc(cmd):
    """Runs cmd, returning (wall s, cpu s of the child, stdout)."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = p.communicate()
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({p.returncode}): {err.decode()}")
    return wall, out


def child_cpu():
    """CPU (user+sys) of the children reaped so far: one child runs at a time."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed_proc(cmd):
    c0 = child_cpu()
    wall, out = run_proc(cmd)
    return wall, child_cpu() - c0, out


def timed_inproc(fn):
    c0, t0 = time.process_time(), time.perf_counter()
    res = fn()
    return time.perf_counter() - t0, time.process_time() - c0, res


def duckdb_counts(path, lab, pred):
    con = duckdb.connect()
    try:
        rows = con.execute(f"SELECT {lab}, {pred}, count(*) FROM read_parquet('{path}') GROUP BY ALL").fetchall()
    finally:
        con.close()
    return {(str(a), str(b)): c for a, b, c in rows}


def polars_counts(path, lab, pred):
    df = pl.scan_parquet(path).group_by([lab, pred]).len().collect()
    return {(str(a), str(b)): c for a, b, c in df.iter_rows()}


def med(xs):
    return statistics.median(xs)


def section_classification(args, path, lab, pred, title, names):
    opt = f"num_classes={CLASSES}"
    if names:
        opt = "classes=[" + ",".join(f"class_{i}" for i in range(CLASSES)) + "]"
    es = [args.evalstream, "score", "--metric", "accuracy" + (":" + opt if names else ""),
          "--metric", "f1:average=macro," + opt, "--metric", "confusion_matrix:" + opt,
          "--label", lab, "--prediction", pred, "--format", "json", path]
    times = {"evalstream": [], "duckdb": [], "polars": []}
    outs = {}
    for i in range(args.runs):
        for name in (["evalstream", "duckdb", "polars"] if i % 2 == 0 else ["polars", "duckdb", "evalstream"]):
            if name == "evalstream":
                w, c, out = timed_proc(es)
                outs[name] = out
            elif name == "duckdb":
                w, c, outs[name] = timed_inproc(lambda: duckdb_counts(path, lab, pred))
            else:
                w, c, outs[name] = timed_inproc(lambda: polars_counts(path, lab, pred))
            times[name].append((w, c))
    if outs["duckdb"] != outs["polars"]:
        sys.exit("duckdb and polars disagree")
    total = sum(outs["duckdb"].values())
    correct = sum(c for (a, b), c in outs["duckdb"].items() if a == b)
    text = outs["evalstream"].decode()
    want_acc = correct / total
    got = json.loads(text)
    acc = find_value(got, "accuracy")
    agree = acc is not None and abs(acc - want_acc) < 1e-12
    print(f"\n== {title}: {path} ({os.path.getsize(path) / 1e6:.0f} MB, {total} rows)")
    print(f"accuracy: evalstream {acc}, from duckdb's counts {want_acc} -> {'agree' if agree else 'DISAGREE'}")
    e_w, e_c = med([t[0] for t in times["evalstream"]]), med([t[1] for t in times["evalstream"]])
    print(f"{'tool':<12}{'wall s':>9}{'cpu s':>9}{'wall ratio':>12}{'cpu ratio':>11}   (ratio = tool / evalstream)")
    for name, ts in times.items():
        w, c = med([t[0] for t in ts]), med([t[1] for t in ts])
        print(f"{name:<12}{w:9.3f}{c:9.3f}{w / e_w:12.2f}{c / e_c:11.2f}")
    if not agree:
        sys.exit("evalstream's accuracy disagrees with duckdb's counts")


def find_value(res, metric):
    """The value of metric in evalstream's JSON results, wherever the schema puts it."""
    if isinstance(res, dict):
        if res.get("metric") == metric or res.get("name") == metric or res.get("type") == metric:
            v = res.get("value")
            if isinstance(v, (int, float)):
                return v
        for k, v in res.items():
            if k == metric and isinstance(v, (int, float)):
                return v
            got = find_value(v, metric)
            if got is not None:
                return got
    elif isinstance(res, list):
        for v in res:
            got = find_value(v, metric)
            if got is not None:
                return got
    return None


def section_text(args):
    jsonl, parquet = gen_text(args.work, args.wmt, args.text_copies)
    base = [args.evalstream, "score", "--metric", "bleu", "--metric", "chrf", "--format", "json"]
    times = {"jsonl": [], "parquet": []}
    outs = {}
    for i in range(args.runs):
        for name in (["jsonl", "parquet"] if i % 2 == 0 else ["parquet", "jsonl"]):
            w, c, out = timed_proc(base + [jsonl if name == "jsonl" else parquet])
            outs[name] = out
            times[name].append((w, c))
    b = {k: (find_value(json.loads(v), "bleu"), find_value(json.loads(v), "chrf")) for k, v in outs.items()}
    print(f"\n== text metrics (bleu + chrf), {args.text_copies} copies of the corpus: {jsonl} vs {parquet}")
    print(f"scores jsonl {b['jsonl']} parquet {b['parquet']} -> {'agree' if b['jsonl'] == b['parquet'] else 'DISAGREE'}")
    j_w, j_c = med([t[0] for t in times["jsonl"]]), med([t[1] for t in times["jsonl"]])
    p_w, p_c = med([t[0] for t in times["parquet"]]), med([t[1] for t in times["parquet"]])
    print(f"jsonl   wall {j_w:.3f} s cpu {j_c:.3f} s")
    print(f"parquet wall {p_w:.3f} s cpu {p_c:.3f} s  -> parquet/jsonl wall {p_w / j_w:.2f}, cpu {p_c / j_c:.2f} (target <= 1.2)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--evalstream", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--wmt", default="/work/shared/data/wmt17/newstest2017-en-de.jsonl.gz")
    ap.add_argument("--text-copies", type=int, default=4)
    ap.add_argument("--only", choices=["int", "str", "text"], action="append")
    args = ap.parse_args()
    only = set(args.only or ["int", "str", "text"])
    print(f"duckdb {duckdb.__version__}, polars {pl.__version__}, pyarrow {pa.__version__}, "
          f"python {platform.python_version()}, {os.cpu_count()} CPUs, {platform.machine()}")
    ints = os.path.join(args.work, f"cls-{args.rows}.parquet")
    strs = os.path.join(args.work, f"cls-str-{args.rows}.parquet")
    if "int" in only:
        if not os.path.exists(ints):
            gen_classification(ints, args.rows, False)
        section_classification(args, ints, "label", "prediction", "int64 classes", False)
    if "str" in only:
        if not os.path.exists(strs):
            gen_classification(strs, args.rows, True)
        section_classification(args, strs, "label_str", "prediction_str", "dictionary-encoded string classes", True)
    if "text" in only:
        section_text(args)


if __name__ == "__main__":
    main()
