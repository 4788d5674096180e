package kafka

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"
	kafkago "github.com/segmentio/kafka-go"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/stats"
	"github.com/evalstream/evalstream/pipeline"
	arrowsrc "github.com/evalstream/evalstream/sources/arrow"
	"github.com/evalstream/evalstream/sources/jsonl"
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
	// ReasonTombstone is a message whose value is null: in a compacted topic, the deletion
	// of its key. kafka-go's batch reader (read_uncommitted) returns an empty value as null
	// too, so there an empty message is reported as a tombstone; the read_committed fetcher
	// tells them apart (an empty value is invalid JSON or Arrow).
	ReasonTombstone = "tombstone (null value)"
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
// not safe for concurrent use; each partition consumer has its own.
//
// Returned records own their memory: their strings, lists and Raw alias a private copy of
// the message value, never the message itself, so the caller may reuse or modify m's buffers
// once Decode returns. They stay valid after later calls of Decode, until Reset, which lets
// the decoder reuse their memory.
type Decoder struct {
	format   string
	fields   []string
	maxBytes int
	meta     []metaKind
	hasMeta  bool // some field is metadata
	header   []string
	json     *jsonl.Decoder

	// Chunks records are carved from. A full chunk is dropped, so the records carved from
	// it keep it; the current chunks are reused after Reset.
	bytes []byte
	vals  []core.Value
	recs  []pipeline.Record
}

const (
	chunkBytes = 256 << 10
	chunkRecs  = 256
)

// NewDecoder returns a decoder of "json" or "arrow" message values.
func NewDecoder(format string, fields []string, maxRecordBytes int) *Decoder {
	d := &Decoder{format: format, fields: fields, maxBytes: maxRecordBytes, meta: make([]metaKind, len(fields)), header: make([]string, len(fields))}
	if d.maxBytes <= 0 {
		d.maxBytes = DefaultMaxRecordBytes
	}
	if format != "arrow" {
		d.json = jsonl.NewDecoder(fields)
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
		d.hasMeta = d.hasMeta || d.meta[i] != metaNone
	}
	return d
}

// Reset lets the decoder reuse the memory of every record it has returned: those records
// (their values, strings and Raw) must not be used afterwards.
func (d *Decoder) Reset() {
	d.bytes, d.vals, d.recs = d.bytes[:0], d.vals[:0], d.recs[:0]
	if d.json != nil {
		d.json.Reset()
	}
}

// own returns a copy of b that the decoder does not touch again before Reset (nil for nil).
func (d *Decoder) own(b []byte) []byte {
	if b == nil {
		return nil
	}
	if len(b) == 0 {
		return []byte{}
	}
	if len(b) > chunkBytes/8 {
		return bytes.Clone(b)
	}
	if cap(d.bytes)-len(d.bytes) < len(b) {
		d.bytes = make([]byte, 0, chunkBytes)
	}
	l := len(d.bytes)
	d.bytes = append(d.bytes, b...)
	return d.bytes[l : l+len(b) : l+len(b)]
}

// values returns len(d.fields) zero values that the decoder does not hand out again
// before Reset.
func (d *Decoder) values() []core.Value {
	n := len(d.fields)
	if cap(d.vals)-len(d.vals) < n {
		d.vals = make([]core.Value, 0, max(n, chunkRecs*n))
	}
	l := len(d.vals)
	d.vals = d.vals[:l+n]
	v := d.vals[l : l+n : l+n]
	clear(v) // reused after Reset
	return v
}

// one returns a slice of one zero record that the decoder does not hand out again before
// Reset.
func (d *Decoder) one() []pipeline.Record {
	if len(d.recs) == cap(d.recs) {
		d.recs = make([]pipeline.Record, 0, chunkRecs)
	}
	l := len(d.recs)
	d.recs = d.recs[:l+1]
	r := d.recs[l : l+1 : l+1]
	r[0] = pipeline.Record{} // reused after Reset
	return r
}

// Decode returns the records of one message: one for a JSON message, one per row for an
// Arrow stream. A message that cannot be decoded yields one record with Err set and Raw
// holding the value, so it is counted as bad, never dropped. Metadata fields (key,
// partition, offset, timestamp, header.X) the record lacks are filled from m, bad records
// included (for slicing and dead letters).
func (d *Decoder) Decode(m *kafkago.Message) []pipeline.Record {
	if d.format == "arrow" || len(m.Value) > d.maxBytes || m.Value == nil {
		return d.decodeOther(m)
	}
	recs := d.one()
	r := &recs[0]
	r.Seq = seqOf(m.Partition, m.Offset)
	r.Unit = unitOf(m)
	r.Pos = pipeline.Position{Topic: m.Topic, Partition: m.Partition, Offset: m.Offset, Row: -1}
	r.Raw = d.own(m.Value)
	r.Values = d.values()
	blank, rerr := d.json.Decode(r.Raw, r.Values)
	if blank {
		rerr = &core.RecordError{Reason: ReasonInvalidJSON, Detail: "empty message"}
	}
	if rerr != nil {
		clear(r.Values)
		r.Err = rerr
	}
	// The JSON decoder validates every string it returns; metadata strings are checked as
	// they are filled in.
	r.UTF8Checked = rerr == nil
	if d.hasMeta && !d.fillMeta(r.Values, m) {
		r.UTF8Checked = false
	}
	return recs
}

// unitOf is a message's resampling unit for the bootstrap: its key when it has one, so that
// every record of a key (a conversation, a user) shares its weights; 0 (partition and
// offset, chosen by the folder) otherwise.
func unitOf(m *kafkago.Message) uint64 {
	if len(m.Key) == 0 {
		return 0
	}
	return stats.UnitOfText(string(m.Key))
}

// decodeOther decodes an Arrow message, or a tombstone or a message too large for either
// format.
func (d *Decoder) decodeOther(m *kafkago.Message) []pipeline.Record {
	base := pipeline.Record{
		Seq:  seqOf(m.Partition, m.Offset),
		Unit: unitOf(m),
		Pos:  pipeline.Position{Topic: m.Topic, Partition: m.Partition, Offset: m.Offset, Row: -1},
	}
	bad := func(reason, detail string) []pipeline.Record {
		recs := d.one()
		recs[0] = base
		recs[0].Values = d.values()
		d.fillMeta(recs[0].Values, m)
		recs[0].Err = &core.RecordError{Reason: reason, Detail: detail}
		return recs
	}
	if m.Value == nil {
		return bad(ReasonTombstone, "the message value is null (a deletion in a compacted topic), not a record")
	}
	if len(m.Value) > d.maxBytes {
		base.Raw = bytes.Clone(m.Value)
		return bad(ReasonTooLarge, fmt.Sprintf("the message value has %d bytes, more than max_record_bytes=%d", len(m.Value), d.maxBytes))
	}
	base.Raw = d.own(m.Value)
	recs, err := d.decodeArrow(base.Raw, base)
	if err != nil {
		return bad(ReasonInvalidArrow, err.Error())
	}
	for i := range recs {
		d.fillMeta(recs[i].Values, m)
	}
	return recs
}

// fillMeta sets metadata fields the record does not have itself.
//
// It reports whether every string it filled in is valid UTF-8.
func (d *Decoder) fillMeta(vals []core.Value, m *kafkago.Message) (validUTF8 bool) {
	validUTF8 = true
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
				validUTF8 = validUTF8 && utf8.Valid(m.Key)
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
					validUTF8 = validUTF8 && utf8.Valid(h.Value)
				}
			}
		}
	}
	return validUTF8
}

// decodeArrow reads an Arrow IPC stream; arrow-go panics on some malformed input, which
// is recovered here and reported as an error.
func (d *Decoder) decodeArrow(b []byte, base pipeline.Record) (recs []pipeline.Record, err error) {
	defer func() {
		if p := recover(); p != nil {
			recs, err = nil, fmt.Errorf("malformed Arrow IPC stream: %v", p)
		}
	}()
	rd, err := arrowsrc.NewStreamReader(b, memory.NewGoAllocator())
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
		if err := arrowsrc.CheckRecordBatch(rec, int64(len(b))); err != nil {
			return nil, err
		}
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

// columnar reports whether appendInts may accept messages: JSON values and no metadata
// field (a lean run's messages lack the key, headers and timestamp).
func (d *Decoder) columnar() bool { return d.json != nil && !d.hasMeta }

// needsMeta reports whether some field is message metadata (key, timestamp, header.X).
func (d *Decoder) needsMeta() bool { return d.hasMeta }

// appendInts decodes a JSON message value whose every field is an integer, appending the
// integers to cb's columns. It reports false, appending nothing, for any other value (not
// JSON, not an object, a field missing, null or not an integer, too large): Decode then
// makes its records. The decoder's memory is reused after Reset, as for Decode.
func (d *Decoder) appendInts(v []byte, cb *colBuilder) bool {
	if !d.columnar() || len(v) > d.maxBytes {
		return false
	}
	if d.json.DecodeInts(v, cb.row) {
		for i, n := range cb.row {
			cb.ints[i] = append(cb.ints[i], n)
		}
		return true
	}
	vals := cb.vals
	clear(vals)
	if blank, rerr := d.json.Decode(v, vals); blank || rerr != nil {
		return false
	}
	for i := range vals {
		if vals[i].Kind != core.Int {
			return false
		}
	}
	for i := range vals {
		cb.ints[i] = append(cb.ints[i], vals[i].Int)
	}
	return true
}

// colBuilder collects consecutive messages column-wise for a ColumnProcessor.
type colBuilder struct {
	proc ColumnProcessor
	ints [][]int64 // per field
	vals []core.Value
	row  []int64            // DecodeInts' output
	msgs []*kafkago.Message // the messages collected, for Process if ProcessColumns fails
	cols pipeline.Columns

	// A partition whose messages are not integer objects (string labels, say) would be
	// decoded twice: after missRun such messages in a row, the next skipRun ones go
	// straight to Decode.
	misses, skip int
}

const (
	missRun = 256
	skipRun = 1 << 16
)

// try reports whether the next message should be tried as integer columns (never for a
// nil cb).
func (cb *colBuilder) try() bool {
	if cb == nil {
		return false
	}
	if cb.skip > 0 {
		cb.skip--
		return false
	}
	return true
}

// hit records that m was collected.
func (cb *colBuilder) hit(m *kafkago.Message) {
	cb.msgs = append(cb.msgs, m)
	cb.misses = 0
}

// miss records that a message went to Decode.
func (cb *colBuilder) miss() {
	if cb == nil || cb.skip > 0 {
		return
	}
	if cb.misses++; cb.misses >= missRun {
		cb.misses, cb.skip = 0, skipRun
	}
}

func newColBuilder(p ColumnProcessor, fields int) *colBuilder {
	return &colBuilder{proc: p, ints: make([][]int64, fields), vals: make([]core.Value, fields), row: make([]int64, fields)}
}

// flush folds the messages collected (a nil cb holds none): by columns when the processor
// can, else by Process, message by message. It clears cb; an error is fatal.
func (cb *colBuilder) flush(p Processor, dec *Decoder) error {
	if cb == nil || len(cb.msgs) == 0 {
		return nil
	}
	defer cb.reset()
	cb.cols = pipeline.Columns{N: len(cb.msgs), Ints: cb.ints}
	ok := cb.proc.ProcessColumns(&cb.cols)
	cb.cols = pipeline.Columns{}
	if ok {
		return nil
	}
	for _, m := range cb.msgs {
		recs := dec.Decode(m)
		if err := p.Process(recs, m); err != nil {
			return &fatalError{err}
		}
		dec.Reset()
	}
	return nil
}

func (cb *colBuilder) reset() {
	for i := range cb.ints {
		cb.ints[i] = cb.ints[i][:0]
	}
	clear(cb.msgs)
	cb.msgs = cb.msgs[:0]
}
