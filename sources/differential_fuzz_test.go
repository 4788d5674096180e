package sources

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/ipc"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/apache/arrow/go/v15/parquet/pqarrow"
	"github.com/stretchr/testify/require"

	"github.com/evalstream/evalstream/metrics"
	"github.com/evalstream/evalstream/pipeline"
)

// diffColumn is one column of a FuzzFormatsAgree table: an Arrow type and its values (nil is
// null). Values are int64, float64, bool, string, []float64, []bool or []string.
type diffColumn struct {
	name string
	typ  arrow.DataType
	vals []any
}

// The palettes hold the values that tell decoders apart: booleans, NaN and ±Inf, huge and
// negative integers, floats next to integers, -0, invalid UTF-8, empty lists.
var (
	diffInts    = []any{int64(0), int64(1), int64(2), int64(-1), int64(3), int64(1) << 62, int64(math.MinInt64), int64(1) << 53}
	diffFloats  = []any{0.5, 1.0, 2.0, math.Nextafter(2, 3), math.Copysign(0, -1), 1e308, math.NaN(), math.Inf(1), math.Inf(-1), 0.1, 3.0, 9007199254740993.0}
	diffBools   = []any{true, false}
	diffStrings = []any{"the cat sat", "", "a \xff b", "über naïve", "the cat", "\xc3"}
	diffFloatLs = []any{[]float64{0.1, 0.9}, []float64{}, []float64{math.NaN(), 1}, []float64{math.Inf(1), 0}, []float64{1, 0, 0}, []float64{0, 1, 0}, []float64{0.3, 0.3, 0.4}, []float64{math.Inf(-1), -1}}
	diffBoolLs  = []any{[]bool{true, false}, []bool{false, true, false}, []bool{}, []bool{true, true}}
	diffStrLs   = []any{[]string{"the cat sat on the mat"}, []string{}, []string{"a", "\xc3"}, []string{"the cat", "a cat sat"}}
)

var diffTypes = []struct {
	typ     arrow.DataType
	palette []any
}{
	{arrow.PrimitiveTypes.Int64, diffInts},
	{arrow.PrimitiveTypes.Float64, diffFloats},
	{arrow.FixedWidthTypes.Boolean, diffBools},
	{arrow.BinaryTypes.String, diffStrings},
	{arrow.ListOf(arrow.PrimitiveTypes.Float64), diffFloatLs},
	{arrow.ListOf(arrow.FixedWidthTypes.Boolean), diffBoolLs},
	{arrow.ListOf(arrow.BinaryTypes.String), diffStrLs},
}

// diffFields are the record fields the metrics of FuzzFormatsAgree read.
var diffFields = []string{"p", "l", "x", "y", "r"}

// byteReader draws small numbers from fuzz input, zeros once it is exhausted.
type byteReader struct {
	b []byte
	i int
}

func (r *byteReader) next(n int) int {
	if r.i >= len(r.b) {
		return 0
	}
	r.i++
	return int(r.b[r.i-1]) % n
}

func diffTable(data []byte) []diffColumn {
	r := &byteReader{b: data}
	rows := 1 + r.next(16)
	cols := make([]diffColumn, len(diffFields))
	for c, name := range diffFields {
		t := diffTypes[r.next(len(diffTypes))]
		cols[c] = diffColumn{name: name, typ: t.typ, vals: make([]any, rows)}
		for i := range cols[c].vals {
			if k := r.next(len(t.palette) + 1); k < len(t.palette) {
				cols[c].vals[i] = t.palette[k]
			}
		}
	}
	return cols
}

// jsonFloat writes a float so that it decodes as a float; NaN, which JSON cannot hold, is
// written as 1e999 (+Inf): both are rejected for the same reason.
func jsonFloat(x float64) string {
	switch {
	case math.IsNaN(x), math.IsInf(x, 1):
		return "1e999"
	case math.IsInf(x, -1):
		return "-1e999"
	}
	s := strconv.FormatFloat(x, 'g', -1, 64)
	for _, c := range s {
		if c == '.' || c == 'e' || c == 'n' {
			return s
		}
	}
	return s + ".0"
}

// jsonString quotes s, keeping invalid UTF-8 bytes raw as a careless writer would.
func jsonString(s string) string {
	b := []byte{'"'}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20:
			b = append(b, fmt.Sprintf(`\u%04x`, c)...)
		default:
			b = append(b, c)
		}
	}
	return string(append(b, '"'))
}

func jsonValue(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case int64:
		return strconv.FormatInt(t, 10)
	case float64:
		return jsonFloat(t)
	case bool:
		return strconv.FormatBool(t)
	case string:
		return jsonString(t)
	}
	s := "["
	switch t := v.(type) {
	case []float64:
		for i, x := range t {
			if i > 0 {
				s += ","
			}
			s += jsonFloat(x)
		}
	case []bool:
		for i, x := range t {
			if i > 0 {
				s += ","
			}
			s += strconv.FormatBool(x)
		}
	case []string:
		for i, x := range t {
			if i > 0 {
				s += ","
			}
			s += jsonString(x)
		}
	}
	return s + "]"
}

func writeDiffJSONL(path string, cols []diffColumn) error {
	var b []byte
	for i := range cols[0].vals {
		b = append(b, '{')
		for c, col := range cols {
			if c > 0 {
				b = append(b, ',')
			}
			b = append(b, jsonString(col.name)+":"+jsonValue(col.vals[i])...)
		}
		b = append(b, "}\n"...)
	}
	return os.WriteFile(path, b, 0o644)
}

func diffRecord(cols []diffColumn) arrow.Record {
	fields := make([]arrow.Field, len(cols))
	for i, c := range cols {
		fields[i] = arrow.Field{Name: c.name, Type: c.typ, Nullable: true}
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema(fields, nil))
	defer b.Release()
	for c, col := range cols {
		fb := b.Field(c)
		for _, v := range col.vals {
			if v == nil {
				fb.AppendNull()
				continue
			}
			switch t := v.(type) {
			case int64:
				fb.(*array.Int64Builder).Append(t)
			case float64:
				fb.(*array.Float64Builder).Append(t)
			case bool:
				fb.(*array.BooleanBuilder).Append(t)
			case string:
				fb.(*array.StringBuilder).Append(t)
			default:
				lb := fb.(*array.ListBuilder)
				lb.Append(true)
				switch t := v.(type) {
				case []float64:
					lb.ValueBuilder().(*array.Float64Builder).AppendValues(t, nil)
				case []bool:
					lb.ValueBuilder().(*array.BooleanBuilder).AppendValues(t, nil)
				case []string:
					lb.ValueBuilder().(*array.StringBuilder).AppendValues(t, nil)
				}
			}
		}
	}
	return b.NewRecord()
}

func writeDiffArrow(path string, rec arrow.Record) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w, err := ipc.NewFileWriter(f, ipc.WithSchema(rec.Schema()))
	if err == nil {
		err = w.Write(rec)
		if cerr := w.Close(); err == nil {
			err = cerr
		}
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func writeDiffParquet(path string, rec arrow.Record) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	tbl := array.NewTableFromRecords(rec.Schema(), []arrow.Record{rec})
	defer tbl.Release()
	return pqarrow.WriteTable(tbl, f, 4, nil, pqarrow.DefaultWriterProps()) // closes f
}

// deadRows records the row and reason of every rejected record, in input order.
type deadRows struct {
	mu   sync.Mutex
	rows []string
}

func (d *deadRows) WriteBatch(_ context.Context, dead []pipeline.DeadLetter, _ []pipeline.ExampleRow) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, x := range dead {
		d.rows = append(d.rows, fmt.Sprintf("%d: %s", x.Pos.Row, x.Reason))
	}
	return nil
}

// diffPlan scores p/l as classes, x/y as a regression, p/r as text: every role kind.
func diffPlan(t *testing.T) *pipeline.Plan {
	var ms []*metrics.Metric
	for _, entry := range []map[string]any{
		{"type": "accuracy", "prediction": "p", "label": "l"},
		{"type": "pearson", "prediction": "x", "label": "y"},
		{"type": "bleu", "prediction": "p", "references": "r"},
	} {
		m, err := metrics.New(entry)
		require.NoError(t, err)
		ms = append(ms, m)
	}
	return pipeline.NewPlan(ms, nil)
}

// FuzzFormatsAgree writes the same random records as JSON Lines, an Arrow IPC file and
// Parquet and requires the three paths to accept and reject the same records for the same
// reasons and to fold the accepted ones into identical metric states.
func FuzzFormatsAgree(f *testing.F) {
	for _, s := range []string{"", "\x05\x00\x01\x02\x03\x04", "\x0f\x01\x01\x03\x04\x06\x07\x08\x09\x0a\x0b\x0c", "\x08\x04\x05\x02\x00\x06\x03\x01\x02\x03\x04\x05\x06\x07"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cols := diffTable(data)
		dir := t.TempDir()
		rec := diffRecord(cols)
		defer rec.Release()
		paths := []string{filepath.Join(dir, "t.jsonl"), filepath.Join(dir, "t.arrow"), filepath.Join(dir, "t.parquet")}
		require.NoError(t, writeDiffJSONL(paths[0], cols))
		require.NoError(t, writeDiffArrow(paths[1], rec))
		require.NoError(t, writeDiffParquet(paths[2], rec))
		plan := diffPlan(t)
		var wantState []byte
		var wantDead []string
		for i, p := range paths {
			src, err := OpenFiles(FileConfig{Path: p}, plan.Fields, 3, 1<<20)
			require.NoError(t, err)
			dead := &deadRows{}
			acc, err := pipeline.Run(context.Background(), src, pipeline.Config{Plan: plan, Workers: 2, Output: dead, Policy: pipeline.Policy{OnError: "dead_letter", Unlimited: true}})
			require.NoError(t, src.Close())
			require.NoError(t, err, p)
			acc.ErrorExamples = nil // they name the file
			state, err := pipeline.EncodeState(acc)
			require.NoError(t, err)
			if i == 0 {
				wantState, wantDead = state, dead.rows
				continue
			}
			require.Equal(t, wantDead, dead.rows, "%s vs %s\n%s", filepath.Base(p), filepath.Base(paths[0]), dumpDiff(cols))
			require.Equal(t, wantState, state, "%s vs %s\n%s", filepath.Base(p), filepath.Base(paths[0]), dumpDiff(cols))
		}
	})
}

func dumpDiff(cols []diffColumn) string {
	s := ""
	for i := range cols[0].vals {
		for _, c := range cols {
			s += fmt.Sprintf("%s(%s)=%s ", c.name, c.typ, jsonValue(c.vals[i]))
		}
		s += "\n"
	}
	return s
}
