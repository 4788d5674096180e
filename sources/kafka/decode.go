package kafka

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/ipc"
	"github.com/apache/arrow/go/v15/arrow/memory"
	kafkago "github.com/segmentio/kafka-go"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/pipeline"
)

// Metadata field names. A record field of the same name, when present in the message,
// takes precedence over the metadata.
const (
	FieldKey          = "key"
	FieldPartition    = "partition"
	FieldOffset       = "offset"
	FieldTimestamp    = "timestamp"
	FieldHeaderPrefix = "header."
)

// Bad-record reasons produced while decoding messages.
const (
	ReasonInvalidJSON  = "invalid json"
	ReasonInvalidArrow = "invalid arrow"
	ReasonInvalidUTF8  = "invalid utf-8"
	ReasonTooLarge     = "record too large"
)

// seqOf is the order key of a message: partition in the top 16 bits, offset below. Rows of
// one Arrow message share their message's key.
func seqOf(partition int, offset int64) uint64 {
	return uint64(partition)<<48 | uint64(offset)&(1<<48-1)
}

type metaKind uint8

const (
	metaNone metaKind = iota
	metaKey
	metaPartition
	metaOffset
	metaTimestamp
	metaHeader
)

// Decoder turns message values into records projected onto the configured fields. It is
// not safe for concurrent use; each partition consumer has its own. Returned records own
// their memory (nothing aliases the message).
type Decoder struct {
	format   string
	fields   []string
	maxBytes int
	meta     []metaKind
	header   []string
}

// NewDecoder returns a decoder of "json" or "arrow" message values.
func NewDecoder(format string, fields []string, maxRecordBytes int) *Decoder {
	d := &Decoder{format: format, fields: fields, maxBytes: maxRecordBytes, meta: make([]metaKind, len(fields)), header: make([]string, len(fields))}
	if d.maxBytes <= 0 {
		d.maxBytes = DefaultMaxRecordBytes
	}
	for i, f := range fields {
		switch {
		case f == FieldKey:
			d.meta[i] = metaKey
		case f == FieldPartition:
			d.meta[i] = metaPartition
		case f == FieldOffset:
			d.meta[i] = metaOffset
		case f == FieldTimestamp:
			d.meta[i] = metaTimestamp
		case strings.HasPrefix(f, FieldHeaderPrefix):
			d.meta[i] = metaHeader
			d.header[i] = f[len(FieldHeaderPrefix):]
		}
	}
	return d
}

// Decode returns the records of one message: one for a JSON message, one per row for an
// Arrow stream. A message that cannot be decoded yields one record with Err set and Raw
// holding the value, so it is counted as bad, never dropped.
func (d *Decoder) Decode(m *kafkago.Message) []pipeline.Record {
	base := pipeline.Record{
		Seq: seqOf(m.Partition, m.Offset),
		Pos: pipeline.Position{Topic: m.Topic, Partition: m.Partition, Offset: m.Offset, Row: -1},
		Raw: m.Value,
	}
	bad := func(reason, field, detail string) []pipeline.Record {
		r := base
		r.Values = make([]core.Value, len(d.fields))
		d.fillMeta(r.Values, m)
		r.Err = &core.RecordError{Reason: reason, Field: field, Detail: detail}
		return []pipeline.Record{r}
	}
	if len(m.Value) > d.maxBytes {
		return bad(ReasonTooLarge, "", fmt.Sprintf("the message value has %d bytes, more than max_record_bytes=%d", len(m.Value), d.maxBytes))
	}
	if d.format == "arrow" {
		recs, err := d.decodeArrow(m.Value, base)
		if err != nil {
			return bad(ReasonInvalidArrow, "", err.Error())
		}
		for i := range recs {
			d.fillMeta(recs[i].Values, m)
		}
		return recs
	}
	r := base
	r.Values = make([]core.Value, len(d.fields))
	if rerr := d.decodeJSON(m.Value, r.Values); rerr != nil {
		clear(r.Values)
		r.Err = rerr
	}
	d.fillMeta(r.Values, m)
	return []pipeline.Record{r}
}

// fillMeta sets metadata fields the record does not have itself.
func (d *Decoder) fillMeta(vals []core.Value, m *kafkago.Message) {
	for i, k := range d.meta {
		if k == metaNone || vals[i].Kind != core.Missing {
			continue
		}
		switch k {
		case metaKey:
			if m.Key == nil {
				vals[i] = core.Value{Kind: core.Null}
			} else {
				vals[i] = core.Value{Kind: core.String, Str: string(m.Key)}
			}
		case metaPartition:
			vals[i] = core.Value{Kind: core.Int, Int: int64(m.Partition)}
		case metaOffset:
			vals[i] = core.Value{Kind: core.Int, Int: m.Offset}
		case metaTimestamp:
			if !m.Time.IsZero() {
				vals[i] = core.Value{Kind: core.String, Str: m.Time.UTC().Format(time.RFC3339Nano)}
			}
		case metaHeader:
			for _, h := range m.Headers {
				if h.Key == d.header[i] {
					vals[i] = core.Value{Kind: core.String, Str: string(h.Value)}
				}
			}
		}
	}
}

// decodeJSON reads one JSON object, like a JSONL line: the values are those of
// core.FromJSON applied to encoding/json's decoding with UseNumber.
func (d *Decoder) decodeJSON(b []byte, out []core.Value) *core.RecordError {
	if len(bytes.TrimSpace(b)) == 0 {
		return &core.RecordError{Reason: ReasonInvalidJSON, Detail: "empty message"}
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		return &core.RecordError{Reason: ReasonInvalidJSON, Detail: jsonDetail(err)}
	}
	if obj == nil {
		return &core.RecordError{Reason: ReasonInvalidJSON, Detail: "expected a JSON object, got null"}
	}
	validUTF8 := utf8.Valid(b)
	for i, f := range d.fields {
		raw, ok := obj[f]
		if !ok {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var x any
		if err := dec.Decode(&x); err != nil {
			return &core.RecordError{Reason: ReasonInvalidJSON, Field: f, Detail: jsonDetail(err)}
		}
		v := core.FromJSON(x)
		if !validUTF8 && !utf8.Valid(raw) {
			switch v.Kind {
			case core.String, core.StringList, core.StringLists:
				return &core.RecordError{Reason: ReasonInvalidUTF8, Field: f, Detail: "string value is not valid UTF-8"}
			}
		}
		out[i] = v
	}
	return nil
}

func jsonDetail(err error) string {
	if se, ok := err.(*json.SyntaxError); ok {
		return fmt.Sprintf("%v at byte %d", se, se.Offset)
	}
	if te, ok := err.(*json.UnmarshalTypeError); ok && te.Field == "" {
		return "expected a JSON object, got " + te.Value
	}
	return err.Error()
}

// decodeArrow reads an Arrow IPC stream; arrow-go panics on some malformed input, which
// is recovered here and reported as an error.
func (d *Decoder) decodeArrow(b []byte, base pipeline.Record) (recs []pipeline.Record, err error) {
	defer func() {
		if p := recover(); p != nil {
			recs, err = nil, fmt.Errorf("malformed Arrow IPC stream: %v", p)
		}
	}()
	rd, err := ipc.NewReader(bytes.NewReader(b), ipc.WithAllocator(memory.NewGoAllocator()))
	if err != nil {
		return nil, fmt.Errorf("not an Arrow IPC stream: %v", err)
	}
	defer rd.Release()
	cols := make([]int, len(d.fields))
	schema := rd.Schema()
	for i, f := range d.fields {
		cols[i] = -1
		if idx := schema.FieldIndices(f); len(idx) > 0 {
			cols[i] = idx[0]
		}
	}
	row := int64(0)
	for rd.Next() {
		rec := rd.Record()
		n := int(rec.NumRows())
		start := len(recs)
		for k := 0; k < n; k++ {
			r := base
			r.Pos.Row = row + int64(k)
			r.Values = make([]core.Value, len(d.fields))
			recs = append(recs, r)
		}
		for i, c := range cols {
			if c < 0 {
				continue
			}
			col := rec.Column(c)
			for k := 0; k < n; k++ {
				recs[start+k].Values[i] = arrowValue(col, k)
			}
		}
		row += int64(n)
	}
	if err := rd.Err(); err != nil {
		return nil, fmt.Errorf("reading Arrow IPC stream: %v", err)
	}
	return recs, nil
}

// arrowValue converts row i of arr with the mapping of the file sources: integers -> Int
// (uint64 beyond int64 -> Float), floats -> Float, bool -> Bool, string-like -> String,
// list<string> -> StringList, list<list<string>> -> StringLists, list<number> -> FloatList,
// an empty list -> an empty StringList, null -> Null, anything else (or a list holding a
// null) -> Other. Strings are copied.
func arrowValue(arr arrow.Array, i int) core.Value {
	if arr.IsNull(i) {
		return core.Value{Kind: core.Null}
	}
	switch a := arr.(type) {
	case *array.Null:
		return core.Value{Kind: core.Null}
	case *array.Int8:
		return core.Value{Kind: core.Int, Int: int64(a.Value(i))}
	case *array.Int16:
		return core.Value{Kind: core.Int, Int: int64(a.Value(i))}
	case *array.Int32:
		return core.Value{Kind: core.Int, Int: int64(a.Value(i))}
	case *array.Int64:
		return core.Value{Kind: core.Int, Int: a.Value(i)}
	case *array.Uint8:
		return core.Value{Kind: core.Int, Int: int64(a.Value(i))}
	case *array.Uint16:
		return core.Value{Kind: core.Int, Int: int64(a.Value(i))}
	case *array.Uint32:
		return core.Value{Kind: core.Int, Int: int64(a.Value(i))}
	case *array.Uint64:
		if v := a.Value(i); v > math.MaxInt64 {
			return core.Value{Kind: core.Float, Float: float64(v)}
		} else {
			return core.Value{Kind: core.Int, Int: int64(v)}
		}
	case *array.Float16:
		return core.Value{Kind: core.Float, Float: float64(a.Value(i).Float32())}
	case *array.Float32:
		return core.Value{Kind: core.Float, Float: float64(a.Value(i))}
	case *array.Float64:
		return core.Value{Kind: core.Float, Float: a.Value(i)}
	case *array.Boolean:
		if a.Value(i) {
			return core.Value{Kind: core.Bool, Int: 1}
		}
		return core.Value{Kind: core.Bool}
	}
	if s, ok := arrowString(arr, i); ok {
		return core.Value{Kind: core.String, Str: s}
	}
	child, s, e, ok := listBounds(arr, i)
	if !ok {
		return core.Value{Kind: core.Other}
	}
	if s == e {
		return core.Value{Kind: core.StringList, Strs: []string{}}
	}
	if isStringLike(child.DataType()) {
		strs := make([]string, 0, e-s)
		for k := s; k < e; k++ {
			str, ok := arrowString(child, k)
			if !ok {
				return core.Value{Kind: core.Other}
			}
			strs = append(strs, str)
		}
		return core.Value{Kind: core.StringList, Strs: strs}
	}
	if _, _, _, isList := listBounds(child, -1); isList {
		lists := make([][]string, 0, e-s)
		for k := s; k < e; k++ {
			inner, s2, e2, ok := listBounds(child, k)
			if !ok || !isStringLike(inner.DataType()) {
				return core.Value{Kind: core.Other}
			}
			toks := make([]string, 0, e2-s2)
			for j := s2; j < e2; j++ {
				str, ok := arrowString(inner, j)
				if !ok {
					return core.Value{Kind: core.Other}
				}
				toks = append(toks, str)
			}
			lists = append(lists, toks)
		}
		return core.Value{Kind: core.StringLists, Lists: lists}
	}
	fl := make([]float64, 0, e-s)
	for k := s; k < e; k++ {
		v := arrowValue(child, k)
		f, ok := v.Number()
		if !ok || v.Kind == core.Null {
			return core.Value{Kind: core.Other}
		}
		fl = append(fl, f)
	}
	return core.Value{Kind: core.FloatList, Floats: fl}
}

func isStringLike(dt arrow.DataType) bool {
	switch dt.ID() {
	case arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW:
		return true
	case arrow.DICTIONARY:
		return isStringLike(dt.(*arrow.DictionaryType).ValueType)
	}
	return false
}

// arrowString returns row i of a string-like array (copied); ok is false for a null or a
// non-string array.
func arrowString(arr arrow.Array, i int) (string, bool) {
	if arr.IsNull(i) {
		return "", false
	}
	switch a := arr.(type) {
	case *array.String:
		return strings.Clone(a.Value(i)), true
	case *array.LargeString:
		return strings.Clone(a.Value(i)), true
	case *array.StringView:
		return strings.Clone(a.Value(i)), true
	case *array.Dictionary:
		return arrowString(a.Dictionary(), a.GetValueIndex(i))
	}
	return "", false
}

// listBounds returns the child array and the child range of row i of a list-like array;
// with i < 0 it only reports whether arr is list-like.
func listBounds(arr arrow.Array, i int) (arrow.Array, int, int, bool) {
	var child arrow.Array
	var s, e int64
	switch a := arr.(type) {
	case *array.List:
		child = a.ListValues()
		if i >= 0 {
			if a.IsNull(i) {
				return nil, 0, 0, false
			}
			s, e = a.ValueOffsets(i)
		}
	case *array.LargeList:
		child = a.ListValues()
		if i >= 0 {
			if a.IsNull(i) {
				return nil, 0, 0, false
			}
			s, e = a.ValueOffsets(i)
		}
	case *array.FixedSizeList:
		child = a.ListValues()
		if i >= 0 {
			if a.IsNull(i) {
				return nil, 0, 0, false
			}
			s, e = a.ValueOffsets(i)
		}
	default:
		return nil, 0, 0, false
	}
	if i >= 0 && (s < 0 || e < s || int(e) > child.Len()) {
		panic("list offsets out of range")
	}
	return child, int(s), int(e), true
}
