"""The peers of `evalstream bench --compare`, run by the interpreter it is given (--python).

Usage:
  python peers.py probe NAME=MODULE:DISTRIBUTION...   prints {NAME: version or null}
  python peers.py PEER INPUT [NUM_CLASSES]            prints the peer's scores as one JSON object

Each peer reads INPUT itself (JSON Lines with prediction and references, .gz allowed; or a
Parquet file of integer label and prediction) and prints its scores under the names of the
evalstream metrics they are compared with, in evalstream's units (the bench's --metric specs
say which). The bench times the whole process: interpreter start, imports, reading, scoring.
Means over records are math.fsum / n: the correctly rounded mean, as evalstream's exact sums give.
A peer that cannot take the input (several references where it takes one) exits with status 3
and "not applicable: WHY" on stderr.
"""
import gzip
import json
import math
import sys


def read_text(path):
    """Predictions and each record's list of references."""
    opener = gzip.open if path.endswith(".gz") else open
    hyps, refs = [], []
    with opener(path, "rt", encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            r = json.loads(line)
            hyps.append(r["prediction"])
            ref = r["references"]
            refs.append(ref if isinstance(ref, list) else [ref])
    return hyps, refs


def not_applicable(why):
    """Exits with status 3: the peer cannot take this input (the bench lists it as such)."""
    print("not applicable: " + why, file=sys.stderr)
    sys.exit(3)


def one_reference(refs):
    if any(len(r) != 1 for r in refs):
        not_applicable("it takes one reference per record")
    return [r[0] for r in refs]


def streams(refs):
    k = len(refs[0])
    if any(len(r) != k for r in refs):
        not_applicable("sacrebleu needs the same number of references in every record")
    return [[r[j] for r in refs] for j in range(k)]


def mean(xs):
    return math.fsum(xs) / len(xs)


def sacrebleu_metric(which):
    def run(path):
        from sacrebleu.metrics import BLEU, CHRF, TER
        hyps, refs = read_text(path)
        metric = {"bleu": BLEU, "chrf": CHRF, "ter": TER}[which]()
        return {which: metric.corpus_score(hyps, streams(refs)).score}
    return run


def bleuscore(path):
    import bleuscore as bs
    hyps, refs = read_text(path)
    # Hugging Face evaluate's BLEU (13a, no smoothing) in 0..1; sacrebleu's scale for the bench.
    return {"bleu": 100 * bs.compute(refs, hyps, max_order=4, smooth=False)["bleu"]}


ROUGE_TYPES = ["rouge1", "rouge2", "rougeL", "rougeLsum"]


def rouge_score(path):
    from rouge_score import rouge_scorer
    hyps, refs = read_text(path)
    sc = rouge_scorer.RougeScorer(ROUGE_TYPES, use_stemmer=True)
    f = {t: [] for t in ROUGE_TYPES}
    for h, r in zip(hyps, refs):
        s = sc.score_multi(r, h)
        for t in ROUGE_TYPES:
            f[t].append(s[t].fmeasure)
    return {t: mean(v) for t, v in f.items()}


def rouge_score_rs(path):
    from rouge_score_rs import rouge_scorer
    hyps, refs = read_text(path)
    out = rouge_scorer.RougeScorer(ROUGE_TYPES, use_stemmer=True).score_batch(one_reference(refs), hyps)
    return {t: mean([s[t].fmeasure for s in out]) for t in ROUGE_TYPES}


def rouge_rust(path):
    import fast_rouge  # the rouge-rust distribution: rouge1/2/L, no stemming
    hyps, refs = read_text(path)
    flat = fast_rouge.score_batch_flat(one_reference(refs), hyps)
    return {"rouge1": mean(flat.rouge1_fmeasure), "rouge2": mean(flat.rouge2_fmeasure), "rougeL": mean(flat.rougeL_fmeasure)}


def jiwer_metric(which):
    def run(path):
        import jiwer
        hyps, refs = read_text(path)
        return {which: getattr(jiwer, which)(one_reference(refs), hyps)}
    return run


def classification(counts, k):
    """accuracy, macro F1 (scikit-learn's) and the confusion matrix from (label, prediction, count) rows."""
    cm = [[0] * k for _ in range(k)]
    for label, pred, n in counts:
        if not (0 <= label < k and 0 <= pred < k):
            sys.exit(f"class out of range 0..{k - 1}: label {label}, prediction {pred}")
        cm[label][pred] += n
    total = sum(map(sum, cm))
    tp = [cm[i][i] for i in range(k)]
    true_sum = [sum(cm[i]) for i in range(k)]
    pred_sum = [sum(cm[i][j] for i in range(k)) for j in range(k)]
    present = [i for i in range(k) if true_sum[i] or pred_sum[i]]
    f1 = [2 * tp[i] / (true_sum[i] + pred_sum[i]) for i in present]
    return {"accuracy": sum(tp) / total, "f1": sum(f1) / len(f1), "confusion_matrix": cm}


def duckdb_peer(path, k):
    import duckdb
    q = "SELECT label, prediction, count(*) FROM read_parquet('%s') GROUP BY ALL" % path.replace("'", "''")
    return classification(duckdb.sql(q).fetchall(), k)


def polars_peer(path, k):
    import polars as pl
    df = pl.scan_parquet(path).group_by(["label", "prediction"]).agg(pl.len()).collect()
    return classification(df.rows(), k)


PEERS = {
    "sacrebleu-bleu": sacrebleu_metric("bleu"),
    "sacrebleu-chrf": sacrebleu_metric("chrf"),
    "sacrebleu-ter": sacrebleu_metric("ter"),
    "bleuscore": bleuscore,
    "rouge-score": rouge_score,
    "rouge-score-rs": rouge_score_rs,
    "rouge-rust": rouge_rust,
    "jiwer-wer": jiwer_metric("wer"),
    "jiwer-cer": jiwer_metric("cer"),
    "duckdb": duckdb_peer,
    "polars": polars_peer,
}


def probe(specs):
    import importlib.metadata
    import importlib.util
    found = {}
    for spec in specs:
        name, _, rest = spec.partition("=")
        module, _, dist = rest.partition(":")
        try:
            ok = importlib.util.find_spec(module) is not None
        except Exception:
            ok = False
        version = None
        if ok:
            try:
                version = importlib.metadata.version(dist or module)
            except Exception:
                version = ""
        found[name] = version
    return found


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "probe":
        print(json.dumps(probe(sys.argv[2:])))
        return
    if len(sys.argv) < 3 or sys.argv[1] not in PEERS:
        sys.exit("usage: peers.py probe NAME=MODULE:DIST... | peers.py PEER INPUT [NUM_CLASSES]; peers: " + ", ".join(PEERS))
    peer, path = sys.argv[1], sys.argv[2]
    fn = PEERS[peer]
    out = fn(path, int(sys.argv[3])) if peer in ("duckdb", "polars") else fn(path)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
