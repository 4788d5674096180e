// Package metrics is the catalogue of evalstream's metrics: it builds a configured metric from
// its option map and lists every type with its presets and options. The math lives in the
// subpackages (bleu, rouge, text, classify, regress); core holds the shared types.
package metrics

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/evalstream/evalstream/metrics/asr"
	"github.com/evalstream/evalstream/metrics/bleu"
	"github.com/evalstream/evalstream/metrics/classify"
	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/prob"
	"github.com/evalstream/evalstream/metrics/rank"
	"github.com/evalstream/evalstream/metrics/regress"
	"github.com/evalstream/evalstream/metrics/retrieval"
	"github.com/evalstream/evalstream/metrics/rouge"
	"github.com/evalstream/evalstream/metrics/stats"
	"github.com/evalstream/evalstream/metrics/stats/sacrebleu"
	"github.com/evalstream/evalstream/metrics/ter"
	"github.com/evalstream/evalstream/metrics/text"
)

type constructor func(o *core.Options) (core.Metric, error)

var constructors = map[string]constructor{
	"bleu":             bleu.NewBLEU,
	"chrf":             bleu.NewCHRF,
	"rouge_n":          rouge.NewRougeN,
	"rouge_l":          rouge.NewRougeL,
	"rouge_lsum":       rouge.NewRougeLsum,
	"rouge_l_dureader": rouge.NewRougeLDuReader,
	"distinct":         text.NewDistinct,
	"exact_match":      text.NewExactMatch,
	"token_f1":         text.NewTokenF1,
	"accuracy":         classify.NewAccuracy,
	"precision":        classify.NewPrecision,
	"recall":           classify.NewRecall,
	"f1":               classify.NewF1,
	"confusion_matrix": classify.NewConfusionMatrix,
	"mcc":              classify.NewMCC,
	"pearson":          regress.NewPearson,
	"spearman":         regress.NewSpearman,
	"perplexity":       regress.NewPerplexity,
	"ter":              ter.New,
	"wer":              asr.NewWER,
	"cer":              asr.NewCER,
	"mer":              asr.NewMER,
	"wil":              asr.NewWIL,
	"wip":              asr.NewWIP,

	// scikit-learn regression errors, Cohen's kappa and balanced accuracy (issue 15)
	"mse":                regress.NewMSE,
	"rmse":               regress.NewRMSE,
	"mae":                regress.NewMAE,
	"mape":               regress.NewMAPE,
	"r2":                 regress.NewR2,
	"explained_variance": regress.NewExplainedVariance,
	"cohen_kappa":        classify.NewCohenKappa,
	"balanced_accuracy":  classify.NewBalancedAccuracy,

	// sklearn's classification_report (issue 20)
	"classification_report": classify.NewClassificationReport,

	// ranking and probability metrics (issue 16)
	"auroc":             rank.NewAUROC,
	"average_precision": rank.NewAveragePrecision,
	"log_loss":          prob.NewLogLoss,
	"brier":             prob.NewBrier,
	"calibration_error": prob.NewCalibration,

	// ranked retrieval as trec_eval computes it (issue 16)
	"mrr":            retrieval.NewMRR,
	"ndcg":           retrieval.NewNDCG,
	"map":            retrieval.NewMAP,
	"precision_at_k": retrieval.NewPrecisionAtK,
	"recall_at_k":    retrieval.NewRecallAtK,
	"hit_rate":       retrieval.NewHitRate,
}

// Types lists the metric types in catalogue order.
func Types() []string {
	var out []string
	for _, d := range Docs() {
		out = append(out, d.Type)
	}
	return out
}

// Docs describes every metric type, in the order of the contract (metrics.md Part 1).
func Docs() []core.Doc {
	var all []core.Doc
	for _, ds := range [][]core.Doc{bleu.Docs(), ter.Docs(), rouge.Docs(), text.Docs(), classify.Docs(), regress.Docs(), asr.Docs(), rank.Docs(), prob.Docs()} {
		all = append(all, ds...)
	}
	all = append(all, retrieval.Docs()...)
	return all
}

// Metric is a configured metric with its name and the record field each of its roles reads.
// It is immutable and safe for concurrent use.
type Metric struct {
	core.Metric
	Name string
	Type string
	// Fields[i] is the record field read for Roles()[i].
	Fields []string
	// Options is the option map the metric was built from (without name and type), kept so
	// a saved state can rebuild the metric.
	Options map[string]any
}

// New builds a metric from a config entry: `type`, optional `name`, role field names and
// options. The error lists every problem, each prefixed by its option key.
func New(entry map[string]any) (*Metric, error) {
	typ, _ := entry["type"].(string)
	name, _ := entry["name"].(string)
	if name == "" {
		name = typ
	}
	ctor, ok := constructors[typ]
	if !ok {
		return nil, &core.OptionError{Problems: []string{fmt.Sprintf("type: unknown metric type %q (valid: %v)%s", typ, Types(), core.DidYouMean(typ, Types()))}}
	}
	opts := map[string]any{}
	for k, v := range entry {
		if k != "type" && k != "name" {
			opts[k] = v
		}
	}
	o := core.NewOptions(opts)
	m, err := ctor(o)
	if err != nil {
		if oe, ok := core.AsOptionError(err); ok {
			return nil, oe
		}
		return nil, &core.OptionError{Problems: []string{err.Error()}}
	}
	var fields []string
	for _, r := range m.Roles() {
		fields = append(fields, o.String(r.Name, r.Field))
	}
	if err := o.Err(); err != nil {
		return nil, err
	}
	return &Metric{Metric: m, Name: name, Type: typ, Fields: fields, Options: opts}, nil
}

// WithCI returns a copy of m whose states also compute a confidence interval as c says
// (method none returns m itself).
func (m *Metric) WithCI(c stats.Config) (*Metric, error) {
	out := *m
	switch c.Method {
	case stats.MethodNone:
		return m, nil
	case stats.MethodPoisson:
		out.Metric = stats.NewBootstrap(m.Metric, c)
		return &out, nil
	case stats.MethodSacrebleu:
		sm, err := sacrebleu.New(m.Metric, c)
		if err != nil {
			return nil, fmt.Errorf("metric %s (type %s): %w", m.Name, m.Type, err)
		}
		out.Metric = sm
		return &out, nil
	}
	return nil, fmt.Errorf("ci.method %s: not available for metric %s (type %s)", c.Method, m.Name, m.Type)
}

// CanonicalOptions renders the options as JSON with sorted keys (for state files).
func (m *Metric) CanonicalOptions() ([]byte, error) {
	keys := make([]string, 0, len(m.Options))
	for k := range m.Options {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	ordered := make([]json.RawMessage, 0, len(keys))
	for _, k := range keys {
		kb, _ := json.Marshal(k)
		vb, err := json.Marshal(m.Options[k])
		if err != nil {
			return nil, fmt.Errorf("metric %s option %s: %w", m.Name, k, err)
		}
		ordered = append(ordered, json.RawMessage(append(append(kb, ':'), vb...)))
	}
	out := []byte{'{'}
	for i, kv := range ordered {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, kv...)
	}
	return append(out, '}'), nil
}
