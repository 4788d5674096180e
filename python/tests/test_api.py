"""The Python API against the CLI it wraps: same results JSON, same state bytes, same errors."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.feather as feather
import pytest

import evalstream
from conftest import results, CLASS_METRICS, CLASS_SLICE, CLASSIFICATION, TEXT_METRICS, TEXT_SLICE, cli, cli_json, metric_flags


def stream_bytes(t: pa.Table) -> bytes:
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, t.schema) as w:
        w.write_table(t)
    return sink.getvalue().to_pybytes()


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda t, d: t, id="pyarrow Table"),
        pytest.param(lambda t, d: t.to_reader(max_chunksize=1000), id="pyarrow RecordBatchReader"),
        pytest.param(lambda t, d: pl.from_arrow(t), id="polars"),
        pytest.param(lambda t, d: t.to_pandas(), id="pandas"),
        pytest.param(lambda t, d: t.to_batches(max_chunksize=777), id="list of RecordBatches"),
        pytest.param(lambda t, d: str(d / "wmt17.arrow"), id="path"),
        pytest.param(lambda t, d: d / "wmt17_13", id="directory of Parquet parts"),
    ],
)
def test_score_equals_cli(make, wmt17_table: pa.Table, data_dir: Path, wmt17_cli: dict) -> None:
    res = evalstream.score(make(wmt17_table, data_dir), metrics=TEXT_METRICS, slice_by=TEXT_SLICE)
    assert results(res.to_dict()) == wmt17_cli
    assert res["bleu"].value == wmt17_cli["metrics"]["bleu"]["value"]
    assert res["chrf_2"].details == wmt17_cli["metrics"]["chrf_2"]["details"]
    assert res.records == wmt17_table.num_rows


def test_duckdb_relation(wmt17_table: pa.Table, wmt17_cli: dict) -> None:
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    con.register("wmt", wmt17_table)
    rel = con.sql("select * from wmt")
    assert results(evalstream.score(rel, metrics=TEXT_METRICS, slice_by=TEXT_SLICE).to_dict()) == wmt17_cli


def test_classification_example(classification_cli: dict) -> None:
    t = feather.read_table(CLASSIFICATION)
    res = evalstream.score(t, metrics=CLASS_METRICS, slice_by=CLASS_SLICE)
    assert results(res.to_dict()) == classification_cli
    assert isinstance(res["confusion"].value, list) and len(res["confusion"].value) == 3
    assert set(res.slices) == set(classification_cli["slices"])
    key = next(iter(res.slices))
    assert res.slices[key]["accuracy"].value == classification_cli["slices"][key]["metrics"]["accuracy"]["value"]


def test_to_pandas_one_row_per_metric_and_slice(wmt17_table: pa.Table, wmt17_cli: dict) -> None:
    df = evalstream.score(wmt17_table, metrics=TEXT_METRICS, slice_by=TEXT_SLICE).to_pandas()
    assert isinstance(df, pd.DataFrame)
    assert len(df) == len(TEXT_METRICS) * (1 + len(wmt17_cli["slices"]))
    overall = df[df["slice"].isna()].set_index("metric")["value"].to_dict()
    assert overall == {k: v["value"] for k, v in wmt17_cli["metrics"].items()}


def test_state_bytes_are_the_clis(wmt17_table: pa.Table, tmp_path: Path) -> None:
    # Integer-count states only: the CLI's own rouge_l state bytes vary with how its workers
    # split the input (its exact float sum is kept in a non-canonical form; the values do not
    # vary), so they cannot be compared byte for byte even between two CLI runs.
    metrics = ["bleu", "chrf", "chrf:word_order=2"]
    st = evalstream.fold(wmt17_table, metrics=metrics, slice_by=TEXT_SLICE)
    r = cli("score", "--format", "json", "--slice-by", TEXT_SLICE, *metric_flags(metrics), "--save-state", str(tmp_path / "cli.state"), "-", stdin=stream_bytes(wmt17_table))
    assert r.returncode == 0, r.stderr.decode()
    assert bytes(st) == (tmp_path / "cli.state").read_bytes()
    assert evalstream.State.from_bytes(bytes(st)) == st


def test_python_and_cli_states_merge(wmt17_table: pa.Table, data_dir: Path, wmt17_cli: dict, tmp_path: Path) -> None:
    half = wmt17_table.num_rows // 2
    head = evalstream.fold(wmt17_table.slice(0, half), metrics=TEXT_METRICS, slice_by=TEXT_SLICE)
    feather.write_feather(wmt17_table.slice(half), tmp_path / "tail.arrow")
    r = cli("score", "--format", "json", "--slice-by", TEXT_SLICE, *metric_flags(TEXT_METRICS), "--save-state", str(tmp_path / "tail.state"), str(tmp_path / "tail.arrow"))
    assert r.returncode == 0, r.stderr.decode()
    tail = evalstream.State.load(tmp_path / "tail.state")
    assert results(evalstream.merge([head, tail]).report().to_dict()) == wmt17_cli
    assert results(tail.merge(head).report().to_dict()) == wmt17_cli
    # and the CLI merges a state written by Python
    head.save(tmp_path / "head.state")
    assert cli_json("report", "--format", "json", str(tmp_path / "head.state"), str(tmp_path / "tail.state")) == wmt17_cli


def test_fold_of_an_empty_table_merges_as_nothing(wmt17_table: pa.Table, wmt17_cli: dict) -> None:
    empty = evalstream.fold(wmt17_table.slice(0, 0), metrics=TEXT_METRICS, slice_by=TEXT_SLICE)
    whole = evalstream.fold(wmt17_table, metrics=TEXT_METRICS, slice_by=TEXT_SLICE)
    assert results(evalstream.merge([empty, whole]).report().to_dict()) == wmt17_cli
    with pytest.raises(evalstream.RunError, match="no record was scored"):
        evalstream.score(wmt17_table.slice(0, 0), metrics=TEXT_METRICS)


def test_options_reach_the_config(wmt17_table: pa.Table, data_dir: Path, tmp_path: Path) -> None:
    bad = wmt17_table.append_column("label", pa.array([1] * wmt17_table.num_rows))
    bad = pa.concat_tables([bad, pa.table({"id": ["x"], "system": ["s"], "prediction": [None], "references": [["a b"]], "label": [1]}, schema=bad.schema)])
    with pytest.raises(evalstream.RunError) as e:
        evalstream.score(bad, metrics=["bleu"])
    assert f"-:{bad.num_rows}" in str(e.value) and e.value.exit_code == 1
    res = evalstream.score(bad, metrics=["bleu"], on_error="skip", workers=1, batch_size=7)
    assert (res.records, res.skipped) == (wmt17_table.num_rows, 1)
    assert res.error_examples == {next(iter(res.errors)): [f"-:{bad.num_rows}"]}
    dl = tmp_path / "bad.jsonl"
    res = evalstream.score(bad, metrics=["bleu"], dead_letter=dl)
    assert res.skipped == 1 and len(dl.read_text().splitlines()) == 1


@pytest.mark.parametrize(
    "metrics, kw, exc, message",
    [
        (["blue"], {}, evalstream.UsageError, "blue"),
        (["bleu:ngram=zero"], {}, evalstream.UsageError, "ngram"),
        (["bleu:prediction=nope"], {}, evalstream.RunError, 'field "nope"'),
        (["bleu"], {"on_error": "sometimes"}, evalstream.UsageError, "on_error"),
        (["bleu:tokenize"], {}, evalstream.UsageError, "want key=value"),
    ],
)
def test_errors_carry_the_cli_message(metrics, kw, exc, message, wmt17_table: pa.Table) -> None:
    with pytest.raises(exc, match=message) as e:
        evalstream.score(wmt17_table.slice(0, 10), metrics=metrics, **kw)
    assert not str(e.value).startswith("evalstream:")


def test_unreadable_path_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(evalstream.EvalstreamError, match="nope.parquet"):
        evalstream.score(tmp_path / "nope.parquet", metrics=["bleu"])


def test_results_json_round_trip(wmt17_table: pa.Table, wmt17_cli: dict) -> None:
    res = evalstream.score(wmt17_table, metrics=TEXT_METRICS, slice_by=TEXT_SLICE)
    assert evalstream.Results.from_json(res.to_json()) == res
    assert results(json.loads(res.to_json())) == wmt17_cli
    d = res.to_dict()
    d["records"] = -1  # to_dict hands out a copy
    assert res.records == wmt17_table.num_rows


def test_error_while_the_table_is_still_being_written() -> None:
    # More than a pipe's buffer: the executable exits on the config before reading it all,
    # and the error is its message, not the broken pipe.
    t = pa.table({"prediction": ["the cat sat on the mat " * 10] * 100_000, "references": [["the cat sat on the mat"]] * 100_000})
    with pytest.raises(evalstream.UsageError, match='unknown metric type "blue"'):
        evalstream.score(t, metrics=["blue"])
    with pytest.raises(evalstream.RunError, match=r'bad record at -:1: .*field "nope"'):
        evalstream.score(t, metrics=["bleu:prediction=nope"])
