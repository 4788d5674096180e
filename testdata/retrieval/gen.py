#!/usr/bin/env python3
"""Writes the retrieval fixtures: graded relevance maps as every real writer stores them.

    python3 -m venv /tmp/venv-retrieval
    /tmp/venv-retrieval/bin/pip install -r testdata/retrieval/requirements.txt
    /tmp/venv-retrieval/bin/python testdata/retrieval/gen.py

Each fixture holds the records of records.jsonl (written by Python's json module), one query
per record: `prediction` (ranked ids) and `relevance` (id -> grade). The writers store the
relevance map differently:
  - pyarrow map<string, int64> (IPC file, IPC stream, Parquet MAP);
  - pyarrow list<struct<key, value>> (IPC file, Parquet LIST of structs, also in its legacy
    two-level form);
  - pandas and polars: a column of dicts becomes a struct with one field per id seen, null
    where a record lacks it (Parquet and IPC);
  - duckdb: MAP(VARCHAR, INTEGER) (Parquet).
ints.jsonl and ints_map.parquet / ints_map.arrow hold integer ids (map<int64, int64>).
manifest.json lists every fixture, its writer and the ndcg@5 / mrr values pytrec_eval gives
for the records, which the Go test (sources/mapvalue_test.go) requires of every file.
"""
import json
import math
import random
from pathlib import Path

import duckdb
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.feather as feather
import pyarrow.ipc as ipc
import pyarrow.parquet as pq
import pytrec_eval
from importlib.metadata import version

HERE = Path(__file__).resolve().parent
OUT = HERE / "files"


def records(n=24, seed=16, ints=False):
    rnd = random.Random(seed)
    out = []
    for i in range(n):
        docs = [f"d{j}" for j in range(12)]
        rnd.shuffle(docs)
        ranking = docs[: rnd.choice([0, 2, 5, 8])]
        judged = rnd.sample(docs, rnd.randint(0, 5))
        rel = {d: rnd.choice([0, 1, 1, 2, 3]) for d in judged}
        if ints:
            ranking = [int(d[1:]) for d in ranking]
            rel = {int(d[1:]): g for d, g in rel.items()}
        out.append({"qid": i, "prediction": ranking, "relevance": rel})
    if not ints:
        out[3]["relevance"] = None  # a null map: the record has no judgments field value
    return out


def trec(recs, measure, k=None):
    qrels, run = {}, {}
    for r in recs:
        q = str(r["qid"])
        ranking = [str(d) for d in r["prediction"]]
        run[q] = {d: float(len(ranking) - i) for i, d in enumerate(ranking)}
        if r["relevance"]:
            qrels[q] = {str(d): g for d, g in r["relevance"].items()}
    res = pytrec_eval.RelevanceEvaluator(qrels, {measure}).evaluate(run)
    vals = [res[q][measure] for q in sorted(res)]
    return math.fsum(vals) / len(vals)


def main():
    OUT.mkdir(exist_ok=True)
    for p in OUT.iterdir():
        p.unlink()
    manifest = {"versions": {m: version(m) for m in ("pyarrow", "pandas", "polars", "duckdb", "pytrec_eval-terrier")},
                "fixtures": []}

    def note(name, writer, twin):
        manifest["fixtures"].append({"file": name, "writer": writer, "twin": twin})

    for twin, recs in (("records.jsonl", records()), ("ints.jsonl", records(ints=True))):
        with open(OUT / twin, "w") as f:
            for r in recs:
                # JSON object keys are strings: integer ids are written as such there.
                f.write(json.dumps(r) + "\n")
        valid = [r for r in recs if r["relevance"] is not None]
        manifest.setdefault("values", {})[twin] = {
            "ndcg@5": trec(valid, "ndcg_cut_5"), "mrr": trec(valid, "recip_rank"),
            "rejected": len(recs) - len(valid)}

    recs = records()
    key_t = pa.string()
    pred = pa.array([r["prediction"] for r in recs], type=pa.list_(pa.string()))
    qid = pa.array([r["qid"] for r in recs], type=pa.int64())
    rel_items = [None if r["relevance"] is None else list(r["relevance"].items()) for r in recs]

    m = pa.array(rel_items, type=pa.map_(key_t, pa.int64()))
    t = pa.table({"qid": qid, "prediction": pred, "relevance": m})
    feather.write_feather(t, OUT / "pyarrow_map.arrow", compression="uncompressed")
    note("pyarrow_map.arrow", "pyarrow feather.write_feather, map<string, int64>", "records.jsonl")
    with ipc.new_stream(OUT / "pyarrow_map.arrows", t.schema) as w:
        for b in t.to_batches(max_chunksize=7):
            w.write_batch(b)
    note("pyarrow_map.arrows", "pyarrow ipc.new_stream (batches of 7), map<string, int64>", "records.jsonl")
    pq.write_table(t, OUT / "pyarrow_map.parquet", row_group_size=10)
    note("pyarrow_map.parquet", "pyarrow pq.write_table (row groups of 10), MAP<string, int64>", "records.jsonl")

    st = pa.struct([("key", key_t), ("value", pa.int64())])
    entries = [None if it is None else [{"key": k, "value": v} for k, v in it] for it in rel_items]
    t2 = pa.table({"qid": qid, "prediction": pred, "relevance": pa.array(entries, type=pa.list_(st))})
    feather.write_feather(t2, OUT / "pyarrow_list_struct.arrow", compression="zstd")
    note("pyarrow_list_struct.arrow", "pyarrow feather.write_feather (zstd), list<struct<key, value>>", "records.jsonl")
    pq.write_table(t2, OUT / "pyarrow_list_struct.parquet")
    note("pyarrow_list_struct.parquet", "pyarrow pq.write_table, list<struct<key, value>>", "records.jsonl")
    pq.write_table(t2, OUT / "pyarrow_list_struct_legacy.parquet", use_compliant_nested_type=False)
    note("pyarrow_list_struct_legacy.parquet", "pyarrow pq.write_table(use_compliant_nested_type=False), list<struct<key, value>>", "records.jsonl")

    df = pd.DataFrame(recs)
    df.to_parquet(OUT / "pandas.parquet")
    note("pandas.parquet", "pandas DataFrame.to_parquet: dicts become struct<d0, d1, ...>", "records.jsonl")
    df.to_feather(OUT / "pandas.feather")
    note("pandas.feather", "pandas DataFrame.to_feather: dicts become struct<d0, d1, ...>", "records.jsonl")

    pdf = pl.DataFrame(recs)
    pdf.write_parquet(OUT / "polars.parquet")
    note("polars.parquet", "polars DataFrame.write_parquet: dicts become a struct", "records.jsonl")
    pdf.write_ipc(OUT / "polars.arrow")
    note("polars.arrow", "polars DataFrame.write_ipc: dicts become a struct", "records.jsonl")

    con = duckdb.connect()
    con.register("t", t)
    con.execute(f"COPY (SELECT qid, prediction, relevance::MAP(VARCHAR, INTEGER) AS relevance FROM t ORDER BY qid) "
                f"TO '{OUT / 'duckdb_map.parquet'}' (FORMAT PARQUET)")
    note("duckdb_map.parquet", "duckdb COPY ... TO (FORMAT PARQUET), MAP(VARCHAR, INTEGER)", "records.jsonl")

    irecs = records(ints=True)
    it = pa.table({
        "qid": pa.array([r["qid"] for r in irecs], type=pa.int64()),
        "prediction": pa.array([r["prediction"] for r in irecs], type=pa.list_(pa.int64())),
        "relevance": pa.array([list(r["relevance"].items()) for r in irecs], type=pa.map_(pa.int64(), pa.int64())),
    })
    pq.write_table(it, OUT / "ints_map.parquet")
    note("ints_map.parquet", "pyarrow pq.write_table, list<int64> ids and MAP<int64, int64>", "ints.jsonl")
    feather.write_feather(it, OUT / "ints_map.arrow", compression="lz4")
    note("ints_map.arrow", "pyarrow feather.write_feather (lz4), list<int64> ids and map<int64, int64>", "ints.jsonl")

    with open(HERE / "manifest.json", "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")
    print(f"{len(manifest['fixtures'])} fixtures")


main()
