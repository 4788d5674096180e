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
