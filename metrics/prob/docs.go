package prob

import (
	"fmt"

	"github.com/evalstream/evalstream/metrics/core"
)

const shapeNote = "A prediction is a float (binary: the probability of class 1) or a list<float> (one probability per class; a one-element list is read as a float, as scikit-learn does). "

// Docs describes every metric type of this package, for `evalstream list`.
func Docs() []core.Doc {
	return []core.Doc{
		{
			Type:      "log_loss",
			Direction: core.DirectionLower,
			Presets:   []string{"sklearn"},
			Value: "log_loss with labels=range(C), C the largest class id + 1: the mean (normalize false: the sum) of −ln p(label), where a binary p becomes the columns [1 − p, p] and every probability is clipped to [2^-52, 1 − 2^-52] (scikit-learn ≥ 1.5); rows are not renormalised. " + shapeNote +
				"Each term is rounded as numpy computes it and the sum is exact. Null with reason \"no records\", \"fewer than 2 classes\" (every label is 0), \"class count mismatch\" (a list of K probabilities while C != K: sklearn raises) or \"ragged scores\" (records with different numbers of probabilities). " +
				"Class names: as scikit-learn, probability column j belongs to the j-th name in sorted (code point) order of the whole input (a binary p is the probability of the greater of two names), whichever shard saw which name; null with \"fewer than 2 classes\" (one name: sklearn raises), \"class count mismatch\" (names seen != columns: sklearn raises), \"too many class names\" (more than 256), \"mixed class ids and names\"; details.classes lists the names",
			Options: []core.OptionDoc{
				{Name: "eps", Default: "none", Help: "none, or a number in (0, 0.5): probabilities are first clipped to [eps, 1 − eps] (the removed eps argument of scikit-learn < 1.5), then to machine epsilon"},
				{Name: "normalize", Default: "true", Help: "true: the mean loss per record; false: the sum"},
			},
			Invalid: append(append([]string(nil), commonInvalid...),
				"label: a class name is accepted (wrong length with more than 256 probabilities; missing field for an empty name; invalid utf-8)"),
			Memory: "about 400 bytes: a count, an exact sum, the prediction width and the largest class id (class names: one exact sum per name and column, C names × C columns, C <= 256: C² exact sums, a few MB at C = 256)",
		},
		{
			Type:      "brier",
			Direction: core.DirectionLower,
			Presets:   []string{"sklearn"},
			Value: "brier_score_loss (scale_by_half='auto'): binary (a float prediction p = P(label pos_label)): mean (t − p)² with t = [label = pos_label], computed as sklearn does on the columns [1 − p, p] and halved; multiclass (a list<float>, scikit-learn ≥ 1.7, labels=range(C)): mean Σ_k (onehot_k − p_k)², halved only for two columns. " + shapeNote +
				"Differences are rounded as numpy computes them; squares and sums are exact. Null with reason \"no records\", \"ragged scores\", and for lists \"fewer than 2 classes\" or \"class count mismatch\" (C = largest class id + 1 differs from the list length: sklearn raises). " +
				"Class names, as brier_score_loss with string labels (code point order, whichever shard saw which name): a float prediction needs pos_label, t = [label = pos_label], every other name negative (a pos_label that is no name seen makes every record negative, as sklearn); null with \"pos_label needed\" without it and \"more than two class names\" (sklearn raises). A list: column j is the j-th sorted name; null with \"fewer than 2 classes\" or \"class count mismatch\" (names seen != columns; sklearn raises). \"mixed class ids and names\" and \"too many class names\" (more than 256) are null; details.classes lists the names",
			Options: []core.OptionDoc{
				{Name: "pos_label", Default: "1", Help: "0 or 1, or a class name: the class a float prediction is the probability of (0 reads the column as P(label 0)); required with class-name labels. pos_label is compared with class names as text, as scikit-learn's pos_label given as a string (2 or \"+1\" is the class name \"2\" or \"+1\"; 0 and 1 are also the class ids 0 and 1, and match the names \"0\" and \"1\"). When set, a list prediction is rejected (wrong type): sklearn ignores pos_label for lists"},
			},
			Invalid: append(append([]string(nil), commonInvalid...), "wrong type: a list prediction when pos_label is set; a class id when pos_label is a class name",
				"label: a class name is accepted (wrong length with more than 256 probabilities; missing field for an empty name; invalid utf-8)"),
			Memory: "about 400 bytes: a count, an exact sum, the prediction width and the largest class id (class names: a count and an exact sum per name; with lists, C + 1 exact sums per name, C <= 256)",
		},
		{
			Type:      "calibration_error",
			Direction: core.DirectionLower,
			Presets:   []string{"torchmetrics"},
			Value: "torchmetrics BinaryCalibrationError (a float prediction: P(label 1) against the label, in float64) or MulticlassCalibrationError (a list<float> of K probabilities, num_classes = K: the top-1 probability, first maximum, rounded to float32, correct when its class is the label). " +
				"Bins are torch.linspace(0, 1, n_bins + 1) (reproduced bit for bit, float32 for multiclass); a confidence on an edge goes to the upper bin and 1.0 to a bin of its own. norm l1: ECE = Σ_b |acc_b − conf_b|·n_b/N; l2: RMSCE = sqrt(Σ_b (acc_b − conf_b)²·n_b/N); max: MCE = max_b |acc_b − conf_b|. " +
				"Per-bin sums are exact (torchmetrics sums in the input dtype: float32 for multiclass, so it agrees to about 1e-6 relative). Probabilities outside [0, 1] are rejected (torchmetrics would apply a sigmoid/softmax to the whole batch). Null with reason \"no records\" or \"ragged scores\"",
			Options: []core.OptionDoc{
				{Name: "n_bins", Default: "15", Help: fmt.Sprintf("number of bins, 1..%d", MaxBins)},
				{Name: "norm", Default: "l1", Help: "l1 (ECE) | l2 (RMSCE) | max (MCE)"},
			},
			Invalid: commonInvalid,
			Memory:  "about 80 bytes per bin (n_bins + 1 bins: a count, a correct count and an exact sum of confidences), about 1.3 KB at the default 15; independent of the record count",
		},
	}
}
