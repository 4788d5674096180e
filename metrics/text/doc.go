// Package text implements corpus text metrics as mergeable states: `distinct` (Distinct-n,
// MindNLP = PaddleNLP), `exact_match` (SQuAD v1.1 exact match = MindNLP EmScore) and
// `token_f1` (SQuAD v1.1 token F1). See /work/shared/spec/metrics.md §4 and §10.
//
// SQuAD normalization follows Python exactly: str.lower() (full Unicode mapping, Final_Sigma,
// 'İ' → "i̇"), deletion of ASCII string.punctuation only, removal of the words a/an/the with
// Python's Unicode-aware \b (so "éthe" keeps its "the"), and str.split() whitespace.
package text

import "github.com/evalstream/evalstream/metrics/core"

var squadInvalid = []string{
	"missing field: no prediction or no references",
	"wrong type: prediction not a string or list of strings; references not a string, list of strings or list of token lists",
	"empty references: an empty gold list (MindNLP raises ValueError)",
	"invalid utf-8: a string that is not valid UTF-8",
}

const squadGolds = "A prediction given as a list of tokens is joined by single spaces. references: a list of gold " +
	"strings, a list of token lists (each joined by spaces), or a plain string, which is ONE gold (MindNLP's " +
	"quirk of iterating the characters of a string gold is not reproduced)."

// Docs describes the metric types of this package for `evalstream list`.
func Docs() []core.Doc {
	return []core.Doc{
		{
			Type:      "distinct",
			Direction: core.DirectionHigher,
			Presets:   []string{"mindnlp"},
			Value: "distinct n-grams / total n-grams over every prediction of the corpus (details: distinct, total, " +
				"count); null with a reason when no prediction has n tokens. An n-gram is its tokens joined by single " +
				"spaces (QUIRK of MindNLP/Paddle, reproduced: [\"a b\",\"c\"] and [\"a\",\"b c\"] are the same bigram)",
			Options: []core.OptionDoc{
				{Name: "n", Default: "2", Help: "n-gram order (>= 1)"},
				{Name: "tokenize", Default: "whitespace", Help: "how a string prediction becomes tokens: whitespace " +
					"(Python str.split()), rouge, 13a, intl, zh, char, none; a list<string> prediction is already tokens"},
			},
			Invalid: []string{
				"missing field: no prediction",
				"wrong type: prediction not a string or list of strings",
				"invalid utf-8: a string that is not valid UTF-8",
			},
			Memory: "exact and unbounded: one string per distinct n-gram of the corpus (set union on merge)",
		},
		{
			Type:      "exact_match",
			Direction: core.DirectionHigher,
			Presets:   []string{"squad"},
			Value: "share of predictions whose normalized text equals the normalized text of any gold answer " +
				"(details: count); null with a reason when there are no records. " + squadGolds,
			Options: []core.OptionDoc{
				{Name: "normalize", Default: "squad", Help: "squad: official SQuAD v1.1 normalize_answer (lower, " +
					"drop ASCII punctuation, drop a/an/the, collapse whitespace) with Python semantics; none: compare raw strings"},
			},
			Invalid: squadInvalid,
			Memory:  "O(1): an exact sum and a count",
		},
		{
			Type:      "token_f1",
			Direction: core.DirectionHigher,
			Presets:   []string{"squad"},
			Value: "mean over examples of the best token F1 against the gold answers (official SQuAD v1.1 f1_score on " +
				"normalized tokens, multiset overlap, 0 when nothing overlaps, including empty-vs-empty), on a 0..1 " +
				"scale (SQuAD's script prints ×100); details: count. " + squadGolds,
			Options: []core.OptionDoc{
				{Name: "normalize", Default: "squad", Help: "squad: SQuAD v1.1 normalize_answer then split; none: split on whitespace only"},
			},
			Invalid: squadInvalid,
			Memory:  "O(1): an exact sum and a count",
		},
	}
}
