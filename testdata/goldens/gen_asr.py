#!/usr/bin/env python3
"""Generate testdata/goldens/asr.json: goldens for package metrics/asr (wer, cer, mer, wil, wip).

Values come from the REAL jiwer 4.0.0 (with the rapidfuzz it installs, whose Levenshtein
alignment decides MER/WIL/WIP and the hit/substitution/deletion/insertion counts) and the
REAL torchmetrics 1.9.0 functional metrics (pinned in requirements.txt). Nothing is
re-implemented here: the lowercase / remove_punctuation options are jiwer's own transforms,
composed in front of jiwer's default transform.

Run: $GOLDEN_VENV/bin/python testdata/goldens/gen_asr.py  (from the repository root)
"""
import importlib.metadata
import json
import math
import os
import random
import sys

import jiwer
import rapidfuzz
import torch
import torchmetrics
from torchmetrics.functional.text import (char_error_rate, match_error_rate, word_error_rate,
                                          word_information_lost, word_information_preserved)
from torchmetrics.functional.text.helper import _edit_distance

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "asr.json")
TYPES = ["wer", "cer", "mer", "wil", "wip"]


def jiwer_transform(typ, lower, punct):
    """None = jiwer's own default; otherwise jiwer's transforms in front of the default."""
    if not lower and not punct:
        return None
    steps = []
    if lower:
        steps.append(jiwer.ToLowerCase())
    if punct:
        steps.append(jiwer.RemovePunctuation())
    if typ == "cer":
        steps += [jiwer.Strip(), jiwer.ReduceToListOfListOfChars()]
    else:
        steps += [jiwer.RemoveMultipleSpaces(), jiwer.Strip(), jiwer.ReduceToListOfListOfWords()]
    return jiwer.Compose(steps)


def jiwer_case(typ, lower, punct, refs, hyps):
    tr = jiwer_transform(typ, lower, punct)
    kw = {} if tr is None else {"reference_transform": tr, "hypothesis_transform": tr}
    if typ == "cer":
        out = jiwer.process_characters(refs, hyps, **kw)
        value = out.cer
        # jiwer.cer must agree with process_characters.
        assert jiwer.cer(refs, hyps, **kw) == value
    else:
        out = jiwer.process_words(refs, hyps, **kw)
        value = getattr(out, typ)
        assert getattr(jiwer, typ)(refs, hyps, **kw) == value
    details = {
        "hits": out.hits, "substitutions": out.substitutions, "deletions": out.deletions,
        "insertions": out.insertions,
        "reference_length": sum(len(r) for r in out.references),
        "hypothesis_length": sum(len(h) for h in out.hypotheses),
        "count": len(refs),
    }
    return float(value), details


TM = {"wer": word_error_rate, "cer": char_error_rate, "mer": match_error_rate,
      "wil": word_information_lost, "wip": word_information_preserved}


def torch_case(typ, refs, hyps):
    v = TM[typ](hyps, refs)
    assert v.dtype == torch.float32
    value = float(v.item())
    if typ == "cer":
        rt, ht = [list(r) for r in refs], [list(h) for h in hyps]
    else:
        rt, ht = [r.split() for r in refs], [h.split() for h in hyps]
    details = {
        "reference_length": sum(len(r) for r in rt),
        "hypothesis_length": sum(len(h) for h in ht),
        "errors": sum(_edit_distance(h, r) for r, h in zip(rt, ht)),
        "count": len(refs),
    }
    if math.isnan(value) or math.isinf(value):
        return None, details
    return value, details


# ---------------------------------------------------------------------------------------------
# Data.

rng = random.Random(20261125)


def edit(words, vocab, n):
    out = list(words)
    for _ in range(n):
        op = rng.randrange(3)
        p = rng.randint(0, len(out))
        if op == 0:
            out.insert(p, rng.choice(vocab))
        elif out:
            p = min(p, len(out) - 1)
            if op == 1:
                del out[p]
            else:
                out[p] = rng.choice(vocab)
    return out


def random_pairs(n, vocab, maxlen, sep=" "):
    pairs = []
    for _ in range(n):
        ref = [rng.choice(vocab) for _ in range(rng.randint(0, maxlen))]
        if rng.random() < 0.6:
            hyp = edit(ref, vocab, rng.randint(0, 4))
        else:
            hyp = [rng.choice(vocab) for _ in range(rng.randint(0, maxlen))]
        pairs.append((sep.join(ref), sep.join(hyp)))
    return pairs


def long_text(nwords, vocab):
    return " ".join(rng.choice(vocab) for _ in range(nwords))


SMALL = ["a", "b", "c"]
VOCAB = ["the", "cat", "sat", "on", "mat", "a", "dog", "ran", "to", "it"]

datasets = {}
# Small vocabularies make many minimum-cost alignments: rapidfuzz's choice decides MER/WIL/WIP.
datasets["ties_small_vocab"] = random_pairs(80, SMALL, 9)
datasets["random"] = random_pairs(120, VOCAB, 14)
datasets["ties_crafted"] = [
    ("a b", "b c"), ("a b c", "c a b"), ("a b a", "a"), ("x y", "y x"), ("a a b b", "b b a a"),
    ("a b c d", "b c d e"), ("a", "b a"), ("b a", "a"), ("a b", "c"), ("one two three", "two three four five"),
]
datasets["empty_hypotheses"] = [("the cat sat", ""), ("on the mat", "   "), ("a", "")]
datasets["empty_references"] = [("", "the cat"), ("", ""), (" ", "a b c")]
datasets["all_empty"] = [("", ""), ("  ", "\t")]
datasets["some_empty_references"] = [("", "hello there"), ("the cat sat", "the cat sat down"), ("", "")]
datasets["whitespace"] = [
    ("a\tb c", "a b c"), ("a\u00a0b", "a b"), ("a  b\t\tc", "a b c"), ("\ta b\t", "a b"),
    ("a \tb", "a b"), ("a\nb", "a b"), ("a\u2003b  c", "a b c"), ("a\x1cb", "a b"), ("a\x85 b", "a b"),
    (" lead and trail ", "lead and trail"), ("x\u3000y", "x y"), ("a\u200bb", "a b"),
]
datasets["punct_case"] = [
    ("Hello, World!", "hello world"), ("It's a test.", "its a test"), ("¿Qué tal?", "que tal"),
    ("«Bonjour» — dit-il", "bonjour dit il"), ("price $5 + tax", "price 5 tax"), ("ΟΔΟΣ", "οδος"),
    ("İstanbul", "istanbul"), ("Wait... what?!", "wait what"), ("你好，世界。", "你好世界"),
    ("a , b", "a b"), ("e.g. U.S.A.", "eg usa"), ("CAPS lock", "caps Lock"),
]
datasets["unicode"] = [
    ("我 爱 北京", "我 爱 上海"), ("我爱北京天安门", "我爱北京天安"), ("cafe\u0301 ok", "café ok"),
    ("👍 good 👨‍👩‍👧", "👍 good 👨‍👩"), ("한국어 텍스트", "한국어 텍스트다"), ("Ünïcödé wörds", "Unicode words"),
    ("𝔘𝔫𝔦𝔠𝔬𝔡𝔢 text", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 test"), ("مرحبا بالعالم", "مرحبا العالم"),
]
long_ref = long_text(700, SMALL)
datasets["long"] = [
    (long_ref, " ".join(edit(long_ref.split(), SMALL, 200))),
    (long_text(400, VOCAB), long_text(380, VOCAB)),
    (long_text(30, VOCAB), long_text(35, VOCAB)),
]
datasets["single"] = [("the quick brown fox", "the quick brown box jumps")]

# Options are exercised where the text has something for them to do.
OPTION_SETS = [(False, False), (True, False), (False, True), (True, True)]
OPTION_DATASETS = {"punct_case", "whitespace", "unicode", "random", "empty_references", "single"}

cases = []


def records_of(pairs, salt):
    r = random.Random(salt)
    recs = []
    for ref, hyp in pairs:
        refs = [ref] if r.random() < 0.5 else ref  # both accepted shapes of one reference
        recs.append({"prediction": hyp, "references": refs})
    return recs


for dname, pairs in datasets.items():
    refs = [p[0] for p in pairs]
    hyps = [p[1] for p in pairs]
    recs = records_of(pairs, dname)
    for typ in TYPES:
        opts = OPTION_SETS if dname in OPTION_DATASETS else OPTION_SETS[:1]
        for lower, punct in opts:
            value, details = jiwer_case(typ, lower, punct, refs, hyps)
            metric = {"type": typ}
            name = f"{typ}/jiwer/{dname}"
            if lower:
                metric["lowercase"] = True
                name += "/lowercase"
            if punct:
                metric["remove_punctuation"] = True
                name += "/remove_punctuation"
            cases.append({"name": name, "metric": metric, "records": recs, "value": value, "details": details})
        value, details = torch_case(typ, refs, hyps)
        cases.append({"name": f"{typ}/torchmetrics/{dname}", "metric": {"type": typ, "compat": "torchmetrics"},
                      "records": recs, "value": value, "details": details})

# Records the metrics reject (jiwer would score them as other things or fail).
for typ in TYPES:
    cases.append({"name": f"{typ}/reject/multiple_references", "metric": {"type": typ},
                  "records": [{"prediction": "a b", "references": ["a b", "a c"]}], "reject": "multiple references"})
    cases.append({"name": f"{typ}/reject/empty_references", "metric": {"type": typ},
                  "records": [{"prediction": "a b", "references": []}], "reject": "empty references"})
    cases.append({"name": f"{typ}/reject/token_list_prediction", "metric": {"type": typ, "compat": "torchmetrics"},
                  "records": [{"prediction": ["a", "b"], "references": "a b"}], "reject": "wrong type"})

versions = {"jiwer": importlib.metadata.version("jiwer"),
            "rapidfuzz": rapidfuzz.__version__, "torchmetrics": torchmetrics.__version__,
            "torch": torch.__version__, "python": sys.version.split()[0]}

# The aligner on its own, against rapidfuzz's Levenshtein.editops (what jiwer reads): random
# sequences over tiny alphabets (many tied alignments), and long ones that take rapidfuzz's
# Hirschberg path (reference x hypothesis >= 2^22 symbols after the common affixes).
def editops_case(a, b):
    ops = rapidfuzz.distance.Levenshtein.editops(a, b)
    n = {"replace": 0, "delete": 0, "insert": 0}
    for op in ops:
        n[op.tag] += 1
    return [a, b, n["replace"], n["delete"], n["insert"]]


ALPHA = "abcdefgh"
editops = []
for _ in range(3000):
    k = rng.choice([2, 3, 4, 8])
    la = rng.choice([0, 1, 2, 3, 5, 8, 13, 30, 63, 64, 65, 70, 130, 200])
    a = "".join(rng.choice(ALPHA[:k]) for _ in range(la))
    if rng.random() < 0.5:
        b = "".join(edit(list(a), ALPHA[:k], rng.randint(0, 6)))
    else:
        b = "".join(rng.choice(ALPHA[:k]) for _ in range(max(0, la + rng.randint(-8, 8))))
    editops.append(editops_case(a, b))
for la, lb, k in [(2100, 2100, 3), (2500, 2000, 5), (3000, 2900, 2), (5000, 900, 4), (2050, 2300, 8)]:
    a = "".join(rng.choice(ALPHA[:k]) for _ in range(la))
    editops.append(editops_case(a, "".join(rng.choice(ALPHA[:k]) for _ in range(lb))))
    editops.append(editops_case(a, "".join(edit(list(a), ALPHA[:k], la // 3))))
# Long, nearly identical pairs: rapidfuzz records only a band of the matrix there.
for la, edits in [(8000, 3), (20000, 12), (30000, 40)]:
    a = "".join(rng.choice(ALPHA) for _ in range(la))
    editops.append(editops_case(a, "".join(edit(list(a), ALPHA, edits))))
with open(os.path.join(os.path.dirname(OUT), "..", "..", "metrics", "asr", "testdata", "editops.json"), "w") as f:
    json.dump({"generator": "gen_asr.py", "rapidfuzz": rapidfuzz.__version__, "cases": editops}, f, separators=(",", ":"))


# The text transforms on their own: random texts mixing words, case, ASCII and Unicode
# punctuation and every kind of whitespace, one jiwer.process_words/process_characters call
# per pair and option set (counts H, S, D, I), and torchmetrics' word/char edit distance.
PIECES = ["a", "b", "Ab", "ÉCOLE", "école", "x.", "y,", "«z»", "—", "...", "İ", "ΣΑΣ", "σας", "猫", "好。", "e\u0301",
          "👍", "it's", "$5", "#1", "(c)", "¿q?"]
SPACES = [" ", " ", " ", "  ", "\t", "\u00a0", "\n", "\x1c", "\u3000", " \t", "\u2028", "\u200b", "\x85", ""]


def random_text():
    parts = []
    for _ in range(rng.randint(0, 7)):
        parts.append(rng.choice(PIECES))
        parts.append(rng.choice(SPACES))
    if rng.random() < 0.3:
        parts.insert(0, rng.choice(SPACES))
    return "".join(parts)


def counts(out):
    return [out.hits, out.substitutions, out.deletions, out.insertions]


texts = []
for _ in range(700):
    ref = random_text()
    hyp = random_text() if rng.random() < 0.5 else ref.replace(rng.choice(PIECES), rng.choice(PIECES))
    row = [hyp, ref]
    for lower, punct in OPTION_SETS:
        kw = {}
        if lower or punct:
            kw = {"reference_transform": jiwer_transform("wer", lower, punct),
                  "hypothesis_transform": jiwer_transform("wer", lower, punct)}
        row.append(counts(jiwer.process_words(ref, hyp, **kw)))
        if lower or punct:
            kw = {"reference_transform": jiwer_transform("cer", lower, punct),
                  "hypothesis_transform": jiwer_transform("cer", lower, punct)}
        row.append(counts(jiwer.process_characters(ref, hyp, **kw)))
    row.append(_edit_distance(hyp.split(), ref.split()))
    row.append(_edit_distance(list(hyp), list(ref)))
    texts.append(row)
with open(os.path.join(os.path.dirname(OUT), "..", "..", "metrics", "asr", "testdata", "texts.json"), "w") as f:
    json.dump({"generator": "gen_asr.py", "jiwer": importlib.metadata.version("jiwer"),
               "options": OPTION_SETS, "cases": texts}, f, separators=(",", ":"), ensure_ascii=False)

out = {"generator": "gen_asr.py", "versions": versions, "cases": cases}
with open(OUT, "w") as f:
    json.dump(out, f, separators=(",", ":"), ensure_ascii=False)
print(f"{len(cases)} cases -> {OUT}")
