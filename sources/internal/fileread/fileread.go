// Package fileread is the machinery the file format readers of evalstream share: the
// Builder a Reader fills with the records of one batch, the Arena their lists and unescaped
// strings are carved from, the JSON line buffers and Arrow row segments a batch aliases,
// the allocation limit and panic recovery at third-party decoding boundaries, and the
// sentinel errors every reader wraps.
//
// It may import pipeline, metrics/core and arrow/go's memory and arrow packages; it must
// not import sources or any format package (they all import it).
//
// Memory: everything a Builder carves or holds belongs to the batch Finish returns and is
// valid until its Release. A Builder, an Arena and a Reader are used by one goroutine at a
// time; LimitAllocator and LineChunk reference counts are safe for concurrent use (batches
// are released on any goroutine).
package fileread

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/sources/format"
)

// Sentinel errors, re-exported by package sources (which documents them): the same values,
// so that errors.Is works whichever package a caller imports.
var (
	ErrFormat  = errors.New("unsupported input format")
	ErrCorrupt = errors.New("corrupt input file")
)

// Format names of Info.Format (and of sources.FileConfig.Format).
const (
	FormatAuto    = format.Auto
	FormatJSONL   = format.JSONL
	FormatArrow   = format.Arrow
	FormatArrows  = format.Arrows
	FormatParquet = format.Parquet
)

// Options is what a format's Open needs of the source reading the file.
type Options struct {
	// Fields are the requested fields, in the order of each record's values.
	Fields []string
	// BatchSize is the number of records of a full batch.
	BatchSize int
	// MaxRecord > 0 bounds the size of a record (see TooLargeError).
	MaxRecord int
	// Mem is the allocator of Arrow buffers; memory.DefaultAllocator enables the recycling
	// pools and memory maps (tests pass a checked allocator).
	Mem memory.Allocator
	// Decoders holds the JSON decoders of deferred decoding, shared by the files of one
	// source (a decoder is not safe for concurrent use; each Decode takes one).
	Decoders sync.Pool
	// Ctx is the context of the Next call that opens the file (the run's, nil means
	// context.Background()): a reader of a FIFO or a device stops waiting when it ends
	// (see OpenFile). It is set by Source before each open, not by the caller.
	Ctx context.Context
}

// TooLargeError is the error of a record larger than maxRecordBytes.
func TooLargeError(size int64, limit int) *core.RecordError {
	return &core.RecordError{Reason: "record too large", Detail: fmt.Sprintf("record of %d bytes exceeds the limit of %d bytes", size, limit)}
}
