package ter

import "github.com/evalstream/evalstream/metrics/core"

// Docs describes the metric type of this package: ter.
func Docs() []core.Doc {
	return []core.Doc{{
		Type:      "ter",
		Direction: core.DirectionLower,
		Presets:   []string{"sacrebleu"},
		Value: "sacrebleu TER: Σ edits / Σ average reference length, where a record's edits are the fewest " +
			"over its references of shifts plus beam edit distance (Tercom's greedy shift search with sacrebleu's " +
			"limits and tie-breaking); 1 when every reference is empty and some hypothesis is not, 0 when all are " +
			"empty; in 0..1 (scale: 100 for sacrebleu's numbers); a list<string> prediction or list<list<string>> " +
			"references are joined with spaces and tokenized like text; details: num_edits, ref_length, signature " +
			"(sacrebleu-style, with nrefs)",
		Options: []core.OptionDoc{
			{Name: "compat", Default: "sacrebleu", Help: "sacrebleu TER (2.6.0)"},
			{Name: "normalized", Default: "false", Help: "Tercom normalization: XML entities, punctuation split off, line joins"},
			{Name: "no_punct", Default: "false", Help: "remove the punctuation . , ? : ; ! \" ( ) (and CJK punctuation with asian_support)"},
			{Name: "asian_support", Default: "false", Help: "with normalized, split CJK characters and punctuation; with no_punct, also remove CJK and full-width punctuation"},
			{Name: "case_sensitive", Default: "false", Help: "false lowercases (Python str.lower) first"},
			{Name: "scale", Default: "1", Help: "1: values in 0..1; 100: in 0..100"},
		},
		Invalid: []string{
			"missing field: prediction or references absent or null",
			"wrong type: prediction not a string or list<string>; references not a string, list<string> or list<list<string>>",
			"empty references: an empty reference list (an empty string is a zero-length reference)",
			"invalid utf-8: a prediction or reference that is not valid UTF-8",
		},
		Memory: "4 integers and an exact float sum per state; scratch space quadratic in the longest record's word count (the edit-distance matrix)",
	}}
}
