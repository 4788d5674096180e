package parquet

import (
	"context"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/pipeline"
	arrowsrc "github.com/evalstream/evalstream/sources/arrow"
	"github.com/evalstream/evalstream/sources/internal/fileread"
	"github.com/evalstream/evalstream/sources/internal/valtest"
	"github.com/evalstream/evalstream/sources/jsonl"
)

// The tests read files through a one-file source built the way package sources builds its
// own (which this package cannot import): FileConfig, OpenFiles and openFiles mirror
// sources' names so that the tests read like its end-to-end tests.

const (
	FormatArrow   = fileread.FormatArrow
	FormatArrows  = fileread.FormatArrows
	FormatParquet = fileread.FormatParquet
)

var ErrCorrupt = fileread.ErrCorrupt

// FileConfig names one file; its format comes from its extension.
type FileConfig struct{ Path string }

func OpenFiles(c FileConfig, fields []string, batchSize, maxRecordBytes int) (pipeline.Source, error) {
	return openFiles(c, fields, batchSize, maxRecordBytes, memory.DefaultAllocator)
}

func openFiles(c FileConfig, fields []string, batchSize, maxRecordBytes int, mem memory.Allocator) (*fileread.Source, error) {
	st, err := os.Stat(c.Path)
	if err != nil {
		return nil, err
	}
	fi := fileread.Info{Path: c.Path, Format: FormatParquet, Size: st.Size()}
	switch strings.ToLower(filepath.Ext(c.Path)) {
	case ".jsonl":
		fi.Format = fileread.FormatJSONL
	case ".arrow":
		fi.Format = FormatArrow
	case ".arrows":
		fi.Format = FormatArrows
	}
	return fileread.NewSource([]fileread.Info{fi}, fields, batchSize, maxRecordBytes, mem, func(fi fileread.Info, o *fileread.Options) (fileread.Reader, error) {
		switch fi.Format {
		case fileread.FormatJSONL:
			return jsonl.Open(fi, o)
		case FormatParquet:
			return Open(fi, o)
		}
		return arrowsrc.Open(fi, o)
	})
}

// readAllErr reads a file to the end and returns the first error.
func readAllErr(path string, fields []string) error {
	src, err := OpenFiles(FileConfig{Path: path}, fields, 7, 1<<20)
	if err != nil {
		return err
	}
	defer src.Close()
	for {
		b, err := src.Next(context.Background())
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if b.Release != nil {
			b.Release()
		}
	}
}

type drained struct {
	recs  []valtest.GotRec
	bytes int64
}

func drain(t testing.TB, src pipeline.Source) drained {
	t.Helper()
	d := valtest.Drain(t, src)
	return drained{recs: d.Recs, bytes: d.Bytes}
}

func canon(v core.Value) string { return valtest.Canon(v) }

func fv(f float64) core.Value    { return core.Value{Kind: core.Float, Float: f} }
func fl(f ...float64) core.Value { return core.Value{Kind: core.FloatList, Floats: f} }

type typeCase = valtest.TypeCase

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

func randText(r *rand.Rand, max int) string { return valtest.RandText(r, max) }

func hasStruct(dt arrow.DataType) bool { return valtest.HasStruct(dt) }

func decodedGroup(dt arrow.DataType) bool { return valtest.DecodedGroup(dt) }
