"""Writes sacrebleu.json: sacrebleu's corpus scores of the systems in this folder against
newstest2017.ref.de, the expected output of

    evalstream score -r newstest2017.ref.de LIUM-NMT.de.txt online-B.de.txt \
        --metric bleu:scale=100 --metric chrf:scale=100

Files are read as sacrebleu's command line reads them (sacrebleu.utils.smart_open, then
str.rstrip of every line). Pinned in requirements.txt; run from this folder:

    python3 -m venv /tmp/sb && /tmp/sb/bin/pip install -r requirements.txt
    /tmp/sb/bin/python gen_sacrebleu.py
"""
import json

import sacrebleu
from sacrebleu.metrics import BLEU, CHRF
from sacrebleu.utils import smart_open

REF = "newstest2017.ref.de"
SYSTEMS = {"LIUM-NMT.de": "LIUM-NMT.de.txt", "online-B.de": "online-B.de.txt"}


def read(path):
    return [line.rstrip() for line in smart_open(path)]


def main():
    refs = [read(REF)]
    out = {"sacrebleu_version": sacrebleu.__version__, "references": [REF], "systems": {}}
    for name, path in SYSTEMS.items():
        hyps = read(path)
        bleu_m, chrf_m = BLEU(), CHRF()
        bleu = bleu_m.corpus_score(hyps, refs)
        chrf = chrf_m.corpus_score(hyps, refs)
        out["systems"][name] = {
            "file": path,
            "segments": len(hyps),
            "bleu": bleu.score,
            "bleu_signature": str(bleu_m.get_signature()),
            "chrf": chrf.score,
            "chrf_signature": str(chrf_m.get_signature()),
        }
    with open("sacrebleu.json", "w", encoding="utf-8") as f:
        json.dump(out, f, indent=2, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
