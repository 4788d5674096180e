package classify

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/evalstream/evalstream/metrics/core"
)

// Class names without the classes option. A state numbers the names it sees in the order it
// first sees them (its local ids, the rows and columns of its matrix), so that folding a record
// never renumbers anything. The class order users see is the sorted order of the names (byte
// order of UTF-8, which is code point order: numpy's np.unique, hence scikit-learn's, on
// Python strings). Results and the serialized form are computed through that order, so they do
// not depend on which state saw which name first; Merge maps the other state's local ids to
// the receiver's by name.

// The kinds of classes a state has seen (State.seen).
const (
	seenIDs   uint8 = 1 << iota // a record of class ids or score lists
	seenNames                   // a record of class names
	tooMany                     // more than max_classes distinct names
)

// nameTable numbers class names: list[id] is the name of local id id. A nameTable is not safe
// for concurrent use; it owns its strings.
type nameTable struct {
	ids  map[string]int
	list []string
}

// id returns the local id of name, numbering it when new. A new name is stored as *owned when
// that is set (a copy the caller already made, shared by several tables), else as a copy that
// is then left in *owned. It reports false, adding nothing, when a new name would exceed max.
func (t *nameTable) id(name string, owned *string, max int) (int, bool) {
	if id, ok := t.ids[name]; ok {
		return id, true
	}
	if len(t.list) >= max {
		return 0, false
	}
	if *owned == "" {
		*owned = strings.Clone(name)
	}
	if t.ids == nil {
		t.ids = make(map[string]int)
	}
	id := len(t.list)
	t.ids[*owned] = id
	t.list = append(t.list, *owned)
	return id, true
}

// note records that the state has seen classes of kind k. It reports false when the state no
// longer counts classes: it has seen both ids and names (nothing says which name an id stands
// for) or too many names. Both conditions are unions over the records, so they hold for the
// merged state of a run whatever the split; the counts are then dropped to free the memory and
// keep equal states' bytes equal.
func (s *State) note(k uint8) bool {
	s.seen |= k
	if s.seen&tooMany != 0 || s.seen&(seenIDs|seenNames) == seenIDs|seenNames {
		s.mat, s.names, s.correct = matrix{}, nameTable{}, 0
		return false
	}
	return true
}

// dropped reports whether note has dropped the counts.
func (s *State) dropped() bool {
	return s.seen&tooMany != 0 || s.seen&(seenIDs|seenNames) == seenIDs|seenNames
}

// foldNamed counts one record of class names.
func (s *State) foldNamed(o outcome, weight int64, owned *[2]string) {
	if s.m.kind == kAccuracy {
		if o.correct {
			s.correct += weight
		}
		return
	}
	t, ok := s.names.id(o.label.name, &owned[0], s.m.maxNames)
	if !ok {
		s.note(tooMany)
		return
	}
	if o.pred.name == o.label.name {
		owned[1] = owned[0]
	}
	p, ok := s.names.id(o.pred.name, &owned[1], s.m.maxNames)
	if !ok {
		s.note(tooMany)
		return
	}
	s.mat.add(t, p, weight)
}

// mergeNamed adds o's named counts, mapping its local ids to the receiver's. o may be s.
func (s *State) mergeNamed(o *State) {
	remap := make([]int, len(o.names.list))
	for i, n := range o.names.list {
		own := n // o's strings are immutable: share them
		id, ok := s.names.id(n, &own, s.m.maxNames)
		if !ok {
			s.note(tooMany)
			return
		}
		remap[i] = id
	}
	if o == s { // adding to the cells being read: read a copy
		for _, c := range o.mat.cells() {
			s.mat.add(remap[c[0]], remap[c[1]], c[2])
		}
		return
	}
	o.mat.each(func(t, p int, c int64) { s.mat.add(remap[t], remap[p], c) })
}

// sortedView returns a state over the sorted names, whose metric names the classes as the
// classes option would: every computation of an id state then applies unchanged. The view
// shares nothing mutable with s.
func (s *State) sortedView() *State {
	names := slices.Clone(s.names.list)
	slices.Sort(names)
	pos := make([]int, len(names)) // local id → sorted position
	for i, n := range names {
		pos[s.names.ids[n]] = i
	}
	view := *s.m
	view.byName, view.names, view.index, view.numClasses = false, names, nil, len(names)
	v := &State{m: &view, correct: s.correct, total: s.total}
	v.mat.grow(len(names))
	s.mat.each(func(t, p int, c int64) { v.mat.add(pos[t], pos[p], c) })
	return v
}

// namedResult is the result of a state that has seen names (or both kinds, or too many), and
// false for a state of ids only, whose result is computed as without names.
func (s *State) namedResult() (core.Result, bool) {
	switch {
	case s.seen&(seenIDs|seenNames) == seenIDs|seenNames:
		return core.Undefined("mixed class ids and names", map[string]any{"records": s.total,
			"help": "some records give classes as ids (or score lists), others as names: give all as names or all as ids, or list the names with the classes option (which maps ids to names)"}), true
	case s.seen&tooMany != 0:
		return core.Undefined("too many classes", map[string]any{"records": s.total, "max_classes": int64(s.m.maxNames),
			"help": fmt.Sprintf("more than max_classes (%d) distinct class names: is the label field free text? raise max_classes if the classes are real", s.m.maxNames)}), true
	case s.seen&seenNames == 0:
		return core.Result{}, false
	}
	if s.m.kind == kAccuracy {
		return s.accuracy(), true
	}
	return s.sortedView().Result(), true
}

// encodeNamed writes a state that has seen names: seen, the counts, the sorted names and the
// matrix over them (equal states give equal bytes).
func (s *State) encodeNamed(e *core.Encoder) {
	v := s.sortedView()
	e.Byte(s.seen)
	e.Varint(s.correct)
	e.Varint(s.total)
	e.Uvarint(uint64(len(v.m.names)))
	for _, n := range v.m.names {
		e.String(n)
	}
	v.mat.encode(e)
}

// decodeNamed reads what encodeNamed wrote into s, reporting problems through fail.
func (s *State) decodeNamed(d *core.Decoder, fail func(string)) {
	s.seen = d.Byte()
	s.correct = d.Varint()
	s.total = d.Varint()
	k := d.Len(1)
	if d.Err() != nil {
		return
	}
	switch {
	case s.seen&seenNames == 0 || s.seen&^(seenIDs|seenNames|tooMany) != 0:
		fail("class kinds out of range")
		return
	case s.total < 0 || s.correct < 0 || s.correct > s.total:
		fail("counts out of range")
		return
	case s.dropped() && (k != 0 || s.correct != 0):
		fail("counts kept for mixed or too many classes")
		return
	case k > s.m.maxNames:
		fail("more names than max_classes")
		return
	case s.m.kind == kAccuracy && k != 0:
		fail("accuracy state with class names")
		return
	}
	for i := 0; i < k; i++ {
		n := d.String()
		if d.Err() != nil {
			return
		}
		if n == "" || !utf8.ValidString(n) || (i > 0 && n <= s.names.list[i-1]) {
			fail("class names empty, not UTF-8 or out of order")
			return
		}
		own := n
		s.names.id(n, &own, k)
	}
	s.mat.decode(d, fail)
	if d.Err() != nil {
		return
	}
	if s.mat.n != k {
		fail("matrix size differs from the number of class names")
		return
	}
	if s.m.kind != kAccuracy && !s.dropped() {
		// A name is kept only with a count, so that the classes are those seen.
		_, pred, tru := s.mat.sums(k)
		for i := range k {
			if pred[i] == 0 && tru[i] == 0 {
				fail("a class name without a count")
				return
			}
		}
	}
}
