"""evalstream: exact, mergeable, bit-reproducible model evaluation.

>>> import evalstream, pyarrow as pa
>>> t = pa.table({"prediction": ["the cat sat"], "references": [["the cat sat"]]})
>>> evalstream.score(t, metrics=["bleu"])["bleu"].details["counts"]
[3, 2, 1]

:func:`score` returns :class:`Results` (``to_dict()`` is the CLI's results JSON);
:func:`fold` returns a :class:`State` (``bytes(state)`` is what ``--save-state`` writes);
:func:`merge` combines states and :meth:`State.report` finishes them. ``evalstream.spark``
and ``evalstream.ray`` run the same on Spark DataFrames and Ray Datasets.
"""

from ._core import (
    EvalstreamError,
    MetricResult,
    Results,
    RunError,
    SliceResults,
    State,
    UsageError,
    binary_path,
    fold,
    merge,
    report,
    score,
)

__version__ = "0.1.0"

__all__ = [
    "EvalstreamError",
    "MetricResult",
    "Results",
    "RunError",
    "SliceResults",
    "State",
    "UsageError",
    "binary_path",
    "fold",
    "merge",
    "report",
    "score",
    "__version__",
]
