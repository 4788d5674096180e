#!/usr/bin/env python3
"""Generate testdata/goldens/bleu.json: BLEU and chrF goldens from the reference libraries.

Real libraries (pinned in requirements.txt): sacrebleu (BLEU, chrF, chrF++), nltk
(corpus_bleu), pytorch-ignite (Bleu, needs torch). MindNLP and PaddleNLP cannot be installed
here, so their BLEU is computed by the small re-implementations below (written from their
source, metrics.md §2.5/§2.6) and checked against their documented values first.

Run from the repository root with the pinned venv:
    /tmp/goldenvenv/bin/python testdata/goldens/gen_bleu.py
Records of the real-data cases come from /work/shared/data/wmt17/newstest2017-en-de.jsonl.gz
(first 300 lines of one system); they are embedded in the output, which is all the Go tests read.
"""

import gzip
import json
import math
import os
import random
import sys
import warnings
from collections import Counter

import nltk
import numpy as np
import sacrebleu
import torch
from ignite.metrics.nlp import Bleu as IgniteBleu
from nltk.translate.bleu_score import SmoothingFunction, corpus_bleu
from sacrebleu.metrics import BLEU, CHRF

warnings.filterwarnings("ignore")
import logging  # noqa: E402

logging.getLogger("sacrebleu").setLevel(logging.ERROR)

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bleu.json")
WMT = "/work/shared/data/wmt17/newstest2017-en-de.jsonl.gz"
WMT_SYSTEM = "online-B"
WMT_LINES = 300

cases = []


def add(name, metric, records, value, details=None, rtol=1e-12, **extra):
    assert all(c["name"] != name for c in cases), name
    c = {"name": name, "metric": metric, "records": records, "value": value}
    if details:
        c["details"] = details
    c["rtol"] = rtol
    c.update(extra)
    cases.append(c)


# ---------------------------------------------------------------------------------------------
# Random corpora.

WORDS = (
    "the cat is on mat a there dog house of and to in it that".split()
    + ["Haus", "Straße", "über", "naïve", "café", "ΟΔΟΣ", "Σίσυφος", "İstanbul", "ǅemal", "ﬁne",
       "中文", "日本語", "東京", "한국어", "мир", "Привет", "😀", "👍🏽", "ß", "ÆON"]
    + ["3.5", "1,000", "3-4", "1999.", "U.S.A.", "e.g.", "it's", "don't", "(hi)", "[x]", "$5",
       "100%", "&amp;", "&quot;", "&lt;b&gt;", "&#39;", "a-b", "—", "→", "⩭", "⩮", "x/y", "@user",
       "#tag", "...", "!", "?", ",", ".", ":", ";", '"', "'", "«quote»", "¿qué?", "end.", "–",
       "١٢٣", "½", "²", "word,", "(paren", "close)", "<skipped>", "-\n", "\u200b", "x\u0301"]
)
SPACES = [" "] * 30 + ["  ", "\t", "\u00a0", "\u3000", "\u2009", "\x1c", "\u0085", "\n"]


def zipf_word(rng):
    # Heavy head so that n-grams repeat and match.
    i = int(rng.paretovariate(1.1)) - 1
    return WORDS[i % len(WORDS)] if rng.random() < 0.8 else rng.choice(WORDS)


def sentence(rng, n):
    return [zipf_word(rng) for _ in range(n)]


def mutate(rng, toks):
    out = []
    for t in toks:
        r = rng.random()
        if r < 0.1:
            continue
        if r < 0.2:
            out.append(zipf_word(rng))
        elif r < 0.25:
            out.extend([t, zipf_word(rng)])
        else:
            out.append(t)
    return out


def join(rng, toks, fancy):
    if not fancy:
        return " ".join(toks)
    s = ""
    for i, t in enumerate(toks):
        s += (rng.choice(SPACES) if i else "") + t
    if rng.random() < 0.2:
        s = rng.choice(SPACES) + s + rng.choice(SPACES)
    return s


def corpus(seed, n, fancy=True, max_refs=4, allow_empty_ref=True):
    """Records as (hyp tokens, [ref tokens]) plus their joined strings."""
    rng = random.Random(seed)
    recs = []
    for i in range(n):
        base = sentence(rng, rng.choice([0, 1, 2, 3, 4, 5, 6, 8, 10, 14, 20, 30]) if rng.random() < 0.3
                        else rng.randint(5, 25))
        nrefs = rng.randint(1, max_refs)
        refs = [mutate(rng, base) for _ in range(nrefs)]
        kind = rng.random()
        if kind < 0.08:
            hyp = []
        elif kind < 0.15:
            hyp = base[:rng.randint(1, 3)]
        elif kind < 0.25:
            hyp = list(refs[0])  # identical to a reference
        elif kind < 0.32 and len(base) >= 2:
            # a tie in the closest reference length: refs of lengths c-1 and c+1
            hyp = mutate(rng, base)
            c = len(hyp)
            refs = [sentence(rng, c + 1), sentence(rng, max(c - 1, 0))] + refs[:2]
            rng.shuffle(refs)
        else:
            hyp = mutate(rng, base)
        if allow_empty_ref and rng.random() < 0.04:
            refs.append([])
        recs.append((hyp, refs, join(rng, hyp, fancy), [join(rng, r, fancy) for r in refs]))
    return recs


# ---------------------------------------------------------------------------------------------
# Faithful re-implementations of libraries that cannot be installed.

def mindnlp_count_ngram(toks, n):
    c = Counter()
    for i in range(1, n + 1):
        for j in range(len(toks) - i + 1):
            c[tuple(toks[j:i + j])] += 1
    return c


class MindNLPBleu:
    """mindnlp.metrics.BleuScore (94b64df3): corpus statistics in numpy float64 arrays."""

    def __init__(self, n_size=4, weights=None):
        assert 1 <= n_size <= 4
        self.n = n_size
        self.weights = weights if weights is not None else [1 / n_size for _ in range(n_size)]
        assert len(self.weights) == n_size
        self.num = np.zeros(n_size)
        self.den = np.zeros(n_size)
        self.bp_c = 0.0
        self.bp_r = 0.0

    def update(self, cands, refs_list):
        for cand, refs in zip(cands, refs_list):
            self.bp_c += len(cand)
            lens = [len(r) for r in refs]
            diffs = [abs(len(cand) - x) for x in lens]
            self.bp_r += lens[diffs.index(min(diffs))]  # first reference wins a tie
            cc = mindnlp_count_ngram(cand, self.n)
            rc = Counter()
            for r in refs:
                rc |= mindnlp_count_ngram(r, self.n)
            clip = cc & rc
            for g in clip:
                self.num[len(g) - 1] += clip[g]
            for g in cc:
                self.den[len(g) - 1] += cc[g]

    def eval(self):
        if min(self.num) == 0.0:
            return 0.0
        p = self.num / self.den
        geo = np.exp(np.sum(self.weights * np.log(p)))
        bp = np.array(1.0) if self.bp_c > self.bp_r else np.exp(1 - (np.array(self.bp_r) / np.array(self.bp_c)))
        return float(bp * geo)


class PaddleBleu:
    """paddlenlp.metrics.BLEU (88ffd5f) used through add_inst/score."""

    def __init__(self, n_size=4, weights=None):
        if not weights:
            weights = [1 / n_size for _ in range(n_size)]
        assert len(weights) == n_size
        self.weights = weights
        self.n = n_size
        self.match = {}
        self.cand = {}
        self.bp_r = 0
        self.bp_c = 0

    @staticmethod
    def _ngrams(sent, k):  # k = order - 1
        return [sent[left:left + k + 1] for left in range(len(sent) - k)]

    def add_inst(self, cand, refs):
        for k in range(self.n):
            cg = self._ngrams(cand, k)
            ref_max = {}
            for r in refs:
                tmp = Counter(tuple(g) for g in self._ngrams(r, k))
                for g, c in tmp.items():
                    ref_max[g] = max(ref_max.get(g, 0), c)
            cc = Counter(tuple(g) for g in cg)
            m = sum(min(c, ref_max.get(g, 0)) for g, c in cc.items())
            self.match[k] = self.match.get(k, 0) + m
            self.cand[k] = self.cand.get(k, 0) + len(cg)
        self.bp_c += len(cand)
        self.bp_r += min((abs(len(cand) - len(r)), len(r)) for r in refs)[1]

    def score(self):
        probs = []
        for k in range(self.n):
            try:
                s = 0.0 if self.cand[k] == 0 else self.match[k] / float(self.cand[k])
            except KeyError:
                s = 0
            if s == 0:
                s = sys.float_info.min
            probs.append(s)
        logs = math.fsum(w * math.log(p) for w, p in zip(self.weights, probs))
        bp = math.exp(min(1 - self.bp_r / float(self.bp_c), 0))  # ZeroDivisionError if no tokens
        return bp * math.exp(logs)


SEED_CAND = "The cat The cat on the mat".split()
SEED_REFS = ["The cat is on the mat".split(), "There is a cat on the mat".split()]


def check_reimplementations():
    m = MindNLPBleu()
    m.update([SEED_CAND], [SEED_REFS])
    assert m.eval() == 0.46713797772820015, m.eval()
    p = PaddleBleu()
    p.add_inst(SEED_CAND, SEED_REFS)
    assert p.score() == 0.4671379777282001, p.score()
    m = MindNLPBleu(2, [0.5, 0.5])
    m.update([["this", "is", "small", "cat"]], [[["this", "is", "a", "small", "cat"]]])
    assert m.eval() == 0.6358881766016378, m.eval()
    m = MindNLPBleu()
    m.update([SEED_CAND], [SEED_REFS])
    m.update([SEED_REFS[0]], [[SEED_REFS[0]]])
    assert m.eval() == 0.7166258375282707, m.eval()
    m = MindNLPBleu()
    m.update([SEED_CAND], [[SEED_REFS[0]]])
    assert m.eval() == 0.0
    m = MindNLPBleu()
    m.update([["a", "b", "c", "d", "e", "f"]], [[list("abcdefg"), list("abcde")]])
    assert m.eval() == 0.846481724890614, m.eval()
    # Paddle edge cases of metrics.md §2.7.
    p = PaddleBleu()
    p.add_inst(["a", "b"], [["a", "b", "c", "d"]])
    assert abs(p.score() - 5.49e-155) < 1e-157, p.score()
    p = PaddleBleu()
    p.add_inst(["d", "c", "b", "a"], [["a", "b", "c", "d"]])
    assert abs(p.score() - 1.82e-231) < 1e-233, p.score()
    # ignite: the seed (tensor(0.0393)) and the float32 quirk.
    assert ignite_value([SEED_CAND], [SEED_REFS], 4, "no_smooth", "macro") == 0.4671379857332331
    v = ignite_value([["the"] * 7], [[s.lower().split() for s in ["the cat is on the mat", "there is a cat on the mat"]]],
                     4, "smooth1", "macro")
    assert v == 0.039281465090051315, v


# ---------------------------------------------------------------------------------------------
# Library wrappers.

def ignite_value(hyps, refs, n, smooth, average):
    m = IgniteBleu(ngram=n, smooth=smooth, average=average)
    m.update((hyps, refs))
    v = m.compute()
    return float(v.item() if isinstance(v, torch.Tensor) else v)


def nltk_value(hyps, refs, weights, method, reweigh=False):
    sf = getattr(SmoothingFunction(), f"method{method}")
    try:
        return float(corpus_bleu(refs, hyps, weights=weights, smoothing_function=sf, auto_reweigh=reweigh))
    except AssertionError:
        return None  # method6 without a trigram precision


def raw_stats(metric, hyps, refs_streams):
    stats = metric._extract_corpus_statistics(hyps, refs_streams)
    return [sum(s[i] for s in stats) for i in range(len(stats[0]))]


def streams(refs):
    """Per-record reference lists -> sacrebleu reference streams (None pads)."""
    k = max(len(r) for r in refs)
    return [[r[j] if j < len(r) else None for r in refs] for j in range(k)]


def record(pred, refs):
    return {"prediction": pred, "references": refs}


# ---------------------------------------------------------------------------------------------
# sacreBLEU BLEU.

def sacre_cases():
    smooths = ["exp", "floor", "add-k", "none"]
    toks = ["13a", "intl", "zh", "char", "none"]
    seed = 100
    for tok in toks:
        for lc in (False, True):
            seed += 1
            recs = corpus(seed, 14)
            hyps = [r[2] for r in recs]
            refs = [r[3] for r in recs]
            for sm in smooths:
                for eff in (False, True):
                    b = BLEU(tokenize=tok, lowercase=lc, smooth_method=sm, effective_order=eff)
                    s = b.corpus_score(hyps, streams(refs))
                    st = raw_stats(b, hyps, streams(refs))
                    n = b.max_ngram_order
                    metric = {"type": "bleu", "tokenize": tok, "smooth": sm, "effective_order": eff}
                    if lc:
                        metric["lowercase"] = True
                    records = [record(h, rs[0] if len(rs) == 1 and (i % 2) else rs)
                               for i, (h, rs) in enumerate(zip(hyps, refs))]
                    add(f"sacrebleu-{tok}-{'lc' if lc else 'mixed'}-{sm}-{'eff' if eff else 'noeff'}", metric, records,
                        s.score / 100,
                        {"precisions": [p / 100 for p in s.precisions], "bp": s.bp, "sys_len": s.sys_len,
                         "ref_len": s.ref_len, "counts": st[2:2 + n], "totals": st[2 + n:]},
                        sacrebleu_signature=str(b.get_signature()))
    # scale 100, other orders, smooth values, macro average (mean of sentence_score).
    recs = corpus(7, 30)
    hyps = [r[2] for r in recs]
    refs = [r[3] for r in recs]
    records = [record(h, rs) for h, rs in zip(hyps, refs)]
    for n in (1, 2, 3, 5, 6):
        b = BLEU(max_ngram_order=n)
        add(f"sacrebleu-ngram{n}-scale100", {"type": "bleu", "ngram": n, "scale": 100}, records,
            b.corpus_score(hyps, streams(refs)).score)
    for sm, v in (("floor", 0.3), ("add-k", 2), ("add-k", 0.5), ("floor", 0)):
        b = BLEU(smooth_method=sm, smooth_value=v)
        add(f"sacrebleu-{sm}-{v}", {"type": "bleu", "smooth": sm, "smooth_value": v}, records,
            b.corpus_score(hyps, streams(refs)).score / 100, sacrebleu_signature=str(b.get_signature()))
    # Pre-tokenized records (list<string>, list<list<string>>) are never re-tokenized: tokens of
    # sacrebleu's own 13a tokenizer give the same BLEU as the raw strings.
    b = BLEU()
    tok13a = b.tokenizer
    add("sacrebleu-pretokenized-13a", {"type": "bleu"},
        [record(tok13a(h.rstrip()).split(), [tok13a(r.rstrip()).split() for r in rs]) for h, rs in zip(hyps, refs)],
        b.corpus_score(hyps, streams(refs)).score / 100)
    for sm in ("exp", "floor", "add-k", "none"):
        for eff in (False, True):
            b = BLEU(smooth_method=sm, effective_order=eff)
            scores = [b.sentence_score(h, rs).score for h, rs in zip(hyps, refs)]
            add(f"sacrebleu-macro-{sm}-{'eff' if eff else 'noeff'}",
                {"type": "bleu", "smooth": sm, "effective_order": eff, "average": "macro"}, records,
                math.fsum(scores) / len(scores) / 100)
    # Edge cases of metrics.md §2.7.
    for name, h, rs in [("empty-hyp", "", ["a b c"]), ("empty-ref", "a b c", [""]),
                        ("short-hyp", "a b", ["a b c d"]), ("hyp-eq-ref-3", "a b c", ["a b c"]),
                        ("no-unigram", "x y z", ["a b c"]), ("only-unigrams", "d c b a", ["a b c d"])]:
        for sm, eff in (("exp", False), ("none", False), ("exp", True)):
            b = BLEU(smooth_method=sm, effective_order=eff)
            add(f"sacrebleu-edge-{name}-{sm}-{'eff' if eff else 'noeff'}",
                {"type": "bleu", "smooth": sm, "effective_order": eff, "scale": 100},
                [record(h, rs)], b.corpus_score([h], [[r] for r in rs]).score)


# ---------------------------------------------------------------------------------------------
# chrF / chrF++.

def chrf_cases():
    seed = 300
    for wo in (0, 2):
        for ws in (False, True):
            for eps in (False, True):
                for lc in (False, True):
                    seed += 1
                    recs = corpus(seed, 12)
                    hyps = [r[2] for r in recs]
                    refs = [r[3] for r in recs]
                    c = CHRF(word_order=wo, whitespace=ws, eps_smoothing=eps, lowercase=lc)
                    s = c.corpus_score(hyps, streams(refs))
                    st = raw_stats(c, hyps, streams(refs))
                    metric = {"type": "chrf", "word_order": wo, "whitespace": ws, "eps_smoothing": eps, "lowercase": lc}
                    add(f"chrf-nw{wo}-{'ws' if ws else 'nows'}-{'eps' if eps else 'noeps'}-{'lc' if lc else 'mixed'}",
                        metric, [record(h, rs) for h, rs in zip(hyps, refs)], s.score / 100,
                        {"hyp_counts": st[0::3], "ref_counts": st[1::3], "matches": st[2::3]},
                        sacrebleu_signature=str(c.get_signature()))
    recs = corpus(399, 20)
    hyps = [r[2] for r in recs]
    refs = [r[3] for r in recs]
    for nc, nw, beta in ((4, 1, 1), (1, 0, 3), (0, 2, 2), (8, 3, 0)):
        c = CHRF(char_order=nc, word_order=nw, beta=beta)
        add(f"chrf-nc{nc}-nw{nw}-beta{beta}-scale100",
            {"type": "chrf", "char_order": nc, "word_order": nw, "beta": beta, "scale": 100},
            [record(h, rs) for h, rs in zip(hyps, refs)], c.corpus_score(hyps, streams(refs)).score)
    for name, h, rs in [("empty-hyp", "", ["a b c"]), ("empty-ref", "a b c", [""]), ("both-empty", "", [""]),
                        ("identical", "a b c", ["a b c"]), ("ref-tie", "ab cd", ["ab xy", "xy cd"])]:
        for wo in (0, 2):
            c = CHRF(word_order=wo)
            add(f"chrf-edge-{name}-nw{wo}", {"type": "chrf", "word_order": wo, "scale": 100},
                [record(h, rs)], c.corpus_score([h], [[r] for r in rs]).score)


# ---------------------------------------------------------------------------------------------
# ignite, NLTK, MindNLP, Paddle on tokens.

def token_records(recs, form):
    """Records in one of the accepted shapes; the libraries see str.split() tokens."""
    out = []
    for i, (h, rs, hs, rss) in enumerate(recs):
        f = form if form != "mixed" else ["str", "tok"][i % 2]
        if f == "str":
            out.append(record(hs, rss))
        else:
            out.append(record(hs.split(), [r.split() for r in rss]))
    return out


def split_corpus(recs):
    return [r[2].split() for r in recs], [[x.split() for x in r[3]] for r in recs]


def ignite_cases():
    seed = 500
    for smooth in ("no_smooth", "smooth1", "nltk_smooth2", "smooth2"):
        for avg in ("micro", "macro"):
            for n in (4, 2):
                seed += 1
                recs = corpus(seed, 25, allow_empty_ref=False)
                hyps, refs = split_corpus(recs)
                add(f"ignite-{smooth}-{avg}-n{n}", {"type": "bleu", "compat": "ignite", "smooth": smooth,
                                                   "average": avg, "ngram": n},
                    token_records(recs, "mixed"), ignite_value(hyps, refs, n, smooth, avg))
    # Edge cases (§2.7) for every smoother.
    edges = [("empty-hyp", [], [["a", "b", "c"]]), ("empty-ref", ["a", "b", "c"], [[]]),
             ("short-hyp", ["a", "b"], [["a", "b", "c", "d"]]), ("hyp-eq-ref-3", ["a", "b", "c"], [["a", "b", "c"]]),
             ("no-unigram", ["x", "y"], [["a", "b"]]), ("only-unigrams", ["d", "c", "b", "a"], [["a", "b", "c", "d"]]),
             ("tie", list("abcdef"), [list("abcdefg"), list("abcde")])]
    for name, h, rs in edges:
        for smooth in ("no_smooth", "smooth1", "nltk_smooth2", "smooth2"):
            for avg in ("micro", "macro"):
                add(f"ignite-edge-{name}-{smooth}-{avg}",
                    {"type": "bleu", "compat": "ignite", "smooth": smooth, "average": avg},
                    [record(h, rs)], ignite_value([h], [rs], 4, smooth, avg))
    # Corpus with a short sentence (§2.8).
    hyps = [list("abcdef"), list("ab")]
    refs = [[list("abcdxf")], [list("ab")]]
    for smooth in ("no_smooth", "smooth1"):
        for avg in ("micro", "macro"):
            add(f"ignite-short-sentence-{smooth}-{avg}",
                {"type": "bleu", "compat": "ignite", "smooth": smooth, "average": avg, "scale": 100},
                [record(h, r) for h, r in zip(hyps, refs)], 100 * ignite_value(hyps, refs, 4, smooth, avg),
                rtol=1e-12)


def nltk_cases():
    seed = 700
    for method in range(8):
        for n, weights in ((4, (0.25, 0.25, 0.25, 0.25)), (3, (0.5, 0.3, 0.2)), (5, (0.1, 0.2, 0.3, 0.2, 0.2))):
            if method == 6 and n < 3:
                continue
            seed += 1
            recs = corpus(seed, 20, allow_empty_ref=False)
            hyps, refs = split_corpus(recs)
            metric = {"type": "bleu", "compat": "nltk", "smooth": f"method{method}"}
            if n != 4:
                metric["weights"] = list(weights)
            add(f"nltk-method{method}-n{n}", metric, token_records(recs, "mixed"),
                nltk_value(hyps, refs, weights, method))
            # macro: mean of sentence_bleu over the records.
            if n == 4:
                vals = [nltk_value([h], [r], weights, method) for h, r in zip(hyps, refs)]
                v = None if any(x is None for x in vals) else math.fsum(vals) / len(vals)
                add(f"nltk-method{method}-macro", dict(metric, average="macro"), token_records(recs, "str"), v)
    # auto_reweigh on tiny corpora, and methods 4-7 on short corpora where the last sentence matters.
    for i, (hyps, refs) in enumerate([
        ([["a", "b"]], [[["a", "b", "c"]]]),
        ([["a", "b", "c"]], [[["a", "b", "c"]]]),
        ([["a"], ["b", "a"]], [[["a", "b"]], [["b", "a", "c"]]]),
    ]):
        for method in (0, 1, 2, 3, 4, 5, 7):
            add(f"nltk-reweigh-{i}-method{method}",
                {"type": "bleu", "compat": "nltk", "smooth": f"method{method}", "auto_reweigh": True},
                [record(h, r) for h, r in zip(hyps, refs)],
                nltk_value(hyps, refs, (0.25, 0.25, 0.25, 0.25), method, reweigh=True))
    edges = [("empty-hyp", [], [["a", "b", "c"]]), ("empty-ref", ["a", "b", "c"], [[]]),
             ("short-hyp", ["a", "b"], [["a", "b", "c", "d"]]), ("hyp-eq-ref-3", ["a", "b", "c"], [["a", "b", "c"]]),
             ("no-unigram", ["x", "y"], [["a", "b"]]), ("only-unigrams", ["d", "c", "b", "a"], [["a", "b", "c", "d"]]),
             ("tie", list("abcdef"), [list("abcdefg"), list("abcde")]),
             ("seed1", ["the"] * 7, [s.split() for s in ["the cat is on the mat", "there is a cat on the mat"]]),
             ("one-token", ["a"], [["a", "b"]])]
    for name, h, rs in edges:
        for method in range(8):
            add(f"nltk-edge-{name}-method{method}", {"type": "bleu", "compat": "nltk", "smooth": f"method{method}"},
                [record(h, rs)], nltk_value([h], [rs], (0.25,) * 4, method))
    hyps = [list("abcdef"), list("ab")]
    refs = [[list("abcdxf")], [list("ab")]]
    add("nltk-short-sentence", {"type": "bleu", "compat": "nltk"}, [record(h, r) for h, r in zip(hyps, refs)],
        nltk_value(hyps, refs, (0.25,) * 4, 0))
    assert cases[-1]["value"] == 0.49144984054308527


def mindnlp_paddle_cases():
    seed = 900
    for n, weights in ((4, None), (2, [0.5, 0.5]), (3, [0.2, 0.3, 0.5]), (1, None)):
        seed += 1
        recs = corpus(seed, 20, allow_empty_ref=False)
        hyps, refs = split_corpus(recs)
        m = MindNLPBleu(n, weights)
        m.update(hyps, refs)
        metric = {"type": "bleu", "compat": "mindnlp", "ngram": n}
        if weights:
            metric["weights"] = weights
        add(f"mindnlp-n{n}", metric, token_records(recs, "mixed"), m.eval())
        vals = []
        for h, r in zip(hyps, refs):
            mm = MindNLPBleu(n, weights)
            mm.update([h], [r])
            vals.append(mm.eval())
        add(f"mindnlp-n{n}-macro", dict(metric, average="macro"), token_records(recs, "mixed"),
            math.fsum(vals) / len(vals))

        p = PaddleBleu(n, weights)
        for h, r in zip(hyps, refs):
            p.add_inst(h, r)
        metric = {"type": "bleu", "compat": "paddle", "ngram": n}
        if weights:
            metric["weights"] = weights
        try:
            v = p.score()
        except ZeroDivisionError:
            v = None
        add(f"paddle-n{n}", metric, token_records(recs, "mixed"), v)
        # macro: the mean of sentence scores; an empty hypothesis makes Paddle divide by zero.
        nonempty = [r for r in recs if r[0]]
        for name, rs in (("nonempty", nonempty), ("with-empty", recs)):
            vals = []
            for h, r in zip(*split_corpus(rs)):
                pp = PaddleBleu(n, weights)
                pp.add_inst(h, r)
                try:
                    vals.append(pp.score())
                except ZeroDivisionError:
                    vals.append(None)
            v = None if None in vals else math.fsum(vals) / len(vals)
            add(f"paddle-n{n}-macro-{name}", dict(metric, average="macro"), token_records(rs, "str"), v)
    edges = [("empty-ref", ["a", "b", "c"], [[]]), ("short-hyp", ["a", "b"], [["a", "b", "c", "d"]]),
             ("hyp-eq-ref-3", ["a", "b", "c"], [["a", "b", "c"]]), ("no-unigram", ["x", "y"], [["a", "b"]]),
             ("only-unigrams", ["d", "c", "b", "a"], [["a", "b", "c", "d"]]),
             ("tie", list("abcdef"), [list("abcdefg"), list("abcde")]), ("empty-hyp", [], [["a", "b", "c"]])]
    for name, h, rs in edges:
        m = MindNLPBleu()
        m.update([h], [rs])
        add(f"mindnlp-edge-{name}", {"type": "bleu", "compat": "mindnlp"}, [record(h, rs)], m.eval())
        p = PaddleBleu()
        p.add_inst(h, rs)
        try:
            v = p.score()
        except ZeroDivisionError:
            v = None
        add(f"paddle-edge-{name}", {"type": "bleu", "compat": "paddle"}, [record(h, rs)], v)
    hyps = [list("abcdef"), list("ab")]
    refs = [[list("abcdxf")], [list("ab")]]
    m = MindNLPBleu()
    m.update(hyps, refs)
    p = PaddleBleu()
    for h, r in zip(hyps, refs):
        p.add_inst(h, r)
    assert abs(m.eval() - 0.5583948264724179) < 1e-15 and abs(p.score() - 0.5583948264724179) < 1e-15
    add("mindnlp-short-sentence", {"type": "bleu", "compat": "mindnlp"}, [record(h, r) for h, r in zip(hyps, refs)],
        m.eval())
    add("paddle-short-sentence", {"type": "bleu", "compat": "paddle"}, [record(h, r) for h, r in zip(hyps, refs)],
        p.score())


def reject_cases():
    for typ, compat in (("bleu", "sacrebleu"), ("bleu", "ignite"), ("bleu", "nltk"), ("bleu", "mindnlp"),
                        ("bleu", "paddle"), ("chrf", "sacrebleu")):
        add(f"reject-empty-references-{typ}-{compat}", {"type": typ, "compat": compat},
            [record("a b c", []), record(["a", "b"], [])], None, reject="empty references")
        add(f"reject-wrong-type-{typ}-{compat}", {"type": typ, "compat": compat},
            [record(3, ["a"]), record("a", 5), record({"x": 1}, ["a"])], None, reject="wrong type")
        add(f"reject-missing-{typ}-{compat}", {"type": typ, "compat": compat},
            [{"prediction": "a"}, {"references": ["a"]}, record(None, ["a"])], None, reject="missing field")


# ---------------------------------------------------------------------------------------------
# Real WMT17 lines.

def wmt_cases():
    recs = []
    with gzip.open(WMT, "rt", encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            if r["system"] == WMT_SYSTEM:
                recs.append(r)
                if len(recs) == WMT_LINES:
                    break
    hyps = [r["prediction"] for r in recs]
    refs = [r["references"] for r in recs]
    records = [{"id": r["id"], "system": r["system"], "prediction": r["prediction"], "references": r["references"]}
               for r in recs]
    b = BLEU()
    s = b.corpus_score(hyps, streams(refs))
    st = raw_stats(b, hyps, streams(refs))
    add(f"wmt17-{WMT_SYSTEM}-bleu-13a", {"type": "bleu"}, records, s.score / 100,
        {"precisions": [p / 100 for p in s.precisions], "bp": s.bp, "sys_len": s.sys_len, "ref_len": s.ref_len,
         "counts": st[2:6], "totals": st[6:]}, sacrebleu_signature=str(b.get_signature()))
    for wo in (0, 2):
        c = CHRF(word_order=wo)
        s = c.corpus_score(hyps, streams(refs))
        add(f"wmt17-{WMT_SYSTEM}-chrf-nw{wo}", {"type": "chrf", "word_order": wo, "scale": 100}, records, s.score,
            sacrebleu_signature=str(c.get_signature()))


def main():
    check_reimplementations()
    sacre_cases()
    chrf_cases()
    ignite_cases()
    nltk_cases()
    mindnlp_paddle_cases()
    reject_cases()
    wmt_cases()
    out = {
        "generator": "gen_bleu.py",
        "versions": {"sacrebleu": sacrebleu.__version__, "nltk": nltk.__version__,
                     "pytorch-ignite": __import__("ignite").__version__, "torch": torch.__version__,
                     "numpy": np.__version__, "python": sys.version.split()[0],
                     "mindnlp": "re-implementation of 94b64df3 (checked against its documented values)",
                     "paddlenlp": "re-implementation of bleu.py@88ffd5f (checked against its docstring)"},
        "cases": cases,
    }
    with open(OUT, "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False, indent=None, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {len(cases)} cases, {os.path.getsize(OUT)} bytes to {OUT}")


if __name__ == "__main__":
    main()
