"""evalstream on Ray Data: fold each block in a task, merge the states.

:func:`score` maps every block of the Dataset (``map_batches`` with pyarrow batches, one
batch per block) to one state through the evalstream executable, then merges the states
with the CLI's ``merge`` semantics. The results are bit for bit those of ``evalstream run``
over the same rows, however Ray splits them into blocks. A task that Ray retries (a worker
lost) recomputes its block's output in place of the lost one, so no rows are counted twice.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from . import _core
from ._core import MetricSpec, Results, State

if TYPE_CHECKING:  # pragma: no cover
    import ray.data

__all__ = ["score", "fold", "fold_blocks"]


def fold_blocks(
    ds: ray.data.Dataset,
    metrics: Sequence[MetricSpec],
    slice_by: str | Sequence[str] | None = None,
    ci: Mapping[str, Any] | str | None = None,
    **options: Any,
) -> ray.data.Dataset:
    """A Dataset of one row per block of ``ds``, column ``state`` (a state's bytes). Lazy."""
    import pyarrow as pa

    _core.metric_entries(metrics)  # a bad metric fails here, before any task runs
    opts = dict(options)

    def fold_block(batch: pa.Table) -> pa.Table:
        import evalstream._core as core

        st = core.fold(batch, metrics, slice_by, ci, **opts)
        return pa.table({"state": pa.array([bytes(st)], pa.binary())})

    return ds.map_batches(fold_block, batch_format="pyarrow", batch_size=None, zero_copy_batch=True)


def fold(
    ds: ray.data.Dataset,
    metrics: Sequence[MetricSpec],
    slice_by: str | Sequence[str] | None = None,
    ci: Mapping[str, Any] | str | None = None,
    **options: Any,
) -> State:
    """The merged :class:`evalstream.State` of every row of ``ds``."""
    return _core.merge(_collect(fold_blocks(ds, metrics, slice_by, ci, **options)))


def score(
    ds: ray.data.Dataset,
    metrics: Sequence[MetricSpec],
    slice_by: str | Sequence[str] | None = None,
    ci: Mapping[str, Any] | str | None = None,
    **options: Any,
) -> Results:
    """Score a Ray Dataset: the results of ``evalstream.score`` over all its rows.

    Arguments are those of :func:`evalstream.score`; ``workers`` is how many threads each
    task's executable uses (default one per CPU of the node).
    """
    return _core.report(_collect(fold_blocks(ds, metrics, slice_by, ci, **options)))


def _collect(states: ray.data.Dataset) -> list[State]:
    out = [State(bytes(r["state"])) for r in states.take_all()]
    if not out:
        raise _core.RunError("no record was scored: the Dataset has no blocks", 1)
    return out
