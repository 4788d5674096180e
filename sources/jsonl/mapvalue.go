package jsonl

import (
	"sort"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/sources/internal/fileread"
)

// This file decodes the map values (core.Map: an object of numbers keyed by string, such as a
// retrieval metric's graded relevance) of every format: JSON objects here, Arrow maps and
// lists of key/value structs in mapValueArrow.

// mapValue parses a requested JSON object at d.pos (its own nesting depth is depth). An
// object whose values are all numbers (booleans count 0/1, as in a list) is a core.Map with
// its keys sorted and, of a repeated key, the last value kept: the value core.FromJSON gives
// from encoding/json's decoding. Any other object is Other. bad reports a key holding
// invalid UTF-8 (reported as for a string value; encoding/json would coerce it).
func (d *jsonDecoder) mapValue(depth int) (core.Value, bool, bool) {
	if depth > maxNestingDepth {
		return core.Value{}, false, d.fail(errTooDeep)
	}
	start := d.pos
	d.pos++
	d.ws()
	if d.pos < len(d.buf) && d.buf[d.pos] == '}' {
		d.pos++
		return core.Value{Kind: core.Map, Strs: fileread.EmptyStrs, Floats: emptyFloats}, false, true
	}
	sbase, fbase := len(d.strStack), len(d.fltStack)
	drop := func() {
		clear(d.strStack[sbase:])
		d.strStack, d.fltStack = d.strStack[:sbase], d.fltStack[:fbase]
	}
	anyBad := false
	for {
		if d.pos >= len(d.buf) || d.buf[d.pos] != '"' {
			drop()
			return core.Value{}, false, d.failChar("looking for beginning of object key string")
		}
		key, bad, ok := d.str()
		if !ok {
			drop()
			return core.Value{}, false, false
		}
		anyBad = anyBad || bad
		d.ws()
		if d.pos >= len(d.buf) || d.buf[d.pos] != ':' {
			drop()
			return core.Value{}, false, d.failChar("after object key")
		}
		d.pos++
		d.ws()
		f, isNum, ok := d.mapNumber()
		if !ok {
			drop()
			return core.Value{}, false, false
		}
		if !isNum {
			// Not an object of numbers: validate the whole object again as skipped input.
			drop()
			d.pos = start
			return core.Value{Kind: core.Other}, false, d.skipObject(depth)
		}
		d.strStack = append(d.strStack, key)
		d.fltStack = append(d.fltStack, f)
		d.ws()
		if d.pos >= len(d.buf) {
			drop()
			return core.Value{}, false, d.failChar("after object key:value pair")
		}
		c := d.buf[d.pos]
		d.pos++
		if c == '}' {
			break
		}
		if c != ',' {
			d.pos--
			drop()
			return core.Value{}, false, d.failChar("after object key:value pair")
		}
		d.ws()
	}
	n := len(d.strStack) - sbase
	p := mapPairs{keys: d.strStack[sbase:], vals: d.fltStack[fbase:]}
	sort.Stable(p)
	keys := d.ar.AllocStrs(n)[:0]
	vals := d.ar.AllocFloats(n)[:0]
	for i := range n {
		if i+1 < n && p.keys[i+1] == p.keys[i] {
			continue // a later value of the same key wins
		}
		keys = append(keys, p.keys[i])
		vals = append(vals, p.vals[i])
	}
	drop()
	return core.Value{Kind: core.Map, Strs: keys, Floats: vals}, anyBad, true
}

// mapNumber parses an object member's value when it is a number or a boolean; isNum is false
// (and nothing is consumed) for any other value.
func (d *jsonDecoder) mapNumber() (f float64, isNum, ok bool) {
	if d.pos >= len(d.buf) {
		return 0, false, d.failChar("looking for beginning of value")
	}
	switch c := d.buf[d.pos]; {
	case c == '-' || (c >= '0' && c <= '9'):
		lit, intLit, ok := d.scanNumber()
		if !ok {
			return 0, false, false
		}
		v := numberValue(lit, intLit)
		switch v.Kind {
		case core.Int:
			return float64(v.Int), true, true
		case core.Float:
			return v.Float, true, true
		}
		return 0, false, true
	case c == 't':
		return 1, true, d.literal("true")
	case c == 'f':
		return 0, true, d.literal("false")
	}
	return 0, false, true
}

// mapPairs sorts keys and their values together.
type mapPairs struct {
	keys []string
	vals []float64
}

func (p mapPairs) Len() int           { return len(p.keys) }
func (p mapPairs) Less(i, j int) bool { return p.keys[i] < p.keys[j] }
func (p mapPairs) Swap(i, j int) {
	p.keys[i], p.keys[j] = p.keys[j], p.keys[i]
	p.vals[i], p.vals[j] = p.vals[j], p.vals[i]
}

var emptyFloats = []float64{}
