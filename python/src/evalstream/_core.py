"""The binary bridge: configs, runs, results and states.

Every call runs the ``evalstream`` executable shipped in the wheel. Tables cross as an Arrow
IPC stream on the executable's standard input (``source.path: "-"``); files are passed by
path. Results come back as the CLI's results JSON and states as the bytes of
``--save-state``, so everything here agrees with the command line bit for bit.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union

if TYPE_CHECKING:  # pragma: no cover
    import pandas
    import pyarrow

__all__ = [
    "EvalstreamError",
    "UsageError",
    "RunError",
    "MetricResult",
    "SliceResults",
    "Results",
    "State",
    "binary_path",
    "score",
    "fold",
    "merge",
    "report",
]

MetricSpec = Union[str, Mapping[str, Any]]
"""A metric: the CLI's ``--metric`` string (``"chrf:word_order=2"``) or a pipeline config entry
(``{"type": "f1", "average": "macro"}``)."""

PathLike = Union[str, "os.PathLike[str]"]

# Keyword arguments of score/fold that belong in the config's pipeline and source sections;
# every other keyword is a top-level config key (window, gate, ...).
_PIPELINE_KEYS = frozenset({"workers", "batch_size", "on_error", "max_bad", "dead_letter"})
_SOURCE_KEYS = frozenset({"format", "max_record_bytes"})

# Rows per Arrow record batch written to the executable: bounds the memory of one message
# and lets its workers start before the whole table is written.
_BATCH_ROWS = 1 << 16


class EvalstreamError(Exception):
    """A failure reported by the evalstream executable.

    ``str(err)`` is the executable's message (what the CLI prints after ``evalstream:``),
    naming the field, row or option at fault. ``exit_code`` is the CLI's exit code and
    ``stderr`` everything it wrote there.
    """

    def __init__(self, message: str, exit_code: int, stderr: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code
        self.stderr = stderr


class UsageError(EvalstreamError, ValueError):
    """A usage or config error (exit code 2): unknown metric, option, field or format."""


class RunError(EvalstreamError, RuntimeError):
    """A runtime failure (exit code 1): unreadable input, too many bad records, no record scored."""


def binary_path() -> str:
    """Path of the evalstream executable this package runs.

    ``$EVALSTREAM_BIN`` overrides the executable shipped in the wheel (for development).
    """
    env = os.environ.get("EVALSTREAM_BIN")
    if env:
        return env
    exe = "evalstream.exe" if sys.platform == "win32" else "evalstream"
    p = Path(__file__).resolve().parent / "bin" / exe
    if not p.is_file():
        raise FileNotFoundError(
            f"the evalstream executable is missing at {p}: install a platform wheel of evalstream, or set EVALSTREAM_BIN"
        )
    return str(p)


# ---------------------------------------------------------------------------------------
# Results


@dataclass(frozen=True)
class MetricResult:
    """One metric's result: ``value`` is a float, a per-class list, a matrix, or None (then
    ``reason`` says why), as in the results JSON."""

    name: str
    type: str
    value: Any
    details: Mapping[str, Any]
    signature: str | None
    ci: Mapping[str, Any] | None
    reason: str | None
    raw: Mapping[str, Any] = field(repr=False)

    @classmethod
    def _from(cls, name: str, d: Mapping[str, Any]) -> MetricResult:
        return cls(
            name=name,
            type=d.get("type", ""),
            value=d.get("value"),
            details=d.get("details") or {},
            signature=d.get("signature"),
            ci=d.get("ci"),
            reason=d.get("reason"),
            raw=d,
        )


@dataclass(frozen=True)
class SliceResults:
    """The metrics of one slice (key ``field=value[,field=value]``)."""

    key: str
    records: int
    metrics: Mapping[str, MetricResult]

    def __getitem__(self, name: str) -> MetricResult:
        return self.metrics[name]


class Results(Mapping[str, MetricResult]):
    """Results of a run: a mapping from metric name to :class:`MetricResult`.

    ``to_dict()`` is exactly the CLI's results JSON (``evalstream score --format json``).
    Instances are immutable and safe to share between threads.
    """

    def __init__(self, data: Mapping[str, Any]) -> None:
        self._data = json.loads(json.dumps(data))  # a private deep copy
        self._metrics = {k: MetricResult._from(k, v) for k, v in (self._data.get("metrics") or {}).items()}
        self._slices = {
            k: SliceResults(
                key=k,
                records=int(v.get("records", 0)),
                metrics={m: MetricResult._from(m, r) for m, r in (v.get("metrics") or {}).items()},
            )
            for k, v in (self._data.get("slices") or {}).items()
        }

    @classmethod
    def from_json(cls, text: str | bytes) -> Results:
        """Results from a results JSON document (the CLI's ``--format json`` output)."""
        return cls(json.loads(text))

    @property
    def records(self) -> int:
        """Records scored."""
        return int(self._data.get("records", 0))

    @property
    def skipped(self) -> int:
        """Records rejected under ``on_error: skip`` or ``dead_letter``."""
        return int(self._data.get("skipped", 0))

    @property
    def errors(self) -> Mapping[str, int]:
        """Rejected records by reason."""
        return dict(self._data.get("errors") or {})

    @property
    def error_examples(self) -> Mapping[str, list[str]]:
        """Per reason, the positions (``FILE:ROW``; ``-:ROW`` for a table) of the first rejected records."""
        return dict(self._data.get("error_examples") or {})

    @property
    def metrics(self) -> Mapping[str, MetricResult]:
        """The overall metrics by name."""
        return dict(self._metrics)

    @property
    def slices(self) -> Mapping[str, SliceResults]:
        """Per-slice results by slice key (only with ``slice_by``)."""
        return dict(self._slices)

    def __getitem__(self, name: str) -> MetricResult:
        return self._metrics[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._metrics)

    def __len__(self) -> int:
        return len(self._metrics)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Results):
            return self._data == other._data
        return NotImplemented

    def __repr__(self) -> str:
        vals = ", ".join(f"{k}={v.value!r}" for k, v in self._metrics.items())
        return f"Results(records={self.records}, {vals})"

    def to_dict(self) -> dict[str, Any]:
        """The results JSON as a new dict, exactly what the CLI writes."""
        return json.loads(json.dumps(self._data))

    def to_json(self, indent: int | None = 2) -> str:
        """The results as JSON text."""
        return json.dumps(self._data, indent=indent)

    def to_pandas(self) -> pandas.DataFrame:
        """One row per metric and slice (the overall row has ``slice`` None): columns
        ``slice, metric, type, value, ci_low, ci_high, records, reason``."""
        import pandas as pd

        def rows(key: str | None, records: int, ms: Mapping[str, MetricResult]) -> Iterator[dict[str, Any]]:
            for name, m in ms.items():
                ci = m.ci or {}
                yield {
                    "slice": key,
                    "metric": name,
                    "type": m.type,
                    "value": m.value,
                    "ci_low": ci.get("low"),
                    "ci_high": ci.get("high"),
                    "records": records,
                    "reason": m.reason,
                }

        out = list(rows(None, self.records, self._metrics))
        for k, s in self._slices.items():
            out.extend(rows(k, s.records, s.metrics))
        return pd.DataFrame(out, columns=["slice", "metric", "type", "value", "ci_low", "ci_high", "records", "reason"])


# ---------------------------------------------------------------------------------------
# States


class State:
    """Reduced sufficient statistics: the bytes ``--save-state`` writes.

    ``bytes(state)`` is a state file's content, so states from Python and from the CLI
    merge with each other (``evalstream merge``, :func:`merge`). Immutable.
    """

    __slots__ = ("_data",)

    def __init__(self, data: bytes) -> None:
        self._data = bytes(data)

    @classmethod
    def from_bytes(cls, data: bytes) -> State:
        """The state whose bytes are ``data`` (checked when it is next used)."""
        return cls(data)

    @classmethod
    def load(cls, path: PathLike) -> State:
        """The state in a file written by ``--save-state``, ``evalstream merge`` or :meth:`save`."""
        return cls(Path(path).read_bytes())

    def save(self, path: PathLike) -> None:
        """Write the state to a file that the CLI's ``merge`` and ``report`` read."""
        Path(path).write_bytes(self._data)

    def __bytes__(self) -> bytes:
        return self._data

    def __eq__(self, other: object) -> bool:
        if isinstance(other, State):
            return self._data == other._data
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._data)

    def __repr__(self) -> str:
        return f"State({len(self._data)} bytes)"

    def report(self) -> Results:
        """Final metrics of the state (``evalstream report --format json``)."""
        return report([self])

    def merge(self, *others: State) -> State:
        """This state merged with others (see :func:`merge`)."""
        return merge([self, *others])


def merge(states: Iterable[State]) -> State:
    """Merge states into one (``evalstream merge``): the numbers of a single run over all
    their records, bit for bit, in any order. States of different metric options refuse to
    merge (:class:`RunError`), and so do two states covering the same input file."""
    states = list(states)
    if not states:
        raise ValueError("merge needs at least one state")
    with tempfile.TemporaryDirectory(prefix="evalstream-") as tmp:
        paths = _write_states(tmp, states)
        out = os.path.join(tmp, "merged.state")
        _run(["merge", "-o", out, *paths], tmp)
        return State(Path(out).read_bytes())


def report(states: Iterable[State]) -> Results:
    """Final metrics of the merge of ``states`` (``evalstream report --format json STATE...``)."""
    states = list(states)
    if not states:
        raise ValueError("report needs at least one state")
    with tempfile.TemporaryDirectory(prefix="evalstream-") as tmp:
        paths = _write_states(tmp, states)
        out = _run(["report", "--format", "json", *paths], tmp)
        return Results.from_json(out)


def _write_states(tmp: str, states: Sequence[State]) -> list[str]:
    paths = []
    for i, s in enumerate(states):
        if not isinstance(s, State):
            raise TypeError(f"states[{i}] is {type(s).__name__}, not evalstream.State")
        p = os.path.join(tmp, f"{i:06d}.state")
        with open(p, "wb") as f:
            f.write(bytes(s))
        paths.append(p)
    return paths


# ---------------------------------------------------------------------------------------
# Scoring


def score(
    data: Any,
    metrics: Sequence[MetricSpec],
    slice_by: str | Sequence[str] | None = None,
    ci: Mapping[str, Any] | str | None = None,
    **options: Any,
) -> Results:
    """Score ``data`` and return the results.

    ``data`` is a path (a file, glob or directory, read by the executable as the CLI reads
    it) or anything that speaks the Arrow PyCapsule stream protocol (``__arrow_c_stream__``:
    pyarrow Table and RecordBatchReader, polars DataFrame, duckdb relations), a pandas
    DataFrame, or an iterable of pyarrow RecordBatches. ``metrics`` items are the CLI's
    ``--metric`` strings or pipeline config entries (dicts). ``slice_by`` is a field or a
    list of fields; ``ci`` is the config's ``ci`` section (a dict, or a method name). Other
    keywords are pipeline config keys: ``workers``, ``batch_size``, ``on_error``,
    ``max_bad``, ``dead_letter`` (a path), ``format``, ``max_record_bytes``, and top-level
    sections such as ``window``.

    Raises :class:`UsageError` (exit 2) or :class:`RunError` (exit 1) with the CLI's message.
    """
    res, _ = _execute(data, metrics, slice_by, ci, options, want_state=False)
    assert res is not None
    return res


def fold(
    data: Any,
    metrics: Sequence[MetricSpec],
    slice_by: str | Sequence[str] | None = None,
    ci: Mapping[str, Any] | str | None = None,
    **options: Any,
) -> State:
    """Fold ``data`` into a :class:`State` (same arguments as :func:`score`).

    Unlike :func:`score`, an input without records (or whose every record was rejected
    under ``on_error: skip``) is not an error: its state counts nothing (or only the rejected
    records), as one empty partition of a larger dataset should.
    """
    _, st = _execute(data, metrics, slice_by, ci, options, want_state=True)
    assert st is not None
    return st


def metric_entries(metrics: Sequence[MetricSpec]) -> list[dict[str, Any]]:
    """Config entries of ``metrics``, named as ``evalstream score`` names them: the type, and
    ``bleu_2``, ``bleu_3``... for repeats of a type without an explicit ``name``."""
    if isinstance(metrics, (str, Mapping)):
        metrics = [metrics]
    if not metrics:
        raise UsageError("score needs at least one metric (see `evalstream list`)", 2)
    out: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for m in metrics:
        if isinstance(m, str):
            entry, explicit = _parse_metric_flag(m)
        elif isinstance(m, Mapping):
            entry = dict(m)
            explicit = "name" in entry
            if "type" in entry and not explicit:
                entry["name"] = entry["type"]
        else:
            raise TypeError(f"a metric is a string like 'bleu:tokenize=intl' or a dict, not {type(m).__name__}")
        name = entry.get("name")
        if isinstance(name, str):
            n = seen.get(name, 0)
            if n > 0 and not explicit:
                entry["name"] = f"{name}_{n + 1}"
            seen[name] = n + 1
        out.append(entry)
    return out


def _parse_metric_flag(spec: str) -> tuple[dict[str, Any], bool]:
    """The config entry of a ``--metric TYPE[:opt=val,...]`` string, as the CLI parses it
    (commas inside brackets do not split options; values stay strings, which the metric's
    options parse)."""
    typ, _, opts = spec.partition(":")
    if not typ:
        raise UsageError(f'--metric "{spec}": missing metric type', 2)
    entry: dict[str, Any] = {"type": typ, "name": typ}
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(opts):
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(opts[start:i])
            start = i + 1
    if opts:
        parts.append(opts[start:])
    explicit = False
    for p in parts:
        k, eq, v = p.partition("=")
        if not eq or not k:
            raise UsageError(f'--metric "{spec}": option "{p}": want key=value', 2)
        if k == "type":
            raise UsageError(f'--metric "{spec}": the type goes before the colon', 2)
        if k == "name":
            explicit = True
        entry[k] = v
    return entry, explicit


def build_config(
    path: str,
    metrics: Sequence[MetricSpec],
    slice_by: str | Sequence[str] | None,
    ci: Mapping[str, Any] | str | None,
    options: Mapping[str, Any],
    results_path: str,
) -> dict[str, Any]:
    """The pipeline config of a run reading ``path`` ("-": standard input) and writing its
    results JSON to ``results_path``."""
    cfg: dict[str, Any] = {
        "source": {"type": "file", "path": path},
        "metrics": metric_entries(metrics),
        "sinks": [{"type": "json", "path": results_path}],
    }
    pipeline: dict[str, Any] = {}
    for k, v in options.items():
        if v is None:
            continue
        if k in _PIPELINE_KEYS:
            if k == "dead_letter" and isinstance(v, (str, os.PathLike)):
                v = {"path": os.fspath(v)}
            if k == "max_bad":
                v = str(v)
            pipeline[k] = v
        elif k in _SOURCE_KEYS:
            cfg["source"][k] = v
        elif k == "pipeline" and isinstance(v, Mapping):
            pipeline.update(v)
        elif k in ("source", "sinks", "metrics"):
            raise UsageError(f"{k} is set by evalstream.score itself; pass the data and metrics as arguments", 2)
        else:
            cfg[k] = v
    if pipeline.get("dead_letter") and "on_error" not in pipeline:
        pipeline["on_error"] = "dead_letter"
    if pipeline:
        cfg["pipeline"] = pipeline
    if slice_by:
        cfg["slice_by"] = [slice_by] if isinstance(slice_by, str) else list(slice_by)
    if ci is not None:
        cfg["ci"] = {"method": ci} if isinstance(ci, str) else dict(ci)
    return cfg


def _execute(
    data: Any,
    metrics: Sequence[MetricSpec],
    slice_by: str | Sequence[str] | None,
    ci: Mapping[str, Any] | str | None,
    options: Mapping[str, Any],
    want_state: bool,
) -> tuple[Results | None, State | None]:
    with tempfile.TemporaryDirectory(prefix="evalstream-") as tmp:
        results_path = os.path.join(tmp, "results.json")
        state_path = os.path.join(tmp, "out.state")
        if isinstance(data, (str, os.PathLike)):
            source, stream = os.path.abspath(os.fspath(data)), None
        else:
            source, stream = "-", _record_batches(data)
        cfg = build_config(source, metrics, slice_by, ci, options, results_path)
        cfg_path = os.path.join(tmp, "pipeline.json")
        with open(cfg_path, "w") as f:
            json.dump(cfg, f)
        args = ["run", "-c", cfg_path]
        if want_state:
            args += ["--save-state", state_path]
        try:
            _run(args, tmp, stream)
        except RunError as e:
            # An input without records is one empty part of a larger dataset: its state is
            # written (before the exit status says nothing was scored) and merges as nothing.
            if not (want_state and "no record was scored" in e.message and os.path.exists(state_path)):
                raise
        if want_state:
            return None, State(Path(state_path).read_bytes())
        with open(results_path, "rb") as f:
            return Results.from_json(f.read()), None


def _record_batches(data: Any) -> pyarrow.RecordBatchReader:
    """A RecordBatchReader over ``data`` (see :func:`score`)."""
    try:
        import pyarrow as pa
    except ImportError as e:  # pragma: no cover
        raise ImportError("scoring in-memory data needs pyarrow: pip install pyarrow (or pass a file path)") from e
    if isinstance(data, pa.RecordBatchReader):
        return data
    if isinstance(data, pa.Table):
        return data.to_reader()
    if isinstance(data, pa.RecordBatch):
        return pa.Table.from_batches([data]).to_reader()
    if hasattr(data, "__arrow_c_stream__"):
        return pa.RecordBatchReader.from_stream(data)
    mod = type(data).__module__
    if mod.startswith("pandas"):
        return pa.Table.from_pandas(data, preserve_index=False).to_reader()
    if hasattr(data, "to_arrow"):  # older polars and others
        return _record_batches(data.to_arrow())
    if isinstance(data, Iterable):
        it = iter(data)
        first = next(it, None)
        if first is None:
            raise UsageError("no record batches given and no schema to read: pass a pyarrow Table instead", 2)
        if not isinstance(first, pa.RecordBatch):
            raise TypeError(f"data items are {type(first).__name__}, not pyarrow.RecordBatch")

        def chain() -> Iterator[pa.RecordBatch]:
            yield first
            yield from it

        return pa.RecordBatchReader.from_batches(first.schema, chain())
    raise TypeError(
        f"cannot score a {type(data).__name__}: pass a path, or data with __arrow_c_stream__ (pyarrow, polars, duckdb), a pandas DataFrame, or pyarrow RecordBatches"
    )


def _run(args: list[str], tmp: str, stream: pyarrow.RecordBatchReader | None = None) -> bytes:
    """Run the executable with ``args``, writing ``stream`` as an Arrow IPC stream to its
    standard input; return its standard output or raise with its message."""
    errf = open(os.path.join(tmp, "stderr"), "w+b")  # a file: a full stderr pipe could block it while we write
    with errf:
        proc = subprocess.Popen(
            [binary_path(), *args],
            stdin=subprocess.PIPE if stream is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=errf,
            cwd=tmp,
        )
        out = b""
        write_err: BaseException | None = None
        if stream is not None:
            assert proc.stdin is not None
            try:
                _write_stream(proc.stdin, stream)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the executable stopped reading: its exit status says why
            except BaseException as e:  # the data could not be read: the run must not count
                write_err = e
                proc.kill()
            finally:
                try:
                    proc.stdin.close()
                except OSError:
                    pass
        assert proc.stdout is not None
        out = proc.stdout.read()
        code = proc.wait()
        if write_err is not None:
            raise write_err
        errf.seek(0)
        stderr = errf.read().decode("utf-8", "replace")
    if code != 0:
        raise _error(code, stderr)
    return out


def _write_stream(sink: Any, reader: pyarrow.RecordBatchReader) -> None:
    import pyarrow as pa

    with pa.ipc.new_stream(sink, reader.schema) as w:
        for batch in reader:
            n = batch.num_rows
            if n <= _BATCH_ROWS:
                w.write_batch(batch)
                continue
            for off in range(0, n, _BATCH_ROWS):
                w.write_batch(batch.slice(off, _BATCH_ROWS))


def _error(code: int, stderr: str) -> EvalstreamError:
    lines = [ln for ln in stderr.strip().splitlines() if ln.strip()]
    msg = "\n".join(lines) if lines else f"evalstream exited with status {code}"
    if msg.startswith("evalstream: "):
        msg = msg[len("evalstream: ") :]
    cls = UsageError if code == 2 else RunError if code == 1 else EvalstreamError
    return cls(msg, code, stderr)
