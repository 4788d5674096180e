// Package jsonl reads JSON Lines files (optionally gzip-compressed) for package sources, and
// holds the projecting JSON decoder that the Kafka source uses for message values too.
//
// The decoder scans one object per line and decodes only the requested top-level fields,
// validating (not materializing) the rest; it accepts exactly what encoding/json accepts
// and yields the values of core.FromJSON (see package sources for the mapping).
//
// Imports: metrics/core and sources/internal/fileread; never package sources
// (which imports it) nor another format package.
//
// Memory: strings without escapes alias the line buffers (fileread.LineChunk), which belong
// to the batch and are valid until its Release (in plain mode they are never reused, so Raw
// stays valid after Release); unescaped strings and lists are carved from the batch's
// arena. Decoder values alias the caller's input (see Decoder). A reader and a Decoder are
// used by one goroutine at a time.
package jsonl
