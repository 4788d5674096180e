// Package rouge implements the ROUGE family as mergeable states: `rouge_n`, `rouge_l`,
// `rouge_lsum` and `rouge_l_dureader`, each with `compat` presets that reproduce Google
// rouge-score, pytorch-ignite, MindNLP and PaddleNLP exactly (see
// /work/shared/spec/metrics.md §3).
//
// Tokens are interned to dense integer ids per example, n-grams are identified by exact id
// tuples (no string keys, no hashing collisions) and LCS lengths use a bit-parallel algorithm
// (64 positions per machine word), so long inputs stay cheap. Per-example values are summed
// exactly (core.Sum): results are bit-identical under any split and merge order.
package rouge

import "github.com/evalstream/evalstream/metrics/core"

var commonInvalid = []string{
	"missing field: no prediction or no references",
	"wrong type: prediction not a string or list of strings; references not a string, list of strings or list of token lists",
	"empty references: an empty reference list",
	"invalid utf-8: a string that is not valid UTF-8",
}

const tokenizeHelp = "rouge (rouge-score: Python lower(), non-[a-z0-9] to spaces, Porter stemming of tokens longer than 3 with stem), " +
	"whitespace (Python str.split()), 13a, intl, zh, char, none (sacrebleu's). A list<string> prediction or list<list<string>> " +
	"references are already tokens and are never re-tokenized (nor stemmed)"

// Docs describes the metric types of this package for `evalstream list`.
func Docs() []core.Doc {
	return []core.Doc{
		{
			Type:      "rouge_n",
			Direction: core.DirectionHigher,
			Presets:   []string{"rouge-score", "mindnlp", "ignite"},
			Value: "rouge-score/ignite: mean over examples of the per-example F (details: mean precision, recall, fmeasure, count). " +
				"rouge-score: multiset n-gram overlap, P = overlap/max(pred n-grams,1), R = overlap/max(ref n-grams,1), F1. " +
				"ignite: the same counts, F = P·R/((1−alpha)·P + alpha·R) (alpha 0: F = recall). " +
				"mindnlp: set-based recall Σ|S(pred)∩S(ref)| / Σ|S(ref)| pooled over every reference of every example " +
				"(details: overlap, ref_ngrams, recall, count); null with a reason when no reference has an n-gram",
			Options: []core.OptionDoc{
				{Name: "n", Default: "1", Help: "n-gram order (>= 1)"},
				{Name: "tokenize", Default: "rouge-score: rouge; mindnlp, ignite: whitespace", Help: tokenizeHelp},
				{Name: "stem", Default: "false", Help: "Porter stemming (rouge-score use_stemmer); only with tokenize: rouge"},
				{Name: "lowercase", Default: "false", Help: "Python str.lower() on the text (or on each given token) before tokenizing"},
				{Name: "multiref", Default: "rouge-score: best_f; ignite: average; mindnlp: sum",
					Help: "best_f: the reference with the largest F, first on ties (rouge-score score_multi); " +
						"best_recall: the reference with the largest recall, first on ties (ignite multiref=best); " +
						"average: pooled counts Σmatch/Σpred/Σref (ignite multiref=average); " +
						"sum: MindNLP's corpus-wide pooled set counts (mindnlp only, and its only value)"},
				{Name: "alpha", Default: "0", Help: "ignite only: F = P·R/((1−alpha)·P + alpha·R), alpha in [0,1]; 0.5 gives F1"},
			},
			Invalid: commonInvalid,
			Memory:  "O(1): three exact sums and a count (mindnlp: two integer counts); plus per-worker scratch sized by the largest example (n = 1: 4 bytes per distinct token of the example, twice with several references; n = 2, a candidate of at most 256 distinct tokens: a table of 8 bytes per pair of them) and, with the rouge tokenizer, a per-worker map of the vocabulary's ids to the example's (8 bytes per id) and one vocabulary of words seen shared by the workers (full at 65,536 words or tokens: under 9 MB; the tokens it lacks then take ids per worker and example; renewed when they are over a quarter of a worker's tokens, and while one is renewed, each worker may still hold the old one until its next example)",
		},
		{
			Type:      "rouge_l",
			Direction: core.DirectionHigher,
			Presets:   []string{"mindnlp", "rouge-score", "ignite"},
			Value: "mean over examples of the per-example LCS F (details: mean precision, recall, fmeasure, count). " +
				"mindnlp (= PaddleNLP RougeL): P_j = LCS/|pred|, R_j = LCS/|ref_j|, P* = max_j P_j and R* = max_j R_j taken " +
				"independently, F = (1+beta²)·P*·R*/(R* + beta²·P*), 0 when P* or R* is 0. An empty prediction or reference " +
				"scores 0 as in PaddleNLP (MindNLP's NaN for them, which depends on reference order, is not reproduced: " +
				"a NaN value is never reported). rouge-score: F1 of the reference with the best F. ignite: pooled or " +
				"best-recall counts with the alpha F",
			Options: []core.OptionDoc{
				{Name: "beta", Default: "1.2", Help: "mindnlp only: the recall weight (MindNLP beta, PaddleNLP gamma), in [0, 1e100]; beta² is computed correctly rounded (Python's beta**2 can differ by 1 ulp for some beta)"},
				{Name: "tokenize", Default: "rouge-score: rouge; mindnlp, ignite: whitespace", Help: tokenizeHelp},
				{Name: "stem", Default: "false", Help: "Porter stemming; only with tokenize: rouge"},
				{Name: "lowercase", Default: "false", Help: "Python str.lower() before tokenizing (and on given tokens)"},
				{Name: "multiref", Default: "mindnlp: max_pr; rouge-score: best_f; ignite: average",
					Help: "max_pr: max precision and max recall over references independently (MindNLP/Paddle); best_f: " +
						"reference with the best F (rouge-score score_multi); best_recall: reference with the best recall " +
						"(ignite best); average: pooled LCS and lengths (ignite average)"},
				{Name: "alpha", Default: "0", Help: "ignite only: F = P·R/((1−alpha)·P + alpha·R), alpha in [0,1]"},
			},
			Invalid: commonInvalid,
			Memory:  "O(1): three exact sums and a count; plus per-worker scratch sized by the largest example (bit-parallel LCS masks: a bit per prediction token for each distinct token of the example, or only each distinct prediction token and one more when the references add more than it has plus 64: at most 8 × ⌈prediction tokens/64⌉ × (2 × distinct prediction tokens + 64) bytes, whatever the references' vocabulary) and, with the rouge tokenizer, a per-worker map of the vocabulary's ids to the example's (8 bytes per id) and one vocabulary of words seen shared by the workers (full at 65,536 words or tokens: under 9 MB; the tokens it lacks then take ids per worker and example; renewed when they are over a quarter of a worker's tokens, and while one is renewed, each worker may still hold the old one until its next example)",
		},
		{
			Type:      "rouge_lsum",
			Direction: core.DirectionHigher,
			Presets:   []string{"rouge-score"},
			Value: "mean over examples of rouge-score's rougeLsum F1 (summary-level union LCS over sentences, token pools, " +
				"the LCS read back with rouge-score's backtracking rule); with several references the one with the best F " +
				"(score_multi), first on ties. Details: mean precision, recall, fmeasure, count",
			Options: []core.OptionDoc{
				{Name: "tokenize", Default: "rouge", Help: tokenizeHelp + "; each sentence is tokenized separately"},
				{Name: "stem", Default: "false", Help: "Porter stemming; only with tokenize: rouge"},
				{Name: "split", Default: "newline", Help: "sentences are the non-empty pieces between \"\\n\" (rouge-score " +
					"split_summaries=False; the nltk sentence splitter is not offered). Pre-tokenized input is one sentence"},
			},
			Invalid: commonInvalid,
			Memory:  "O(1): three exact sums and a count; plus per-worker scratch sized by the largest example: LCS masks of the prediction's sentences (as rouge_l's, a row per distinct token of the example or per distinct prediction token and one more: at most 8 × (2 × distinct prediction tokens + 64) bytes per 64 tokens of a sentence of 64 or more, and per pack of shorter ones sharing 64 bits, a token and a separator bit each), the bit-vector rows of one or two reference sentences against one prediction sentence or pack (8 bytes per reference token and per 64 prediction tokens), and 4 bytes per distinct prediction token, twice with several references, and, with the rouge tokenizer, a per-worker map of the vocabulary's ids to the example's (8 bytes per id) and one vocabulary of words seen shared by the workers (full at 65,536 words or tokens: under 9 MB; the tokens it lacks then take ids per worker and example; renewed when they are over a quarter of a worker's tokens, and while one is renewed, each worker may still hold the old one until its next example)",
		},
		{
			Type:      "rouge_l_dureader",
			Direction: core.DirectionHigher,
			Presets:   []string{"paddle"},
			Value: "mean over examples of PaddleNLP RougeLForDuReader's score: per reference P_j = (LCS+B)/(|pred|+B), " +
				"R_j = (LCS+B)/(|ref_j|+B) (0 when a denominator is <= 0), where B = alpha·LCS when yesno_label equals " +
				"yesno_refs[j] (both given), else beta·Σ len(entity) over the entity_refs found in the prediction; " +
				"then max P and max R independently and F with gamma fixed at 1.2 (QUIRK: Paddle ignores its gamma " +
				"argument). A string prediction or reference is a Python str: compared character by character (code " +
				"points, whitespace included) and an entity is found by substring test; a list is tokens and an entity " +
				"is found by token equality; entity length is its number of code points",
			Options: []core.OptionDoc{
				{Name: "alpha", Default: "1.0", Help: "weight of the yes/no bonus (finite, >= 0)"},
				{Name: "beta", Default: "1.0", Help: "weight of the entity bonus (finite, >= 0)"},
				{Name: "yesno_label", Default: "yesno_label", Help: "field of the prediction's yes/no label (string, optional)"},
				{Name: "yesno_refs", Default: "yesno_refs", Help: "field of the references' yes/no labels (list of strings, one per reference, optional)"},
				{Name: "entity_refs", Default: "entity_refs", Help: "field of the reference entities (list of strings, optional; ignored when both yes/no fields are given)"},
			},
			Invalid: append(append([]string(nil), commonInvalid...),
				"wrong type: yesno_label not a string, yesno_refs or entity_refs not a list of strings",
				"wrong length: fewer yesno_refs than references (when yesno_label is given)"),
			Memory: "O(1): three exact sums and a count; plus per-worker scratch",
		},
	}
}
