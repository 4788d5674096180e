package arrow

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/pipeline"
	"github.com/evalstream/evalstream/sources/internal/fileread"
	"github.com/evalstream/evalstream/sources/internal/valtest"
)

// The tests read files through a one-file source built the way package sources builds its
// own (which this package cannot import): FileConfig, OpenFiles and openFiles mirror
// sources' names so that the tests read like its end-to-end tests.

const (
	FormatArrow  = fileread.FormatArrow
	FormatArrows = fileread.FormatArrows
)

var ErrCorrupt = fileread.ErrCorrupt

// FileConfig names one Arrow IPC file (".arrow") or stream (any other extension).
type FileConfig struct{ Path string }

func OpenFiles(c FileConfig, fields []string, batchSize, maxRecordBytes int) (pipeline.Source, error) {
	return openFiles(c, fields, batchSize, maxRecordBytes, memory.DefaultAllocator)
}

func openFiles(c FileConfig, fields []string, batchSize, maxRecordBytes int, mem memory.Allocator) (*fileread.Source, error) {
	st, err := os.Stat(c.Path)
	if err != nil {
		return nil, err
	}
	fi := fileread.Info{Path: c.Path, Format: FormatArrows, Size: st.Size()}
	if strings.ToLower(filepath.Ext(c.Path)) == ".arrow" {
		fi.Format = FormatArrow
	}
	return fileread.NewSource([]fileread.Info{fi}, fields, batchSize, maxRecordBytes, mem, Open)
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

func canon(v core.Value) string { return valtest.Canon(v) }

func fv(f float64) core.Value { return core.Value{Kind: core.Float, Float: f} }

func writeArrowFile(t testing.TB, path, format string, recs ...arrow.Record) {
	t.Helper()
	valtest.WriteArrowFile(t, path, format, recs...)
}

func recordFromJSON(t testing.TB, mem memory.Allocator, fields []arrow.Field, js string) arrow.Record {
	t.Helper()
	return valtest.RecordFromJSON(t, mem, fields, js)
}
