package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"
	"github.com/stretchr/testify/require"

	"github.com/evalstream/evalstream/bench"
)

// TestBenchKafka runs `bench --kafka` against a real broker (skipped without one, like the
// integration tests of sources/kafka: start one with `.ci/kafka/kafka-ci.sh start` and set
// EVALSTREAM_KAFKA_BROKERS=127.0.0.1:9092). The scores of the consume+score passes must be
// those of file-mode scoring of the same records, and the topics it made must be gone. It
// asserts no timing.
func TestBenchKafka(t *testing.T) {
	brokers := os.Getenv("EVALSTREAM_KAFKA_BROKERS")
	if brokers == "" {
		t.Skip("EVALSTREAM_KAFKA_BROKERS is not set: start a broker with `.ci/kafka/kafka-ci.sh start` and export EVALSTREAM_KAFKA_BROKERS=127.0.0.1:9092 to run the Kafka bench test")
	}
	dir := t.TempDir()
	type pass struct {
		RecordsSec float64   `json:"records_per_s"`
		Runs       []float64 `json:"runs_records_per_s"`
	}
	for _, mix := range []string{"text", "classification"} {
		r := run(t, dir, "bench", "--kafka", brokers, "--mix", mix, "--records", "3000", "--partitions", "3", "--repeat", "2", "--json")
		require.Equal(t, 0, r.code, "%s: %s", mix, r.stderr)
		var rep struct {
			Topic      string         `json:"topic"`
			Records    int64          `json:"records"`
			Partitions int            `json:"partitions"`
			RawReader  pass           `json:"raw_reader"`
			RawBatch   pass           `json:"raw_read_batch"`
			Raw        pass           `json:"raw"`
			Consume    pass           `json:"consume_score"`
			Ratio      float64        `json:"ratio"`
			Same       bool           `json:"identical_to_file_mode"`
			Values     map[string]any `json:"values"`
		}
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep), r.stdout)
		require.True(t, rep.Same, "%s: the Kafka scores must equal the file-mode scores of the same records", mix)
		require.Equal(t, int64(3000), rep.Records)
		require.Equal(t, 3, rep.Partitions)
		for _, p := range []pass{rep.RawReader, rep.RawBatch, rep.Consume} {
			require.Len(t, p.Runs, 2)
		}
		require.NotZero(t, rep.Ratio)
		require.Len(t, rep.Values, len(bench.Mixes[mix].Metrics))

		// The topic is deleted at the end.
		c := &kafkago.Client{Addr: kafkago.TCP(strings.Split(brokers, ",")...), Timeout: 10 * time.Second}
		require.Eventually(t, func() bool {
			m, err := c.Metadata(context.Background(), &kafkago.MetadataRequest{Topics: []string{rep.Topic}})
			return err == nil && len(m.Topics) == 1 && errors.Is(m.Topics[0].Error, kafkago.UnknownTopicOrPartition)
		}, 30*time.Second, 200*time.Millisecond, "topic %s must be deleted", rep.Topic)
	}

	// The text report, with metrics instead of a mix.
	r := run(t, dir, "bench", "--kafka", brokers, "--records", "500", "--metric", "bleu", "--metric", "chrf", "--partitions", "2")
	require.Equal(t, 0, r.code, r.stderr)
	for _, want := range []string{"raw kafka-go, Reader per partition", "raw kafka-go, ReadBatch per partition",
		"evalstream consume+score (bounded)", "ratio consume+score / raw", "bleu#1", "chrf#2"} {
		require.Contains(t, r.stdout, want)
	}
	require.Regexp(t, `identical to file mode\s+true`, r.stdout)

	// Usage errors.
	for _, args := range [][]string{{"bench", "--kafka", ""}, {"bench", "--kafka", brokers, "--partitions", "0"}, {"bench", "--kafka", brokers, "--mix", "nope"}} {
		r := run(t, dir, args...)
		require.Equal(t, 2, r.code, "%v: %s", args, r.stderr)
	}
}

func TestKafkaBenchRequested(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
	}{
		{[]string{"--kafka", "x:1"}, true},
		{[]string{"-kafka=x:1", "--mix", "text"}, true},
		{[]string{"--mix", "text", "--kafka=x:1"}, true},
		{[]string{"--mix", "text"}, false},
		{[]string{"--kafkaesque"}, false},
		{[]string{"--", "--kafka"}, false},
	} {
		require.Equal(t, c.want, benchModeRequested(c.args, "kafka"), "%v", c.args)
	}
	for _, c := range []struct {
		args []string
		want bool
	}{
		{[]string{"--compare"}, true},
		{[]string{"--mix", "bleu", "-compare=true"}, true},
		{[]string{"--compare=false"}, false},
		{[]string{"--comparer"}, false},
	} {
		require.Equal(t, c.want, benchModeRequested(c.args, "compare"), "%v", c.args)
	}
}
