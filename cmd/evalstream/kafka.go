package main

import (
	"context"
	"io"

	"github.com/evalstream/evalstream/pipeline"
)

func (j *job) executeKafka(ctx context.Context, stdout, stderr io.Writer, savePath string) error {
	return usageErr("source.type kafka is not supported by this build yet")
}

func reportFromKafka(ctx context.Context, brokers []string, topic string) (*pipeline.Accumulator, error) {
	return nil, usageErr("report --from-kafka is not supported by this build yet")
}
