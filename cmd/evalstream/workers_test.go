package main

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/evalstream/evalstream/sinks"
)

func TestSmallInput(t *testing.T) {
	file := func(path string, size int64) sinks.Input {
		return sinks.Input{Path: path, Size: size, SHA256: "e3b0c442"}
	}
	for _, c := range []struct {
		name   string
		inputs []sinks.Input
		want   bool
	}{
		{"no input", nil, false},
		{"one small file", []sinks.Input{file("a.jsonl", 1<<20)}, true},
		{"an empty file", []sinks.Input{file("a.jsonl", 0)}, true},
		{"small files under the bound together", []sinks.Input{file("a.jsonl", 1<<20), file("b.jsonl", 1<<20-1)}, true},
		{"small files at the bound together", []sinks.Input{file("a.jsonl", 1<<20), file("b.jsonl", 1<<20)}, false},
		{"a large file", []sinks.Input{file("a.parquet", 64<<20)}, false},
		{"gzip: its size is not the text's", []sinks.Input{file("a.jsonl.gz", 1<<10)}, false},
		{"standard input", []sinks.Input{{Path: "-"}}, false},
		{"a FIFO (named, not hashed)", []sinks.Input{{Path: "/tmp/fifo"}}, false},
		{"a Kafka topic", []sinks.Input{{Topic: "outputs"}}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			require.Equal(t, c.want, (&job{inputs: c.inputs}).smallInput())
		})
	}
}
