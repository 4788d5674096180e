// Package asr implements the speech recognition error rates `wer`, `cer`, `mer`, `wil` and
// `wip` as mergeable states of integer alignment counts, with the semantics of jiwer 4.0
// (default preset) and torchmetrics 1.9. See /work/shared/spec/metrics.md Part 1b.
//
// jiwer aligns each reference with its hypothesis through rapidfuzz's Levenshtein.opcodes;
// MER, WIL and WIP (and the hits, substitutions, deletions and insertions of every type)
// depend on which of the minimum-cost alignments rapidfuzz returns, so the aligner
// reproduces rapidfuzz-cpp's choice (see aligner). Corpus rates are micro-averaged: sums of
// counts over every record, as jiwer computes them over lists of sentences.
package asr

import "github.com/evalstream/evalstream/metrics/core"

var invalid = []string{
	"missing field: no prediction or no reference",
	"wrong type: prediction not a string; references not a string or a list of strings",
	"empty references: an empty reference list",
	"multiple references: more than one reference (jiwer and torchmetrics score one reference per prediction)",
	"invalid utf-8: a string that is not valid UTF-8",
}

var options = []core.OptionDoc{
	{Name: "lowercase", Default: "false", Help: "jiwer only: Python str.lower() on prediction and reference (jiwer.ToLowerCase), before anything else"},
	{Name: "remove_punctuation", Default: "false", Help: "jiwer only: delete every character of Unicode category P* " +
		"(jiwer.RemovePunctuation, Python 3.11's Unicode 14 tables; symbols such as $ + < are kept), after lowercasing and " +
		"before the default transform"},
}

const (
	words = "jiwer: the default transform wer_default (runs of two or more whitespace characters become one space, the " +
		"ends are stripped, then the text is split on the space character only, so a lone tab or no-break space does " +
		"not separate two words); torchmetrics: Python str.split(). "
	jiwerEmpty = "Empty references do not raise (jiwer 4): they add their insertions. "
	memory     = "O(1): six integer counts; plus per-worker scratch for the alignment (bit matrix sized by the largest pair)"
	detailDoc  = "details: hits, substitutions, deletions, insertions (of rapidfuzz's alignment, as jiwer.process_words " +
		"reports them), reference_length, hypothesis_length, count (torchmetrics also errors = Σ edit distance)."
	torchNull = "torchmetrics computes in float32 (from exact integer counts here; torchmetrics' own float32 running sums " +
		"stop being exact beyond 2^24 errors or words) and divides by zero on empty inputs: null with a reason where it " +
		"returns NaN or Inf. "
)

// Docs describes the metric types of this package for `evalstream list`.
func Docs() []core.Doc {
	doc := func(typ, value string) core.Doc {
		dir := core.DirectionLower
		if typ == "wip" {
			dir = core.DirectionHigher
		}
		return core.Doc{Type: typ, Direction: dir, Presets: []string{"jiwer", "torchmetrics"}, Value: value,
			Options: options, Invalid: invalid, Memory: memory}
	}
	return []core.Doc{
		doc("wer", "word error rate over the corpus, Σ(S+D+I) / Σ reference words (micro-averaged, as jiwer.wer on lists). "+
			words+jiwerEmpty+"jiwer: when every reference is empty the value is the number of insertions. "+torchNull+detailDoc),
		doc("cer", "character error rate over the corpus, Σ(S+D+I) / Σ reference characters (code points, spaces count). "+
			"jiwer: cer_default strips both ends (Python whitespace) and keeps every other character; torchmetrics: list(text), "+
			"nothing stripped. "+jiwerEmpty+"jiwer: when every reference is empty the value is the number of insertions. "+torchNull+detailDoc),
		doc("mer", "match error rate, Σ(S+D+I) / Σ(H+S+D+I). jiwer: over rapidfuzz's alignment; 0 or 1 when every reference "+
			"is empty (1 if any prediction word). torchmetrics: Σ edit distance / Σ max(reference, prediction length). "+words+torchNull+detailDoc),
		doc("wil", "word information lost, 1 − WIP. "+words+torchNull+detailDoc),
		doc("wip", "word information preserved. jiwer: (H/N)·(H/P) with N reference and P prediction words over the corpus "+
			"(H from rapidfuzz's alignment); 1 when every reference and prediction is empty, 0 when either side is. "+
			"torchmetrics: ((E−M)/N)·((E−M)/P) in float32, E = Σ edit distance, M = Σ max lengths. "+words+torchNull+detailDoc),
	}
}
