"""Writes 100,000 utterance pairs as JSONL (prediction, references): 5 to 30 words from a
Zipf-weighted vocabulary of 5,000 made-up words, hypotheses with about 15% word errors."""
import json
import random
import sys

rng = random.Random(1)
syll = ["ka", "to", "mi", "ra", "ne", "su", "lo", "pi", "de", "an", "or", "is", "the", "ing"]
vocab = ["".join(rng.choice(syll) for _ in range(rng.randint(1, 4))) for _ in range(5000)]
weights = [1.0 / (i + 1) for i in range(len(vocab))]
with open(sys.argv[1], "w") as f:
    for _ in range(100000):
        ref = rng.choices(vocab, weights, k=rng.randint(5, 30))
        hyp = []
        for w in ref:
            x = rng.random()
            if x < 0.05:
                continue
            if x < 0.12:
                hyp.append(rng.choices(vocab, weights)[0])
                continue
            hyp.append(w)
            if x > 0.97:
                hyp.append(rng.choices(vocab, weights)[0])
        f.write(json.dumps({"prediction": " ".join(hyp), "references": " ".join(ref)}) + "\n")
