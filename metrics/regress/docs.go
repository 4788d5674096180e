package regress

import (
	"fmt"

	"github.com/evalstream/evalstream/metrics/core"
)

var numberInvalid = []string{
	"missing field: prediction or label absent or null",
	"wrong type: not an integer or a float",
	"non-finite value: NaN or ±Inf (SciPy would return NaN, MindNLP a meaningless number)",
}

var errorsInvalid = []string{
	"missing field: prediction or label absent or null",
	"wrong type: not an integer or a float (a boolean is not a regression value)",
	"non-finite value: NaN or ±Inf (sklearn raises on them)",
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
		errorDoc("mse", core.DirectionLower, "mean_squared_error: Σ(y − ŷ)² / n, with y − ŷ and its square summed exactly (sklearn rounds each term and sums with numpy, so values agree to about 1e-15 relative)", 1),
		errorDoc("rmse", core.DirectionLower, "root_mean_squared_error: sqrt(mse)", 1),
		errorDoc("mae", core.DirectionLower, "mean_absolute_error: Σ|y − ŷ| / n, the differences summed exactly", 1),
		errorDoc("mape", core.DirectionLower, "mean_absolute_percentage_error: Σ |ŷ − y| / max(|y|, 2^-52) / n (not multiplied by 100; a zero label divides by float64 machine epsilon, giving a huge value as sklearn does). Each term is rounded as numpy computes it; the sum is exact", 1),
		errorDoc("r2", core.DirectionHigher, "r2_score: 1 − Σ(y − ŷ)² / Σ(y − ȳ)², both sums computed exactly from exact sums (no rounding of the mean), with sklearn's force_finite: 1.0 when every prediction equals its label, else 0.0 when the label is constant. Null (\"fewer than 2 records\") for one record, where sklearn returns NaN. "+
			"Where sklearn's rounded mean makes a constant label look non-constant (e.g. three labels 0.1: numpy's mean is 0.10000000000000002) sklearn returns a huge negative number; we return 0.0. "+offsetNote, 3),
		errorDoc("explained_variance", core.DirectionHigher, "explained_variance_score: 1 − Var(y − ŷ) / Var(y), variances computed exactly from exact sums, with sklearn's force_finite: 1.0 when the residuals y − ŷ are all equal (a constant offset, also for a constant label), else 0.0 when the label is constant. One record gives 1.0 as in sklearn. Where sklearn's rounding makes equal residuals look unequal (labels 0.1, predictions 0.2) it returns 0.0 for a constant label; we return 1.0. "+offsetNote, 4),
	}
}

// offsetNote says where sklearn's own rounding, not ours, dominates the difference.
const offsetNote = "For labels with a large offset relative to their spread (1e15 + U(0, 1)) numpy's rounded mean is off by up to half an ulp of the offset so sklearn's value can be off by tens of percent (29% in gen_regerr.py's 1e15 cases); ours is the exact value rounded (testdata/goldens/gen_regerr.py prints both)"

// errorDoc describes one of the sklearn regression scores.
func errorDoc(typ, direction, value string, sums int) core.Doc {
	return core.Doc{
		Type:      typ,
		Direction: direction,
		Presets:   []string{"sklearn"},
		Value:     value + ". Null (\"no records\") with no records (sklearn raises) and (\"overflow\") when a sum or the result exceeds the float64 range. The option multioutput is not supported (a config error): a record has one prediction and one label",
		Invalid:   errorsInvalid,
		Memory:    fmt.Sprintf("about %d bytes: a count and %d exact sum(s)", 600*sums, sums),
	}
}
