package bleu

import "github.com/evalstream/evalstream/metrics/core"

var textInvalid = []string{
	"missing field: prediction or references absent or null",
	"wrong type: prediction not a string or list<string>; references not a string, list<string> or list<list<string>>",
	"empty references: an empty reference list (an empty string is a zero-length reference)",
	"invalid utf-8: a prediction or reference that is not valid UTF-8",
}

// Docs describes the metric types of this package: bleu and chrf.
func Docs() []core.Doc {
	return []core.Doc{
		{
			Type:      "bleu",
			Direction: core.DirectionHigher,
			Presets:   presetNames[:],
			Value: "corpus BLEU from summed n-gram statistics (average: micro) or the mean of sentence BLEU " +
				"(average: macro), in 0..1 (scale: 100 for 0..100, sacrebleu's numbers); details: sys_len, ref_len, " +
				"counts and totals (summed n-gram statistics), signature (sacrebleu-style, with nrefs), and for micro " +
				"the per-order precisions and bp the preset's formula used",
			Options: []core.OptionDoc{
				{Name: "compat", Default: "sacrebleu", Help: "reference implementation to reproduce: sacrebleu (BLEU.corpus_score), ignite (ignite.metrics.Bleu), mindnlp (BleuScore), paddle (paddlenlp.metrics.BLEU), nltk (corpus_bleu)"},
				{Name: "ngram", Default: "4 (or the number of weights)", Help: "maximum n-gram order N, 1..64 (mindnlp: 1..4)"},
				{Name: "weights", Default: "uniform 1/N", Help: "per-order weights, N numbers (mindnlp, paddle, nltk; sacrebleu and ignite weigh uniformly)"},
				{Name: "smooth", Default: "sacrebleu: exp; ignite: no_smooth; nltk: method0", Help: "sacrebleu: exp|floor|add-k|none; ignite: no_smooth|smooth1|nltk_smooth2|smooth2; nltk: method0..method7 (methods 5-7 read the last record by input position, as NLTK does); not for mindnlp and paddle"},
				{Name: "smooth_value", Default: "floor: 0.1; add-k: 1", Help: "sacrebleu floor and add-k only"},
				{Name: "effective_order", Default: "false", Help: "sacrebleu only: average only the orders that have n-grams"},
				{Name: "auto_reweigh", Default: "false", Help: "nltk only: with the default weights and fewer than 4 hypothesis tokens in total, weigh 1/len"},
				{Name: "average", Default: "micro; ignite: macro", Help: "micro: corpus statistics; macro: mean of per-record scores"},
				{Name: "tokenize", Default: "sacrebleu: 13a; others: whitespace", Help: "13a|intl|zh|char|none|whitespace; a list<string> prediction or list<list<string>> references are never re-tokenized"},
				{Name: "lowercase", Default: "false", Help: "lowercase (Python str.lower) before tokenizing"},
				{Name: "scale", Default: "1", Help: "1: values in 0..1; 100: in 0..100"},
			},
			Invalid: textInvalid,
			Memory:  "O(ngram) integers per state (micro), plus an exact float sum (macro); scratch space bounded by the longest record",
		},
		{
			Type:      "chrf",
			Direction: core.DirectionHigher,
			Presets:   []string{"sacrebleu"},
			Value: "sacrebleu CHRF (chrF; chrF++ with word_order 2) from summed character and word n-gram statistics " +
				"of each record's best reference (first best wins), in 0..1 (scale: 100 for sacrebleu's numbers); " +
				"a list<string> prediction or list<list<string>> references are joined with spaces; details: per-order " +
				"hyp_counts, ref_counts, matches, signature (sacrebleu-style, with nrefs)",
			Options: []core.OptionDoc{
				{Name: "compat", Default: "sacrebleu", Help: "sacrebleu CHRF"},
				{Name: "char_order", Default: "6", Help: "character n-gram order"},
				{Name: "word_order", Default: "0", Help: "word n-gram order (2 = chrF++)"},
				{Name: "beta", Default: "2", Help: "recall weight (integer)"},
				{Name: "lowercase", Default: "false", Help: "lowercase (Python str.lower)"},
				{Name: "whitespace", Default: "false", Help: "keep whitespace in character n-grams"},
				{Name: "eps_smoothing", Default: "false", Help: "mean of per-order F scores with epsilon for undefined orders (chrF++.py, NLTK, Moses) instead of the effective-order average"},
				{Name: "scale", Default: "1", Help: "1: values in 0..1; 100: in 0..100"},
			},
			Invalid: textInvalid,
			Memory:  "3 integers per order per state; scratch space bounded by the longest record",
		},
	}
}
