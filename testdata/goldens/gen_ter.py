#!/usr/bin/env python3
"""Generate testdata/goldens/ter.json (and wmt17/ter_*): TER goldens from the REAL sacrebleu.

sacrebleu is pinned in requirements.txt (2.6.0). Every value comes from
sacrebleu.metrics.TER(...).corpus_score / sentence_score; nothing is re-implemented here.

Cases: generated corpora for every combination of normalized, no_punct, asian_support and
case_sensitive; edge cases (empty hypotheses and references, several and a varying number of
references, punctuation, case, XML entities, CJK with asian_support); long sentences that hit
the shift limits (shift distance, shift size, the 1000-candidate cap, the widened beam).

Real data: /work/shared/data/wmt17/newstest2017-en-de.jsonl.gz (16 systems). The corpus TER
of every system goes to wmt17/ter_systems.json (values only); two systems' records are written
to wmt17/ter_sample.jsonl.gz so that Go tests can score them without the shared data. Pass
--no-wmt to skip this part (it takes minutes: sacrebleu's shift search is pure Python).

Run from the repository root with the pinned venv:
    /tmp/goldenvenv/bin/python testdata/goldens/gen_ter.py
"""

import gzip
import itertools
import json
import os
import random
import sys

import sacrebleu
from sacrebleu.metrics import TER

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "ter.json")
OUT_WMT = os.path.join(HERE, "wmt17", "ter_systems.json")
OUT_SAMPLE = os.path.join(HERE, "wmt17", "ter_sample.jsonl.gz")
WMT = "/work/shared/data/wmt17/newstest2017-en-de.jsonl.gz"
SAMPLE_SYSTEMS = ["PROMT-Rule-based", "uedin-nmt"]

OPTS = ["normalized", "no_punct", "asian_support", "case_sensitive"]

WORDS = [
    "the", "cat", "sat", "on", "mat", "a", "dog", "and", "is", "was", "there", "it",
    "The", "CAT", "Dog", "THE", "It's", "cat's", "dog's", "John's", "U.S.A.", "e.g.",
    "1,000", "3.14", "3-4", "co-op", "2.", ",5", "(hello)", "\"quoted\"", "'single'", "[x]",
    "{y}", "a/b", "x+y", "50%", "#tag", "@me", "~", "^", "_", "`", "|", "\\", "<", ">", "=",
    "&amp;", "&quot;", "&lt;b&gt;", "&gt;", "?", "!", "...", ";", ":", ".", ",", "-", "--",
    "!\"#$%&()*+/:;<=>?@[\\]^_`{|}~", "über", "Straße", "ΣΟΦΙΑ", "İstanbul", "ΌΣΟΣ",
    "東京", "日本語", "中文字", "ひらがな", "カタカナ", "ㇰ", "。", "、", "！", "（", "）", "ｱ",
    "〈", "〉", "ﾟ", "・", "，", "．", "？", "：", "；", "＂", "㈱", "㍻", "豈", "︰", "⺀",
    "—", "«", "»", "’s", "n't", "can't",
]
SEPS = [" "] * 12 + ["", "\n", "\n-", "\t", "\u00a0", "\u3000", "  ", "\u2009"]


def sentence(rng, n, words=WORDS):
    out = []
    for i in range(n):
        if i:
            out.append(rng.choice(SEPS))
        out.append(rng.choice(words))
    s = "".join(out)
    if rng.random() < 0.2:
        s = rng.choice([" ", "  ", "\n", "\t", "\u00a0"]) + s
    if rng.random() < 0.2:
        s = s + rng.choice([" ", "\n", "\t", "\u3000"])
    return s


def perturb(rng, ref_words):
    """A hypothesis made from a reference: swapped blocks, drops, substitutions."""
    w = list(ref_words)
    for _ in range(rng.randint(0, 3)):
        if len(w) > 3:
            i = rng.randrange(len(w))
            j = rng.randrange(len(w))
            k = rng.randint(1, 4)
            block = w[i:i + k]
            del w[i:i + k]
            w[j:j] = block
    for _ in range(rng.randint(0, 2)):
        if w:
            w[rng.randrange(len(w))] = rng.choice(WORDS)
    if w and rng.random() < 0.3:
        del w[rng.randrange(len(w))]
    return w


def corpus(rng, n_records, max_len, nrefs):
    recs = []
    for _ in range(n_records):
        base = [rng.choice(WORDS) for _ in range(rng.randint(0, max_len))]
        refs = []
        for _ in range(nrefs):
            refs.append(" ".join(perturb(rng, base)) if rng.random() < 0.7 else sentence(rng, rng.randint(0, max_len)))
        hyp = " ".join(perturb(rng, base)) if rng.random() < 0.7 else sentence(rng, rng.randint(0, max_len))
        recs.append({"prediction": hyp, "references": refs})
    return recs


def stress_pair(rng, kind):
    if kind == 0:
        v = ["a", "b", "c", "d"][:rng.randint(1, 4)]
        return [rng.choice(v) for _ in range(rng.randint(0, 30))], [rng.choice(v) for _ in range(rng.randint(0, 30))]
    if kind == 1:
        v = [f"w{i}" for i in range(rng.randint(3, 30))]
        ref = [rng.choice(v) for _ in range(rng.randint(1, 60))]
        hyp = list(ref)
        for _ in range(rng.randint(1, 6)):
            i, j, k = rng.randrange(len(hyp)), rng.randrange(len(hyp)), rng.randint(1, 12)
            b = hyp[i:i + k]
            del hyp[i:i + k]
            hyp[j:j] = b
        for _ in range(rng.randint(0, 3)):
            if hyp:
                hyp[rng.randrange(len(hyp))] = rng.choice(v + ["zz"])
        return hyp, ref
    if kind == 2:
        v = ["a", "b", "c", "x", "y"]
        n, m = rng.choice([(1, 80), (2, 150), (80, 1), (120, 3), (5, 130), (60, 200), (200, 60)])
        return [rng.choice(v) for _ in range(n)], [rng.choice(v) for _ in range(m)]
    v = ["a", "b", "c", "d", "e"]
    ref = [rng.choice(v) for _ in range(rng.randint(50, 140))]
    hyp = list(ref)
    rng.shuffle(hyp)
    return hyp[:rng.randint(40, len(hyp))], ref


def score(records, opts, scale=1):
    """corpus TER of records as sacrebleu computes it; refs padded with None when counts vary."""
    ter = TER(**opts)
    hyps = [r["prediction"] if isinstance(r["prediction"], str) else " ".join(r["prediction"]) for r in records]
    refs = [r["references"] if isinstance(r["references"], list) else [r["references"]] for r in records]
    k = max(len(x) for x in refs)
    streams = [[x[i] if i < len(x) else None for x in refs] for i in range(k)]
    res = ter.corpus_score(hyps, streams)
    sents = [ter.sentence_score(h, [x for x in r]).score * (1 if scale == 100 else 0.01) for h, r in zip(hyps, refs)]
    value = res.score if scale == 100 else res.score / 100
    return value, res.num_edits, res.ref_length, sents


cases = []


def add(name, records, opts, scale=1):
    value, edits, ref_len, sents = score(records, opts, scale)
    metric = {"type": "ter", **opts}
    if scale != 1:
        metric["scale"] = scale
    cases.append({
        "name": name,
        "metric": metric,
        "records": records,
        "value": value,
        "details": {"num_edits": edits, "ref_length": ref_len},
        "sentence_scores": sents,
    })


def main():
    rng = random.Random(15)
    # Every option combination, on generated corpora with 1, 2 and 3 references.
    for combo in itertools.product([False, True], repeat=4):
        opts = dict(zip(OPTS, combo))
        tag = "-".join(k for k, v in opts.items() if v) or "default"
        for nrefs in (1, 2, 3):
            add(f"gen-{tag}-refs{nrefs}", corpus(rng, 25, 18, nrefs), opts)
    add("gen-default-scale100", corpus(rng, 25, 18, 1), {}, scale=100)
    add("gen-normalized-asian-scale100", corpus(rng, 25, 18, 2), {"normalized": True, "asian_support": True}, scale=100)

    # Edge cases.
    edges = {
        "empty-hypothesis": [{"prediction": "", "references": ["the cat sat"]}],
        "whitespace-hypothesis": [{"prediction": " \t\u00a0 ", "references": ["the cat sat"]}],
        "empty-reference": [{"prediction": "the cat", "references": [""]}],
        "empty-reference-and-hypothesis": [{"prediction": "", "references": [""]}],
        "all-empty-corpus": [{"prediction": "", "references": [""]}, {"prediction": " ", "references": ["  "]}],
        "empty-references-nonempty-hypotheses": [{"prediction": "a b", "references": [""]}, {"prediction": "c", "references": [" "]}],
        "empty-and-nonempty-references": [{"prediction": "the cat sat", "references": ["", "the cat sat on"]}],
        "empty-reference-mixed-corpus": [{"prediction": "a b c", "references": [""]}, {"prediction": "the cat", "references": ["the dog"]}],
        "identical": [{"prediction": "The cat sat on the mat .", "references": ["The cat sat on the mat ."]}],
        "case-only": [{"prediction": "THE CAT Sat", "references": ["the cat sat"]}],
        "punctuation-attached": [{"prediction": "Hello, world! (yes) \"no\".", "references": ["Hello , world ! ( yes ) \" no \" ."]}],
        "xml-entities": [{"prediction": "a &amp; b &quot;c&quot; &lt;d&gt; &amp;lt;", "references": ["a & b \"c\" <d> <"]}],
        "possessive-and-numbers": [{"prediction": "John's 1,000.5 cars 3-4 a.b,c", "references": ["John 's 1,000.5 cars 3 - 4 a . b , c"]}],
        "newlines": [{"prediction": "line one\nline two\n-hyphen\n", "references": ["line one line two hyphen"]}],
        "several-references-best-edits": [{"prediction": "a b c d", "references": ["x y z", "a b c d e", "d c b a"]}],
        "varying-reference-counts": [
            {"prediction": "a b c", "references": ["a b c"]},
            {"prediction": "a b", "references": ["b a", "a c", "a b d e"]},
            {"prediction": "c d", "references": ["x", "c d"]},
        ],
        "cjk": [{"prediction": "東京は日本の首都です。カタカナ、ひらがな！", "references": ["東京 は 日本 の 首都 です 。 カタカナ 、 ひらがな ！"]}],
        "cjk-mixed-fullwidth": [{"prediction": "価格（税込）：１，０００円．〈注〉㈱テスト", "references": ["価格 （ 税込 ） ： １ ， ０００ 円 ． 〈 注 〉 ㈱ テスト"]}],
        "unicode-case": [{"prediction": "ΌΣΟΣ İstanbul STRASSE Straße", "references": ["όσος i̇stanbul strasse straße"]}],
        "shift-simple": [{"prediction": "b c a", "references": ["a b c"]}],
        "shift-ties": [{"prediction": "a a b b a a", "references": ["b b a a a a"]}],
        "shift-repeated-words": [{"prediction": "x y x y x y x y", "references": ["y x y x y x y x"]}],
    }
    for name, recs in edges.items():
        add(name, recs, {})
    for name in ("punctuation-attached", "xml-entities", "possessive-and-numbers", "newlines", "cjk",
                 "cjk-mixed-fullwidth", "unicode-case"):
        for combo in itertools.product([False, True], repeat=4):
            opts = dict(zip(OPTS, combo))
            if not any(combo):
                continue
            tag = "-".join(k for k, v in opts.items() if v)
            add(f"{name}-{tag}", edges[name], opts)

    # A tokenized prediction (list<string>) is joined with spaces.
    add("token-list-prediction", [{"prediction": ["The", "cat", "sat."], "references": ["the cat sat ."]}], {"normalized": True})

    # Long sentences against the search limits.
    lr = random.Random(7)
    vocab = ["a", "b", "c"]
    long_recs = []
    for _ in range(4):  # few distinct words: many matching runs, the 1000-candidate cap
        ref = [lr.choice(vocab) for _ in range(80)]
        hyp = perturb(lr, ref)
        lr.shuffle(hyp[:40])
        long_recs.append({"prediction": " ".join(hyp), "references": [" ".join(ref)]})
    add("long-candidate-cap", long_recs, {})
    words = [f"w{i}" for i in range(130)]
    far = words[100:110] + words[:100] + words[110:]  # a block moved 100 positions (> max shift distance)
    add("long-shift-distance", [{"prediction": " ".join(far), "references": [" ".join(words)]}], {})
    big = words[:12]
    add("long-shift-size", [{"prediction": " ".join(words[20:40] + big + words[40:60]),
                             "references": [" ".join(big + words[20:60])]}], {})
    add("beam-wide-reference", [{"prediction": "w3 w50", "references": [" ".join(words[:125])]}], {})
    add("beam-long-hypothesis", [{"prediction": " ".join(words[:125]), "references": ["w3 w50"]}], {})
    add("beam-ratio-60", [{"prediction": "w7 w1", "references": [" ".join(words[:120])]}], {})
    add("beam-ratio-51", [{"prediction": "w7 w0", "references": [" ".join(words[:102])]}], {})
    mix = []
    for _ in range(6):
        ref = [lr.choice(words[:40]) for _ in range(lr.randint(60, 110))]
        mix.append({"prediction": " ".join(perturb(lr, perturb(lr, ref))), "references": [" ".join(ref)]})
    add("long-random", mix, {})

    # Random pairs built to stress the shift search: few distinct words (ties everywhere),
    # moved blocks, very different lengths (the widened beam), long repetitive sentences
    # (the candidate cap and the shift distance). Every record's sentence score is checked.
    pr = random.Random(99)
    for kind, count in ((0, 80), (1, 80), (2, 40), (3, 10)):
        recs = []
        for _ in range(count):
            hyp, ref = stress_pair(pr, kind)
            recs.append({"prediction": " ".join(hyp), "references": [" ".join(ref)]})
        add(f"stress-{['ties', 'blocks', 'lengths', 'long'][kind]}", recs, {})

    # Real data.
    wmt = {}
    if os.path.exists(WMT) and "--no-wmt" not in sys.argv:
        systems, refs = {}, {}
        with gzip.open(WMT, "rt", encoding="utf-8") as f:
            for line in f:
                d = json.loads(line)
                systems.setdefault(d["system"], []).append(d)
        for name, recs in systems.items():
            hyps = [r["prediction"] for r in recs]
            streams = [[r["references"][i] for r in recs] for i in range(len(recs[0]["references"]))]
            res = TER().corpus_score(hyps, streams)
            wmt[name] = {"records": len(recs), "score": res.score, "value": res.score / 100,
                         "num_edits": res.num_edits, "ref_length": res.ref_length}
            print(f"{name}: {res.score}", file=sys.stderr)
        os.makedirs(os.path.dirname(OUT_WMT), exist_ok=True)
        with gzip.GzipFile(OUT_SAMPLE, "wb", mtime=0) as g:
            for name in SAMPLE_SYSTEMS:
                for r in systems[name]:
                    g.write((json.dumps(r, ensure_ascii=False) + "\n").encode("utf-8"))
        with open(OUT_WMT, "w", encoding="utf-8") as f:
            json.dump({"generator": "gen_ter.py", "sacrebleu": sacrebleu.__version__,
                       "data": "newstest2017-en-de.jsonl.gz", "systems": wmt}, f, indent=1, sort_keys=True)
            f.write("\n")

    out = {"generator": "gen_ter.py", "versions": {"sacrebleu": sacrebleu.__version__,
                                                   "python": sys.version.split()[0]}, "cases": cases}
    with open(OUT, "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False, indent=None, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {len(cases)} cases, {os.path.getsize(OUT)} bytes to {OUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
