package rank

import "github.com/evalstream/evalstream/metrics/core"

var invalid = []string{
	"missing field: prediction or label absent or null; an empty class name",
	"wrong type: prediction not a number or a list of numbers; label neither an integer class id (a boolean is 0/1, an integral float such as 1.0 is an id) nor a class name; a class name with compat torchmetrics (ids only)",
	"invalid utf-8: a class name that is not valid UTF-8",
	"wrong length: a score list with fewer than 2 or more than 1024 scores; a multiclass score list with max_fpr (partial AUC is binary only)",
	"label out of range: a binary score (a number or a 2-element list) with a label other than 0 or 1; a label outside 0..C-1 for C scores",
	"non-finite value: a NaN or ±Inf score or label",
	"probability out of range: compat torchmetrics with a score outside [0, 1] (torchmetrics would apply sigmoid/softmax to the whole batch, making the result depend on batching)",
}

const memory = "exact (default): per score column, C int64 counts per distinct score value (binary: 24 bytes per distinct score once compacted; up to about 70 bytes at peak, with records waiting to be sorted in and the merge copy; C classes: C columns × (8 + 8·C) bytes). Memory grows with the number of distinct scores, not of records: measured, 10M records with 10^4 distinct scores take 20 MB (auroc + average_precision), 10M distinct float32 scores 1.35 GB. For 10^9 records with mostly distinct scores that is tens of GB: choose compat torchmetrics with `thresholds: N` ((N+1) × C int64 counts per column, 16 KB for N = 1000 binary; details.bin_error_bound states the error against the exact value), or round scores upstream (exact on the rounded values)"

// Docs describes every metric type of this package, for `evalstream list`.
func Docs() []core.Doc {
	thresholds := core.OptionDoc{Name: "thresholds", Default: "none (exact)",
		Help: "compat torchmetrics only: N >= 2 bins scores at torch.linspace(0, 1, N) (float32), or a list of thresholds in [0, 1], strictly increasing (torchmetrics holds them as float32 and does not sort them: an unsorted list is a config error), and computes torchmetrics' binned curve from per-threshold counts, in bounded memory; details.bin_error_bound is given when the thresholds start at 0 and end at 1 (a linspace always does). With compat sklearn it is a config error (scikit-learn is always exact)"}
	average := core.OptionDoc{Name: "average", Default: "macro",
		Help: "multiclass only: macro (unweighted mean over the classes) | weighted (mean weighted by each class's positives; ovo: by pair prevalence) | none (per-class array)"}
	return []core.Doc{
		{
			Type:      "auroc",
			Direction: core.DirectionHigher,
			Presets:   []string{compatSklearn, compatTorchmetrics},
			Value: "area under the ROC curve. Binary: the prediction is a number (the score of class 1; any real for sklearn) or a 2-element list (its second element), the label 0 or 1. Multiclass: a list of C >= 3 scores, the label a class id in 0..C-1 (classes are 0..C-1, as scikit-learn's labels=range(C)). " +
				"Class names (compat sklearn): the label may be a string, ordered by code point as scikit-learn does, whichever shard saw which name. Binary: the greater of the two names is the positive class (roc_auc_score); one name only is null (\"only one class present\"), a third name null (\"more than two class names\": sklearn raises). Multiclass: score column j belongs to the j-th sorted name of the whole input; a name count other than the column count is null (\"class count mismatch\": sklearn raises). Names mixed with ids are null (\"mixed class ids and names\"); details.classes lists the names. " +
				"sklearn: roc_auc_score exactly (ties as sklearn: one curve point per distinct score, collinear points dropped, trapezoid summed as numpy); null with reason \"only one class present\"; ovr macro or none with a class without positives is null (sklearn: NaN), weighted gives it weight 0; multiclass scores must sum to 1 (numpy allclose) or the record is rejected; max_fpr gives the McClish-corrected partial AUC. " +
				"torchmetrics: BinaryAUROC / MulticlassAUROC (ovr only): a class without positives or negatives scores 0 and one class present gives 0 (torchmetrics' zero tpr/fpr), classes with a NaN score are left out of macro and weighted; computed in float64 where torchmetrics uses float32 (agreement about 1e-6). " +
				"Records of different score-list widths give null (\"ragged scores\", details.widths). details: records, support (records per label)",
			Options: []core.OptionDoc{
				thresholds,
				{Name: "multi_class", Default: "ovr", Help: "ovr (one-vs-rest) | ovo (one-vs-one, Hand & Till; sklearn only, over the classes present)"},
				average,
				{Name: "max_fpr", Default: "none", Help: "in (0, 1]: standardised partial AUC up to this false positive rate (binary only: with multi_class or average set it is a config error, and a multiclass record is rejected as wrong length). average none with multi_class ovo is a config error"},
			},
			Invalid: append(append([]string(nil), invalid...), "scores do not sum to 1: compat sklearn, multiclass: |1 − Σ scores| > 1e-8 + 1e-5·|Σ scores| (roc_auc_score raises on the whole input; we reject the record)"),
			Memory:  memory,
		},
		{
			Type:      "average_precision",
			Direction: core.DirectionHigher,
			Presets:   []string{compatSklearn, compatTorchmetrics},
			Value: "average precision: Σ (R_k − R_{k−1})·P_k over the precision-recall curve, step-wise, no interpolation. Inputs as auroc; multiclass is one-vs-rest. " +
				"Class names (compat sklearn; multiclass as for auroc, one-vs-rest by sorted name): binary with two names needs pos_label (null \"pos_label needed\" without it, as sklearn raises for string labels with its default pos_label=1); pos_label not one of two names is null (\"pos_label is not a class\"); one name only scores 1.0 when it is pos_label and 0.0 otherwise, also without pos_label (sklearn: 0.0 with a warning only, whose text is in details.note); a third name or names mixed with ids are null as for auroc. " +
				"sklearn: average_precision_score exactly (binary with no positives gives 0.0); multiclass is null when a class 0..C-1 has no positive record (sklearn raises) or only one class is present. " +
				"torchmetrics: BinaryAveragePrecision / MulticlassAveragePrecision (float64 here, float32 there). details: records, support",
			Options: []core.OptionDoc{thresholds, average,
				{Name: "pos_label", Default: "none (class id 1)", Help: "compat sklearn: the positive class of a binary input, a class name or the id 0 or 1 (scikit-learn's pos_label); required when two class names are seen. Any other value with ids 0 and 1 both seen is null (sklearn raises); with one id only every record is negative and the score 0.0 (sklearn warns; details.note), and with multiclass score lists any value but 1 is null (sklearn: pos_label is fixed to 1 for multiclass y_true). With compat torchmetrics it is a config error"}},
			Invalid: invalid,
			Memory:  memory,
		},
	}
}
