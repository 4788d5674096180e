#!/usr/bin/env python3
"""Writes golden.json for the tokenize package's tests from the reference
Python implementations.

It installs nothing. It needs Python 3.11 (str methods on Unicode 14.0) and

    pip install sacrebleu==2.6.0 nltk==3.9.1 rouge-score==0.1.2

(sacrebleu pulls in the `regex` module). Then, from any directory:

    python3 metrics/tokenize/testdata/gen_golden.py

The corpus is generated from a fixed seed: hand-picked edge cases, random
lines mixing ASCII punctuation, numbers with . , -, HTML entities, CJK,
Greek sigmas, Turkish İ, Python-only whitespace (\\x1c-\\x1f, \\x85,
\\u2028, \\u3000), emoji, combining marks and English words, and random code
points. The English vocabulary is a built-in list plus words harvested from
the docstrings of the installed nltk, sacrebleu and rouge_score packages
(nltk's corpora cannot be downloaded here), plus synthetic words built from
the Porter rules' suffixes.

Output (UTF-8 JSON):

    inputs                      the lines
    13a intl zh char none       sacrebleu BLEU tokens: tok(line.rstrip()).split()
    whitespace                  line.split()
    rouge rouge_stem            DefaultTokenizer(use_stemmer=False/True).tokenize(line)
    sacrebleu_13a ... _char     tok(line), the tokenizer's output string
    lower                       line.lower()
    sigma_inputs sigma_lower    short strings probing the Final_Sigma rule
    porter                      {word: PorterStemmer().stem(word)}
    unicode                     exhaustive per-code-point facts (see below)
"""

import importlib.metadata
import inspect
import json
import os
import random
import re
import sys
import unicodedata

import nltk
import regex
import rouge_score
import sacrebleu
from nltk.stem.porter import PorterStemmer
from rouge_score.tokenizers import DefaultTokenizer
from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a
from sacrebleu.tokenizers.tokenizer_char import TokenizerChar
from sacrebleu.tokenizers.tokenizer_intl import TokenizerV14International
from sacrebleu.tokenizers.tokenizer_none import NoneTokenizer
from sacrebleu.tokenizers.tokenizer_zh import TokenizerZh

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "golden.json")
SEED = 20240601

BUILTIN_WORDS = """
running quickly generously ponies caresses caress cats dying lying tying sky skies
news innings inning outings outing cannings canning howe proceed exceed succeed ties
cries died tied spied tried flies feed agreed plastered bled motoring sing conflated
troubled sized hopping tanned falling hissing fizzed failing filing happy enjoy spy
fly try relational conditional rational valenci hesitanci digitizer conformabli
radicalli differentli vileli analogousli vietnamization predication operator
feudalism decisiveness hopefulness callousness formaliti sensitiviti sensibiliti
triplicate formative formalize electriciti electrical hopeful goodness revival
allowance inference airliner gyroscopic adjustable defensible irritant replacement
adjustment dependent adoption homologou communism activate angulariti homologous
effective bowdlerize probate rate cease controll roll generalizations oscillators
runners runner ran run quick generous pony dies lies sties skying hearing heard
university universal universe organization organize organ organs organic
argument arguments argue argued arguing argus generalization general generally
fully fulli hopefulli beautifully beautiful beauty beauties analogy analogies
theology biology apology logical logically logic archaeology trilogy dialog
meeting meetings meet met meets eating eats ate eaten feeding needed need seeded
speed succeeded proceeded exceeded exceeding agreeing freed guaranteed
stemming stemmed stems stem stemmer connection connections connective connected
connecting connect excellent excellence easily easy gently gentle kindly kind
capabilities capability able ability possibly possible probably abilities
national nationally nationality rationalize rationalization traditional
yearly yelling yellow yoyo syzygy toy toys boy boys joy joyful annoyed annoying
players played playing player say says saying said buy buying buys agree
bless blessed blessing less lessness hopeless hopelessness useful usefulness
a as at an and or of to in on is it be by we us i y ys yy ss sss ing ed ies ied
abed bed red shed sled bred fed led wed seed deed heed reed weed
"""

# Every suffix that appears in a rule of NLTK's Porter stemmer.
SUFFIXES = """
sses ies ss s ied eed ed ing at bl iz y ational tional enci anci izer bli alli entli
eli ousli ization ation ator alism iveness fulness ousness aliti iviti biliti fulli
logi icate ative alize iciti ical ful ness al ance ence er ic able ible ant ement
ment ent ion ou ism ate iti ous ive ize e ll
""".split()

ENTITIES = ["&quot;", "&amp;", "&lt;", "&gt;", "&apos;", "&nbsp;", "&amp;lt;",
            "&amp;quot;", "&amp;amp;", "&", "&;", "&#39;", "&quot", "& amp;"]

PY_SPACES = ["\t", "\n", "\v", "\f", "\r", "\x1c", "\x1d", "\x1e", "\x1f", " ",
             "\x85", "\xa0", "\u1680", "\u2000", "\u2005", "\u200a", "\u2028",
             "\u2029", "\u202f", "\u205f", "\u3000"]
NOT_SPACES = ["\u200b", "\u180e", "\ufeff", "\u2060"]

CJK = "中文字汉語日本語한국어ひらがなカタカナ，。、；：？！「」『』（）《》【】〇一二三"
SPECIAL = [
    "—", "–", "→", "⩭", "⩮", "\u2000", "\u2001", "\u2a6d", "\u2a6e", "\U00020000",
    "\U0002a6d6", "\u2f800", "\U0002f800", "０１２", "ＡＢＣ", "☃", "✈", "㐀", "鿻", "鿼",
    "ΟΔΟΣ", "ὈΔΥΣΣΕΎΣ", "ΣΑΣ", "Σ", "ς", "σ", "İstanbul", "İ", "ı", "K", "Å", "ß", "ẞ",
    "ǅ", "ǈ", "Ⅻ", "²", "½", "٣", "१२", "𝟘", "e\u0301", "a\u0308\u0301", "\u0345",
    "😀", "👩\u200d💻", "🇫🇷", "€", "£", "$", "¥", "©", "°", "±", "§", "¶", "«", "»",
    "\u20c1", "\U0001fae9", "\U0001cc00", "\u1c89", "\U00010d40", "\ufffd", "\u00ad",
    "‘", "’", "“", "”", "…", "·", "•", "‰", "′", "※", "\u0591", "ا", "ع", "ـ",
]
PUNCT = list("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~") + [".", ",", "-", ".", ","]
NUMBERS = ["3.5", "1,000", "1.000,50", "3-4", "5-", "-5", "1999.", "2.", ".5", ",5",
           "5..", "5,.", "3.14.15", "10-20-30", "1-", "0.", "v1.2.3", "12:30",
           "$5.00", "50%", "1/2", "3x4", "٣.٥", "²."]

EDGE_CASES = [
    "It's 3.5 km - e.g. U.S.A.", "&amp;", "Héllo", "running quickly runners",
    "", " ", "\n", "  leading and trailing  ", "a", ".", ",", "-", "..", ".,", ",.",
    "a.", ".a", "a.b", "1.2", "a.1", "1.a", "1..2", "a..b", "a...b", "1...2",
    "1999.", "1999. ", " 1999.", ".5", "5.", "5..", "5...", ",.5", "5,.5", "5.,a",
    "a-b", "5-b", "5-5", "5--5", "-5", "5-", "5-\n", "x-\ny", "x-\n", "x- \n",
    "x-<skipped>\ny", "a<skipped>b", "<skipped>", "<skip ped>", "a\nb", "a\r\nb",
    "&quot;a&quot;", "&lt;b&gt;", "&amp;lt;", "&amp;amp;", "&amp;quot;", "AT&T",
    "R&D&amp;", "a&b", "&&amp;&", "&gt;&gt;", "x &apos; y",
    "e.g., i.e.", "Mr. Smith", "U.S.A.", "www.example.com", "user@example.com",
    "http://x.org/a-b?c=d&e=f", "(a)", "[b]", "{c}", "a/b", "a\\b", "a|b", "~a",
    "^_^", "`code`", "'quote'", "\"dq\"", "it's", "don't", "rock'n'roll",
    "ΟΔΟΣ", "ΣΑΣ", "ΑΣ", "Σ", "ΑΣ'", "Α'Σ", "ΑΣ.Β", "Α\u0301Σ", "ΑΣ\u0301",
    "Α\u00adΣ", "ΑΣ\u00adΒ", "ΣΣΣ", "1Σ", "ΑΣ1", "aΣ", "ǅΣ", "ΑΣ𝐀",
    "İ", "İİ", "İstanbul", "İZMİR", "xİy", "KELVIN", "\u212aelvin", "a\u212ab", "\u212a\u212a", "ÅNGSTRÖM", "Straße", "STRASSE", "ǄǅǆǇ",
    "a\x1cb\x1dc\x1ed\x1ff", "a\x85b", "a\u2028b", "a\u2029b", "a\u3000b",
    "a\xa0b", "a\u200bb", "a\ufeffb", "a\u180eb", "\u3000中文\u3000", "a\tb\vc\fd",
    "中文。", "中文,中文.", "中1.5文", "１２３。", "ＡＢＣ．", "—a—", "a→b", "⩭⩮",
    "\u2000a\u2001b", "x\u2a6dy\u2a6ez", "𠀀 𪛖", "★☆", "e\u0301.", "😀.", "1😀2",
    "²-3", "Ⅻ.", "12.Ⅻ", "١٢.٣٤", "a\u20c1b", "5\u20c1", "x\U0001fae9y", "\ufffd.",
    "'s", "''", "a''b", "!!!", "?!", "...", "—", "--", "---", "a--b", "1--2",
    "Sky SKY sky skies Skies", "DYING dying Dying", "news News NEWS",
]


def harvest_words():
    words = set()
    for mod in (nltk, sacrebleu, rouge_score):
        root = os.path.dirname(inspect.getfile(mod))
        for dirpath, _, files in sorted(os.walk(root)):
            for fn in sorted(files):
                if not fn.endswith(".py"):
                    continue
                with open(os.path.join(dirpath, fn), encoding="utf-8", errors="replace") as f:
                    text = f.read()
                for m in re.finditer(r'"""(.*?)"""', text, re.S):
                    for w in re.findall(r"[A-Za-z]{2,}", m.group(1)):
                        words.add(w)
    return sorted(words)


def synthetic_words(rng, n):
    cons = "bcdfghjklmnpqrstvwxyz"
    vow = "aeiouy"
    out = []
    for _ in range(n):
        stem = ""
        for _ in range(rng.randint(1, 4)):
            stem += rng.choice(cons) * rng.choice([1, 1, 1, 2]) + rng.choice(vow)
        if rng.random() < 0.5:
            stem += rng.choice(cons) * rng.choice([1, 1, 2])
        for _ in range(rng.choice([1, 1, 1, 2])):
            stem += rng.choice(SUFFIXES)
        out.append(stem)
    return out


def random_codepoint(rng):
    while True:
        r = rng.random()
        if r < 0.3:
            c = rng.randint(0x20, 0x7E)
        elif r < 0.5:
            c = rng.randint(0x80, 0x2FFF)
        elif r < 0.7:
            c = rng.randint(0x3000, 0xFFFF)
        elif r < 0.85:
            c = rng.randint(0x10000, 0x2FFFF)
        else:
            c = rng.randint(0, 0x10FFFF)
        if not 0xD800 <= c <= 0xDFFF:
            return chr(c)


def random_line(rng, vocab):
    pieces = []
    for _ in range(rng.randint(0, 18)):
        r = rng.random()
        if r < 0.40:
            w = rng.choice(vocab)
            t = rng.random()
            if t < 0.1:
                w = w.upper()
            elif t < 0.25:
                w = w.capitalize()
            pieces.append(w)
        elif r < 0.55:
            pieces.append("".join(rng.choice(PUNCT) for _ in range(rng.randint(1, 3))))
        elif r < 0.65:
            pieces.append(rng.choice(NUMBERS))
        elif r < 0.70:
            pieces.append(rng.choice(ENTITIES))
        elif r < 0.77:
            pieces.append("".join(rng.choice(CJK) for _ in range(rng.randint(1, 4))))
        elif r < 0.85:
            pieces.append(rng.choice(SPECIAL))
        elif r < 0.90:
            pieces.append(rng.choice(PY_SPACES + NOT_SPACES))
        elif r < 0.95:
            pieces.append("".join(random_codepoint(rng) for _ in range(rng.randint(1, 3))))
        else:
            pieces.append(rng.choice(["<skipped>", "-\n", "\n", "-"]))
    out = ""
    for p in pieces:
        if out:
            out += rng.choice([" ", " ", " ", " ", "", "  ", "\t", "\n", rng.choice(PY_SPACES)])
        out += p
    if rng.random() < 0.2:
        out += rng.choice(PY_SPACES) * rng.randint(1, 2)
    if rng.random() < 0.1:
        out = rng.choice(PY_SPACES) + out
    return out


def dense_line(rng):
    """Short lines over a tiny alphabet, to hit every 13a/intl regex overlap."""
    alphabet = rng.choice(["a1.,- ", "a1.,", "1.,-", "a.,-(", "x9.,;:!?", "1.,\u00b2\u2026a",
                           "a1.,&;", "中1.,a", "1-.,<"])
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 12)))


def sigma_line(rng):
    alphabet = ["Σ", "Σ", "Σ", "Α", "α", "1", " ", "'", ".", ":", "\u0301", "\u00ad",
                "ʰ", "\u0345", "ǅ", "İ", "σ", "ς", "_", "\u200d", "A", "a", "ﬀ", "\u1d2c"]
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 7)))


def ranges(pred):
    out = []
    for c in range(0x110000):
        if 0xD800 <= c <= 0xDFFF or not pred(chr(c)):
            continue
        if out and out[-1][1] == c - 1:
            out[-1][1] = c
        else:
            out.append([c, c])
    return out


def main():
    rng = random.Random(SEED)
    harvested = harvest_words()
    builtin = BUILTIN_WORDS.split()
    sampled = rng.sample(harvested, min(3000, len(harvested)))
    synthetic = synthetic_words(rng, 2500)
    vocab = builtin + sampled

    inputs = list(EDGE_CASES)
    inputs += [random_line(rng, vocab) for _ in range(1300)]
    inputs += [dense_line(rng) for _ in range(700)]
    inputs += ["".join(random_codepoint(rng) for _ in range(rng.randint(1, 12))) for _ in range(200)]

    toks = {
        "13a": Tokenizer13a(), "intl": TokenizerV14International(), "zh": TokenizerZh(),
        "char": TokenizerChar(), "none": NoneTokenizer(),
    }
    plain = DefaultTokenizer(use_stemmer=False)
    stemming = DefaultTokenizer(use_stemmer=True)
    golden = {
        "meta": {
            "python": sys.version.split()[0], "unicodedata": unicodedata.unidata_version,
            "sacrebleu": importlib.metadata.version("sacrebleu"),
            "nltk": importlib.metadata.version("nltk"),
            "rouge_score": importlib.metadata.version("rouge-score"),
            "regex": importlib.metadata.version("regex"), "seed": SEED,
        },
        "inputs": inputs,
    }
    for name, tok in toks.items():
        # sacrebleu's BLEU: tokenizer(line.rstrip()), then str.split().
        golden[name] = [tok(line.rstrip()).split() for line in inputs]
    golden["whitespace"] = [line.split() for line in inputs]
    golden["rouge"] = [plain.tokenize(line) for line in inputs]
    golden["rouge_stem"] = [stemming.tokenize(line) for line in inputs]
    for name in ("13a", "intl", "zh", "char"):
        golden["sacrebleu_" + name] = [toks[name](line) for line in inputs]
    golden["lower"] = [line.lower() for line in inputs]

    sigma = sorted({sigma_line(rng) for _ in range(600)})
    golden["sigma_inputs"] = sigma
    golden["sigma_lower"] = [s.lower() for s in sigma]

    stemmer = PorterStemmer()
    words = set(builtin) | set(sampled) | set(synthetic)
    words |= {w.upper() for w in builtin[:60]} | {w.capitalize() for w in builtin[:60]}
    words |= {"a*ded", "x*d", "ab*ding", "naïve", "cafés", "İnning", "İİ", "İ", "Σ", "ΟΔΟΣ",
              "SKY", "Dying", "ÉTUDES", "über", "straße", "ﬁnding", "2019", "1st", "y", "yy",
              "yyy", "yyyy", "syzygy", "ıes", "ıed", "", "ab", "abc"}
    golden["porter"] = {w: stemmer.stem(w) for w in sorted(words)}

    zh = TokenizerZh._is_chinese_char
    word_re = re.compile(r"\w")
    golden["unicode"] = {
        "isspace": [c for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF and chr(c).isspace()],
        "word": ranges(lambda ch: word_re.match(ch) is not None),
        "regex_P": ranges(lambda ch: regex.match(r"\p{P}", ch) is not None),
        "regex_S": ranges(lambda ch: regex.match(r"\p{S}", ch) is not None),
        "regex_N": ranges(lambda ch: regex.match(r"\p{N}", ch) is not None),
        "zh": ranges(zh),
        "lower": [[c, chr(c).lower()] for c in range(0x110000)
                  if not 0xD800 <= c <= 0xDFFF and chr(c).lower() != chr(c)],
    }

    with open(OUT, "w", encoding="utf-8") as f:
        json.dump(golden, f, ensure_ascii=False, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {OUT}: {len(inputs)} inputs, {len(golden['porter'])} porter words, "
          f"{os.path.getsize(OUT)} bytes", file=sys.stderr)


if __name__ == "__main__":
    main()
