package core

import "unsafe"

// Memo is a per-record cache that the metrics folded together share: a metric stores what it
// derived from a record's values (token ids, say) so that another metric reading the same
// values with the same options, or the same metric folding the record into a slice's state,
// does not derive it again. rouge1, rouge2 and rougeL, usually asked for together, tokenize
// and stem a record once.
//
// The folder that owns a Memo calls Next before each record; what was stored for an earlier
// record is stale. A key must name everything the stored value depends on besides the
// record (the options), and the value must record which of the record's values it came from,
// since metrics of one record may read different fields. A nil *Memo stores nothing. A Memo is
// not safe for concurrent use: each worker has its own.
type Memo struct {
	gen     uint64
	entries []memoEntry
}

type memoEntry struct {
	key string
	gen uint64
	val any
}

// Next starts a new record.
func (m *Memo) Next() { m.gen++ }

// Lookup returns the value stored under key and whether it was stored for the current record.
// A stale value is returned too, so that its buffers can be reused by the next Store.
func (m *Memo) Lookup(key string) (val any, current bool) {
	if m == nil {
		return nil, false
	}
	for i := range m.entries {
		if e := &m.entries[i]; e.key == key {
			return e.val, e.gen == m.gen
		}
	}
	return nil, false
}

// Store stores val under key for the current record.
func (m *Memo) Store(key string, val any) {
	if m == nil {
		return
	}
	for i := range m.entries {
		if e := &m.entries[i]; e.key == key {
			e.gen, e.val = m.gen, val
			return
		}
	}
	m.entries = append(m.entries, memoEntry{key: key, gen: m.gen, val: val})
}

// ValueID identifies a value of a record by the memory it occupies (not by content, which
// would cost as much as scoring): the overall state and a slice's state folding the same
// record see the same memory. It holds addresses only, so that nothing of the record is kept
// alive; a Memo value that depends on some of a record's values records their ValueIDs.
type ValueID struct {
	kind                Kind
	str, strs, lists    uintptr
	nStr, nStrs, nLists int
}

// Identify returns v's ValueID.
func Identify(v Value) ValueID {
	return ValueID{
		kind: v.Kind,
		str:  uintptr(unsafe.Pointer(unsafe.StringData(v.Str))), nStr: len(v.Str),
		strs: uintptr(unsafe.Pointer(unsafe.SliceData(v.Strs))), nStrs: len(v.Strs),
		lists: uintptr(unsafe.Pointer(unsafe.SliceData(v.Lists))), nLists: len(v.Lists),
	}
}
