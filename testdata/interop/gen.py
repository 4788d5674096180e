#!/usr/bin/env python3
"""Writes the interop fixtures: the same records with every real writer users have.

    python3 -m venv /tmp/venv-interop
    /tmp/venv-interop/bin/pip install -r testdata/interop/requirements.txt
    /tmp/venv-interop/bin/python testdata/interop/gen.py

Writes testdata/interop/files/ (cleared first) and manifest.json, which lists every fixture,
the writer call that made it and the format a reader must find from its bytes. The Go test
(cmd/evalstream/interop_test.go) reads each one through `evalstream score` and requires
exactly the numbers of records.jsonl, the reference twin written by Python's json module.
Go tests only read the committed files; they never need Python.
"""

import json
import os
import random
import shutil
from pathlib import Path

import datasets
import duckdb
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.feather as feather
import pyarrow.ipc as ipc
import pyarrow.parquet as pq

HERE = Path(__file__).resolve().parent
OUT = HERE / "files"

WORDS = ("the cat sat on a mat dog ran in park big small red blue house tree "
         "river sun moon quick brown fox jumps over lazy").split()


def records(n=60, seed=13):
    """Deterministic records; every role has a null somewhere, and a few values are edge cases."""
    rnd = random.Random(seed)
    out = []
    for i in range(n):
        ref = [rnd.choice(WORDS) for _ in range(rnd.randint(3, 9))]
        pred = [w if rnd.random() < 0.7 else rnd.choice(WORDS) for w in ref]
        refs = [" ".join(ref)]
        if i % 3 == 0:
            refs.append(" ".join(rnd.sample(ref, len(ref))))
        label = rnd.randrange(3)
        pred_class = label if rnd.random() < 0.6 else rnd.randrange(3)
        scores = [round(rnd.random(), 4) for _ in range(3)]
        y_true = round(rnd.uniform(-2, 5), 4)
        y_pred = round(y_true + rnd.gauss(0, 0.8), 4)
        rec = {
            "id": i,
            "prediction": " ".join(pred),
            "references": refs,
            "label": label,
            "pred_class": pred_class,
            "scores": scores,
            "y_true": y_true,
            "y_pred": y_pred,
            "lang": ("de", "fr", "ja")[i % 3],
        }
        # Nulls: a user's data has holes, and each writer must carry them as nulls.
        if i == 7:
            rec["prediction"] = None
        if i == 11:
            rec["references"] = None
        if i == 17:
            rec["label"] = None
        if i == 23:
            rec["scores"] = None
        if i == 29:
            rec["y_pred"] = None
        if i == 31:
            rec["lang"] = None
        out.append(rec)
    return out


SCHEMA = pa.schema([
    ("id", pa.int64()),
    ("prediction", pa.string()),
    ("references", pa.list_(pa.string())),
    ("label", pa.int64()),
    ("pred_class", pa.int64()),
    ("scores", pa.list_(pa.float64())),
    ("y_true", pa.float64()),
    ("y_pred", pa.float64()),
    ("lang", pa.string()),
])

MANIFEST = []


def note(name, writer, fmt, **extra):
    MANIFEST.append({"file": name, "writer": writer, "format": fmt, **extra})


def pandas_frame(recs):
    # What a user does: a frame from the records, with pandas' nullable integer dtype so that
    # a missing label stays an integer column (plain int64 would turn it into float64 NaN).
    df = pd.DataFrame(recs)
    return df.astype({"id": "Int64", "label": "Int64", "pred_class": "Int64"})


def main():
    recs = records()
    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir(parents=True)

    # The reference twin.
    with open(OUT / "records.jsonl", "w") as f:
        for r in recs:
            f.write(json.dumps(r) + "\n")
    note("records.jsonl", "json.dumps per line", "jsonl")

    table = pa.Table.from_pylist(recs, schema=SCHEMA)
    # Two record batches, so readers must go on past the first.
    batches = table.to_batches(max_chunksize=40)

    # pyarrow: IPC file and stream, uncompressed and with each IPC codec.
    for codec in (None, "lz4", "zstd"):
        sfx = f"_{codec}" if codec else ""
        opts = ipc.IpcWriteOptions(compression=codec)
        with ipc.new_file(OUT / f"pyarrow_file{sfx}.arrow", SCHEMA, options=opts) as w:
            for b in batches:
                w.write_batch(b)
        note(f"pyarrow_file{sfx}.arrow", f"pyarrow.ipc.new_file(compression={codec!r})", "arrow")
        with ipc.new_stream(OUT / f"pyarrow_stream{sfx}.arrows", SCHEMA, options=opts) as w:
            for b in batches:
                w.write_batch(b)
        note(f"pyarrow_stream{sfx}.arrows", f"pyarrow.ipc.new_stream(compression={codec!r})", "arrows")
    # The wrong extension both ways: content decides.
    with ipc.new_file(OUT / "pyarrow_file_named.arrows", SCHEMA) as w:
        w.write_table(table)
    note("pyarrow_file_named.arrows", "pyarrow.ipc.new_file (named .arrows)", "arrow")
    with ipc.new_stream(OUT / "pyarrow_stream_named.arrow", SCHEMA) as w:
        w.write_table(table)
    note("pyarrow_stream_named.arrow", "pyarrow.ipc.new_stream (named .arrow)", "arrows")
    # Pre-0.15 streams: no continuation marker before each message length.
    legacy = ipc.IpcWriteOptions(use_legacy_format=True)
    with ipc.new_stream(OUT / "pyarrow_stream_legacy.arrows", SCHEMA, options=legacy) as w:
        w.write_table(table)
    note("pyarrow_stream_legacy.arrows", "pyarrow.ipc.new_stream(use_legacy_format=True)", "arrows")
    # Unknown extensions.
    with ipc.new_file(OUT / "pyarrow_file.ipc", SCHEMA) as w:
        w.write_table(table)
    note("pyarrow_file.ipc", "pyarrow.ipc.new_file (named .ipc)", "arrow")
    pq.write_table(table, OUT / "pyarrow.pq")
    note("pyarrow.pq", "pyarrow.parquet.write_table (named .pq)", "parquet")
    pq.write_table(table, OUT / "pyarrow_lz4.parquet", compression="lz4")
    note("pyarrow_lz4.parquet", "pyarrow.parquet.write_table(compression='lz4')", "parquet", needs="LZ4_RAW")

    # Feather: V2 is an IPC file (lz4 by default); V1 is its own format (no list columns).
    feather.write_feather(table, OUT / "pyarrow_v2.feather")
    note("pyarrow_v2.feather", "pyarrow.feather.write_feather(version=2)", "arrow")
    flat = table.select(["id", "prediction", "label", "pred_class", "y_true", "y_pred", "lang"])
    feather.write_feather(flat, OUT / "pyarrow_v1.feather", version=1)
    note("pyarrow_v1.feather", "pyarrow.feather.write_feather(version=1)", "feather1")

    # polars.
    df = pl.from_arrow(table)
    for level in ("newest", "oldest"):
        cl = pl.CompatLevel.newest() if level == "newest" else pl.CompatLevel.oldest()
        for comp in ("uncompressed", "lz4", "zstd"):
            name = f"polars_ipc_{level}_{comp}.arrow"
            df.write_ipc(OUT / name, compression=comp, compat_level=cl)
            note(name, f"polars.DataFrame.write_ipc(compression={comp!r}, compat_level={level})", "arrow")
            name = f"polars_ipc_stream_{level}_{comp}.arrows"
            df.write_ipc_stream(OUT / name, compression=comp, compat_level=cl)
            note(name, f"polars.DataFrame.write_ipc_stream(compression={comp!r}, compat_level={level})", "arrows")
    df.write_ipc(OUT / "polars_ipc_batches.arrow", record_batch_size=16)
    note("polars_ipc_batches.arrow", "polars.DataFrame.write_ipc(record_batch_size=16)", "arrow")
    # A categorical column is a dictionary-encoded one.
    df.with_columns(pl.col("lang").cast(pl.Categorical)).write_ipc(OUT / "polars_ipc_categorical.arrow")
    note("polars_ipc_categorical.arrow", "polars.DataFrame.write_ipc (lang categorical)", "arrow")
    df.write_ndjson(OUT / "polars.ndjson")
    note("polars.ndjson", "polars.DataFrame.write_ndjson", "jsonl")
    df.write_parquet(OUT / "polars.parquet")
    note("polars.parquet", "polars.DataFrame.write_parquet (zstd)", "parquet")
    df.write_parquet(OUT / "polars_lz4.parquet", compression="lz4")
    note("polars_lz4.parquet", "polars.DataFrame.write_parquet(compression='lz4')", "parquet", needs="LZ4_RAW")

    # pandas.
    pdf = pandas_frame(recs)
    pdf.to_json(OUT / "pandas.json", orient="records", lines=True)
    note("pandas.json", "pandas.DataFrame.to_json(orient='records', lines=True)", "jsonl")
    pdf.to_parquet(OUT / "pandas.parquet")
    note("pandas.parquet", "pandas.DataFrame.to_parquet", "parquet")
    pdf.to_feather(OUT / "pandas.feather")
    note("pandas.feather", "pandas.DataFrame.to_feather", "arrow")
    pdf.to_json(OUT / "pandas.jsonl.gz", orient="records", lines=True, compression="gzip")
    note("pandas.jsonl.gz", "pandas.DataFrame.to_json(lines=True, compression='gzip')", "jsonl")
    pdf.to_json(OUT / "pandas_gz.json", orient="records", lines=True, compression="gzip")
    note("pandas_gz.json", "pandas.DataFrame.to_json(lines=True, compression='gzip') named .json", "jsonl")

    # Hugging Face datasets: save_to_disk writes IPC *streams* named .arrow, next to JSON
    # metadata files that are not records.
    ds = datasets.Dataset.from_list(recs)
    ds.save_to_disk(str(OUT / "hf_save_to_disk"))
    for p in sorted((OUT / "hf_save_to_disk").iterdir()):
        if p.suffix == ".arrow":
            note(f"hf_save_to_disk/{p.name}", "datasets.Dataset.save_to_disk", "arrows")
    note("hf_save_to_disk", "datasets.Dataset.save_to_disk (the directory)", "dir")
    ds.to_json(str(OUT / "hf.json"))
    note("hf.json", "datasets.Dataset.to_json", "jsonl")
    ds.to_parquet(str(OUT / "hf.parquet"))
    note("hf.parquet", "datasets.Dataset.to_parquet", "parquet")

    # duckdb.
    con = duckdb.connect()
    con.register("t", table)
    con.execute(f"COPY (SELECT * FROM t ORDER BY id) TO '{OUT / 'duckdb.parquet'}' (FORMAT parquet)")
    note("duckdb.parquet", "duckdb COPY (FORMAT parquet)", "parquet")
    con.execute(f"COPY (SELECT * FROM t ORDER BY id) TO '{OUT / 'duckdb_v2.parquet'}' (FORMAT parquet, PARQUET_VERSION V2)")
    note("duckdb_v2.parquet", "duckdb COPY (FORMAT parquet, PARQUET_VERSION V2)", "parquet", needs="BYTE_STREAM_SPLIT")
    con.execute(f"COPY (SELECT * FROM t ORDER BY id) TO '{OUT / 'duckdb_lz4.parquet'}' (FORMAT parquet, COMPRESSION lz4)")
    note("duckdb_lz4.parquet", "duckdb COPY (FORMAT parquet, COMPRESSION lz4)", "parquet", needs="LZ4_RAW")
    # Regression values as DECIMAL, as duckdb types 0.5-style literals; 4 decimals hold them exactly.
    con.execute(
        f"COPY (SELECT * REPLACE (CAST(y_true AS DECIMAL(10,4)) AS y_true, CAST(y_pred AS DECIMAL(10,4)) AS y_pred) "
        f"FROM t ORDER BY id) TO '{OUT / 'duckdb_decimal.parquet'}' (FORMAT parquet)")
    note("duckdb_decimal.parquet", "duckdb COPY (FORMAT parquet), y_true/y_pred DECIMAL(10,4)", "parquet", needs="DECIMAL")
    con.execute(f"COPY (SELECT * FROM t ORDER BY id) TO '{OUT / 'duckdb.json'}' (FORMAT json)")
    note("duckdb.json", "duckdb COPY (FORMAT json)", "jsonl")

    # Stray files with the right extension and a wrong body are not fixtures; everything
    # above must match the twin.
    with open(HERE / "manifest.json", "w") as f:
        json.dump({
            "versions": {
                "pyarrow": pa.__version__, "polars": pl.__version__, "duckdb": duckdb.__version__,
                "pandas": pd.__version__, "datasets": datasets.__version__,
            },
            "fixtures": MANIFEST,
        }, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
