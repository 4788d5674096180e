package gate

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/evalstream/evalstream/config"
	"github.com/evalstream/evalstream/metrics"
	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/stats"
)

// ConfigError lists what makes a gate unusable (a config error: exit 2), each problem
// naming its rule.
type ConfigError struct{ Problems []string }

func (e *ConfigError) Error() string {
	return "invalid gate:\n  " + strings.Join(e.Problems, "\n  ")
}

// Gate is a validated gate with its baseline loaded. It is immutable; Evaluate may be
// called from one goroutine at a time.
type Gate struct {
	cfg  config.Gate
	base *Side
	// dirs maps metric names to their Doc.Direction.
	dirs  map[string]string
	types map[string]string
}

// New checks cfg against the metrics of the run (types maps metric names to types; runCI
// is the run's resampling set-up, nil without `ci`) and loads its baseline. Every problem
// — unknown metric, a metric without a better direction, an unreadable baseline or one
// without the metric, a relative drop on a zero baseline, significant_only with a
// baseline or a run without replicates or with another set-up — is reported in one
// *ConfigError.
func New(cfg *config.Gate, types map[string]string, runCI *stats.Config) (*Gate, error) {
	names := make([]string, 0, len(types))
	for n := range types {
		names = append(names, n)
	}
	sort.Strings(names)
	probs := cfg.Problems(names)
	g := &Gate{cfg: *cfg, dirs: map[string]string{}, types: types}
	docs := map[string]string{}
	for _, d := range metrics.Docs() {
		docs[d.Type] = d.Direction
	}
	for i, r := range cfg.Rules {
		typ, ok := types[r.Metric]
		if !ok {
			continue // reported by Problems
		}
		dir := docs[typ]
		if dir != core.DirectionHigher && dir != core.DirectionLower {
			probs.Add(r.Path(i), "metric %s (type %s) has no better direction (%q): its value is not a score a gate can bound", r.Metric, typ, dir)
		}
		g.dirs[r.Metric] = dir
	}
	if cfg.Baseline != "" {
		base, err := ReadFile(cfg.Baseline)
		if err != nil {
			probs.Add("gate.baseline", "%v", err)
		} else {
			g.base = base
			for i, r := range cfg.Rules {
				probs = append(probs, g.checkBaseline(i, r)...)
				if !r.SignificantOnly || base.CI == nil {
					continue
				}
				if runCI == nil {
					probs.Add(r.Path(i)+".significant_only", "the run has no bootstrap replicates: it needs a `ci:` section like the baseline's")
				} else if err := stats.SameConfig(*base.CI, *runCI); err != nil {
					probs.Add(r.Path(i)+".significant_only", "the baseline and the run do not pair: %v", err)
				}
			}
		}
	}
	if len(probs) > 0 {
		return nil, &ConfigError{Problems: probs}
	}
	return g, nil
}

// checkBaseline reports what makes rule i unusable with the loaded baseline.
func (g *Gate) checkBaseline(i int, r config.GateRule) config.Problems {
	var p config.Problems
	if !r.HasDrop() {
		return nil
	}
	path := r.Path(i)
	if bt, ok := g.base.Types[r.Metric]; ok && g.types[r.Metric] != "" && bt != g.types[r.Metric] {
		p.Add(path, "the baseline's %s is of type %s, the run's of type %s", r.Metric, bt, g.types[r.Metric])
	}
	if r.SignificantOnly && (g.base.States == nil || !g.base.Replicates) {
		p.Add(path+".significant_only", "the baseline %s has no bootstrap replicates (a results JSON, a history line, or a state saved without ci): a paired test is impossible", g.cfg.Baseline)
	}
	if r.Slices == "all" {
		return p // checked per slice when evaluated
	}
	v, ok := g.base.Values[r.Slice][r.Metric]
	switch {
	case !ok && r.Slice != "":
		p.Add(path, "the baseline %s has no value of %s in slice %s", g.cfg.Baseline, r.Metric, r.Slice)
	case !ok:
		p.Add(path, "the baseline %s has no metric %s", g.cfg.Baseline, r.Metric)
	default:
		f, isNum := v.(float64)
		switch {
		case v == nil:
			p.Add(path, "the baseline's %s is undefined (null)", r.Metric)
		case !isNum:
			p.Add(path, "the baseline's %s is not a single number (per-class and matrix values cannot be gated)", r.Metric)
		case r.MaxDropRelative != nil && f == 0:
			p.Add(path+".max_drop_relative", "the baseline's %s is 0: a drop relative to it is undefined", r.Metric)
		}
	}
	return p
}

// Verdict is the gate's outcome: the `gate` object of the results JSON.
type Verdict struct {
	Passed   bool         `json:"passed"`
	Baseline *string      `json:"baseline"`
	Rules    []RuleResult `json:"rules"`
}

// Interval is a delta's confidence interval.
type Interval struct {
	Low  float64 `json:"low"`
	High float64 `json:"high"`
}

// RuleResult is one rule applied to one value (a rule with slices: all gives one per
// slice). Fields that do not apply are null.
type RuleResult struct {
	Metric   string    `json:"metric"`
	Slice    *string   `json:"slice"`
	Value    any       `json:"value"`
	Baseline *float64  `json:"baseline"`
	Delta    *float64  `json:"delta"`
	DeltaCI  *Interval `json:"delta_ci"`
	PValue   *float64  `json:"p_value"`
	Passed   bool      `json:"passed"`
	Reason   string    `json:"reason"`
}

// Lines renders the verdict as one PASS/FAIL line per rule result, then the overall verdict.
func (v *Verdict) Lines() []string {
	var out []string
	for _, r := range v.Rules {
		word := "PASS"
		if !r.Passed {
			word = "FAIL"
		}
		name := r.Metric
		if r.Slice != nil {
			name += " [" + *r.Slice + "]"
		}
		out = append(out, fmt.Sprintf("gate %s %s: %s", word, name, r.Reason))
	}
	if v.Passed {
		out = append(out, "gate PASSED")
	} else {
		out = append(out, "gate FAILED")
	}
	return out
}

// Evaluate applies every rule to cur. A problem only the values reveal (a relative drop
// on a zero baseline slice, a per-class value, states that do not pair) is a *ConfigError.
func (g *Gate) Evaluate(cur *Side) (*Verdict, error) {
	v := &Verdict{Passed: true, Rules: []RuleResult{}}
	if g.cfg.Baseline != "" {
		b := g.cfg.Baseline
		v.Baseline = &b
	}
	var probs config.Problems
	for i, r := range g.cfg.Rules {
		targets := []string{r.Slice}
		if r.Slices == "all" {
			targets = cur.Slices()
		}
		for _, key := range targets {
			rr, err := g.apply(r, key, cur)
			if err != nil {
				where := ""
				if key != "" {
					where = " in slice " + key
				}
				probs.Add(r.Path(i), "%v%s", err, where)
				continue
			}
			v.Rules = append(v.Rules, rr)
			v.Passed = v.Passed && rr.Passed
		}
	}
	if len(probs) > 0 {
		return nil, &ConfigError{Problems: probs}
	}
	return v, nil
}

func num(x float64) string { return strconv.FormatFloat(x, 'g', 4, 64) }

// apply checks rule r on the value of its metric in slice key ("" = overall).
func (g *Gate) apply(r config.GateRule, key string, cur *Side) (RuleResult, error) {
	rr := RuleResult{Metric: r.Metric}
	if key != "" {
		k := key
		rr.Slice = &k
	}
	vals, ok := cur.Values[key]
	if !ok {
		rr.Reason = "the run has no slice " + key
		return rr, nil
	}
	val := vals[r.Metric]
	rr.Value = val
	if val == nil {
		rr.Reason = "the value is undefined (null)"
		return rr, nil
	}
	x, ok := val.(float64)
	if !ok {
		return rr, errors.New("the value is not a single number (per-class and matrix values cannot be gated)")
	}
	var pass, fail []string
	check := func(ok bool, msg string) {
		if ok {
			pass = append(pass, msg)
		} else {
			fail = append(fail, msg)
		}
	}
	if r.Min != nil {
		if x < *r.Min {
			check(false, fmt.Sprintf("%s < min %s", num(x), num(*r.Min)))
		} else {
			check(true, fmt.Sprintf("%s ≥ min %s", num(x), num(*r.Min)))
		}
	}
	if r.Max != nil {
		if x > *r.Max {
			check(false, fmt.Sprintf("%s > max %s", num(x), num(*r.Max)))
		} else {
			check(true, fmt.Sprintf("%s ≤ max %s", num(x), num(*r.Max)))
		}
	}
	if r.HasDrop() {
		if err := g.drop(r, key, x, cur, &rr, check); err != nil {
			return rr, err
		}
	}
	rr.Passed = len(fail) == 0
	if rr.Passed {
		rr.Reason = strings.Join(pass, "; ")
	} else {
		rr.Reason = strings.Join(fail, "; ")
	}
	return rr, nil
}

// drop applies max_drop / max_drop_relative (and significant_only) against the baseline.
func (g *Gate) drop(r config.GateRule, key string, x float64, cur *Side, rr *RuleResult, check func(bool, string)) error {
	bv, ok := g.base.Values[key][r.Metric]
	if !ok || bv == nil {
		// Only a slices: all rule gets here (the others were checked in New): a slice new
		// since the baseline has nothing to drop from.
		check(true, "no baseline value in this slice")
		return nil
	}
	b, ok := bv.(float64)
	if !ok {
		return errors.New("the baseline's value is not a single number")
	}
	delta := x - b
	rr.Baseline, rr.Delta = &b, &delta
	drop := -delta // higher is better: a fall is a drop
	if g.dirs[r.Metric] == core.DirectionLower {
		drop = delta
	}
	paired, havePaired, err := g.paired(r, key, cur)
	if err != nil {
		return err
	}
	if havePaired {
		p := paired.P
		rr.PValue = &p
		if !math.IsNaN(paired.DeltaLow) {
			rr.DeltaCI = &Interval{paired.DeltaLow, paired.DeltaHigh}
		}
	}
	judge := func(amount, limit float64, what string) {
		if amount <= limit {
			if drop <= 0 {
				check(true, fmt.Sprintf("no drop (delta %+.4g)", delta))
			} else {
				check(true, fmt.Sprintf("dropped %s ≤ %s %s", num(amount), what, num(limit)))
			}
			return
		}
		msg := fmt.Sprintf("dropped %s > %s %s", num(amount), what, num(limit))
		switch {
		case r.SignificantOnly && paired.P >= g.cfg.Alpha:
			check(true, fmt.Sprintf("%s, not significant (p = %.4f ≥ alpha %v)", msg, paired.P, g.cfg.Alpha))
		case havePaired:
			check(false, fmt.Sprintf("%s (p = %.4f)", msg, paired.P))
		default:
			check(false, msg)
		}
	}
	if r.MaxDrop != nil {
		judge(drop, *r.MaxDrop, "max_drop")
	}
	if r.MaxDropRelative != nil {
		if b == 0 {
			return errors.New("max_drop_relative: the baseline's value is 0, a relative drop is undefined")
		}
		judge(drop/math.Abs(b), *r.MaxDropRelative, "max_drop_relative")
	}
	return nil
}

// paired runs the paired bootstrap between the baseline's and the run's states of the
// rule's metric in slice key, when both sides have replicates. Only a significant_only
// rule needs it: for the others a failure to pair leaves the p-value out.
func (g *Gate) paired(r config.GateRule, key string, cur *Side) (stats.Paired, bool, error) {
	bs, _ := g.base.States[key][r.Metric].(*stats.BootstrapState)
	cs, _ := cur.States[key][r.Metric].(*stats.BootstrapState)
	if bs == nil || cs == nil {
		if r.SignificantOnly {
			return stats.Paired{}, false, errors.New("significant_only: the run's or the baseline's states have no bootstrap replicates (the run needs a `ci:` section, the baseline a state saved with it)")
		}
		return stats.Paired{}, false, nil
	}
	p, err := stats.PairedBootstrap(bs, cs)
	if err != nil {
		if r.SignificantOnly || errors.Is(err, stats.ErrUnpaired) {
			return stats.Paired{}, false, fmt.Errorf("paired test against the baseline: %w", err)
		}
		return stats.Paired{}, false, nil
	}
	return p, true, nil
}
