"""evalstream.spark on a real Spark standalone cluster (python/ci.sh starts a master and two
workers as separate JVMs and sets EVALSTREAM_SPARK_MASTER)."""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path

import pytest

import evalstream
import evalstream.spark
from conftest import results, CLASS_METRICS, CLASS_SLICE, TEXT_METRICS, TEXT_SLICE
from engines import kill, processes_running, require_engines, wait_for

pyspark = pytest.importorskip("pyspark")


@pytest.fixture(scope="module")
def spark():
    from pyspark.sql import SparkSession

    master = os.environ.get("EVALSTREAM_SPARK_MASTER")
    if not master:
        if require_engines():
            pytest.fail("EVALSTREAM_SPARK_MASTER is not set")
        pytest.skip("EVALSTREAM_SPARK_MASTER is not set (python/ci.sh starts a standalone cluster)")
    os.environ["PYSPARK_PYTHON"] = sys.executable  # the executors' Python (PySpark reads it on the driver)
    s = (
        SparkSession.builder.master(master)
        .appName("evalstream-tests")
        .config("spark.executor.cores", "1")
        .config("spark.cores.max", "2")
        .config("spark.executor.memory", "512m")
        .config("spark.driver.memory", "512m")
        .config("spark.pyspark.python", sys.executable)
        .config("spark.pyspark.driver.python", sys.executable)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", "4")
        .getOrCreate()
    )
    yield s
    s.stop()


@pytest.mark.parametrize("parts", [8, 13])
def test_wmt17_equals_cli(spark, data_dir: Path, wmt17_cli: dict, parts: int) -> None:
    df = spark.read.parquet(str(data_dir / f"wmt17_{parts}"))
    assert df.count() == wmt17_cli["records"]
    split = df.repartition(parts)
    assert split.rdd.getNumPartitions() == parts
    res = evalstream.spark.score(split, metrics=TEXT_METRICS, slice_by=TEXT_SLICE, workers=1)
    assert results(res.to_dict()) == wmt17_cli
    if parts == 13:  # the files' own partitioning, whatever Spark makes of it
        assert results(evalstream.spark.score(df, metrics=TEXT_METRICS, slice_by=TEXT_SLICE, workers=1).to_dict()) == wmt17_cli


def test_classification_equals_cli(spark, data_dir: Path, classification_cli: dict) -> None:
    df = spark.read.parquet(str(data_dir / "classification_8")).repartition(8)
    res = evalstream.spark.score(df, metrics=CLASS_METRICS, slice_by=CLASS_SLICE, workers=1)
    assert results(res.to_dict()) == classification_cli


def test_one_state_per_partition(spark, data_dir: Path) -> None:
    df = spark.read.parquet(str(data_dir / "wmt17_8")).repartition(5)
    states = evalstream.spark.fold_partitions(df, metrics=TEXT_METRICS, slice_by=TEXT_SLICE, workers=1).collect()
    assert sorted(r["partition"] for r in states) == list(range(5))
    # empty partitions (more partitions than rows of a filter) fold to states that count nothing
    few = spark.createDataFrame(df.limit(3).collect(), df.schema).repartition(6)
    res = evalstream.spark.score(few, metrics=["bleu"], workers=1)
    assert res.records == 3
    st = evalstream.spark.fold(few, metrics=["bleu"], workers=1)
    assert st.report() == res


def test_bad_metric_fails_on_the_driver(spark, data_dir: Path) -> None:
    df = spark.read.parquet(str(data_dir / "wmt17_8"))
    with pytest.raises(evalstream.UsageError, match="want key=value"):
        evalstream.spark.score(df, metrics=["bleu:tokenize"])


def test_executor_killed_mid_job(spark, data_dir: Path, wmt17_cli: dict, tmp_path: Path) -> None:
    """An executor JVM is killed while its tasks run: Spark reruns them elsewhere and the
    result is still exactly the CLI's (no partition lost, none counted twice)."""

    markers = tmp_path / "markers"
    markers.mkdir()
    mdir = str(markers)

    def slow(batches):
        import os
        import time

        from pyspark import TaskContext

        ctx = TaskContext.get()
        open(os.path.join(mdir, f"p{ctx.partitionId()}-a{ctx.attemptNumber()}-{os.getpid()}"), "w").close()
        time.sleep(1)
        yield from batches

    df = spark.read.parquet(str(data_dir / "wmt17_13")).repartition(13)
    slowed = df.mapInArrow(slow, df.schema)
    out: dict = {}

    def job() -> None:
        try:
            out["res"] = evalstream.spark.score(slowed, metrics=TEXT_METRICS, slice_by=TEXT_SLICE, workers=1)
        except BaseException as e:  # reported by the test thread
            out["err"] = e

    t = threading.Thread(target=job)
    t.start()
    app = spark.sparkContext.applicationId
    wait_for(lambda: len(list(markers.iterdir())) >= 2, "two tasks to start")
    victims = processes_running("CoarseGrainedExecutorBackend", app)
    assert len(victims) == 2, victims  # one executor per worker
    kill(victims[0])
    t.join(timeout=600)
    assert not t.is_alive()
    if "err" in out:
        raise out["err"]
    assert results(out["res"].to_dict()) == wmt17_cli
    starts = [m.name.split("-")[0] for m in markers.iterdir()]
    assert len(starts) > 13, "no task ran twice: the kill did not hit a running task"
    assert sorted(set(starts)) == sorted(f"p{i}" for i in range(13))
