package stages

import (
	"fmt"
	"hash/fnv"
	"sort"

	"github.com/evalstream/evalstream/pipeline"
)

// View merges the latest durable state of every partition into global results: the running
// total and the per-window results. It decides when a window is complete: when every
// partition has closed it (its watermark passed the window's end plus the allowed lateness)
// or has no more input for now (done in bounded mode, idle in continuous mode).
//
// A window's result is the merge of each partition's final state for it (written when the
// partition closed it) or, for a partition that is done or idle with the window still open,
// of that open state. If such a contribution changes later (the idle partition receives
// records for the window), the window becomes ready again and is re-emitted with the new
// value. A View is not safe for concurrent use.
type View struct {
	plan   *pipeline.Plan
	spec   *Spec
	parts  map[string]*partView
	expect []string
	inSet  map[string]bool // expect as a set (nil: every partition counts)
	finals map[int64]map[string][]byte
	// emitted holds the fingerprint of each window's last emitted contributions.
	emitted map[int64]uint64
	// sealed windows were emitted after every partition closed them: no contribution can
	// change any more, so their states are dropped and late copies are ignored.
	sealed map[int64]bool
}

type partView struct {
	p          *Payload
	done, idle bool
	open       map[int64][]byte
}

// NewView returns an empty view; spec is nil without windows.
func NewView(plan *pipeline.Plan, spec *Spec) *View {
	return &View{plan: plan, spec: spec, parts: map[string]*partView{}, finals: map[int64]map[string][]byte{}, emitted: map[int64]uint64{}, sealed: map[int64]bool{}}
}

// SetPartitions declares every partition ("topic/partition") whose state the results need.
// A window is not complete while a declared partition has not reported.
func (v *View) SetPartitions(parts []string) {
	v.expect = append([]string(nil), parts...)
	sort.Strings(v.expect)
	v.inSet = map[string]bool{}
	for _, p := range parts {
		v.inSet[p] = true
	}
}

// counts reports whether a partition's state belongs in the results: with declared
// partitions, states of others (a topic no longer read by the group) are ignored.
func (v *View) counts(part string) bool { return v.inSet == nil || v.inSet[part] }

// PutSnapshot records a partition's latest snapshot payload (see Tracker.MarshalBinary).
func (v *View) PutSnapshot(part string, payload []byte, done, idle bool) error {
	p, err := ParsePayload(payload)
	if err != nil {
		return fmt.Errorf("partition %s: %w", part, err)
	}
	pv := &partView{p: p, done: done, idle: idle, open: map[int64][]byte{}}
	for _, w := range p.Windows {
		pv.open[w.Start] = w.State
	}
	v.parts[part] = pv
	return nil
}

// PutFinal records a partition's final state of the window starting at start.
func (v *View) PutFinal(part string, start int64, state []byte) {
	if v.sealed[start] {
		return
	}
	m := v.finals[start]
	if m == nil {
		m = map[string][]byte{}
		v.finals[start] = m
	}
	m[part] = state
}

// Total merges every partition's running total.
func (v *View) Total() (*pipeline.Accumulator, error) {
	total := pipeline.NewAccumulator(v.plan)
	for _, k := range sortedStrings(v.parts) {
		if !v.counts(k) {
			continue
		}
		a, err := pipeline.DecodeState(v.parts[k].p.Total)
		if err != nil {
			return nil, fmt.Errorf("partition %s: %w", k, err)
		}
		if err := total.Merge(a); err != nil {
			return nil, fmt.Errorf("partition %s: %w", k, err)
		}
	}
	return total, nil
}

// Ready returns, by start, the windows that are complete and not yet emitted with their
// current contributions.
func (v *View) Ready() []int64 {
	if v.spec == nil {
		return nil
	}
	cand := map[int64]bool{}
	for s := range v.finals {
		cand[s] = true
	}
	for k, pv := range v.parts {
		if !v.counts(k) {
			continue
		}
		for s := range pv.open {
			if !v.sealed[s] {
				cand[s] = true
			}
		}
	}
	var out []int64
	for _, s := range sortedKeys(cand) {
		if !v.complete(s) {
			continue
		}
		if fp, ok := v.emitted[s]; ok && fp == v.fingerprint(s) {
			continue
		}
		out = append(out, s)
	}
	return out
}

func (v *View) partsToCheck() []string {
	if len(v.expect) > 0 {
		return v.expect
	}
	return sortedStrings(v.parts)
}

func (v *View) complete(start int64) bool {
	closes := v.spec.closesAt(start)
	for _, k := range v.partsToCheck() {
		pv := v.parts[k]
		if pv == nil {
			return false
		}
		if pv.done || pv.idle || (pv.p.HasWatermark && pv.p.Watermark >= closes) {
			continue
		}
		return false
	}
	return true
}

// closedEverywhere reports whether every partition's watermark passed the window.
func (v *View) closedEverywhere(start int64) bool {
	closes := v.spec.closesAt(start)
	for _, k := range v.partsToCheck() {
		pv := v.parts[k]
		if pv == nil || !pv.p.HasWatermark || pv.p.Watermark < closes {
			return false
		}
	}
	return true
}

// contributions returns each partition's state for the window, by partition.
func (v *View) contributions(start int64) ([]string, [][]byte) {
	var keys []string
	var states [][]byte
	fin := v.finals[start]
	all := map[string]bool{}
	for k := range fin {
		if v.counts(k) {
			all[k] = true
		}
	}
	for k, pv := range v.parts {
		if _, ok := pv.open[start]; ok && v.counts(k) {
			all[k] = true
		}
	}
	for _, k := range sortedStrings(all) {
		if b, ok := fin[k]; ok {
			keys, states = append(keys, k), append(states, b)
		} else {
			keys, states = append(keys, k), append(states, v.parts[k].open[start])
		}
	}
	return keys, states
}

// fingerprint hashes the window's contributions. (Not a CRC: every encoded state ends with
// its own CRC, which makes the CRC of the whole independent of the content.)
func (v *View) fingerprint(start int64) uint64 {
	h := fnv.New64a()
	keys, states := v.contributions(start)
	for i := range keys {
		h.Write([]byte(keys[i]))
		h.Write([]byte{0})
		h.Write(states[i])
	}
	return h.Sum64()
}

// Window merges the window's contributions into results with Window set.
func (v *View) Window(start int64) (*pipeline.Results, error) {
	acc, span, err := v.WindowTotal(start)
	if err != nil {
		return nil, err
	}
	r := acc.Results()
	r.Window = span
	return r, nil
}

// WindowTotal merges the window's contributions into a new accumulator (the caller's; a
// gate needs the states, not only the values) and returns it with the window's span.
func (v *View) WindowTotal(start int64) (*pipeline.Accumulator, *pipeline.WindowSpan, error) {
	acc := pipeline.NewAccumulator(v.plan)
	keys, states := v.contributions(start)
	for i, b := range states {
		a, err := pipeline.DecodeState(b)
		if err != nil {
			return nil, nil, fmt.Errorf("window %s, partition %s: %w", fmtNs(start), keys[i], err)
		}
		if err := acc.Merge(a); err != nil {
			return nil, nil, fmt.Errorf("window %s, partition %s: %w", fmtNs(start), keys[i], err)
		}
	}
	s, e := v.spec.Span(start)
	return acc, &pipeline.WindowSpan{Start: s, End: e}, nil
}

// SealHorizon is how many window sizes behind the most advanced partition's watermark an
// emitted window is sealed even if some partition (an idle or empty one) never closed it:
// this bounds the memory of a long continuous run. Later changes to a sealed window are
// still in the state topic but are not emitted again.
const SealHorizon = 100

// MarkEmitted records that the window was emitted with its current contributions. Once
// every partition has closed it (or it is SealHorizon windows old), its states are dropped.
func (v *View) MarkEmitted(start int64) {
	v.emitted[start] = v.fingerprint(start)
	var maxWM int64
	has := false
	for _, pv := range v.parts {
		if pv.p.HasWatermark && (!has || pv.p.Watermark > maxWM) {
			maxWM, has = pv.p.Watermark, true
		}
	}
	horizon := int64(SealHorizon) * int64(v.spec.Size)
	for s := range v.emitted {
		old := has && v.spec.closesAt(s) <= maxWM-horizon
		if v.closedEverywhere(s) || old {
			v.sealed[s] = true
			delete(v.finals, s)
			delete(v.emitted, s)
		}
	}
}

// Windows returns how many windows the view holds states for (for tests and metrics).
func (v *View) Windows() int { return len(v.finals) }

func sortedStrings[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
