"""evalstream on Apache Spark: fold each partition on the executors, merge on the driver.

:func:`score` runs ``mapInArrow`` over the DataFrame: every task streams its partition's
Arrow batches into the evalstream executable (from this package, installed on the
executors) and yields one row, ``(partition, state)``. The driver collects those rows and
merges them with the CLI's ``merge`` semantics. The results are bit for bit those of
``evalstream run`` over the same rows, however Spark partitions them.

Retries cannot double count: a task's output exists only once its attempt succeeded, a
retried task folds the same partition again into the same state, and the driver takes
exactly one state per partition id (two are an error, a missing one too).

Works with classic PySpark and with Spark Connect (``mapInArrow`` and ``collect`` only).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from . import _core
from ._core import MetricSpec, Results, State

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow
    from pyspark.sql import DataFrame

__all__ = ["score", "fold", "fold_partitions"]

_STATES_SCHEMA = "partition int, state binary"


def fold_partitions(
    df: DataFrame,
    metrics: Sequence[MetricSpec],
    slice_by: str | Sequence[str] | None = None,
    ci: Mapping[str, Any] | str | None = None,
    **options: Any,
) -> DataFrame:
    """A DataFrame of one row per partition of ``df``: ``partition`` (its id) and ``state``
    (the bytes of its :class:`evalstream.State`). Lazy, like every DataFrame."""
    import pyarrow as pa

    # Check the arguments on the driver, so that a bad metric fails before any task runs.
    _core.metric_entries(metrics)
    schema = _arrow_schema(df)
    schema_bytes = schema.serialize().to_pybytes()
    opts = dict(options)

    def fold_partition(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        from pyspark import TaskContext

        import evalstream._core as core

        ctx = TaskContext.get()
        pid = ctx.partitionId() if ctx is not None else 0
        it = iter(batches)
        first = next(it, None)
        if first is None:
            sch = pa.ipc.read_schema(pa.py_buffer(schema_bytes))
            reader = pa.RecordBatchReader.from_batches(sch, iter(()))
        else:

            def chain() -> Iterator[pa.RecordBatch]:
                yield first
                yield from it

            reader = pa.RecordBatchReader.from_batches(first.schema, chain())
        st = core.fold(reader, metrics, slice_by, ci, **opts)
        yield pa.RecordBatch.from_pydict(
            {"partition": pa.array([pid], pa.int32()), "state": pa.array([bytes(st)], pa.binary())}
        )

    return df.mapInArrow(fold_partition, _STATES_SCHEMA)


def fold(
    df: DataFrame,
    metrics: Sequence[MetricSpec],
    slice_by: str | Sequence[str] | None = None,
    ci: Mapping[str, Any] | str | None = None,
    **options: Any,
) -> State:
    """The merged :class:`evalstream.State` of every partition of ``df``."""
    return _core.merge(_collect(df, fold_partitions(df, metrics, slice_by, ci, **options)))


def score(
    df: DataFrame,
    metrics: Sequence[MetricSpec],
    slice_by: str | Sequence[str] | None = None,
    ci: Mapping[str, Any] | str | None = None,
    **options: Any,
) -> Results:
    """Score a Spark DataFrame: the results of ``evalstream.score`` over all its rows.

    Arguments are those of :func:`evalstream.score`. ``workers`` (default: one per CPU of
    the executor's machine) is how many threads each task's executable uses; set it to the
    executor's ``spark.task.cpus``. Raises :class:`evalstream.EvalstreamError` with the
    CLI's message when a partition cannot be scored (Spark wraps it in its own exception
    when the failure happens on an executor).
    """
    return _core.report(_collect(df, fold_partitions(df, metrics, slice_by, ci, **options)))


def _collect(df: DataFrame, states: DataFrame) -> list[State]:
    rows = states.collect()
    by_partition: dict[int, bytes] = {}
    for r in rows:
        pid = int(r["partition"])
        if pid in by_partition:
            raise RuntimeError(f"partition {pid} produced two states; merging both would count its rows twice")
        by_partition[pid] = bytes(r["state"])
    n = _num_partitions(df)
    if n is not None and sorted(by_partition) != list(range(n)):
        missing = sorted(set(range(n)) - set(by_partition))
        raise RuntimeError(f"the DataFrame has {n} partitions but states came for {len(by_partition)} (missing: {missing[:10]})")
    if not by_partition:
        raise _core.RunError("no record was scored: the DataFrame has no partitions", 1)
    return [State(by_partition[p]) for p in sorted(by_partition)]


def _num_partitions(df: DataFrame) -> int | None:
    try:
        return int(df.rdd.getNumPartitions())
    except Exception:  # Spark Connect has no RDDs
        return None


def _arrow_schema(df: DataFrame) -> pyarrow.Schema:
    try:
        from pyspark.sql.pandas.types import to_arrow_schema
    except ImportError:  # pragma: no cover
        raise
    try:
        return to_arrow_schema(df.schema, prefers_large_types=False)
    except TypeError:  # older PySpark
        return to_arrow_schema(df.schema)
