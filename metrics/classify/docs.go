package classify

import "github.com/evalstream/evalstream/metrics/core"

var commonInvalid = []string{
	"missing field: prediction or label absent or null, or an empty class name",
	"wrong type: not an integer class id, a class name or a list of numbers (an integral float such as 2.0 is an id, a boolean is id 0/1); a non-integral float id; a list label that is not one-hot (0/1 values, exactly one 1)",
	"wrong length: an empty list",
	"label out of range: a negative class id (prediction or label), an id >= num_classes when num_classes is set, or an id >= 1048576",
	"non-finite value: a NaN or ±Inf score or class id (numpy's argmax would pick the first NaN; we reject the record instead, in every field of every metric)",
	"mixed class types: a class name in one field and an id or a list in the other (without the classes option nothing says which name an id stands for; scikit-learn raises on a mix of label types). Records that are consistent but give ids in some records and names in others make the value null (\"mixed class ids and names\"), whatever the split of the input",
	"invalid utf-8: a class name that is not valid UTF-8",
}

// namesHelp says how class names work without the classes option.
const namesHelp = "Class names: without the classes option a string prediction and label are class names; the classes are then the names seen in either field in sorted order (Unicode code point order, as scikit-learn's np.unique of string labels), the same whatever the split of the input, and results name them (details.classes, report keys, matrix rows). States keep the names, so merging states that saw different names is exact. Null (\"too many classes\") past max_classes distinct names"

// maxClasses documents the max_classes option; def is its default.
func maxClasses(def string) core.OptionDoc {
	return core.OptionDoc{Name: "max_classes", Default: def,
		Help: "without classes (and num_classes): the most distinct class names kept; one more makes the value null (\"too many classes\"), in every split of the input, and frees the names, so that a free-text field given as the label cannot grow a state without bound. A config error with classes or num_classes"}
}

const matrixMemory = "a C×C int64 confusion matrix: dense up to 256 classes (8·S² bytes with C ≤ S ≤ 2C, at least 4: 128 bytes for a binary task, 512 KB at most), then sparse (about 40 bytes per distinct (true, predicted) pair); with class names also the names seen (their bytes plus about 50 bytes each, at most max_classes of them)"

// Docs describes every metric type of this package, for `evalstream list`.
func Docs() []core.Doc {
	classes := core.OptionDoc{Name: "classes", Default: "none (the sorted names seen)",
		Help: "names of classes 0..C-1 in order, e.g. [neg, neu, pos]: a string prediction or label is then the class of that name (a name not listed is rejected as unknown class), an id is the class at that position, every listed class is reported (scikit-learn's labels=) in this order, and results name the classes (details.classes, report keys); sets num_classes to C. Without it, names are classes in sorted order (see Class names)"}
	named := append(append([]string(nil), commonInvalid...),
		"unknown class: a class name not in the classes option",
		"wrong type: a class name when num_classes is set without classes (num_classes fixes the classes to the ids 0..C-1)")
	max10k := maxClasses("10000")
	numClasses := core.OptionDoc{Name: "num_classes", Default: "from data",
		Help: "fixes the label set to 0..C-1: ids >= C are rejected (label out of range), score lists and one-hot labels must have length C (ragged scores / wrong length). Without it the class count is the largest id + 1 or the longest list seen"}
	average := core.OptionDoc{Name: "average", Default: "none",
		Help: "none (per-class array: every class 0..C-1 for mindnlp, the sorted union of labels present in prediction or label for sklearn unless num_classes is set) | micro (global counts) | macro (unweighted mean over those classes) | weighted (mean weighted by support)"}
	zeroDiv := core.OptionDoc{Name: "zero_division", Default: "0 (sklearn only)",
		Help: "0 or 1: the value of a ratio whose denominator is 0. mindnlp always reports 0 (its ε-guarded division); setting it with compat mindnlp is a config error"}
	prfValue := "per-class array (average none; details.classes lists the class ids or names, details.support the true counts) or a number. " + namesHelp
	prfInvalid := append(append([]string(nil), named...),
		"ragged scores: a score list whose length differs from num_classes (when set)",
		"wrong length: a one-hot label whose length differs from num_classes (when set)")
	return []core.Doc{
		{
			Type:      "accuracy",
			Direction: core.DirectionHigher,
			Presets:   []string{"mindnlp"},
			Value:     "correct / total. A prediction is an id, a class name (equal to the label's name; see Class names), or a score list (argmax, first maximum). MindNLP quirk kept: a single-score list [p] predicts round-half-even(p) (0.5→0, 2.5→2). With top_k > 1 a record is correct when the label is among the k highest scores, ties going to the lower index; a label beyond the score list is simply incorrect",
			Options:   []core.OptionDoc{{Name: "top_k", Default: "1", Help: "count a record correct when the label is among the k best scores (needs score lists: an id or name prediction with top_k > 1 is rejected as wrong type)"}, classes, max10k},
			Invalid:   append(append([]string(nil), named...), "wrong type: an id prediction when top_k > 1"),
			Memory:    "16 bytes (correct and total counts)",
		},
		{
			Type:      "precision",
			Direction: core.DirectionHigher,
			Presets:   []string{"mindnlp", "sklearn"},
			Value:     "tp / predicted per class; " + prfValue,
			Options:   []core.OptionDoc{average, numClasses, zeroDiv, classes, max10k},
			Invalid:   prfInvalid,
			Memory:    matrixMemory,
		},
		{
			Type:      "recall",
			Direction: core.DirectionHigher,
			Presets:   []string{"mindnlp", "sklearn"},
			Value:     "tp / true per class; " + prfValue,
			Options:   []core.OptionDoc{average, numClasses, zeroDiv, classes, max10k},
			Invalid:   prfInvalid,
			Memory:    matrixMemory,
		},
		{
			Type:      "f1",
			Direction: core.DirectionHigher,
			Presets:   []string{"mindnlp", "sklearn"},
			Value:     "F-beta = (1+β²)·tp / (β²·true + predicted) per class (sklearn ≥ 1.3 form; β = inf gives recall, β = 0 precision); " + prfValue,
			Options:   []core.OptionDoc{average, numClasses, {Name: "beta", Default: "1", Help: "weight of recall (>= 0, or inf)"}, zeroDiv, classes, max10k},
			Invalid:   prfInvalid,
			Memory:    matrixMemory,
		},
		{
			Type:      "confusion_matrix",
			Direction: core.DirectionNone,
			Presets:   []string{"mindnlp"},
			Value:     "C×C matrix of counts, rows = true class, columns = predicted class (C = num_classes, else the largest id + 1 seen, as the other classification metrics infer it; with no records all zeros, or empty when C is inferred); with class names (no classes option) C is the number of names seen, in sorted order, listed in details.classes. " + namesHelp,
			Options:   []core.OptionDoc{{Name: "num_classes", Default: "the largest id + 1 or the longest list seen", Help: "matrix size C (1..1024) for class ids; an id >= C is rejected (label out of range), a score list or one-hot label of another length is ragged scores / wrong length. Without it the matrix has a row and column for every id up to the largest seen (an id >= 1024 is rejected). Given explicitly, class names are rejected (name them with classes)"}, classes, maxClasses("1024 (the largest matrix)")},
			Invalid:   prfInvalid,
			Memory:    matrixMemory,
		},
		{
			Type:      "mcc",
			Direction: core.DirectionHigher,
			Presets:   []string{"sklearn", "mindnlp"},
			Value:     "Matthews correlation. sklearn: Gorodkin's multiclass R_K, 0.0 when the denominator is 0. mindnlp: binary with class 1 positive (with names: the second of the sorted names, scikit-learn's positive label) (TN = any correct non-1 prediction) and 0.0 whenever TP, FP, TN or FN is 0 (so a perfect classifier scores 0.0). Computed with exact integers. " + namesHelp,
			Options:   []core.OptionDoc{max10k},
			Invalid:   commonInvalid,
			Memory:    matrixMemory,
		},
		{
			Type:      "cohen_kappa",
			Direction: core.DirectionHigher,
			Presets:   []string{"sklearn"},
			Value:     "cohen_kappa_score of prediction and label (symmetric in the two): 1 − Σw·C / Σw·E over the sorted classes seen in either field, E the outer product of the class counts / n; computed with exact integers, rounded once. Null (\"only one class\") when both fields hold one and the same class, where sklearn warns and returns NaN; null (\"no records\") with none. details.classes lists the classes seen. " + namesHelp,
			Options: []core.OptionDoc{{Name: "weights", Default: "none",
				Help: "none | linear | quadratic: a disagreement between the i-th and j-th of the sorted classes seen (ids, or names in code point order) weighs 1, |i − j| or (i − j)² — positions in that list, not class ids, so ids 0, 5, 9 are 1 apart like 0, 1, 2"}, max10k},
			Invalid: commonInvalid,
			Memory:  matrixMemory,
		},
		{
			Type:      "classification_report",
			Direction: core.DirectionHigher,
			Presets:   []string{"sklearn"},
			Value:     "sklearn's classification_report(output_dict=True), an object: one entry per class seen in either field (keyed by its id, or by its name for class names, as sklearn with string labels), or per class named by the classes option (keyed by its name, as sklearn with labels=), with precision, recall, f1-score and support (true count); accuracy; macro avg and weighted avg with the total support. details.classes lists the classes. Null (\"no records\") with none. " + namesHelp,
			Options:   []core.OptionDoc{{Name: "zero_division", Default: "0", Help: "0 or 1: the value of a ratio whose denominator is 0 (a class never predicted has precision zero_division)"}, classes, max10k},
			Invalid:   named,
			Memory:    matrixMemory,
		},
		{
			Type:      "balanced_accuracy",
			Direction: core.DirectionHigher,
			Presets:   []string{"sklearn"},
			Value:     "balanced_accuracy_score: the mean over the classes present in the label of tp / true count; a class only predicted, never true, is left out (sklearn warns). details.classes lists the true classes. Null (\"no records\") with none. " + namesHelp,
			Options: []core.OptionDoc{{Name: "adjusted", Default: "false",
				Help: "true rescales to (score − 1/K) / (1 − 1/K) for K true classes, so chance scores 0; with a single true class that is undefined: null (\"adjusted with a single true class\"), where sklearn returns NaN or -inf"}, max10k},
			Invalid: commonInvalid,
			Memory:  matrixMemory,
		},
	}
}
