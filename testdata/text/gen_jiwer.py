"""Writes jiwer.json: jiwer's corpus WER and CER of the systems in this folder against
newstest2017.ref.de, the expected output of

    evalstream score -r newstest2017.ref.de LIUM-NMT.de.txt online-B.de.txt \
        --metric wer --metric cer

Lines are read whole (trailing whitespace stripped). jiwer's own command line
(`jiwer -r REF -h HYP`) gives the same numbers on these files; it also drops lines of at
most one character, which none of them has. Pinned in requirements.txt; run from this
folder:

    python3 -m venv /tmp/sb && /tmp/sb/bin/pip install -r requirements.txt
    /tmp/sb/bin/python gen_jiwer.py
"""
import json
from importlib.metadata import version

import jiwer

REF = "newstest2017.ref.de"
SYSTEMS = {"LIUM-NMT.de": "LIUM-NMT.de.txt", "online-B.de": "online-B.de.txt"}


def read(path):
    with open(path, encoding="utf-8", newline="\n") as f:
        return [line.rstrip() for line in f]


def main():
    refs = read(REF)
    out = {"jiwer_version": version("jiwer"), "references": [REF], "systems": {}}
    for name, path in SYSTEMS.items():
        hyps = read(path)
        assert len(hyps) == len(refs)
        out["systems"][name] = {
            "file": path,
            "segments": len(hyps),
            "wer": jiwer.wer(refs, hyps),
            "cer": jiwer.cer(refs, hyps),
        }
    with open("jiwer.json", "w", encoding="utf-8") as f:
        json.dump(out, f, indent=2, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
