// Package bleu implements the metric types bleu and chrf: corpus (micro) and mean-sentence
// (macro) BLEU with presets that reproduce sacreBLEU, pytorch-ignite, MindNLP, PaddleNLP and
// NLTK exactly, and sacreBLEU's chrF/chrF++. States are integer n-gram statistics (or exact
// sums of sentence scores), so results do not depend on how records are split or merged.
package bleu

import (
	"fmt"
	"sync"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/internal/textinput"
	"github.com/evalstream/evalstream/metrics/tokenize"
)

type preset uint8

const (
	presetSacre preset = iota
	presetIgnite
	presetMindNLP
	presetPaddle
	presetNLTK
)

var presetNames = [...]string{"sacrebleu", "ignite", "mindnlp", "paddle", "nltk"}

func (p preset) String() string { return presetNames[p] }

// smoothing methods, across presets.
type smoothing uint8

const (
	smNone smoothing = iota // no smoothing (mindnlp, paddle) or sacrebleu "none"
	// sacrebleu
	smExp
	smFloor
	smAddK
	// ignite
	smIgNo
	smIgSmooth1
	smIgNLTK2
	smIgSmooth2
	// nltk method0..method7
	smNLTK0
)

var sacreSmooth = []string{"exp", "floor", "add-k", "none"}
var igniteSmooth = []string{"no_smooth", "smooth1", "nltk_smooth2", "smooth2"}
var nltkSmooth = []string{"method0", "method1", "method2", "method3", "method4", "method5", "method6", "method7"}

// bleuTokenizers are the tokenize option's valid values.
var bleuTokenizers = []string{"13a", "intl", "zh", "char", "none", "whitespace"}

// maxOrder bounds the n-gram order (no library has one, except MindNLP's 4).
const maxOrder = 64

// Metric is a configured bleu metric. It is immutable and safe for concurrent use.
type Metric struct {
	preset      preset
	order       int       // N
	weights     []float64 // len N
	uniform025  bool      // weights are NLTK's default (0.25,)*4 (auto_reweigh)
	smooth      smoothing
	nltkMethod  int
	smoothValue float64 // sacrebleu floor/add-k value
	effective   bool    // sacrebleu effective_order
	autoReweigh bool    // nltk
	macro       bool
	tokName     string
	tok         tokenize.AppendFunc
	lower       bool
	scale100    bool
	countN      int  // orders counted per sentence: N, or max(N,5) for NLTK methods 5 and 7
	needLast    bool // NLTK methods 5-7 read the last sentence of the corpus
	sig         string
	segKey      string    // names the options in a core.Memo of segment statistics
	scratch     sync.Pool // *work, for SentenceScore
}

var (
	_ core.Metric         = (*Metric)(nil)
	_ core.SentenceScorer = (*Metric)(nil)
)

// NewBLEU builds a bleu metric from its options (see Docs). It reads every option it accepts
// and records problems in o; the caller reports them with o.Err().
func NewBLEU(o *core.Options) (core.Metric, error) {
	m := &Metric{}
	pname := o.String("compat", "sacrebleu", presetNames[:]...)
	for i, n := range presetNames {
		if n == pname {
			m.preset = preset(i)
		}
	}
	p := m.preset
	why := "to compat " + pname

	// n-gram order and weights.
	maxN := int64(maxOrder)
	if p == presetMindNLP {
		maxN = 4
	}
	var weights []float64
	if p == presetSacre || p == presetIgnite {
		o.Forbid("weights", why+" (it weighs orders uniformly)")
	} else {
		weights = o.Floats("weights", nil)
	}
	defN := int64(4)
	if len(weights) > 0 && !o.Has("ngram") {
		defN = int64(len(weights))
	}
	n := o.Int("ngram", defN, 1, maxN)
	if n > maxN {
		o.Problem("weights", "has %d entries; compat %s supports at most %d orders", n, pname, maxN)
		n, weights = maxN, nil
	}
	m.order = int(n)
	if len(weights) > 0 {
		switch {
		case len(weights) != m.order:
			o.Problem("weights", "has %d entries but ngram is %d", len(weights), m.order)
			weights = nil
		case !allFinite(weights):
			o.Problem("weights", "must be finite numbers")
			weights = nil
		}
	}
	m.uniform025 = m.order == 4
	if len(weights) == 0 {
		weights = make([]float64, m.order)
		for i := range weights {
			weights[i] = 1 / float64(m.order)
		}
	} else {
		for _, w := range weights {
			m.uniform025 = m.uniform025 && w == 0.25
		}
	}
	m.weights = weights

	// smoothing.
	switch p {
	case presetSacre:
		s := o.String("smooth", "exp", sacreSmooth...)
		m.smooth = map[string]smoothing{"exp": smExp, "floor": smFloor, "add-k": smAddK, "none": smNone}[s]
		switch m.smooth {
		case smFloor, smAddK:
			def := 0.1
			if m.smooth == smAddK {
				def = 1
			}
			m.smoothValue = o.Float("smooth_value", def)
			if !(m.smoothValue >= 0 && m.smoothValue <= 1e300) {
				o.Problem("smooth_value", "must be a finite number >= 0")
				m.smoothValue = def
			}
		default:
			o.Forbid("smooth_value", "to smooth "+s+" (only floor and add-k take a value)")
		}
		m.effective = o.Bool("effective_order", false)
	case presetIgnite:
		s := o.String("smooth", "no_smooth", igniteSmooth...)
		m.smooth = map[string]smoothing{"no_smooth": smIgNo, "smooth1": smIgSmooth1, "nltk_smooth2": smIgNLTK2, "smooth2": smIgSmooth2}[s]
	case presetNLTK:
		s := o.String("smooth", "method0", nltkSmooth...)
		m.nltkMethod = int(s[len(s)-1] - '0')
		m.smooth = smNLTK0
		if m.nltkMethod == 6 && m.order < 3 {
			o.Problem("smooth", "method6 needs ngram >= 3 (NLTK indexes the trigram precision)")
		}
		m.needLast = m.nltkMethod >= 5
		m.autoReweigh = o.Bool("auto_reweigh", false)
	default:
		o.Forbid("smooth", why+" (it has no smoothing)")
	}
	if p != presetSacre {
		o.Forbid("smooth_value", why+" (only sacrebleu floor and add-k take a value)")
		o.Forbid("effective_order", why+" (sacrebleu only)")
	}
	if p != presetNLTK {
		o.Forbid("auto_reweigh", why+" (nltk only)")
	}

	defAvg := "micro"
	if p == presetIgnite {
		defAvg = "macro"
	}
	m.macro = o.String("average", defAvg, "micro", "macro") == "macro"

	defTok := "whitespace"
	if p == presetSacre {
		defTok = "13a"
	}
	m.tokName = o.String("tokenize", defTok, bleuTokenizers...)
	tok, err := tokenize.NewAppend(m.tokName)
	if err != nil {
		return nil, fmt.Errorf("bleu: %w", err)
	}
	m.tok = tok
	m.lower = o.Bool("lowercase", false)
	m.scale100 = o.String("scale", "1", "1", "100") == "100"

	m.countN = m.order
	if m.needLast && m.countN < 5 {
		m.countN = 5
	}
	m.sig = m.signature("")
	m.segKey = "bleu segment|" + m.sig
	return m, nil
}

func allFinite(xs []float64) bool {
	for _, x := range xs {
		if x != x || x > 1.7976931348623157e308 || x < -1.7976931348623157e308 {
			return false
		}
	}
	return true
}

// signature builds the signature (core.Sig); nrefs, when not empty, is the data pair that
// results show after compat, where sacrebleu puts it.
func (m *Metric) signature(nrefs string) string {
	s := core.NewSig("bleu", m.preset.String())
	if nrefs != "" {
		s.Add("nrefs", nrefs)
	}
	caseStr := "mixed"
	if m.lower {
		caseStr = "lc"
	}
	avg := "micro"
	if m.macro {
		avg = "macro"
	}
	scale := "1"
	if m.scale100 {
		scale = "100"
	}
	if m.preset == presetSacre {
		// sacrebleu's own keys in its order, then ours.
		s.Add("case", caseStr).YesNo("eff", m.effective).Add("tok", m.tokName).Add("smooth", m.smoothName())
		return s.Int("ngram", int64(m.order)).Add("average", avg).Add("scale", scale).String()
	}
	s.Int("ngram", int64(m.order))
	if m.preset != presetIgnite {
		ws := make([]string, len(m.weights))
		for i, w := range m.weights {
			ws[i] = core.FormatFloat(w)
		}
		s.List("weights", ws)
	}
	if m.preset == presetIgnite || m.preset == presetNLTK {
		s.Add("smooth", m.smoothName())
	}
	if m.preset == presetNLTK {
		s.YesNo("reweigh", m.autoReweigh)
	}
	return s.Add("tok", m.tokName).Add("case", caseStr).Add("average", avg).Add("scale", scale).String()
}

func (m *Metric) smoothName() string {
	switch m.smooth {
	case smExp:
		return "exp"
	case smFloor:
		return fmt.Sprintf("floor[%.2f]", m.smoothValue)
	case smAddK:
		return fmt.Sprintf("add-k[%.2f]", m.smoothValue)
	case smIgNo, smIgSmooth1, smIgNLTK2, smIgSmooth2:
		return igniteSmooth[m.smooth-smIgNo]
	case smNLTK0:
		return nltkSmooth[m.nltkMethod]
	}
	return "none"
}

// Signature implements core.Metric.
func (m *Metric) Signature() string { return m.sig }

var textRoles = []core.Role{
	{Name: "prediction", Field: "prediction", Required: true, Accepts: []core.Kind{core.String, core.StringList}},
	{Name: "references", Field: "references", Required: true, Accepts: []core.Kind{core.String, core.StringList, core.StringLists}},
}

// Roles implements core.Metric: prediction, then references.
func (m *Metric) Roles() []core.Role { return append([]core.Role(nil), textRoles...) }

// Check implements core.Metric.
func (m *Metric) Check(ex *core.Example) error { return textinput.CheckPair(ex) }

// NewState implements core.Metric.
func (m *Metric) NewState() core.State { return m.newState() }
