// Package corpus writes example corpora: records given as JSON-like maps, to JSON Lines
// (optionally gzip-compressed), Arrow IPC files and streams, or Parquet, with the schema
// inferred from the values. Tests, `evalstream bench` and the example generators use it to
// make inputs that every format reads back the same (package sources).
//
// Imports: arrow/go only (it must not import sources, whose tests use it). Nothing is
// retained from the records passed in; Write and WriteFunc are safe for concurrent use on
// different paths.
package corpus

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/ipc"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/evalstream/evalstream/sources/format"
)

// Chunk is how many rows Write puts in one Arrow record batch, and how many records
// WriteFunc generates at a time. Parquet row groups are larger: those pyarrow writes by
// default, up to 1Mi rows (see maxRowGroupRows).
const Chunk = 1000

// column types Write infers.
type colType uint8

const (
	ctUnknown   colType = iota // only nulls so far
	ctEmptyList                // only empty lists (and nulls) so far
	ctString
	ctInt
	ctFloat
	ctBool
	ctStrList
	ctStrLists
	ctFloatList
)

var colTypeNames = [...]string{"null", "list", "string", "int64", "float64", "bool", "list<string>", "list<list<string>>", "list<float64>"}

func isList(t colType) bool { return t == ctStrList || t == ctStrLists || t == ctFloatList }

// Write writes records (JSON-like maps) to path in the format its extension names:
// .jsonl or .ndjson (gzip-compressed when followed by .gz), .arrow or .feather (Arrow IPC
// file), .arrows (Arrow IPC stream) or .parquet. It is meant for tests and tools that build
// example corpora.
//
// The schema is inferred from the values: string, int64 (Go integers), float64 (Go floats;
// a field mixing integers and floats is float64), bool, list<string> ([]string or []any of
// strings), list<list<string>> ([][]string or nested []any) and list<float64> ([]float64,
// integer slices or []any of numbers); json.Number is accepted. Columns are sorted by name.
// A nil value is a null. A key absent from a record is omitted from its JSON line and null
// in Arrow and Parquet. Floats are written to JSON with a fraction or exponent, so every
// format reads back the same kinds. Values of any other type, conflicting types within a
// field, non-finite floats and invalid UTF-8 are errors.
func Write(path string, records []map[string]any) error {
	return writeCorpus(path, records, Chunk, maxRowGroupRows)
}

// WriteFunc writes the n records gen(0), gen(1), ..., gen(n-1) to path like
// Write, without holding them all in memory: they are generated and written a chunk at
// a time, so tools can write corpora of any size. The schema is inferred from the first
// chunk (1000 records); a later record with another field, or a value that does not fit its
// column, is an error.
func WriteFunc(path string, n int, gen func(i int) map[string]any) error {
	buf := make([]map[string]any, 0, min(n, Chunk))
	chunk := func(start int) []map[string]any {
		buf = buf[:0]
		for i := start; i < min(n, start+Chunk); i++ {
			buf = append(buf, gen(i))
		}
		return buf
	}
	first := slices.Clone(chunk(0))
	names, types, err := inferSchema(first)
	if err != nil {
		return fmt.Errorf("sources: write corpus %s: %w", path, err)
	}
	next := func(start int) ([]map[string]any, error) {
		if start == 0 {
			return first, nil
		}
		recs := chunk(start)
		for i, r := range recs {
			for k, v := range r {
				st, ok := types[k]
				if !ok {
					return nil, fmt.Errorf("record %d: field %q is not in the first %d records", start+i, k, len(first))
				}
				if v == nil {
					continue
				}
				t, err := classify(v)
				if err != nil {
					return nil, fmt.Errorf("record %d: field %q: %w", start+i, k, err)
				}
				if merged, fits := mergeTypes(st, t); !fits || merged != st {
					return nil, fmt.Errorf("record %d: field %q: %s does not fit the column's %s", start+i, k, colTypeNames[t], colTypeNames[st])
				}
			}
		}
		return recs, nil
	}
	return writeCorpusChunks(path, names, types, n, Chunk, maxRowGroupRows, next)
}

func writeCorpus(path string, records []map[string]any, chunk, rowGroupRows int) error {
	names, types, err := inferSchema(records)
	if err != nil {
		return fmt.Errorf("sources: write corpus %s: %w", path, err)
	}
	next := func(start int) ([]map[string]any, error) {
		return records[start:min(start+chunk, len(records))], nil
	}
	return writeCorpusChunks(path, names, types, len(records), chunk, rowGroupRows, next)
}

// writeCorpusChunks writes n records with the given schema; next(start) returns the records
// start, start+1, ... of one chunk (chunk records, fewer at the end). A Parquet row group
// holds at most rowGroupRows records.
func writeCorpusChunks(path string, names []string, types map[string]colType, n, chunk, rowGroupRows int, next func(start int) ([]map[string]any, error)) (err error) {
	kind := format.FromName(path)
	if kind == "" {
		return fmt.Errorf("sources: write corpus %s: %w: unknown extension", path, ErrFormat)
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("sources: write corpus: %w", err)
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("sources: write corpus: %w", cerr)
		}
		if err != nil {
			os.Remove(path)
		}
	}()
	switch kind {
	case FormatJSONL:
		err = writeJSONL(f, strings.HasSuffix(strings.ToLower(path), ".gz"), names, types, n, chunk, next)
	case FormatParquet:
		bw := bufio.NewWriterSize(f, 256<<10)
		if err = writeParquetCorpus(bw, names, types, n, chunk, rowGroupRows, next); err == nil {
			err = bw.Flush()
		}
	default:
		err = writeArrowCorpus(f, kind, names, types, n, chunk, next)
	}
	if err != nil {
		return fmt.Errorf("sources: write corpus %s: %w", path, err)
	}
	return nil
}

// scalar classifies a non-nil value.
func classify(v any) (colType, error) {
	switch t := v.(type) {
	case string:
		if !utf8.ValidString(t) {
			return 0, errors.New("string is not valid UTF-8")
		}
		return ctString, nil
	case bool:
		return ctBool, nil
	case int, int8, int16, int32, int64, uint8, uint16, uint32:
		return ctInt, nil
	case uint, uint64:
		if _, ok := toInt(t); !ok {
			return 0, fmt.Errorf("integer %v overflows int64", t)
		}
		return ctInt, nil
	case float32, float64:
		f, _ := toFloat(t)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return 0, fmt.Errorf("non-finite float %v", f)
		}
		return ctFloat, nil
	case json.Number:
		if _, err := t.Int64(); err == nil && !strings.ContainsAny(string(t), ".eE") {
			return ctInt, nil
		}
		if f, err := t.Float64(); err != nil || math.IsInf(f, 0) {
			return 0, fmt.Errorf("number %s is not a finite float64", t)
		}
		return ctFloat, nil
	case []string:
		for _, s := range t {
			if !utf8.ValidString(s) {
				return 0, errors.New("string is not valid UTF-8")
			}
		}
		if len(t) == 0 {
			return ctEmptyList, nil
		}
		return ctStrList, nil
	case [][]string:
		if len(t) == 0 {
			return ctEmptyList, nil
		}
		return ctStrLists, nil
	case []float64, []float32, []int, []int64, []int32:
		if lenOf(t) == 0 {
			return ctEmptyList, nil
		}
		return ctFloatList, nil
	case []any:
		if len(t) == 0 {
			return ctEmptyList, nil
		}
		elem := ctUnknown
		for _, e := range t {
			if e == nil {
				continue
			}
			var et colType
			switch e.(type) {
			case []string, []any:
				inner, err := classify(e)
				if err != nil {
					return 0, err
				}
				if inner != ctStrList && inner != ctEmptyList {
					return 0, fmt.Errorf("unsupported nested list %T", e)
				}
				et = ctStrList
			default:
				var err error
				if et, err = classify(e); err != nil {
					return 0, err
				}
				if et == ctInt {
					et = ctFloat
				}
				if et != ctString && et != ctFloat {
					return 0, fmt.Errorf("unsupported list element %T", e)
				}
			}
			if elem != ctUnknown && elem != et {
				return 0, fmt.Errorf("list mixes element types")
			}
			elem = et
		}
		switch elem {
		case ctString:
			return ctStrList, nil
		case ctStrList:
			return ctStrLists, nil
		case ctFloat:
			return ctFloatList, nil
		}
		return ctStrList, nil // only nulls
	}
	return 0, fmt.Errorf("unsupported value type %T", v)
}

func lenOf(v any) int {
	switch t := v.(type) {
	case []float64:
		return len(t)
	case []float32:
		return len(t)
	case []int:
		return len(t)
	case []int64:
		return len(t)
	case []int32:
		return len(t)
	}
	return 0
}

func toInt(v any) (int64, bool) {
	switch t := v.(type) {
	case int:
		return int64(t), true
	case int8:
		return int64(t), true
	case int16:
		return int64(t), true
	case int32:
		return int64(t), true
	case int64:
		return t, true
	case uint8:
		return int64(t), true
	case uint16:
		return int64(t), true
	case uint32:
		return int64(t), true
	case uint:
		return int64(t), t <= math.MaxInt64
	case uint64:
		return int64(t), t <= math.MaxInt64
	case json.Number:
		i, err := t.Int64()
		return i, err == nil && !strings.ContainsAny(string(t), ".eE")
	}
	return 0, false
}

func toFloat(v any) (float64, bool) {
	if i, ok := toInt(v); ok {
		return float64(i), true
	}
	switch t := v.(type) {
	case float32:
		return float64(t), true
	case float64:
		return t, true
	case json.Number:
		f, err := t.Float64()
		return f, err == nil || math.IsInf(f, 0)
	}
	return 0, false
}

func inferSchema(records []map[string]any) ([]string, map[string]colType, error) {
	types := map[string]colType{}
	for i, r := range records {
		for k, v := range r {
			if !utf8.ValidString(k) {
				return nil, nil, fmt.Errorf("record %d: key %q is not valid UTF-8", i, k)
			}
			cur := types[k]
			if v == nil {
				types[k] = cur
				continue
			}
			t, err := classify(v)
			if err != nil {
				return nil, nil, fmt.Errorf("record %d: field %q: %w", i, k, err)
			}
			merged, ok := mergeTypes(cur, t)
			if !ok {
				return nil, nil, fmt.Errorf("record %d: field %q: %s conflicts with %s in earlier records", i, k, colTypeNames[t], colTypeNames[cur])
			}
			types[k] = merged
		}
	}
	names := make([]string, 0, len(types))
	for k, t := range types {
		names = append(names, k)
		switch t {
		case ctUnknown:
			types[k] = ctString
		case ctEmptyList:
			types[k] = ctStrList
		}
	}
	slices.Sort(names)
	return names, types, nil
}

func mergeTypes(a, b colType) (colType, bool) {
	switch {
	case a == b || a == ctUnknown:
		return b, true
	case (a == ctInt && b == ctFloat) || (a == ctFloat && b == ctInt):
		return ctFloat, true
	case a == ctEmptyList && isList(b):
		return b, true
	case b == ctEmptyList && isList(a):
		return a, true
	}
	return a, false
}

// --- JSON Lines -------------------------------------------------------------------------

func writeJSONL(f *os.File, gz bool, names []string, types map[string]colType, n, chunk int, next func(int) ([]map[string]any, error)) error {
	var w io.Writer = f
	var zw *gzip.Writer
	if gz {
		zw = gzip.NewWriter(f)
		w = zw
	}
	bw := bufio.NewWriterSize(w, 256<<10)
	var line []byte
	for start := 0; start < n; start += chunk {
		records, err := next(start)
		if err != nil {
			return err
		}
		if err := writeJSONLines(bw, &line, names, types, records); err != nil {
			return err
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if zw != nil {
		return zw.Close()
	}
	return nil
}

func writeJSONLines(bw *bufio.Writer, linep *[]byte, names []string, types map[string]colType, records []map[string]any) error {
	line := *linep
	defer func() { *linep = line }()
	for _, r := range records {
		line = append(line[:0], '{')
		first := true
		for _, k := range names {
			v, ok := r[k]
			if !ok {
				continue
			}
			if !first {
				line = append(line, ',')
			}
			first = false
			line = appendJSONString(line, k)
			line = append(line, ':')
			line = appendJSONValue(line, types[k], v)
		}
		line = append(line, '}', '\n')
		if _, err := bw.Write(line); err != nil {
			return err
		}
	}
	return nil
}

func appendJSONValue(dst []byte, t colType, v any) []byte {
	if v == nil {
		return append(dst, "null"...)
	}
	switch t {
	case ctString:
		return appendJSONString(dst, v.(string))
	case ctInt:
		i, _ := toInt(v)
		return strconv.AppendInt(dst, i, 10)
	case ctFloat:
		x, _ := toFloat(v)
		return appendJSONFloat(dst, x)
	case ctBool:
		return strconv.AppendBool(dst, v.(bool))
	}
	dst = append(dst, '[')
	forEachElem(v, func(i int, e any) {
		if i > 0 {
			dst = append(dst, ',')
		}
		switch {
		case e == nil:
			dst = append(dst, "null"...)
		case t == ctStrList:
			dst = appendJSONString(dst, e.(string))
		case t == ctFloatList:
			x, _ := toFloat(e)
			dst = appendJSONFloat(dst, x)
		default: // ctStrLists
			dst = appendJSONValue(dst, ctStrList, e)
		}
	})
	return append(dst, ']')
}

// forEachElem calls fn for each element of a list value Write accepts.
func forEachElem(v any, fn func(int, any)) {
	switch t := v.(type) {
	case []any:
		for i, e := range t {
			fn(i, e)
		}
	case []string:
		for i, e := range t {
			fn(i, e)
		}
	case [][]string:
		for i, e := range t {
			fn(i, e)
		}
	case []float64:
		for i, e := range t {
			fn(i, e)
		}
	case []float32:
		for i, e := range t {
			fn(i, e)
		}
	case []int:
		for i, e := range t {
			fn(i, e)
		}
	case []int64:
		for i, e := range t {
			fn(i, e)
		}
	case []int32:
		for i, e := range t {
			fn(i, e)
		}
	}
}

// appendJSONFloat writes the shortest representation that round-trips, always with a
// fraction or an exponent so that readers see a float, not an integer.
func appendJSONFloat(dst []byte, x float64) []byte {
	start := len(dst)
	dst = strconv.AppendFloat(dst, x, 'g', -1, 64)
	for _, c := range dst[start:] {
		if c == '.' || c == 'e' {
			return dst
		}
	}
	return append(dst, '.', '0')
}

func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\r':
			dst = append(dst, '\\', 'r')
		case c == '\t':
			dst = append(dst, '\\', 't')
		case c < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
		default:
			dst = append(dst, c)
		}
	}
	return append(dst, '"')
}

// --- Arrow (Parquet is in parquet.go) ---------------------------------------------

func arrowType(t colType) arrow.DataType {
	switch t {
	case ctInt:
		return arrow.PrimitiveTypes.Int64
	case ctFloat:
		return arrow.PrimitiveTypes.Float64
	case ctBool:
		return arrow.FixedWidthTypes.Boolean
	case ctStrList:
		return arrow.ListOf(arrow.BinaryTypes.String)
	case ctStrLists:
		return arrow.ListOf(arrow.ListOf(arrow.BinaryTypes.String))
	case ctFloatList:
		return arrow.ListOf(arrow.PrimitiveTypes.Float64)
	}
	return arrow.BinaryTypes.String
}

func writeArrowCorpus(f *os.File, format string, names []string, types map[string]colType, n, chunk int, next func(int) ([]map[string]any, error)) error {
	fields := make([]arrow.Field, len(names))
	for i, n := range names {
		fields[i] = arrow.Field{Name: n, Type: arrowType(types[n]), Nullable: true}
	}
	schema := arrow.NewSchema(fields, nil)
	mem := memory.NewGoAllocator()
	bw := bufio.NewWriterSize(f, 256<<10)

	var write func(arrow.Record) error
	var closeW func() error
	switch format {
	case FormatArrow:
		w, err := ipc.NewFileWriter(f, ipc.WithSchema(schema), ipc.WithAllocator(mem))
		if err != nil {
			return err
		}
		write, closeW = w.Write, w.Close
	case FormatArrows:
		w := ipc.NewWriter(bw, ipc.WithSchema(schema), ipc.WithAllocator(mem))
		write, closeW = w.Write, w.Close
	default:
		return fmt.Errorf("%w %q", ErrFormat, format)
	}
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	for start := 0; start < n || start == 0; start += chunk {
		records, err := next(start)
		if err != nil {
			return err
		}
		for _, r := range records {
			for i, n := range names {
				appendArrow(b.Field(i), types[n], r[n])
			}
		}
		rec := b.NewRecord()
		err = write(rec)
		rec.Release()
		if err != nil {
			return err
		}
		if start+chunk >= n {
			break
		}
	}
	if err := closeW(); err != nil {
		return err
	}
	return bw.Flush()
}

func appendArrow(b array.Builder, t colType, v any) {
	if v == nil {
		b.AppendNull()
		return
	}
	switch t {
	case ctString:
		b.(*array.StringBuilder).Append(v.(string))
	case ctInt:
		i, _ := toInt(v)
		b.(*array.Int64Builder).Append(i)
	case ctFloat:
		x, _ := toFloat(v)
		b.(*array.Float64Builder).Append(x)
	case ctBool:
		b.(*array.BooleanBuilder).Append(v.(bool))
	default:
		lb := b.(*array.ListBuilder)
		lb.Append(true)
		vb := lb.ValueBuilder()
		forEachElem(v, func(_ int, e any) {
			switch t {
			case ctStrList:
				appendArrow(vb, ctString, e)
			case ctFloatList:
				appendArrow(vb, ctFloat, e)
			default:
				appendArrow(vb, ctStrList, e)
			}
		})
	}
}

// ErrFormat is wrapped when the extension of a path names no format the writer writes. It
// has the text of sources.ErrFormat (this package cannot import sources).
var ErrFormat = errors.New("unsupported input format")

// Format names, as sources names them.
const (
	FormatJSONL   = format.JSONL
	FormatArrow   = format.Arrow
	FormatArrows  = format.Arrows
	FormatParquet = format.Parquet
)

// WriteChunks is Write with chunk records per Arrow record batch and per Parquet row group
// (tests build files of many small row groups with it; Write's Parquet row groups are up to
// 1Mi rows). The pages are encoded and compressed as Write's.
func WriteChunks(path string, records []map[string]any, chunk int) error {
	if chunk <= 0 {
		chunk = Chunk
	}
	return writeCorpus(path, records, chunk, chunk)
}
