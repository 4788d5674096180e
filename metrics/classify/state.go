package classify

import (
	"fmt"

	"github.com/evalstream/evalstream/metrics/core"
)

// State is the mergeable state of every classification metric: the confusion matrix (unused
// by accuracy) plus the correct and total counts. All counts are int64, so merging is exact
// and order-independent. A State is not safe for concurrent use.
type State struct {
	m       *Metric
	mat     matrix
	correct int64
	total   int64
	// Without the classes option (Metric.byName): the kinds of classes seen (seenIDs,
	// seenNames, tooMany) and the names that the matrix's local ids stand for (names.go).
	seen  uint8
	names nameTable
}

// Add counts one checked record weight times. A record Check rejects is ignored.
func (s *State) Add(ex *core.Example, weight int64) {
	if weight <= 0 {
		return
	}
	o, err := s.m.decode(ex)
	if err != nil {
		return
	}
	var owned [2]string
	s.fold(o, weight, &owned)
}

// AddReplicas implements core.ReplicaAdder: the record is decoded once.
func (s *State) AddReplicas(ex *core.Example, states []core.State, weights []int64) {
	o, err := s.m.decode(ex)
	if err != nil {
		return
	}
	// The replicates that first see a name share one copy of it.
	var owned [2]string
	for i, st := range states {
		if weights[i] > 0 {
			st.(*State).fold(o, weights[i], &owned)
		}
	}
}

// fold counts one decoded record. owned holds the copies of the record's class names made
// so far (see nameTable.id).
func (s *State) fold(o outcome, weight int64, owned *[2]string) {
	s.total += weight
	if s.m.byName {
		k := seenIDs
		if o.label.named {
			k = seenNames
		}
		if !s.note(k) {
			return
		}
		if o.label.named {
			s.foldNamed(o, weight, owned)
			return
		}
	}
	if s.m.kind == kAccuracy {
		if o.correct {
			s.correct += weight
		}
		return
	}
	if w := max(o.pred.width, o.label.width); w > s.mat.n {
		s.mat.grow(w)
	}
	s.mat.add(int(o.label.id), int(o.pred.id), weight)
}

// Merge adds other's counts (the matrix is padded to the larger size).
func (s *State) Merge(other core.State) error {
	o, ok := other.(*State)
	if !ok || o.m.sig != s.m.sig {
		return core.Incompatible(s, other)
	}
	correct, total := o.correct, o.total // o may be s
	if s.m.byName && !s.note(o.seen) {
		s.total += total
		return nil
	}
	if o.seen&seenNames != 0 {
		s.mergeNamed(o)
	} else {
		s.mat.merge(&o.mat)
	}
	s.total += total
	if !s.dropped() {
		s.correct += correct
	}
	return nil
}

// MarshalBinary writes the signature, the counts and the non-zero cells in row-major order:
// equal states give equal bytes.
func (s *State) MarshalBinary() ([]byte, error) {
	var e core.Encoder
	if s.seen&seenNames != 0 {
		// Format 2 holds class names; a state of ids keeps format 1, byte for byte.
		e.Byte(namedStateVersion)
		e.String(s.m.sig)
		s.encodeNamed(&e)
		return e.B, nil
	}
	e.Byte(stateVersion)
	e.String(s.m.sig)
	e.Varint(s.correct)
	e.Varint(s.total)
	s.mat.encode(&e)
	return e.B, nil
}

// DecodeState reads a state written by MarshalBinary of a metric with the same signature.
func (m *Metric) DecodeState(b []byte) (core.State, error) {
	d := core.NewDecoder(b)
	version := d.Byte()
	if d.Err() == nil && version != stateVersion && version != namedStateVersion {
		return nil, fmt.Errorf("%w: classify state format version %d, this build reads versions %d and %d", core.ErrCorruptState, version, stateVersion, namedStateVersion)
	}
	sig := d.String()
	if d.Err() == nil && sig != m.sig {
		return nil, fmt.Errorf("%w: state of %q, metric is %q", core.ErrIncompatible, sig, m.sig)
	}
	if d.Err() == nil && version == namedStateVersion && !m.byName {
		return nil, fmt.Errorf("%w: the state holds class names, the metric takes ids only (num_classes is set)", core.ErrIncompatible)
	}
	s := &State{m: m}
	var bad string
	fail := func(why string) {
		if bad == "" {
			bad = why
		}
	}
	if version == namedStateVersion {
		s.decodeNamed(d, fail)
	} else {
		s.correct = d.Varint()
		s.total = d.Varint()
		if d.Err() == nil && (s.total < 0 || s.correct < 0 || s.correct > s.total) {
			fail("counts out of range")
		}
		if bad == "" {
			s.mat.decode(d, fail)
		}
		if m.byName && s.total > 0 {
			s.seen = seenIDs
		}
	}
	if err := d.Finish(); err != nil {
		return nil, err
	}
	if bad != "" {
		return nil, fmt.Errorf("%w: classify: %s", core.ErrCorruptState, bad)
	}
	if s.total == 0 && (version == namedStateVersion || s.mat.n != 0) {
		// A state without records has no classes, and writes format 2 only once it has seen
		// one: merged into another state, these bytes would grow its matrix or make it
		// "mixed class ids and names".
		return nil, fmt.Errorf("%w: classify: classes or class kinds without records", core.ErrCorruptState)
	}
	if s.dropped() {
		return s, nil
	}
	if m.kind != kAccuracy {
		var sum int64
		over := false
		s.mat.each(func(_, _ int, c int64) {
			sum += c
			if sum < 0 {
				over = true
			}
		})
		if over || sum != s.total || s.correct != 0 {
			return nil, fmt.Errorf("%w: classify: matrix does not add up to the record count", core.ErrCorruptState)
		}
		if m.numClasses > 0 && s.mat.n > m.numClasses && s.seen&seenNames == 0 {
			return nil, fmt.Errorf("%w: classify: %d classes, num_classes is %d", core.ErrCorruptState, s.mat.n, m.numClasses)
		}
	} else if s.mat.n != 0 {
		return nil, fmt.Errorf("%w: classify: accuracy state with a confusion matrix", core.ErrCorruptState)
	}
	return s, nil
}

// CheckIntColumns reports whether Check accepts every record whose prediction is the class
// id cols[0][i] and whose label is cols[1][i] (integer values): every id is in range, and
// accuracy's top_k is 1. It lets the pipeline fold a whole batch of integer columns at once
// with AddIntColumns.
func (m *Metric) CheckIntColumns(cols [][]int64) bool {
	if len(cols) != 2 || len(cols[0]) != len(cols[1]) {
		return false
	}
	if len(cols[0]) == 0 {
		return true
	}
	if m.kind == kAccuracy && m.topK > 1 {
		return false
	}
	lim := uint64(MaxClasses)
	if m.numClasses > 0 {
		lim = uint64(m.numClasses)
	}
	// As unsigned, a negative id is huge. The bitwise OR of the ids bounds their maximum, so
	// it decides the common case in one cheap pass; the exact maximum is the fallback.
	for _, col := range cols {
		if orAll(col) >= lim && maxAll(col) >= lim {
			return false
		}
	}
	return true
}

// orAll is the bitwise OR of xs as unsigned numbers (an upper bound of their maximum).
func orAll(xs []int64) uint64 {
	var a, b, c, d uint64
	i := 0
	for ; i+4 <= len(xs); i += 4 {
		x := xs[i : i+4 : i+4]
		a |= uint64(x[0])
		b |= uint64(x[1])
		c |= uint64(x[2])
		d |= uint64(x[3])
	}
	for ; i < len(xs); i++ {
		a |= uint64(xs[i])
	}
	return a | b | c | d
}

// maxAll is the maximum of xs as unsigned numbers.
func maxAll(xs []int64) uint64 {
	var a, b, c, d uint64
	i := 0
	for ; i+4 <= len(xs); i += 4 {
		x := xs[i : i+4 : i+4]
		a = max(a, uint64(x[0]))
		b = max(b, uint64(x[1]))
		c = max(c, uint64(x[2]))
		d = max(d, uint64(x[3]))
	}
	for ; i < len(xs); i++ {
		a = max(a, uint64(xs[i]))
	}
	return max(a, b, c, d)
}

// AddIntColumns counts, weight times each, the records of a batch of class ids (prediction
// cols[0][i], label cols[1][i]) that CheckIntColumns accepted. The state is exactly the one
// Add of every record would give.
func (s *State) AddIntColumns(cols [][]int64, weight int64) {
	pred, label := cols[0], cols[1]
	n := len(pred)
	if weight <= 0 || n == 0 || len(label) != n {
		return
	}
	label = label[:n]
	s.total += int64(n) * weight
	if s.m.byName && !s.note(seenIDs) {
		return
	}
	if s.m.kind == kAccuracy {
		s.correct += countEqual(pred, label) * weight
		return
	}
	// Grow to the largest id, as Add would. The OR bound avoids the exact maximum when no id
	// can be new (the steady state).
	if bound := orAll(pred) | orAll(label); bound >= uint64(s.mat.n) {
		s.mat.grow(int(max(maxAll(pred), maxAll(label))) + 1) // < MaxClasses: checked
	}
	if s.mat.sparse != nil {
		for i, p := range pred {
			s.mat.sparse[cellKey(int(label[i]), int(p))] += weight
		}
		return
	}
	d, stride := s.mat.dense, int64(s.mat.stride)
	for i, p := range pred {
		d[label[i]*stride+p] += weight
	}
}

// countEqual counts the positions where a and b (of equal length) hold the same value.
func countEqual(a, b []int64) int64 {
	b = b[:len(a)]
	var c0, c1 int64
	i := 0
	for ; i+2 <= len(a); i += 2 {
		c0 += b2i(a[i] == b[i])
		c1 += b2i(a[i+1] == b[i+1])
	}
	if i < len(a) {
		c0 += b2i(a[i] == b[i])
	}
	return c0 + c1
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
