#!/usr/bin/env python3
"""Generate testdata/goldens/text.json: goldens for package metrics/text.

* distinct: a faithful re-implementation of mindnlp/metrics/distinct.py (94b64df3; PaddleNLP's
  Distinct is identical), asserted against the seed values 0.8333333333333334 and 0.5 and the
  space-join quirk (0.5).
* exact_match / token_f1: the official SQuAD v1.1 evaluation functions (evaluate-v1.1.py:
  normalize_answer, exact_match_score, f1_score, metric_max_over_ground_truths), written out
  below, cross-checked with the MindNLP EmScore seed (0.0) and the metrics.md §10 cases.
* the 13a tokenizer case uses the real sacrebleu 2.6.0 tokenizer.

Run: /tmp/goldenvenv/bin/python testdata/goldens/gen_text.py  (from the repository root)
"""
import json
import math
import os
import random
import re
import string
import sys
from collections import Counter

import sacrebleu
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "text.json")
RTOL = 1e-12

# ---------------------------------------------------------------------------------------------
# MindNLP Distinct.


class Distinct:
    def __init__(self, n_size=2):
        self.n_size, self.diff_ngram, self.count = n_size, set(), 0.0

    def update(self, cand_list):
        for i in range(0, len(cand_list) - self.n_size + 1):
            self.count += 1
            self.diff_ngram.add(" ".join(cand_list[i:i + self.n_size]))

    def eval(self):
        return None if self.count == 0 else len(self.diff_ngram) / self.count


# ---------------------------------------------------------------------------------------------
# Official SQuAD v1.1 evaluation functions.


def normalize_answer(s):
    def remove_articles(text):
        return re.sub(r"\b(a|an|the)\b", " ", text)

    def white_space_fix(text):
        return " ".join(text.split())

    def remove_punc(text):
        exclude = set(string.punctuation)
        return "".join(ch for ch in text if ch not in exclude)

    def lower(text):
        return text.lower()

    return white_space_fix(remove_articles(remove_punc(lower(s))))


def f1_score(prediction, ground_truth, normalize=True):
    norm = normalize_answer if normalize else (lambda s: s)
    prediction_tokens = norm(prediction).split()
    ground_truth_tokens = norm(ground_truth).split()
    common = Counter(prediction_tokens) & Counter(ground_truth_tokens)
    num_same = sum(common.values())
    if num_same == 0:
        return 0
    precision = 1.0 * num_same / len(prediction_tokens)
    recall = 1.0 * num_same / len(ground_truth_tokens)
    f1 = (2 * precision * recall) / (precision + recall)
    return f1


def exact_match_score(prediction, ground_truth, normalize=True):
    if not normalize:
        return prediction == ground_truth
    return normalize_answer(prediction) == normalize_answer(ground_truth)


def metric_max_over_ground_truths(metric_fn, prediction, ground_truths, **kw):
    return max(metric_fn(prediction, gt, **kw) for gt in ground_truths)


def check_seeds():
    d = Distinct()
    d.update(["The", "cat", "The", "cat", "on", "the", "mat"])
    assert d.eval() == 0.8333333333333334
    d.update("The cat on the mat".split())
    assert d.eval() == 0.5
    q = Distinct()
    q.update(["a b", "c"])
    q.update(["a", "b c"])
    assert q.eval() == 0.5
    assert metric_max_over_ground_truths(exact_match_score, "this is the best span",
                                         ["this is a good span", "something irrelevant"]) == 0
    assert normalize_answer("this is the best span") == "this is best span"
    assert exact_match_score("The  Cat!", "the cat")
    assert exact_match_score("a", "the")
    assert not exact_match_score("hello—world", "hello world")
    assert normalize_answer("éthe théa") == "éthe théa"  # Unicode \b: nothing removed
    assert normalize_answer("ΟΔΟΣ") == "οδος"  # Final_Sigma


# ---------------------------------------------------------------------------------------------
# Random corpora.

WORDS = ("the a an The A An THE cat dog sat on mat Paris paris is was best span answer "
         "theory another anthem at about 1990 1,000 U.S. don't o'clock").split()
UNI = ["éthe", "théa", "the̊", "café", "ΟΔΟΣ", "Σίσυφος", "İstanbul", "北京", "the北京", "an١", "a_b", "a²",
       "naïve", "\u212aelvin", "ǅemal", "ß", "—", "–", "«the»", "¿qué?", "a\u0301", "ａｎ"]
PUNCT = list("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~") + ["...", "—", "’", "“", "”"]
SEPS = [" ", " ", " ", "  ", "\t", "\n", "\u3000", "\x1c", "\x85", "\u2028", "\xa0", "\u200b"]


def token(rng):
    x = rng.random()
    if x < 0.2:
        return rng.choice(UNI)
    if x < 0.3:
        return rng.choice(PUNCT)
    w = rng.choice(WORDS)
    if rng.random() < 0.15:
        w = w.upper()
    if rng.random() < 0.15:
        w = w + rng.choice(PUNCT)
    return w


def text(rng, lo=0, hi=8):
    ws = [token(rng) for _ in range(rng.randint(lo, hi))]
    s = ""
    for i, w in enumerate(ws):
        if i:
            s += rng.choice(SEPS)
        s += w
    if rng.random() < 0.2:
        s = rng.choice(SEPS) + s + rng.choice(SEPS)
    return s


def variant(rng, s):
    """A string that often normalizes to the same answer as s."""
    x = rng.random()
    if x < 0.25:
        return s.upper()
    if x < 0.45:
        return "The " + s + rng.choice(["", ".", "!", " "])
    if x < 0.6:
        return " ".join(s.split())
    if x < 0.7:
        return s.replace(" ", "  , ")
    return text(rng)


cases = []


def add(name, metric, records, value, details=None, rtol=RTOL, reject=None):
    c = {"name": name, "metric": metric, "records": records, "value": value, "rtol": rtol}
    if details:
        c["details"] = details
    if reject:
        c["reject"] = reject
    cases.append(c)


def gen_distinct(rng):
    add("distinct-seed4", {"type": "distinct"}, [{"prediction": ["The", "cat", "The", "cat", "on", "the", "mat"]}], 0.8333333333333334)
    add("distinct-seed4-corpus", {"type": "distinct"},
        [{"prediction": ["The", "cat", "The", "cat", "on", "the", "mat"]}, {"prediction": "The cat on the mat"}], 0.5,
        {"distinct": 5, "total": 10, "count": 2})
    add("distinct-space-join-quirk", {"type": "distinct"}, [{"prediction": ["a b", "c"]}, {"prediction": ["a", "b c"]}], 0.5)
    add("distinct-no-ngrams", {"type": "distinct", "n": 3}, [{"prediction": ["a", "b"]}, {"prediction": ""}], None)
    for n in (1, 2, 3, 4):
        for form in ("tokens", "strings"):
            d = Distinct(n)
            recs = []
            for _ in range(30):
                s = text(rng, 0, 14)
                if rng.random() < 0.3 and recs:  # repeats across the corpus
                    s = recs[-1]["prediction"] if form == "strings" else " ".join(recs[-1]["prediction"])
                toks = s.split()
                if form == "tokens":
                    # Tokens may hold spaces: the space-join quirk applies.
                    if rng.random() < 0.2 and len(toks) > 1:
                        toks = [toks[0] + " " + toks[1]] + toks[2:]
                    recs.append({"prediction": toks})
                else:
                    recs.append({"prediction": s})
                d.update(toks)
            add(f"distinct-n{n}-{form}", {"type": "distinct", "n": n}, recs, d.eval(),
                {"distinct": len(d.diff_ngram), "total": int(d.count), "count": len(recs)})
    tok = Tokenizer13a()
    d = Distinct(2)
    recs = []
    for _ in range(25):
        s = text(rng, 0, 10)
        recs.append({"prediction": s})
        d.update(tok(s.rstrip()).split())
    add("distinct-n2-13a", {"type": "distinct", "tokenize": "13a"}, recs, d.eval())


def gen_squad(rng):
    seed = [{"prediction": "this is the best span", "references": ["this is a good span", "something irrelevant"]}]
    add("exact-match-seed10", {"type": "exact_match"}, seed, 0.0)
    spec = [{"prediction": "The  Cat!", "references": ["the cat"]}, {"prediction": "a", "references": ["the"]},
            {"prediction": "hello—world", "references": ["hello world"]}, {"prediction": "éthe théa", "references": "éthe théa"},
            {"prediction": "ΟΔΟΣ", "references": ["οδος"]}]
    for typ, fn in (("exact_match", exact_match_score), ("token_f1", f1_score)):
        vals = [metric_max_over_ground_truths(fn, r["prediction"], r["references"] if isinstance(r["references"], list) else [r["references"]]) for r in spec]
        add(f"{typ}-spec10", {"type": typ}, spec, math.fsum(float(v) for v in vals) / len(vals))
    add("exact-match-spec10-values", {"type": "exact_match"}, spec[:3], 2 / 3)

    for normalize in (True, False):
        for k in range(4):
            recs = []
            for _ in range(40):
                golds = [text(rng, 0, 6) for _ in range(rng.randint(1, 4))]
                x = rng.random()
                if x < 0.4:
                    pred = variant(rng, rng.choice(golds))
                elif x < 0.5:
                    pred = ""
                elif x < 0.55:
                    pred = rng.choice(PUNCT)
                else:
                    pred = text(rng, 0, 8)
                r = {"prediction": pred}
                y = rng.random()
                if y < 0.15:
                    r["references"] = golds[0]  # a plain string is one gold
                    golds = golds[:1]
                elif y < 0.3:
                    r["references"] = [g.split() for g in golds]  # token lists, joined by spaces
                    golds = [" ".join(g.split()) for g in golds]
                else:
                    r["references"] = golds
                if rng.random() < 0.1:
                    r["prediction"] = pred.split()
                    pred = " ".join(pred.split())
                recs.append((r, pred, golds))
            metric_opts = {} if normalize else {"normalize": "none"}
            for typ, fn in (("exact_match", exact_match_score), ("token_f1", f1_score)):
                vals = [float(metric_max_over_ground_truths(fn, p, g, normalize=normalize)) for _, p, g in recs]
                add(f"{typ}-random-norm{int(normalize)}-{k}", dict({"type": typ}, **metric_opts), [r for r, _, _ in recs],
                    math.fsum(vals) / len(vals), {"count": len(recs)})
    for typ in ("exact_match", "token_f1"):
        add(f"{typ}-reject-empty-golds", {"type": typ}, [{"prediction": "x", "references": []}], None, reject="empty references")
        add(f"{typ}-reject-missing", {"type": typ}, [{"prediction": "x"}], None, reject="missing field")


def main():
    check_seeds()
    rng = random.Random(1105)
    gen_distinct(rng)
    gen_squad(rng)
    names = [c["name"] for c in cases]
    assert len(names) == len(set(names)), "duplicate case names"
    doc = {
        "generator": "gen_text.py",
        "versions": {
            "python": sys.version.split()[0],
            "sacrebleu": sacrebleu.__version__,
            "squad": "official SQuAD v1.1 evaluate-v1.1.py functions, written out in the generator",
            "mindnlp": "re-implementation of mindnlp/metrics/distinct.py @ 94b64df3",
        },
        "cases": cases,
    }
    with open(OUT, "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {len(cases)} cases to {OUT} ({os.path.getsize(OUT)} bytes)")


if __name__ == "__main__":
    main()
