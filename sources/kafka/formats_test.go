package kafka_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/ipc"
	"github.com/apache/arrow/go/v15/arrow/memory"
	kafkago "github.com/segmentio/kafka-go"
	"github.com/stretchr/testify/require"
)

// arrowStream encodes records (JSON objects with prediction, references, system) as one
// Arrow IPC stream.
func arrowStream(t *testing.T, recs [][]byte) []byte {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "system", Type: arrow.BinaryTypes.String},
		{Name: "prediction", Type: arrow.BinaryTypes.String},
		{Name: "references", Type: arrow.ListOf(arrow.BinaryTypes.String)},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for _, rec := range recs {
		var v struct {
			System, Prediction string
			References         []string
		}
		require.NoError(t, json.Unmarshal(rec, &v))
		b.Field(0).(*array.StringBuilder).Append(v.System)
		b.Field(1).(*array.StringBuilder).Append(v.Prediction)
		lb := b.Field(2).(*array.ListBuilder)
		lb.Append(true)
		for _, r := range v.References {
			lb.ValueBuilder().(*array.StringBuilder).Append(r)
		}
	}
	rec := b.NewRecord()
	defer rec.Release()
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(schema))
	require.NoError(t, w.Write(rec))
	require.NoError(t, w.Close())
	return buf.Bytes()
}

func TestArrowMessages(t *testing.T) {
	addrs := brokers(t)
	dir := t.TempDir()
	topic := uniqueName("arrow")
	createTopic(t, addrs, topic, 3)
	recs := wmtRecords(t, 3000)
	var msgs []msg
	var lines [][]byte
	for i, k := 0, 0; i < len(recs); k++ {
		n := min(1+k%40, len(recs)-i) // 1..40 rows per message
		msgs = append(msgs, msg{Partition: k % 3, Value: arrowStream(t, recs[i:i+n])})
		lines = append(lines, recs[i:i+n]...)
		i += n
	}
	msgs = append(msgs, msg{Partition: 1, Value: []byte("this is not an Arrow stream")})
	produce(t, addrs, topic, msgs)

	f := filepath.Join(dir, "all.jsonl")
	require.NoError(t, os.WriteFile(f, append(bytes.Join(lines, []byte("\n")), '\n'), 0o644))
	want := parseJSON(t, fileResults(t, dir, f, "slice_by: [system]\n"))
	want["skipped"] = float64(1)
	want["errors"] = map[string]any{"invalid arrow": float64(1)}

	out := filepath.Join(dir, "arrow.json")
	cfg := kafkaConfig(t, dir, "a.yaml", addrs, topic, uniqueName("g"), uniqueName("state"), "  format: arrow\n", "slice_by: [system]\npipeline: {on_error: skip}\n", fmt.Sprintf("  - {type: json, path: %q}\n", out))
	r := run(t, 2*time.Minute, nil, "run", "-c", cfg)
	require.Equalf(t, 0, r.code, "arrow run failed:\n%s", tail(r.stderr))
	require.Equal(t, want, parseJSON(t, readFile(t, out)), "Arrow messages give the results of the same rows in a file; the bad message is counted")
	requireKafkaPositions(t, readFile(t, out), "invalid arrow", topic)
}

func TestInvalidJSONMessagesAndDeadLetters(t *testing.T) {
	addrs := brokers(t)
	dir := t.TempDir()
	topic, dlTopic, results := uniqueName("json"), uniqueName("dead"), uniqueName("results")
	createTopic(t, addrs, topic, 2)
	recs := wmtRecords(t, 500)
	bad := [][]byte{
		[]byte(`{"prediction": "unterminated`),
		[]byte(`["not", "an", "object"]`),
		[]byte("{\"prediction\": \"bad \xff utf-8\", \"references\": [\"x\"]}"),
		[]byte(`{"prediction": 42, "references": ["x"]}`),
	}
	var msgs []msg
	var lines [][]byte
	for i, rec := range recs {
		msgs = append(msgs, msg{Partition: i % 2, Value: rec})
		lines = append(lines, rec)
		if i%100 == 50 {
			b := bad[(i/100)%len(bad)]
			msgs = append(msgs, msg{Partition: i % 2, Value: b})
			lines = append(lines, b)
		}
	}
	produce(t, addrs, topic, msgs)
	f := filepath.Join(dir, "all.jsonl")
	require.NoError(t, os.WriteFile(f, append(bytes.Join(lines, []byte("\n")), '\n'), 0o644))
	// The same lines in a JSONL file, under on_error: skip, give the same counts.
	wantStr := fileResults(t, dir, f, "pipeline: {on_error: skip}\n")
	want := parseJSON(t, wantStr)
	require.Equal(t, float64(5), want["skipped"])

	out := filepath.Join(dir, "json.json")
	group := uniqueName("g")
	cfg := kafkaConfig(t, dir, "j.yaml", addrs, topic, group, uniqueName("state"), "",
		fmt.Sprintf("pipeline: {on_error: dead_letter, dead_letter: {topic: %s}}\n", dlTopic),
		fmt.Sprintf("  - {type: json, path: %q}\n  - {type: kafka, topic: %s}\n", out, results))
	r := run(t, 2*time.Minute, nil, "run", "-c", cfg)
	require.Equalf(t, 0, r.code, "run failed:\n%s", tail(r.stderr))
	require.Equal(t, want, parseJSON(t, readFile(t, out)), "bad messages are counted exactly like bad JSONL lines")
	requireKafkaPositions(t, readFile(t, out), "invalid json", topic)

	// Every bad message is in the dead-letter topic with its payload and reason.
	dead := readTopic(t, addrs, dlTopic, 5)
	for _, m := range dead {
		var d map[string]any
		require.NoError(t, json.Unmarshal(m.Value, &d))
		require.Equal(t, topic, d["topic"])
		require.NotEmpty(t, d["reason"])
		require.Equal(t, fmt.Sprintf("%s/%v/%v", topic, d["partition"], d["offset"]), string(m.Key))
	}
	// The kafka sink wrote the results keyed RUN/WINDOW/SLICE.
	res := readTopic(t, addrs, results, 1)
	require.Equal(t, group+"/total/*", string(res[0].Key))
	var got map[string]any
	require.NoError(t, json.Unmarshal(res[0].Value, &got))
	require.Equal(t, want["metrics"], got["metrics"])
	require.Nil(t, got["slice"])
}

// readTopic reads the n messages of a single-partition topic, failing after a timeout.
func readTopic(t *testing.T, addrs []string, topic string, n int) []kafkago.Message {
	t.Helper()
	r := kafkago.NewReader(kafkago.ReaderConfig{Brokers: addrs, Topic: topic, Partition: 0, MaxWait: 200 * time.Millisecond})
	defer r.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out []kafkago.Message
	for len(out) < n {
		msg, err := r.ReadMessage(ctx)
		require.NoErrorf(t, err, "read %s after %d of %d messages", topic, len(out), n)
		out = append(out, msg)
	}
	return out
}
