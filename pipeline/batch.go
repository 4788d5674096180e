// Package pipeline is the engine of evalstream: sources hand batches of records to a fixed pool
// of workers, each worker folds records into its own metric states, a reducer merges them, and
// sinks write the results.
package pipeline

import (
	"context"
	"fmt"

	"github.com/evalstream/evalstream/metrics/core"
)

// Position locates a record in its input, for error messages and dead letters.
type Position struct {
	File      string // file path (file sources)
	Row       int64  // 0-based row within File; -1 when unknown
	Topic     string // Kafka sources
	Partition int
	Offset    int64
}

// String renders the position as `file:row` (1-based row, as editors count lines) or
// `topic/partition/offset`.
func (p Position) String() string {
	if p.Topic != "" {
		return fmt.Sprintf("%s/%d/%d", p.Topic, p.Partition, p.Offset)
	}
	if p.Row < 0 {
		return p.File
	}
	return fmt.Sprintf("%s:%d", p.File, p.Row+1)
}

// Record is one input record projected onto the fields the pipeline asked for.
type Record struct {
	// Values holds one value per requested field, in the order given to the source.
	Values []core.Value
	// Seq is the record's global position: records of earlier files (in sorted path order) or
	// lower offsets have lower Seq. Order-dependent metrics use it.
	Seq uint64
	Pos Position
	// Raw is the original payload (a JSON line or Kafka message value) when the source has
	// one; dead letters carry it. Sources without a raw form leave it nil.
	Raw []byte
	// Err is set when the record could not be decoded (bad JSON, a field of the wrong type at
	// the source level). Such a record is bad input: counted and handled by the error policy.
	Err *core.RecordError
	// UTF8Checked is set by a source that validated every string in Values as UTF-8 (see
	// core.Example.UTF8Checked).
	UTF8Checked bool
	// Unit, when not 0, is the record's resampling unit for the bootstrap when no key field
	// is configured: Kafka sources set it from the message key.
	Unit uint64
}

// Batch is a group of records handed to one worker. Strings in Values may alias buffers
// owned by the batch: they are valid until Release is called, which the worker does once it
// has folded the batch.
type Batch struct {
	Records []Record
	// Bytes is how many input bytes the batch covers, for progress reporting.
	Bytes int64
	// Release frees the batch's buffers. It may be nil.
	Release func()
	// Ack, when set, is called by the reducer once the batch's effect is merged and durable
	// (Kafka offsets). File sources leave it nil.
	Ack func()
	// Decode, when set, finishes decoding the batch: until it has returned, the Values and Err
	// of Records are not filled in (Seq, Pos and Raw are), and Records may even be empty when
	// Columns is set. Sources set it only when Next is called with a context from
	// WithDeferredDecode (or WithColumns), so that the parsing work runs on the worker that
	// folds the batch rather than on the single reader goroutine. The consumer calls it once,
	// from any goroutine, before it reads the records. An error means the input is corrupt
	// (it names the file) and ends the run like an error of Next.
	Decode func() error
	// Columns, when set, is the batch in columnar form (only for a context from WithColumns):
	// a consumer that can fold the batch from its columns alone does so without calling
	// Decode; any other consumer calls Decode, which fills in Records.
	Columns *Columns
}

// Columns is a batch held column by column. N is the number of records. Ints[f] holds the
// values of field f (in the order of the fields given to the source) when the value of every
// record is an integer (core.Int, no null), else it is nil. The slices alias buffers owned by
// the batch: they are valid until Release, and consumers must not modify them.
//
// Dicts[f], when Ints[f] is nil, may hold field f dictionary-encoded (a Parquet dictionary
// page, an Arrow dictionary array): consumers that fold counts then visit each distinct
// combination of values once instead of each record (Folder.FoldColumns). A dictionary of
// integers also stands for Ints[f]: a consumer that needs the integers (Folder.FoldColumns
// when the dictionaries cannot be folded as such) expands it, so that sources do not
// materialise 8 bytes per row that are mostly never read.
type Columns struct {
	N     int
	Ints  [][]int64
	Dicts []*DictColumn
}

// DictColumn is a column of N records held as indices into a dictionary of distinct values:
// the value of record i is Values[Codes[i]]. Every code is in [0, len(Values)) and no value
// is Null or Missing (a column with nulls is not given in this form). Values and Codes alias
// buffers owned by the batch, as Columns does; consumers must not modify them. The batches
// of one dictionary may share its Values (converted once); a source never modifies Values
// once handed out, so consumers may recognise a dictionary by them.
type DictColumn struct {
	Values []core.Value
	Codes  []int32
}

type decodeKey struct{}

// decodeMode is what a consumer accepts from Next, carried by its context.
type decodeMode uint8

const (
	decodeDeferred decodeMode = 1 << iota
	decodeColumns
)

// WithDeferredDecode returns a context for Source.Next telling sources that the caller calls
// Batch.Decode before reading a batch's records, and reads nothing of a batch (Raw included)
// after releasing it, so that sources may reuse its buffers. Run uses it: it moves parsing
// (JSON, Arrow conversion) from the reader goroutine to the workers, and copies what it keeps
// (dead letters, per-record scores). Sources that do not know it ignore it.
func WithDeferredDecode(ctx context.Context) context.Context {
	return context.WithValue(ctx, decodeKey{}, decodeDeferred|modeOf(ctx))
}

// WithColumns is WithDeferredDecode that also accepts batches in columnar form
// (Batch.Columns, with Records empty until Decode). A caller that folds a batch from its
// columns does not read its records' Seq.
func WithColumns(ctx context.Context) context.Context {
	return context.WithValue(ctx, decodeKey{}, decodeDeferred|decodeColumns|modeOf(ctx))
}

func modeOf(ctx context.Context) decodeMode {
	m, _ := ctx.Value(decodeKey{}).(decodeMode)
	return m
}

type consumersKey struct{}

// WithConsumers returns a context for Source.Next telling sources that n goroutines consume
// the batches in parallel. A source that knows how much input is left may then make its
// last batches smaller, so that the consumers finish together instead of all but one
// waiting for the last full batch. Run uses it.
func WithConsumers(ctx context.Context, n int) context.Context {
	return context.WithValue(ctx, consumersKey{}, n)
}

// Consumers returns the n of WithConsumers, or 1.
func Consumers(ctx context.Context) int {
	if n, ok := ctx.Value(consumersKey{}).(int); ok && n > 1 {
		return n
	}
	return 1
}

// DeferredDecode reports whether ctx comes from WithDeferredDecode or WithColumns: a source
// may then hand out batches with Decode set.
func DeferredDecode(ctx context.Context) bool { return modeOf(ctx)&decodeDeferred != 0 }

// ColumnsAccepted reports whether ctx comes from WithColumns: a source may then hand out
// batches with Columns set and Records empty until Decode.
func ColumnsAccepted(ctx context.Context) bool { return modeOf(ctx)&decodeColumns != 0 }

// DecodeBatch finishes a batch handed out with Decode set (a no-op otherwise): afterwards its
// Records are complete and Decode is nil.
func DecodeBatch(b *Batch) error {
	if b.Decode == nil {
		return nil
	}
	d := b.Decode
	b.Decode = nil
	b.Columns = nil
	return d()
}

// Source produces batches of records. Next returns io.EOF after the last batch. A Source is
// used by a single goroutine.
type Source interface {
	Next(ctx context.Context) (*Batch, error)
	Close() error
}

// Sizer is implemented by sources that know their total input size in bytes, for progress.
type Sizer interface {
	TotalBytes() int64
}

// Sink writes results. Write is called once per emission (once in file mode); Close flushes
// and releases resources. A Sink is used by a single goroutine.
type Sink interface {
	Write(ctx context.Context, r *Results) error
	Close() error
}
