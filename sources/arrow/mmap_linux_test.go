package arrow

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/evalstream/evalstream/pipeline"
)

// residentPages counts the pages of data mapped into the process (/proc/self/pagemap's
// present bit, readable without privileges).
func residentPages(t *testing.T, pagemap *os.File, data []byte) int {
	page := uintptr(os.Getpagesize())
	first := uintptr(unsafe.Pointer(unsafe.SliceData(data))) / page
	n := (uintptr(len(data)) + page - 1) / page
	buf := make([]byte, 8*n)
	_, err := pagemap.ReadAt(buf, int64(first*8))
	require.NoError(t, err)
	present := 0
	for i := uintptr(0); i < n; i++ {
		if binary.LittleEndian.Uint64(buf[8*i:])&(1<<63) != 0 {
			present++
		}
	}
	return present
}

// Reading a mapped Arrow file keeps a bounded number of its pages resident, however long
// the file: the kernel's fault-around maps pages of the previous body again when the next
// message's header is read, and those used to stay until the end of the file.
func TestMappedArrowResidentPagesBounded(t *testing.T) {
	pagemap, err := os.Open("/proc/self/pagemap")
	if err != nil {
		t.Skipf("no pagemap: %v", err)
	}
	defer pagemap.Close()
	// Bodies of 2 x 8 x 20,000 bytes, not a whole number of pages, so that message headers
	// fall at every offset within a page group.
	const rows, batches = 20_000, 150
	schema := arrow.NewSchema([]arrow.Field{{Name: "label", Type: arrow.PrimitiveTypes.Int64}, {Name: "prediction", Type: arrow.PrimitiveTypes.Int64}}, nil)
	recs := make([]arrow.Record, batches)
	for i := range recs {
		b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
		for r := 0; r < rows; r++ {
			b.Field(0).(*array.Int64Builder).Append(int64(r % 5))
			b.Field(1).(*array.Int64Builder).Append(int64((r + i) % 5))
		}
		recs[i] = b.NewRecord()
		b.Release()
	}
	path := filepath.Join(t.TempDir(), "long.arrow")
	writeArrowFile(t, path, FormatArrow, recs...)
	for _, r := range recs {
		r.Release()
	}

	src, err := openFiles(FileConfig{Path: path}, []string{"label", "prediction"}, rows, 0, memory.DefaultAllocator)
	require.NoError(t, err)
	defer src.Close()
	ctx := pipeline.WithColumns(context.Background())
	maxPages, total := 0, 0
	for {
		b, err := src.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		require.NotNil(t, b.Columns)
		total += b.Columns.N
		if ar, ok := src.Current().(*arrowReader); ok { // nil after the file's last batch
			require.NotNil(t, ar.mapped, "the file is not mapped")
			maxPages = max(maxPages, residentPages(t, pagemap, ar.mapped.data))
		}
		b.Release()
	}
	require.Equal(t, rows*batches, total)
	bodyPages := 2 * 8 * rows / os.Getpagesize()
	// At most: the body being read, the body read last (read ahead), dropEvery and the
	// kernel's fault-around window (64 KiB by default). Before the fix this reached about
	// 8 pages more per record batch read.
	limit := 2*(bodyPages+1) + dropEvery/os.Getpagesize() + 16
	t.Logf("at most %d pages resident (limit %d)", maxPages, limit)
	require.LessOrEqual(t, maxPages, limit)
}
