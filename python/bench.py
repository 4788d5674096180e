"""Python overhead benchmark: ``evalstream.score(table, metrics=["bleu", "chrf"])`` inside a
running Python process against the CLI's ``score`` on the same rows as an Arrow file, and
optionally the Spark and Ray adapters on the same rows as Parquet.

    python bench.py newstest2017-en-de.jsonl.gz [--times 20] [--runs 5] [--spark MASTER] [--ray]

Runs alternate between the two sides, best of --runs each; the results must be identical.
Not part of CI (it needs the WMT17 corpus and a few minutes).
"""

from __future__ import annotations

import argparse
import gzip
import resource
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.feather as feather
import pyarrow.parquet as pq

import evalstream

METRICS = ["bleu", "chrf"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus")
    ap.add_argument("--times", type=int, default=20)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--spark", default="")
    ap.add_argument("--ray", action="store_true")
    ap.add_argument("--parts", type=int, default=8)
    a = ap.parse_args()

    with gzip.open(a.corpus, "rt", encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    one = pa.Table.from_pylist(rows)
    table = pa.concat_tables([one] * a.times).combine_chunks()
    tmp = Path(tempfile.mkdtemp(prefix="evalstream-bench-"))
    arrow = tmp / "wmt17.arrow"
    feather.write_feather(table, arrow, compression="uncompressed")
    print(f"{table.num_rows} rows, Arrow file {arrow.stat().st_size / 1e6:.0f} MB", flush=True)

    cli_args = [evalstream.binary_path(), "score", "--format", "json"]
    for m in METRICS:
        cli_args += ["--metric", m]
    cli_args.append(str(arrow))

    def run_cli() -> dict:
        r = subprocess.run(cli_args, capture_output=True, check=True)
        return json.loads(r.stdout)

    def run_py() -> dict:
        return evalstream.score(table, metrics=METRICS).to_dict()

    def cpu() -> float:
        # CPU seconds of this process and of its finished children: on a shared machine the
        # wall times drift with the other load, the CPU time much less.
        s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime

    best = {"cli": float("inf"), "python": float("inf")}
    best_cpu = {"cli": float("inf"), "python": float("inf")}
    want = None
    for _ in range(a.runs):
        for name, fn in (("cli", run_cli), ("python", run_py)):
            t0, c0 = time.perf_counter(), cpu()
            got = fn()
            best[name] = min(best[name], time.perf_counter() - t0)
            best_cpu[name] = min(best_cpu[name], cpu() - c0)
            want = want or got
            assert got == want, f"{name} differs"
    print(f"CLI score (Arrow file): {best['cli']:.3f} s wall, {best_cpu['cli']:.3f} s CPU")
    print(
        f"evalstream.score(table): {best['python']:.3f} s wall, {best_cpu['python']:.3f} s CPU;"
        f" ratio {best['python'] / best['cli']:.3f}x wall, {best_cpu['python'] / best_cpu['cli']:.3f}x CPU"
    )

    if a.spark or a.ray:
        parts = tmp / "parquet"
        parts.mkdir()
        step = -(-table.num_rows // a.parts)
        for i in range(a.parts):
            pq.write_table(table.slice(i * step, step), parts / f"part-{i:03d}.parquet")
    if a.spark:
        import os

        from pyspark.sql import SparkSession

        from evalstream import spark as es_spark

        os.environ["PYSPARK_PYTHON"] = sys.executable
        spark = (
            SparkSession.builder.master(a.spark)
            .config("spark.executor.cores", "1")
            .config("spark.executor.memory", "1g")
            .config("spark.driver.memory", "1g")
            .config("spark.ui.showConsoleProgress", "false")
            .getOrCreate()
        )
        df = spark.read.parquet(str(parts))
        es_spark.score(df.limit(10), metrics=METRICS, workers=1)  # start the Python workers
        t0 = time.perf_counter()
        res = es_spark.score(df, metrics=METRICS, workers=1).to_dict()
        print(f"Spark ({df.rdd.getNumPartitions()} partitions): {time.perf_counter() - t0:.3f} s, identical: {res == want}")
        spark.stop()
    if a.ray:
        import ray

        import evalstream.ray as es_ray

        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        ray.data.DataContext.get_current().enable_progress_bars = False
        ds = ray.data.read_parquet(str(parts)).repartition(a.parts).materialize()
        es_ray.score(ds.limit(10), metrics=METRICS, workers=1)
        t0 = time.perf_counter()
        res = es_ray.score(ds, metrics=METRICS, workers=1).to_dict()
        print(f"Ray ({a.parts} blocks): {time.perf_counter() - t0:.3f} s, identical: {res == want}")
        ray.shutdown()


if __name__ == "__main__":
    main()
