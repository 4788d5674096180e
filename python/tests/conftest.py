"""Shared fixtures: the repository's WMT17 sample and classification example, the CLI they
are compared with, and the Parquet splits the engines read."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
from pathlib import Path

import pyarrow as pa
import pyarrow.feather as feather
import pyarrow.parquet as pq
import pytest

import evalstream

REPO = Path(__file__).resolve().parents[2]
WMT17 = REPO / "testdata" / "goldens" / "wmt17" / "ter_sample.jsonl.gz"  # real WMT17 en-de system outputs
CLASSIFICATION = REPO / "testdata" / "examples" / "data" / "classification.arrow"

# The text metrics compared everywhere: BLEU, chrF, chrF++ (repeated type: named chrf_2),
# ROUGE-L, per system.
TEXT_METRICS = ["bleu", "chrf", "chrf:word_order=2", "rouge_l"]
TEXT_SLICE = "system"

# The classification example's metrics (testdata/examples/classification.yaml).
CLASS_METRICS = [
    {"name": "accuracy", "type": "accuracy"},
    {"name": "precision", "type": "precision"},
    {"name": "recall", "type": "recall"},
    {"name": "f1_macro", "type": "f1", "compat": "sklearn", "average": "macro"},
    {"name": "mcc", "type": "mcc"},
    {"name": "confusion", "type": "confusion_matrix", "num_classes": 3},
    {"name": "perplexity", "type": "perplexity"},
]
CLASS_SLICE = "domain"


def cli(*args: str, stdin: bytes | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    """Run the evalstream executable the package ships, as a user runs the CLI."""
    return subprocess.run([evalstream.binary_path(), *args], input=stdin, capture_output=True, cwd=cwd)


# The run's description at the head of a results JSON (statistics of this invocation: its
# name, time, duration, version, commit, inputs): two runs over the same rows differ there
# only, so comparisons leave it out.
RUN_KEYS = ("run", "started_at", "duration_s", "version", "git_commit", "input", "metrics_signature")


def results(d: dict) -> dict:
    """d without the run's description."""
    return {k: v for k, v in d.items() if k not in RUN_KEYS}


def cli_json(*args: str, **kw: object) -> dict:
    r = cli(*args, **kw)  # type: ignore[arg-type]
    assert r.returncode == 0, r.stderr.decode()
    return results(json.loads(r.stdout))


def metric_flags(metrics: list) -> list[str]:
    out = []
    for m in metrics:
        if isinstance(m, str):
            out += ["--metric", m]
        else:
            opts = ",".join(f"{k}={v}" for k, v in m.items() if k != "type")
            out += ["--metric", m["type"] + (":" + opts if opts else "")]
    return out


@pytest.fixture(scope="session")
def wmt17_table() -> pa.Table:
    with gzip.open(WMT17, "rt", encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    return pa.Table.from_pylist(rows)


@pytest.fixture(scope="session")
def data_dir(tmp_path_factory: pytest.TempPathFactory, wmt17_table: pa.Table) -> Path:
    """The WMT17 sample as one Arrow file and as Parquet in 8 and 13 parts; the
    classification example as Parquet in 8 parts."""
    d = tmp_path_factory.mktemp("data")
    feather.write_feather(wmt17_table, d / "wmt17.arrow", compression="uncompressed")
    for n in (8, 13):
        write_parts(wmt17_table, d / f"wmt17_{n}", n)
    write_parts(feather.read_table(CLASSIFICATION), d / "classification_8", 8)
    return d


def write_parts(t: pa.Table, out: Path, n: int) -> None:
    out.mkdir()
    step = -(-t.num_rows // n)
    for i in range(n):
        pq.write_table(t.slice(i * step, step), out / f"part-{i:03d}.parquet")


@pytest.fixture(scope="session")
def wmt17_cli(data_dir: Path) -> dict:
    """The CLI's results on the WMT17 sample (one Arrow file)."""
    return cli_json("score", "--format", "json", "--slice-by", TEXT_SLICE, *metric_flags(TEXT_METRICS), str(data_dir / "wmt17.arrow"))


@pytest.fixture(scope="session")
def classification_cli() -> dict:
    return cli_json("score", "--format", "json", "--slice-by", CLASS_SLICE, *metric_flags(CLASS_METRICS), str(CLASSIFICATION))


def pytest_report_header() -> list[str]:
    return [f"evalstream executable: {evalstream.binary_path()}", f"EVALSTREAM_SPARK_MASTER={os.environ.get('EVALSTREAM_SPARK_MASTER', '')}"]
