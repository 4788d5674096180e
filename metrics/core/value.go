// Package core holds the types every metric shares: the record values a metric reads, the
// Metric and State interfaces, option parsing, exactly rounded float sums and the binary
// codec used to serialize states. It is pure: no I/O, no goroutines.
package core

import (
	"fmt"
	"math"
	"slices"
)

// Kind is the shape of a Value.
type Kind uint8

// The value kinds a source can produce.
const (
	Missing     Kind = iota // the field is absent from the record
	Null                    // the field is present but null
	String                  // Str
	StringList              // Strs: list<string>
	StringLists             // Lists: list<list<string>>
	Int                     // Int: an integer
	Float                   // Float: a floating-point number
	FloatList               // Floats: list<float> (integers are widened)
	Bool                    // Int is 0 or 1
	Other                   // any other shape (mixed lists, objects of non-numbers); never accepted by a metric
	// Map is an object of numbers keyed by string (a JSON object, an Arrow or Parquet
	// map<string|integer, number> or list<struct<key, value>>): Strs holds the keys and
	// Floats the values, pairwise. Integer keys are rendered in decimal. Keys may repeat (an
	// Arrow map can hold a key twice; JSON objects keep only the last, as every JSON reader
	// does), so a metric that needs unique keys checks them.
	Map
)

var kindNames = [...]string{"missing", "null", "string", "list<string>", "list<list<string>>", "integer", "float", "list<float>", "bool", "other", "map<string, number>"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", k)
}

// Value is one field of a record. Only the member that matches Kind is meaningful (a Map
// uses Strs and Floats together). Strings and
// slices may alias the source's buffers: a metric must not retain them beyond State.Add
// (copy what it keeps).
type Value struct {
	Kind   Kind
	Str    string
	Strs   []string
	Lists  [][]string
	Int    int64
	Float  float64
	Floats []float64
}

// Present reports whether the field exists and is not null.
func (v Value) Present() bool { return v.Kind != Missing && v.Kind != Null }

// Number returns the value as a float64 when it is an integer or a float.
func (v Value) Number() (float64, bool) {
	switch v.Kind {
	case Int, Bool:
		return float64(v.Int), true
	case Float:
		return v.Float, true
	}
	return 0, false
}

// Example is one record as a metric sees it: the values of the fields the metric's roles map
// to. Values indexed by role follow the order of Metric.Roles. Seq is the record's global
// position in the input (file index and row, or partition and offset); only metrics whose
// reference semantics depend on input order use it.
type Example struct {
	Values []Value
	Seq    uint64
	// UTF8Checked promises that every string in Values is valid UTF-8: the source validated
	// them (the JSON decoders do), so metrics need not validate them again.
	UTF8Checked bool
	// Memo, when set, is shared by the metrics the record is folded into (see Memo).
	Memo *Memo
	// Unit identifies the record's resampling unit for the bootstrap (a hash of its key
	// field, or of its position): records with the same Unit get the same weights.
	Unit uint64
}

// FromJSON converts a value decoded by encoding/json (with UseNumber) or a Go literal into a
// Value. It never fails: shapes no metric accepts become Kind Other.
func FromJSON(x any) Value {
	switch t := x.(type) {
	case nil:
		return Value{Kind: Null}
	case string:
		return Value{Kind: String, Str: t}
	case bool:
		if t {
			return Value{Kind: Bool, Int: 1}
		}
		return Value{Kind: Bool}
	case float64:
		return Value{Kind: Float, Float: t}
	case int:
		return Value{Kind: Int, Int: int64(t)}
	case int64:
		return Value{Kind: Int, Int: t}
	case interface{ Int64() (int64, error) }: // json.Number
		s := fmt.Sprint(t)
		if i, err := t.Int64(); err == nil && isIntLiteral(s) {
			return Value{Kind: Int, Int: i}
		}
		if f, ok := x.(interface{ Float64() (float64, error) }); ok {
			if v, err := f.Float64(); err == nil || math.IsInf(v, 0) {
				return Value{Kind: Float, Float: v}
			}
		}
		return Value{Kind: Other}
	case []string:
		return Value{Kind: StringList, Strs: t}
	case []float64:
		return Value{Kind: FloatList, Floats: t}
	case [][]string:
		return Value{Kind: StringLists, Lists: t}
	case []any:
		return listFromJSON(t)
	case map[string]any:
		return mapFromJSON(t)
	}
	return Value{Kind: Other}
}

// mapFromJSON converts an object whose values are all numbers (or booleans, counted as 0/1
// as in a list) into a Map with its keys sorted, so that the value does not depend on Go's
// map order; any other object is Other.
func mapFromJSON(t map[string]any) Value {
	keys := make([]string, 0, len(t))
	for k := range t {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	vals := make([]float64, len(keys))
	for i, k := range keys {
		f, ok := FromJSON(t[k]).Number()
		if !ok {
			return Value{Kind: Other}
		}
		vals[i] = f
	}
	return Value{Kind: Map, Strs: keys, Floats: vals}
}

func isIntLiteral(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9') && !(i == 0 && c == '-') {
			return false
		}
	}
	return true
}

func listFromJSON(t []any) Value {
	if len(t) == 0 {
		// An empty list fits every list role; StringList is the most common meaning.
		return Value{Kind: StringList, Strs: []string{}}
	}
	switch t[0].(type) {
	case string:
		out := make([]string, len(t))
		for i, e := range t {
			s, ok := e.(string)
			if !ok {
				return Value{Kind: Other}
			}
			out[i] = s
		}
		return Value{Kind: StringList, Strs: out}
	case []any:
		out := make([][]string, len(t))
		for i, e := range t {
			inner, ok := e.([]any)
			if !ok {
				return Value{Kind: Other}
			}
			toks := make([]string, len(inner))
			for j, x := range inner {
				s, ok := x.(string)
				if !ok {
					return Value{Kind: Other}
				}
				toks[j] = s
			}
			out[i] = toks
		}
		return Value{Kind: StringLists, Lists: out}
	default:
		out := make([]float64, len(t))
		for i, e := range t {
			v := FromJSON(e)
			f, ok := v.Number()
			if !ok {
				return Value{Kind: Other}
			}
			out[i] = f
		}
		return Value{Kind: FloatList, Floats: out}
	}
}
