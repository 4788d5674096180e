package regress

import "github.com/evalstream/evalstream/metrics/core"

var numberInvalid = []string{
	"missing field: prediction or label absent or null",
	"wrong type: not an integer or a float",
	"non-finite value: NaN or ±Inf (SciPy would return NaN, MindNLP a meaningless number)",
}

// Docs describes every metric type of this package, for `evalstream list`.
func Docs() []core.Doc {
	return []core.Doc{
		{
			Type:      "pearson",
			Direction: core.DirectionHigher,
			Presets:   []string{"scipy", "mindnlp"},
			Value: "Pearson r. scipy: the centred co-moments are computed exactly from exact sums and rounded once, r = Dxy/sqrt(Dxx·Dyy) clipped to [-1, 1] (exact ±1 for 2 records; matches scipy even for large offsets such as 1e9 + noise); null with reason \"fewer than 2 records\" or \"constant input\" where scipy gives NaN. " +
				"mindnlp: MindNLP's one-pass formula (Sxy − Sx·Sy/n) / sqrt((Sxx − Sx²/n)(Syy − Sy²/n)) on the exactly rounded sums, 0.0 when the root is 0, null (\"negative variance from rounding\") where MindNLP crashes; it keeps MindNLP's catastrophic cancellation on large offsets. " +
				"MindNLP sums left to right, so its results can differ from ours in the last bit (seed 7: 0.9985229081857804 vs our 0.9985229081857803)",
			Options: []core.OptionDoc{{Name: "dtype", Default: "float64",
				Help: "float64 | float32: float32 rounds every input to float32 first, as MindNLP's mindspore.float32 tensors do (needed to reproduce its seed 7)"}},
			Invalid: append(append([]string(nil), numberInvalid...), "non-finite value: with dtype float32, a value beyond the float32 range"),
			Memory:  "about 2.8 KB: a count and five exact sums",
		},
		{
			Type:      "spearman",
			Direction: core.DirectionHigher,
			Presets:   []string{"scipy", "mindnlp"},
			Value: "Spearman rho. scipy: average ranks (ties share the mean rank), then the Pearson correlation of the ranks (np.corrcoef order of operations on exact co-moments); null for fewer than 2 records or constant input. " +
				"mindnlp: descending ordinal ranks with ties broken by record order (Seq ascending, stable; MindNLP's own order is implementation-defined for more than 16 tied values), rho = 1 − 6Σd²/(n(n²−1)) with no tie correction (constant input gives a number, as in MindNLP)",
			Invalid: numberInvalid,
			Memory:  "unbounded: every record is kept, about 32 bytes per record (prediction, label, sequence number, weight); the result sorts them, needing about 40 more bytes per record while it runs",
		},
		{
			Type:      "perplexity",
			Direction: core.DirectionLower,
			Presets:   []string{"mindnlp", "ignite"},
			Value: "exp(Σ negative log-likelihood / count). probs: NLL = −ln(max(1e−10, p[label])) (MindNLP); logits: NLL = logsumexp(logits) − logit[label] (ignite; computed in float64 where ignite accumulates in float32, so agreement is about 1e-6 relative); " +
				"logprobs: the prediction is a list of token log-probabilities and every token counts (no label). A record whose label equals ignore_label contributes nothing. Null when nothing was counted",
			Options: []core.OptionDoc{
				{Name: "input", Default: "mindnlp: probs; ignite: logits", Help: "probs | logits | logprobs"},
				{Name: "ignore_label", Default: "mindnlp: none; ignite: -100", Help: "a label id whose records are skipped (not counted), or none; not allowed with input logprobs"},
			},
			Invalid: []string{
				"missing field: prediction (or label, except for logprobs) absent or null",
				"wrong type: prediction not a list of numbers; label not an integer id or a one-hot list",
				"wrong length: an empty prediction list (probs, logits)",
				"non-finite value: NaN or ±Inf in the prediction list, or a NaN label",
				"probability out of range: a probability < 0 or > 1 (MindNLP does not clip p > 1, which gives a negative NLL; we reject it), or a log-probability > 0",
				"label out of range: a label < 0 or >= the list length (other than ignore_label)",
			},
			Memory: "about 600 bytes: an exact sum and a count",
		},
	}
}
