package sources

import (
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/pipeline"
	"github.com/evalstream/evalstream/sources/internal/valtest"
)

func canon(v core.Value) string { return valtest.Canon(v) }

func canonAll(vals []core.Value) []string { return valtest.CanonAll(vals) }

func oracle(line []byte, fields []string) ([]core.Value, bool) {
	return valtest.Oracle(line, fields)
}

func sv(s string) core.Value       { return core.Value{Kind: core.String, Str: s} }
func iv(i int64) core.Value        { return core.Value{Kind: core.Int, Int: i} }
func fv(f float64) core.Value      { return core.Value{Kind: core.Float, Float: f} }
func bv(b int64) core.Value        { return core.Value{Kind: core.Bool, Int: b} }
func slv(s ...string) core.Value   { return core.Value{Kind: core.StringList, Strs: s} }
func fl(f ...float64) core.Value   { return core.Value{Kind: core.FloatList, Floats: f} }
func sls(l ...[]string) core.Value { return core.Value{Kind: core.StringLists, Lists: l} }
func mv(k []string, f ...float64) core.Value {
	return core.Value{Kind: core.Map, Strs: k, Floats: f}
}

var (
	missing = core.Value{Kind: core.Missing}
	null    = core.Value{Kind: core.Null}
	other   = core.Value{Kind: core.Other}
)

// Fixtures shared with the format packages' tests (package valtest).
type (
	typeCase = valtest.TypeCase
	gotRec   = valtest.GotRec
)

var typeCases = valtest.TypeCases

func writeArrowFile(t testing.TB, path, format string, recs ...arrow.Record) {
	t.Helper()
	valtest.WriteArrowFile(t, path, format, recs...)
}

func recordFromJSON(t testing.TB, mem memory.Allocator, fields []arrow.Field, js string) arrow.Record {
	t.Helper()
	return valtest.RecordFromJSON(t, mem, fields, js)
}

func allTypesRecord(t testing.TB, mem memory.Allocator, cases []typeCase, times int) arrow.Record {
	t.Helper()
	return valtest.AllTypesRecord(t, mem, cases, times)
}

func f32bits(f float32) string { return canon(fv(float64(f))) }

func randText(r *rand.Rand, max int) string { return valtest.RandText(r, max) }

type drained struct {
	recs  []gotRec
	sizes []int // records per batch
	files []string
	bytes int64
}

// drain reads a source to the end, releasing every batch after copying it out.
func drain(t testing.TB, src pipeline.Source) drained {
	t.Helper()
	d := valtest.Drain(t, src)
	return drained{recs: d.Recs, sizes: d.Sizes, files: d.Files, bytes: d.Bytes}
}

func hasStruct(dt arrow.DataType) bool { return valtest.HasStruct(dt) }

func decodedGroup(dt arrow.DataType) bool { return valtest.DecodedGroup(dt) }
