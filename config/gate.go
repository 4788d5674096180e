package config

import (
	"fmt"
	"math"
	"slices"
)

// Gate is the `gate:` section (statistics.md §3): rules that decide whether a build may
// ship, checked after the metrics are computed; a failing gate makes the run exit 3.
type Gate struct {
	// Baseline is a state file (paired tests possible), a results JSON, or a history JSONL
	// (its last line); empty = absolute rules (min/max) only.
	Baseline string `yaml:"baseline" json:"baseline,omitempty"`
	// Alpha is the significance level of significant_only rules (default 0.05).
	Alpha float64    `yaml:"alpha" json:"alpha"`
	Rules []GateRule `yaml:"rules" json:"rules"`
}

// GateRule bounds one metric, overall, in one slice, or in every slice.
type GateRule struct {
	Metric string `yaml:"metric" json:"metric"`
	// Slice names one slice (`lang=de`); Slices: all applies the rule to every slice.
	Slice  string `yaml:"slice" json:"slice,omitempty"`
	Slices string `yaml:"slices" json:"slices,omitempty"`
	// Min and Max are absolute bounds on the value.
	Min *float64 `yaml:"min" json:"min,omitempty"`
	Max *float64 `yaml:"max" json:"max,omitempty"`
	// MaxDrop bounds the change against the baseline in the metric's worse direction, in
	// its own units; MaxDropRelative bounds it relative to the baseline's value.
	MaxDrop         *float64 `yaml:"max_drop" json:"max_drop,omitempty"`
	MaxDropRelative *float64 `yaml:"max_drop_relative" json:"max_drop_relative,omitempty"`
	// SignificantOnly makes a drop fail only when the paired test gives p < alpha.
	SignificantOnly bool `yaml:"significant_only" json:"significant_only,omitempty"`
}

// Add appends a problem at path (for checks outside this package, such as a gate's
// baseline).
func (p *Problems) Add(path, format string, args ...any) { p.add(path, format, args...) }

// DefaultGateAlpha is gate.alpha when unset.
const DefaultGateAlpha = 0.05

// HasDrop reports whether the rule compares against the baseline.
func (r GateRule) HasDrop() bool { return r.MaxDrop != nil || r.MaxDropRelative != nil }

// Path names the rule in problems: gate.rules[i] (metric).
func (r GateRule) Path(i int) string { return fmt.Sprintf("gate.rules[%d] (%s)", i, r.Metric) }

func (g *Gate) applyDefaults() {
	if g.Alpha == 0 {
		g.Alpha = DefaultGateAlpha
	}
}

// Problems lists what is wrong with the gate on its own, each naming its rule. metricNames,
// when not nil, are the metrics the gate may name.
func (g *Gate) Problems(metricNames []string) Problems {
	var p Problems
	if !(g.Alpha > 0 && g.Alpha < 1) {
		p.add("gate.alpha", "%v is not strictly between 0 and 1", g.Alpha)
	}
	if len(g.Rules) == 0 {
		p.add("gate.rules", "at least one rule is required (e.g. {metric: bleu, min: 0.25})")
	}
	for i, r := range g.Rules {
		path := r.Path(i)
		if r.Metric == "" {
			p.add(fmt.Sprintf("gate.rules[%d].metric", i), "is required")
		} else if metricNames != nil && !slices.Contains(metricNames, r.Metric) {
			p.add(path+".metric", "unknown metric %q (metrics: %v)", r.Metric, metricNames)
		}
		if r.Min == nil && r.Max == nil && !r.HasDrop() {
			p.add(path, "has no bound: set min, max, max_drop or max_drop_relative")
		}
		if r.Slice != "" && r.Slices != "" {
			p.add(path, "set slice or slices, not both")
		}
		if r.Slices != "" && r.Slices != "all" {
			p.add(path+".slices", "must be all, got %q", r.Slices)
		}
		for _, b := range []struct {
			name string
			v    *float64
		}{{"min", r.Min}, {"max", r.Max}, {"max_drop", r.MaxDrop}, {"max_drop_relative", r.MaxDropRelative}} {
			if b.v != nil && (math.IsNaN(*b.v) || math.IsInf(*b.v, 0)) {
				p.add(path+"."+b.name, "must be a finite number")
			}
		}
		if r.MaxDrop != nil && *r.MaxDrop < 0 {
			p.add(path+".max_drop", "%v is negative (it bounds a drop in the worse direction)", *r.MaxDrop)
		}
		if r.MaxDropRelative != nil && *r.MaxDropRelative < 0 {
			p.add(path+".max_drop_relative", "%v is negative (it bounds a drop in the worse direction)", *r.MaxDropRelative)
		}
		if r.HasDrop() && g.Baseline == "" {
			p.add(path, "max_drop/max_drop_relative need gate.baseline")
		}
		if r.SignificantOnly && !r.HasDrop() {
			p.add(path+".significant_only", "applies to max_drop/max_drop_relative, and the rule has neither")
		}
	}
	return p
}
