"""Makes the plain-text fixtures of testdata/text from the WMT17 en-de jsonl
(/work/shared/data/wmt17/newstest2017-en-de.jsonl.gz, the newstest2017 outputs of the
WMT17 systems): the first 200 segments of two systems and their reference, one segment per
line, as sacrebleu takes them.

    python3 make_wmt17.py /work/shared/data/wmt17/newstest2017-en-de.jsonl.gz
"""
import gzip
import json
import sys

N = 200
SYSTEMS = {"LIUM-NMT": "LIUM-NMT.de.txt", "online-B": "online-B.de.txt"}

def main(path):
    hyps = {s: [] for s in SYSTEMS}
    refs = []
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            s = d["system"]
            if s in hyps and len(hyps[s]) < N:
                hyps[s].append(d["prediction"])
                if s == "LIUM-NMT":
                    refs.append(d["references"][0])
    for s, name in SYSTEMS.items():
        assert len(hyps[s]) == N
        with open(name, "w", encoding="utf-8", newline="\n") as out:
            out.write("".join(h.replace("\n", " ") + "\n" for h in hyps[s]))
    with open("newstest2017.ref.de", "w", encoding="utf-8", newline="\n") as out:
        out.write("".join(r.replace("\n", " ") + "\n" for r in refs))

if __name__ == "__main__":
    main(sys.argv[1])
