// Package arrow reads Arrow IPC files and streams for package sources, converts Arrow
// records to pipeline records (also for package parquet, through OpenRecords), and verifies
// Arrow IPC metadata before arrow/go reads it (also for Kafka messages: NewStreamReader,
// CheckRecordBatch).
//
// arrow/go v15 panics, or allocates without bound, on some malformed input: messages are
// verified first (ipcverify.go), allocations are bounded by what the file's size can
// justify (fileread.LimitAllocator), and panics are recovered at every call into arrow/go
// (fileread.Recovered) into errors wrapping fileread.ErrCorrupt that name the file and the
// record batch.
//
// Imports: metrics/core, pipeline, sources/internal/fileread and arrow/go; never package
// sources nor another format package (package parquet imports this one).
//
// Memory: strings of converted records alias the Arrow buffers (memory-mapped message bodies
// when the file can be mapped), which the batch holds until its Release; lists are carved
// from the batch's arena. Message bodies and column buffers come from recycling pools
// (bodypool.go). A reader is used by one goroutine; its batches may be released on any.
package arrow
