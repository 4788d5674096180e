package prob

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/evalstream/evalstream/metrics/core"
)

// Class names as log_loss labels. scikit-learn orders string labels by code point and reads
// probability column j as that of the j-th label (a binary p as the columns [1 − p, p]): a
// record of the name at sorted position j scores −log p_j. That position is known only once
// every record is seen, so a state keeps, per name, one exact sum per column and picks column
// position(name) at Result; merges add them by name. Entries are sorted by name, so equal
// states have equal bytes. brier keeps its one sum per name in column 0.

// namedStateVersion is the format of a log_loss state that has seen class names; a state of
// class ids keeps stateVersion and its bytes.
const namedStateVersion = 2

// The kinds of labels a state has seen.
const (
	seenIDs   uint8 = 1 << iota // a record with a class id
	seenNames                   // a record with a class name
	tooMany                     // more class names than the state keeps
)

// nameSums holds the records of one class name.
type nameSums struct {
	name string
	n    int64
	cols []core.Sum // log_loss: Σ −log p_j per column j; brier: the sum in cols[0]
}

// MaxNameClasses bounds the class names of a log_loss state (and the width of a probability
// list with a class-name label): a state keeps names × columns exact sums.
const MaxNameClasses = 256

// names is the class-name part of a log_loss or brier state. It is not safe for concurrent
// use.
type names struct {
	seen    uint8
	max     int        // the most names kept; more is tooMany
	entries []nameSums // sorted by name
}

// grow makes e hold at least k columns.
func (e *nameSums) grow(k int) {
	for len(e.cols) < k {
		e.cols = append(e.cols, core.Sum{})
	}
}

func (t *names) dropped() bool {
	return t.seen&tooMany != 0 || t.seen&(seenIDs|seenNames) == seenIDs|seenNames
}

// note records that the state has seen k and reports whether it still counts names. A
// state that stopped counting has no defined result whatever else it sees.
func (t *names) note(k uint8) bool {
	t.seen |= k
	if t.dropped() {
		t.entries = nil
		return false
	}
	return true
}

// entry returns the sums of name, adding them when new (copying name), or nil for a third
// name.
func (t *names) entry(name string) *nameSums {
	i, ok := slices.BinarySearchFunc(t.entries, name, func(e nameSums, n string) int { return strings.Compare(e.name, n) })
	if ok {
		return &t.entries[i]
	}
	if len(t.entries) >= t.max {
		t.note(tooMany)
		return nil
	}
	t.entries = slices.Insert(t.entries, i, nameSums{name: strings.Clone(name)})
	return &t.entries[i]
}

// merge adds o's names and sums.
func (t *names) merge(o *names) {
	if !t.note(o.seen) {
		return
	}
	for i := range o.entries {
		oe := &o.entries[i]
		e := t.entry(oe.name)
		if e == nil {
			return
		}
		if e == oe { // merging a state with itself: double what is read
			e.n *= 2
			for j := range e.cols {
				c := e.cols[j].Clone()
				e.cols[j].Merge(&c)
			}
			continue
		}
		e.n += oe.n
		e.grow(len(oe.cols))
		for j := range oe.cols {
			e.cols[j].Merge(&oe.cols[j])
		}
	}
}

func (t *names) encode(e *core.Encoder) {
	e.Byte(t.seen)
	e.Uvarint(uint64(len(t.entries)))
	for i := range t.entries {
		x := &t.entries[i]
		e.String(x.name)
		e.Varint(x.n)
		e.Uvarint(uint64(len(x.cols)))
		for j := range x.cols {
			e.Sum(&x.cols[j])
		}
	}
}

func (t *names) decode(d *core.Decoder, max int) error {
	t.max = max
	t.seen = d.Byte()
	k := d.Len(4)
	for i := 0; i < k && d.Err() == nil; i++ {
		x := nameSums{name: d.String(), n: d.Varint()}
		nc := d.Len(1)
		if d.Err() == nil && nc > MaxNameClasses+1 {
			return corrupt(fmt.Sprintf("%d columns", nc))
		}
		for j := 0; j < nc && d.Err() == nil; j++ {
			x.cols = append(x.cols, d.Sum())
		}
		if d.Err() != nil {
			break
		}
		if x.name == "" || !utf8.ValidString(x.name) || (i > 0 && x.name <= t.entries[i-1].name) {
			return corrupt("class names not distinct sorted UTF-8")
		}
		if x.n <= 0 {
			return corrupt("a class name without records")
		}
		t.entries = append(t.entries, x)
	}
	if err := d.Err(); err != nil {
		return err
	}
	switch {
	case t.seen&^(seenIDs|seenNames|tooMany) != 0 || t.seen&^seenIDs == 0:
		return corrupt(fmt.Sprintf("label kinds %#x", t.seen))
	case t.dropped() && len(t.entries) != 0:
		return corrupt("class names in a state that no longer counts")
	case !t.dropped() && (len(t.entries) == 0 || len(t.entries) > t.max):
		return corrupt(fmt.Sprintf("%d class names", len(t.entries)))
	}
	return nil
}

// colTerm returns the record's −log p_j, with p rounded and clipped as scikit-learn does (see
// LogLoss.term); a binary p is the columns [1 − p, p].
func (m *LogLoss) colTerm(r *record, j int) float64 {
	var q float64
	if r.width == 1 {
		q = m.clip(r.p)
		if j == 0 {
			q = 1 - q
		}
	} else {
		q = m.clip(r.xs[j])
	}
	return -math.Log(min(max(q, machineEps), 1-machineEps))
}

// namedResult is the result of a state that has seen class names.
func (s *LogLossState) namedResult(details map[string]any) core.Result {
	t := &s.names
	if r, undefined := t.undefined(s.shape, details); undefined {
		return r
	}
	cls := make([]string, len(t.entries))
	for i := range t.entries {
		cls[i] = t.entries[i].name
	}
	details["classes"] = cls
	if len(t.entries) < 2 {
		details["help"] = fmt.Sprintf("scikit-learn raises: y_true contains only one label (%s)", cls[0])
		return core.Undefined("fewer than 2 classes", details)
	}
	c := max(s.shape.width, 2)
	if len(t.entries) != c {
		details["columns"] = c
		details["help"] = fmt.Sprintf("scikit-learn raises: y_true and y_prob contain different number of classes: %d vs %d", len(t.entries), c)
		return core.Undefined("class count mismatch", details)
	}
	var sum core.Sum
	for i := range t.entries {
		if i < len(t.entries[i].cols) {
			sum.Merge(&t.entries[i].cols[i])
		}
	}
	v := sum.Float()
	if s.m.normalize {
		v /= float64(s.n)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return core.Undefined("overflow", details)
	}
	return core.Result{Value: v, Details: details}
}

// marshalNamed writes a sumState (format version 1, unchanged) or, once it has seen class
// names, format version 2: the same fields followed by the names part.
func marshalNamed(ss *sumState, t *names, sig string) []byte {
	b := ss.marshal(sig)
	if t.seen == 0 {
		return b
	}
	b[0] = namedStateVersion
	e := core.Encoder{B: b}
	t.encode(&e)
	return e.B
}

// unmarshalNamed reads what marshalNamed wrote for the metric name with signature sig. cols
// is the number of sums the metric keeps per name for records of prediction width w: a
// state whose names hold another number is corrupt, since its result would read a column
// that is not there or skip one that is.
func unmarshalNamed(b []byte, name, sig string, maxNames int, cols func(w int) int) (sumState, names, error) {
	if len(b) == 0 || b[0] != namedStateVersion {
		ss, err := unmarshalSumState(b, name, sig)
		return ss, names{max: maxNames}, err
	}
	d := core.NewDecoder(b[1:])
	got := d.String()
	if d.Err() == nil && got != sig {
		return sumState{}, names{}, incompatible(got, sig)
	}
	ss := sumState{shape: newShape()}
	ss.n = d.Varint()
	ss.sum = d.Sum()
	var t names
	if err := ss.shape.decode(d); err != nil {
		return sumState{}, names{}, err
	}
	if err := t.decode(d, maxNames); err != nil {
		return sumState{}, names{}, err
	}
	if err := d.Finish(); err != nil {
		return sumState{}, names{}, err
	}
	var named int64
	for i := range t.entries {
		if named+t.entries[i].n < named {
			return sumState{}, names{}, corrupt(name + ": record counts overflow")
		}
		named += t.entries[i].n
	}
	switch {
	case ss.n <= 0 || named > ss.n:
		return sumState{}, names{}, corrupt(name + ": record counts")
	case t.dropped() && (!ss.sum.IsZero() || ss.shape.maxLabel != -1):
		return sumState{}, names{}, corrupt(name + ": sums in a state that no longer counts")
	case !t.dropped() && (named != ss.n || !ss.sum.IsZero() || ss.shape.maxLabel != -1):
		return sumState{}, names{}, corrupt(name + ": class ids in a state of class names")
	case ss.shape.width == 0:
		return sumState{}, names{}, corrupt(name + ": records without a prediction width")
	}
	if t.dropped() {
		return ss, t, nil
	}
	// Every record of a state that still counts names has a class name, so its width is one
	// readNamed accepts with a name, and every name holds the sums of that width (a ragged
	// state: of some width, its result being null whatever they hold).
	if ss.shape.width > MaxNameClasses {
		return sumState{}, names{}, corrupt(fmt.Sprintf("%s: %d probabilities with class names", name, ss.shape.width))
	}
	lo, hi := cols(ss.shape.width), cols(ss.shape.width)
	if ss.shape.ragged {
		lo, hi = cols(1), cols(MaxNameClasses)
	}
	for i := range t.entries {
		if nc := len(t.entries[i].cols); nc < lo || nc > hi {
			return sumState{}, names{}, corrupt(fmt.Sprintf("%s: class name %q with %d sums, want %d for %d probabilities", name, t.entries[i].name, nc, cols(ss.shape.width), ss.shape.width))
		}
	}
	return ss, t, nil
}

// undefined is the result shared by every state that has seen class names when its labels
// cannot be scored: ids mixed with names, too many names, or ragged score lists.
func (t *names) undefined(sh shape, details map[string]any) (core.Result, bool) {
	switch {
	case t.seen&(seenIDs|seenNames) == seenIDs|seenNames:
		details["help"] = "some labels are class ids, others class names: give all labels in one form"
		return core.Undefined("mixed class ids and names", details), true
	case t.seen&tooMany != 0:
		details["help"] = fmt.Sprintf("more than %d distinct class names: is the label field free text?", t.max)
		return core.Undefined("too many class names", details), true
	case sh.ragged:
		return core.Undefined("ragged scores", details), true
	}
	return core.Result{}, false
}
