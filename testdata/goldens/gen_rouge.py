#!/usr/bin/env python3
"""Generate testdata/goldens/rouge.json: goldens for package metrics/rouge.

Reference values come from the REAL libraries pinned in requirements.txt:
  * Google rouge-score 0.1.2 (RougeScorer.score / score_multi; rouge1..rouge9, rougeL, rougeLsum,
    with and without use_stemmer; note its argument order score(target, prediction));
  * pytorch-ignite 0.5.5 (RougeN / RougeL; multiref best/average; alpha 0, 0.3, 0.5, ...).
MindNLP and PaddleNLP cannot be installed, so their values come from small faithful
re-implementations of mindnlp/metrics/rouge.py (94b64df3) and paddlenlp/metrics/rouge.py
(6b77aca), asserted first against every seed and spec vector (metrics.md §3.2, §3.3, §3.5).

Run: /tmp/goldenvenv/bin/python testdata/goldens/gen_rouge.py  (from the repository root)
"""
import importlib.metadata
import json
import math
import os
import random
import sys

import numpy as np

from ignite.metrics import RougeL as IgniteRougeL
from ignite.metrics import RougeN as IgniteRougeN
import ignite
import nltk
import rouge_score
from rouge_score import rouge_scorer, tokenizers
import torch

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "rouge.json")
RTOL = 1e-12

# ---------------------------------------------------------------------------------------------
# MindNLP / PaddleNLP re-implementations.


def np_lcs(strg, sub):
    """mindnlp _lcs / paddle RougeL.lcs: numpy float table, returns a numpy float64."""
    if len(strg) < len(sub):
        sub, strg = strg, sub
    lengths = np.zeros((len(strg) + 1, len(sub) + 1))
    for j in range(1, len(sub) + 1):
        for i in range(1, len(strg) + 1):
            if strg[i - 1] == sub[j - 1]:
                lengths[i][j] = lengths[i - 1][j - 1] + 1
            else:
                lengths[i][j] = max(lengths[i - 1][j], lengths[i][j - 1])
    return lengths[len(strg)][len(sub)]


def mn_ngrams(words, n):
    s = set()
    for i in range(len(words) - n + 1):
        s.add(tuple(words[i:i + n]))
    return s


class MindNLPRougeN:
    """mindnlp.metrics.RougeN: set-based overlap and reference counts, summed over updates."""

    def __init__(self, n):
        self.n, self.overlap, self.ref = n, 0, 0

    def update(self, cand, refs):
        c = mn_ngrams(cand, self.n)
        for r in refs:
            rs = mn_ngrams(r, self.n)
            self.ref += len(rs)
            self.overlap += len(c.intersection(rs))

    def eval(self):
        return None if self.ref == 0 else self.overlap / self.ref


class PaddleRougeL:
    """paddlenlp.metrics.RougeL (= mindnlp RougeL with Paddle's zero-length guards)."""

    def __init__(self, gamma=1.2):
        self.gamma, self.scores = gamma, []

    def add_inst(self, cand, refs):
        precs, recalls = [], []
        for ref in refs:
            lcs = np_lcs(cand, ref)
            precs.append(lcs / len(cand) if len(cand) > 0. else 0.)
            recalls.append(lcs / len(ref) if len(ref) > 0. else 0.)
        p, r = max(precs), max(recalls)
        if p != 0 and r != 0:
            s = ((1 + self.gamma ** 2) * p * r) / float(r + self.gamma ** 2 * p)
        else:
            s = 0.0
        self.scores.append(float(s))

    def score(self):
        return None if not self.scores else 1. * sum(self.scores) / len(self.scores)


class PaddleRougeLDuReader(PaddleRougeL):
    """paddlenlp.metrics.RougeLForDuReader. gamma is always 1.2: Paddle passes it positionally
    into trans_func (QUIRK)."""

    def __init__(self, alpha=1.0, beta=1.0):
        super().__init__(1.2)
        self.alpha, self.beta = alpha, beta

    def add_inst(self, cand, ref_list, yn_label=None, yn_ref=None, entity_ref=None):
        precs, recalls = [], []
        for i, ref in enumerate(ref_list):
            basic_lcs = np_lcs(cand, ref)
            yn_bonus, entity_bonus = 0.0, 0.0
            if yn_ref is not None and yn_label is not None:
                yn_bonus = 0.0 if yn_label != yn_ref[i] else np_lcs(cand, ref)
            elif entity_ref is not None:
                entity_bonus = 0.0
                for ent in entity_ref:
                    if ent in cand:
                        entity_bonus += len(ent)
            p_denom = len(cand) + self.alpha * yn_bonus + self.beta * entity_bonus
            r_denom = len(ref) + self.alpha * yn_bonus + self.beta * entity_bonus
            num = basic_lcs + self.alpha * yn_bonus + self.beta * entity_bonus
            precs.append(num / p_denom if p_denom > 0. else 0.)
            recalls.append(num / r_denom if r_denom > 0. else 0.)
        p, r = max(precs), max(recalls)
        if p != 0 and r != 0:
            s = ((1 + self.gamma ** 2) * p * r) / float(r + self.gamma ** 2 * p)
        else:
            s = 0.0
        self.scores.append(float(s))


def check_seeds():
    seed3_cand = ["The", "cat", "The", "cat", "on", "the", "mat"]
    seed3_refs = [["The", "cat", "is", "on", "the", "mat"], ["There", "is", "a", "cat", "on", "the", "mat"]]
    m = PaddleRougeL()
    m.add_inst(seed3_cand, seed3_refs)
    assert m.score() == 0.7800511508951408, m.score()
    m = PaddleRougeL(0.5)
    m.add_inst(seed3_cand, seed3_refs)
    assert m.score() == 0.7352941176470589, m.score()
    m = PaddleRougeL()
    m.add_inst(seed3_cand, seed3_refs[1:])
    assert m.score() == 0.5714285714285714, m.score()
    m = PaddleRougeL()
    m.add_inst(seed3_cand, seed3_refs[:1])
    m.add_inst(seed3_cand, seed3_refs[1:])
    assert m.score() == 0.6757398611618561, m.score()
    seed5_cand = "the cat was found under the bed".split()
    seed5_refs = ["the cat was under the bed".split()]
    m = PaddleRougeL()
    m.add_inst(seed5_cand, seed5_refs)
    assert m.score() == 0.9360613810741688, m.score()
    d = PaddleRougeLDuReader()
    d.add_inst(seed3_cand, seed3_refs)
    assert d.score() == 0.7800511508951408, d.score()

    n = MindNLPRougeN(2)
    n.update(seed5_cand, seed5_refs)
    assert n.eval() == 0.8
    t = MindNLPRougeN(2)
    t.update("a cat is on the table".split(), ["there is a cat on the table".split()])
    assert t.eval() == 0.5
    n.update("a cat is on the table".split(), ["there is a cat on the table".split()])
    assert n.eval() == 0.6363636363636364
    n = MindNLPRougeN(2)
    n.update(seed3_cand, seed3_refs)
    assert n.eval() == 0.5454545454545454
    n = MindNLPRougeN(1)
    n.update("a a a".split(), ["a a b".split()])
    assert n.eval() == 0.5

    # Real libraries against the spec's §3.1/§3.4/§3.5 numbers.
    ig = IgniteRougeN(ngram=2, multiref="best")
    ig.update(([["the", "cat", "is", "not", "there"]], [["the cat is on the mat".split(), "there is a cat on the mat".split()]]))
    assert ig.compute() == {"Rouge-2-P": 0.5, "Rouge-2-R": 0.4, "Rouge-2-F": 0.4}, ig.compute()
    ig = IgniteRougeL(multiref="best", alpha=1 / (1 + 1.2 ** 2))
    ig.update(([seed3_cand], [seed3_refs]))
    assert abs(ig.compute()["Rouge-L-F"] - 0.7800511508951405) < 1e-16
    sc = rouge_scorer.RougeScorer(["rougeL"])
    s = sc.score_multi([" ".join(r) for r in seed3_refs], " ".join(seed3_cand))["rougeL"]
    assert abs(s.fmeasure - 0.769231) < 1e-6 and abs(s.recall - 5 / 6) < 1e-15
    sc = rouge_scorer.RougeScorer(["rougeLsum"])
    s = sc.score("w1 w2 w3 w4 w5", "w1 w2 w6 w7 w8\nw1 w3 w8 w9 w5")["rougeLsum"]
    assert (s.precision, s.recall) == (0.4, 0.8), s
    sc = rouge_scorer.RougeScorer(["rouge1"], use_stemmer=True)
    assert sc.score("running quickly", "run quickli")["rouge1"].fmeasure == 1.0


# ---------------------------------------------------------------------------------------------
# Random corpora.

EN = ("the cat sat on a mat dog dogs runs running runner runners quickly quick brown fox jumps jumped "
      "over lazy an is was were be been happy happiness generously generous connected connection "
      "connecting relational conditional hopeful agreed feed plastered motoring sing singing").split()
UNI = ["café", "naïve", "Héllo", "Straße", "ΟΔΟΣ", "λόγος", "Σίσυφος", "北京", "大学", "東京", "İstanbul",
       "\u212aelvin", "ﬁnance", "ǅemal", "naïveté", "ÉCOLE", "Ωmega", "x²", "٣", "déjà-vu"]
PUNCT = ["!", "...", "—", "/", "(", ")", "\"", "'s", "-", "--", ",", ".", "?!", "«", "»"]
NUMS = ["1", "42", "3.14", "2024", "07"]
SEPS = [" ", " ", " ", " ", "  ", "\t", "\u3000", "\x1c", "\x85", "\u2028", "\xa0"]


def word(rng, unicode_rate=0.15, punct_rate=0.08):
    x = rng.random()
    if x < unicode_rate:
        w = rng.choice(UNI)
    elif x < unicode_rate + punct_rate:
        w = rng.choice(PUNCT)
    elif x < unicode_rate + punct_rate + 0.04:
        w = rng.choice(NUMS)
    else:
        w = rng.choice(EN)
    y = rng.random()
    if y < 0.1:
        w = w.capitalize()
    elif y < 0.13:
        w = w.upper()
    return w


def sentence(rng, lo=0, hi=14, **kw):
    n = rng.randint(lo, hi)
    ws = [word(rng, **kw) for _ in range(n)]
    if ws and rng.random() < 0.25:  # repeated n-grams
        i = rng.randrange(len(ws))
        j = min(len(ws), i + rng.randint(1, 3))
        ws[j:j] = ws[i:j] * rng.randint(1, 2)
    return ws


def mutate(rng, ws, rate=1.0):
    out = []
    for w in ws:
        x = rng.random() / rate
        if x < 0.15:
            continue
        if x < 0.25:
            out.append(word(rng))
        elif x < 0.3:
            out += [w, word(rng)]
        else:
            out.append(w)
    if len(out) > 2 and rng.random() < 0.3:
        i = rng.randrange(len(out) - 1)
        out[i], out[i + 1] = out[i + 1], out[i]
    return out


def join(rng, ws, odd_spaces=False):
    if not odd_spaces:
        return " ".join(ws)
    s = ""
    for i, w in enumerate(ws):
        if i:
            s += rng.choice(SEPS)
        s += w
    if rng.random() < 0.2:
        s = rng.choice(SEPS) + s + rng.choice(SEPS)
    return s


def corpus(rng, n_records, max_refs=4, special=True, hi=16, rate=1.0):
    """Records of (prediction tokens, [reference tokens])."""
    recs = []
    for i in range(n_records):
        k = rng.randint(1, max_refs)
        base = sentence(rng, 0, hi)
        refs = [mutate(rng, base, rate) if rng.random() < 0.7 else sentence(rng) for _ in range(k)]
        pred = mutate(rng, base, rate)
        if special:
            x = rng.random()
            if x < 0.07:
                pred = []
            elif x < 0.12:
                pred = [rng.choice(PUNCT) for _ in range(rng.randint(1, 3))]
            elif x < 0.16:
                refs[rng.randrange(k)] = []
            elif x < 0.2:
                pred = refs[0][:]
        recs.append((pred, refs))
    return recs


def multiline(rng, n_sents_hi=4):
    sents = [join(rng, sentence(rng, 0, 9)) for _ in range(rng.randint(0, n_sents_hi))]
    s = ""
    for i, x in enumerate(sents):
        if i:
            s += rng.choice(["\n", "\n", "\n\n", " \n", "\n "])
        s += x
    if rng.random() < 0.2:
        s += "\n"
    return s


# ---------------------------------------------------------------------------------------------
# Cases.

cases = []


def add(name, metric, records, value, details=None, rtol=RTOL, reject=None):
    c = {"name": name, "metric": metric, "records": records, "value": value, "rtol": rtol}
    if details:
        c["details"] = details
    if reject:
        c["reject"] = reject
    cases.append(c)


def fsum_mean(xs):
    return math.fsum(xs) / len(xs)


class ListTokenizer(tokenizers.Tokenizer):
    """Pre-tokenized input for rouge-score: the token list itself."""

    def tokenize(self, x):
        return list(x)


class WSTokenizer(tokenizers.Tokenizer):
    def __init__(self, lower=False):
        self.lower = lower

    def tokenize(self, x):
        return (x.lower() if self.lower else x).split()


def rouge_score_case(name, rtype, metric, records, stem=False, tokenizer=None):
    """records: [{"prediction": str|list, "references": str|[str]|[[tok]]}]. score_multi."""
    sc = rouge_scorer.RougeScorer([rtype], use_stemmer=stem, tokenizer=tokenizer)
    ps, rs, fs = [], [], []
    for r in records:
        refs = r["references"]
        if isinstance(refs, str):
            refs = [refs]
        s = sc.score_multi(refs, r["prediction"])[rtype]
        ps.append(s.precision)
        rs.append(s.recall)
        fs.append(s.fmeasure)
    add(name, metric, records, fsum_mean(fs), {"precision": fsum_mean(ps), "recall": fsum_mean(rs), "count": len(records)})


def gen_rouge_score(rng):
    # rouge1..rouge9 with and without stemming, strings, 1–4 references (a plain string when 1).
    for n in range(1, 10):
        for stem in (False, True):
            recs = []
            for pred, refs in corpus(rng, 14, hi=16 if n < 4 else 40, rate=1.0 if n < 4 else 0.3):
                ref_strs = [join(rng, r) for r in refs]
                recs.append({"prediction": join(rng, pred), "references": ref_strs[0] if len(ref_strs) == 1 and rng.random() < 0.5 else ref_strs})
            metric = {"type": "rouge_n", "n": n}
            if stem:
                metric["stem"] = True
            rouge_score_case(f"rouge-score-rouge{n}-stem{int(stem)}", f"rouge{n}", metric, recs, stem=stem)
    # rougeL with and without stemming.
    for stem in (False, True):
        for k in range(3):
            recs = [{"prediction": join(rng, p), "references": [join(rng, r) for r in rs]} for p, rs in corpus(rng, 16)]
            metric = {"type": "rouge_l", "compat": "rouge-score"}
            if stem:
                metric["stem"] = True
            rouge_score_case(f"rouge-score-rougeL-stem{int(stem)}-{k}", "rougeL", metric, recs, stem=stem)
    # Stemming-heavy vocabulary.
    recs = []
    for _ in range(20):
        a = [rng.choice(EN) for _ in range(rng.randint(1, 12))]
        recs.append({"prediction": " ".join(mutate(rng, a)), "references": [" ".join(mutate(rng, a)) for _ in range(rng.randint(1, 3))]})
    for rtype, typ, extra in (("rouge1", "rouge_n", {}), ("rouge2", "rouge_n", {"n": 2}), ("rougeL", "rouge_l", {"compat": "rouge-score"})):
        rouge_score_case(f"rouge-score-{rtype}-stemwords", rtype, dict({"type": typ, "stem": True}, **extra), recs, stem=True)
    # rougeLsum: newline-separated sentences.
    for stem in (False, True):
        for k in range(4):
            recs = []
            for _ in range(14):
                refs = [multiline(rng) for _ in range(rng.randint(1, 4))]
                pred = multiline(rng) if rng.random() < 0.5 else refs[0].replace("\n", " \n", 1)
                recs.append({"prediction": pred, "references": refs})
            metric = {"type": "rouge_lsum"}
            if stem:
                metric["stem"] = True
            rouge_score_case(f"rouge-score-rougeLsum-stem{int(stem)}-{k}", "rougeLsum", metric, recs, stem=stem)
    # rougeLsum on a text with no newline equals rougeL; single-reference string form.
    recs = [{"prediction": join(rng, p), "references": join(rng, rs[0])} for p, rs in corpus(rng, 10)]
    rouge_score_case("rouge-score-rougeLsum-single-line", "rougeLsum", {"type": "rouge_lsum"}, recs)
    # Other tokenizers through rouge-score's tokenizer hook.
    recs = [{"prediction": join(rng, p, True), "references": [join(rng, r, True) for r in rs]} for p, rs in corpus(rng, 14)]
    rouge_score_case("rouge-score-rouge2-whitespace", "rouge2", {"type": "rouge_n", "n": 2, "tokenize": "whitespace"}, recs, tokenizer=WSTokenizer())
    rouge_score_case("rouge-score-rouge1-whitespace-lower", "rouge1", {"type": "rouge_n", "tokenize": "whitespace", "lowercase": True}, recs, tokenizer=WSTokenizer(True))
    rouge_score_case("rouge-score-rougeL-whitespace", "rougeL", {"type": "rouge_l", "compat": "rouge-score", "tokenize": "whitespace"}, recs, tokenizer=WSTokenizer())
    # Pre-tokenized input (never re-tokenized).
    recs = [{"prediction": p, "references": rs} for p, rs in corpus(rng, 14)]
    rouge_score_case("rouge-score-rouge1-tokens", "rouge1", {"type": "rouge_n"}, recs, tokenizer=ListTokenizer())
    rouge_score_case("rouge-score-rouge3-tokens", "rouge3", {"type": "rouge_n", "n": 3}, recs, tokenizer=ListTokenizer())
    rouge_score_case("rouge-score-rougeL-tokens", "rougeL", {"type": "rouge_l", "compat": "rouge-score"}, recs, tokenizer=ListTokenizer())
    # Edge records: empty and punctuation-only predictions, CJK-only text (no rouge tokens).
    recs = [{"prediction": "", "references": ["the cat"]}, {"prediction": "/", "references": "/ !"},
            {"prediction": "北京 大学", "references": ["北京 大学"]}, {"prediction": "İstanbul \u212aelvin", "references": ["i stanbul kelvin"]},
            {"prediction": "the the the", "references": ["the the", "the"]}]
    for rtype, metric in (("rouge1", {"type": "rouge_n"}), ("rouge2", {"type": "rouge_n", "n": 2}),
                          ("rougeL", {"type": "rouge_l", "compat": "rouge-score"}), ("rougeLsum", {"type": "rouge_lsum"})):
        rouge_score_case(f"rouge-score-{rtype}-edges", rtype, metric, recs)


def ignite_case(name, cls, kwargs, metric, records, tok_records):
    """tok_records: [(cand tokens, [ref tokens])] as ignite sees them."""
    m = cls(**kwargs)
    for cand, refs in tok_records:
        m.update(([cand], [refs]))
    out = m.compute()
    key = "Rouge-L" if cls is IgniteRougeL else f"Rouge-{kwargs['ngram']}"
    add(name, metric, records, out[key + "-F"], {"precision": out[key + "-P"], "recall": out[key + "-R"], "count": len(records)})


def gen_ignite(rng):
    ig_multi = {"best": "best_recall", "average": "average"}
    for n in (1, 2, 3, 4):
        for mr in ("best", "average"):
            for alpha in (0, 0.5, 0.3):
                tr = corpus(rng, 14)
                recs = [{"prediction": p, "references": rs} for p, rs in tr]
                metric = {"type": "rouge_n", "compat": "ignite", "n": n, "multiref": ig_multi[mr], "alpha": alpha}
                ignite_case(f"ignite-rouge{n}-{mr}-a{alpha}", IgniteRougeN, {"ngram": n, "multiref": mr, "alpha": alpha}, metric, recs, tr)
    for mr in ("best", "average"):
        for alpha in (0, 0.5, 0.3, 1, 1 / (1 + 1.2 ** 2)):
            tr = corpus(rng, 14)
            recs = [{"prediction": p, "references": rs} for p, rs in tr]
            metric = {"type": "rouge_l", "compat": "ignite", "multiref": ig_multi[mr], "alpha": alpha}
            ignite_case(f"ignite-rougeL-{mr}-a{alpha:.5f}", IgniteRougeL, {"multiref": mr, "alpha": alpha}, metric, recs, tr)
    # Strings with Python whitespace (\u3000, \x1c, \x85, ...): tokenize whitespace = str.split().
    for lower in (False, True):
        tr = corpus(rng, 14)
        recs, toks = [], []
        for p, rs in tr:
            ps, rss = join(rng, p, True), [join(rng, r, True) for r in rs]
            recs.append({"prediction": ps, "references": rss})
            f = (lambda s: s.lower().split()) if lower else (lambda s: s.split())
            toks.append((f(ps), [f(r) for r in rss]))
        metric = {"type": "rouge_n", "compat": "ignite", "n": 2, "alpha": 0.5}
        lm = {"type": "rouge_l", "compat": "ignite", "multiref": "best_recall"}
        if lower:
            metric["lowercase"] = True
            lm["lowercase"] = True
        ignite_case(f"ignite-rouge2-strings-lower{int(lower)}", IgniteRougeN, {"ngram": 2, "multiref": "average", "alpha": 0.5}, metric, recs, toks)
        ignite_case(f"ignite-rougeL-strings-lower{int(lower)}", IgniteRougeL, {"multiref": "best"}, lm, recs, toks)
    # Long sequences: several 64-bit words in the bit-parallel LCS.
    tr = []
    for _ in range(6):
        base = [rng.choice(EN[:12]) for _ in range(rng.randint(60, 400))]
        tr.append((mutate(rng, base), [mutate(rng, base) for _ in range(rng.randint(1, 3))]))
    recs = [{"prediction": p, "references": rs} for p, rs in tr]
    ignite_case("ignite-rougeL-long", IgniteRougeL, {"multiref": "average", "alpha": 0.5}, {"type": "rouge_l", "compat": "ignite", "alpha": 0.5}, recs, tr)
    ignite_case("ignite-rouge4-long", IgniteRougeN, {"ngram": 4, "multiref": "best", "alpha": 0.5},
                {"type": "rouge_n", "compat": "ignite", "n": 4, "multiref": "best_recall", "alpha": 0.5}, recs, tr)


def gen_mindnlp(rng):
    for n in (1, 2, 3, 4):
        for k in range(2):
            tr = corpus(rng, 16)
            m = MindNLPRougeN(n)
            for p, rs in tr:
                m.update(p, rs)
            recs = [{"prediction": p, "references": rs} for p, rs in tr]
            add(f"mindnlp-rougeN{n}-{k}", {"type": "rouge_n", "compat": "mindnlp", "n": n}, recs, m.eval(),
                {"overlap": m.overlap, "ref_ngrams": m.ref, "count": len(recs)})
    # Strings: whitespace tokenization with Python's whitespace set.
    tr = corpus(rng, 16)
    m = MindNLPRougeN(2)
    recs = []
    for p, rs in tr:
        ps, rss = join(rng, p, True), [join(rng, r, True) for r in rs]
        recs.append({"prediction": ps, "references": rss if len(rss) > 1 else rss[0]})
        m.update(ps.split(), [r.split() for r in rss])
    add("mindnlp-rougeN2-strings", {"type": "rouge_n", "compat": "mindnlp", "n": 2}, recs, m.eval(), {"overlap": m.overlap, "ref_ngrams": m.ref})
    # No reference n-gram at all: MindNLP raises RuntimeError; evalstream reports null.
    add("mindnlp-rougeN3-no-ref-ngrams", {"type": "rouge_n", "compat": "mindnlp", "n": 3},
        [{"prediction": ["a", "b", "c"], "references": [["a", "b"]]}, {"prediction": [], "references": [[]]}], None)

    for beta in (1.2, 0.5, 2.0, 1.0, 3.7):
        tr = corpus(rng, 16)
        m = PaddleRougeL(beta)
        for p, rs in tr:
            m.add_inst(p, rs)
        recs = [{"prediction": p, "references": rs} for p, rs in tr]
        metric = {"type": "rouge_l"}
        if beta != 1.2:
            metric["beta"] = beta
        add(f"mindnlp-rougeL-beta{beta}", metric, recs, m.score())
    for lower in (False, True):
        tr = corpus(rng, 16)
        m = PaddleRougeL()
        recs = []
        for p, rs in tr:
            ps, rss = join(rng, p, True), [join(rng, r, True) for r in rs]
            recs.append({"prediction": ps, "references": rss})
            f = (lambda s: s.lower().split()) if lower else (lambda s: s.split())
            m.add_inst(f(ps), [f(r) for r in rss])
        metric = {"type": "rouge_l", "compat": "mindnlp"}
        if lower:
            metric["lowercase"] = True
        add(f"mindnlp-rougeL-strings-lower{int(lower)}", metric, recs, m.score())
    # Long sequences.
    tr = []
    for _ in range(5):
        base = [rng.choice(EN[:10]) for _ in range(rng.randint(64, 300))]
        tr.append((mutate(rng, base), [mutate(rng, base) for _ in range(rng.randint(1, 3))]))
    m = PaddleRougeL()
    for p, rs in tr:
        m.add_inst(p, rs)
    add("mindnlp-rougeL-long", {"type": "rouge_l"}, [{"prediction": p, "references": rs} for p, rs in tr], m.score())


def gen_dureader(rng):
    zh = list("北京大学上海东京的是不有人在中国")
    labels = ["Yes", "No", "Depends"]

    def zh_text(lo, hi):
        return "".join(rng.choice(zh) for _ in range(rng.randint(lo, hi)))

    for alpha, beta in ((1.0, 1.0), (0.5, 2.0), (2.0, 0.25)):
        for form in ("str", "tokens"):
            m = PaddleRougeLDuReader(alpha, beta)
            recs = []
            for _ in range(18):
                k = rng.randint(1, 3)
                base = zh_text(0, 12)
                refs = ["".join(mutate(rng, list(base))) if rng.random() < 0.7 else zh_text(0, 10) for _ in range(k)]
                cand = "".join(mutate(rng, list(base)))
                if rng.random() < 0.08:
                    cand = ""
                rec = {}
                yl = yr = ent = None
                x = rng.random()
                if x < 0.4:
                    yl = rng.choice(labels)
                    yr = [rng.choice(labels) for _ in range(k + rng.randint(0, 1))]
                    rec["yesno_label"], rec["yesno_refs"] = yl, yr
                    if rng.random() < 0.3:  # ignored when yes/no is given
                        rec["entity_refs"] = [zh_text(1, 3)]
                elif x < 0.8:
                    ent = [zh_text(1, 3) if rng.random() < 0.6 else base[i:i + 2] for i in range(rng.randint(0, 3))]
                    rec["entity_refs"] = ent
                elif x < 0.9:
                    yl = rng.choice(labels)  # label without refs: no bonus
                    rec["yesno_label"] = yl
                if form == "str":
                    rec["prediction"], rec["references"] = cand, refs
                    m.add_inst(cand, refs, yl if yr is not None else None, yr if yl is not None else None, ent)
                else:
                    ct = list(cand)
                    rt = [list(r) for r in refs]
                    rec["prediction"], rec["references"] = ct, rt
                    if ent is not None:
                        # Token membership: an entity is found only when it equals a token.
                        ent = [e if rng.random() < 0.5 else e[:1] for e in ent]
                        rec["entity_refs"] = ent
                    m.add_inst(ct, rt, yl if yr is not None else None, yr if yl is not None else None, ent)
                recs.append(rec)
            add(f"paddle-dureader-a{alpha}-b{beta}-{form}", {"type": "rouge_l_dureader", "alpha": alpha, "beta": beta}, recs, m.score())


def gen_rejects():
    add("reject-empty-references-list", {"type": "rouge_n"}, [{"prediction": "a b", "references": []}], None, reject="empty references")
    add("reject-missing-prediction", {"type": "rouge_l"}, [{"references": ["a"]}], None, reject="missing field")
    add("reject-wrong-type", {"type": "rouge_lsum"}, [{"prediction": 3, "references": ["a"]}], None, reject="wrong type")
    add("reject-yesno-length", {"type": "rouge_l_dureader"},
        [{"prediction": "ab", "references": ["a", "b"], "yesno_label": "Yes", "yesno_refs": ["Yes"]}], None, reject="wrong length")


def main():
    check_seeds()
    rng = random.Random(20240517)
    gen_rouge_score(rng)
    gen_ignite(rng)
    gen_mindnlp(rng)
    gen_dureader(rng)
    gen_rejects()
    names = [c["name"] for c in cases]
    assert len(names) == len(set(names)), "duplicate case names"
    doc = {
        "generator": "gen_rouge.py",
        "versions": {
            "rouge-score": importlib.metadata.version("rouge-score"),
            "pytorch-ignite": ignite.__version__,
            "torch": torch.__version__,
            "nltk": nltk.__version__,
            "numpy": np.__version__,
            "python": sys.version.split()[0],
            "mindnlp": "re-implementation of mindnlp/metrics/rouge.py @ 94b64df3",
            "paddlenlp": "re-implementation of paddlenlp/metrics/rouge.py @ 6b77aca",
        },
        "cases": cases,
    }
    with open(OUT, "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False, indent=None, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {len(cases)} cases to {OUT} ({os.path.getsize(OUT)} bytes)")


if __name__ == "__main__":
    main()
