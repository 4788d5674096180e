package sinks

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sync"
	"time"
	"unicode/utf8"

	kafkago "github.com/segmentio/kafka-go"

	"github.com/evalstream/evalstream/pipeline"
)

// Kafka writes results to a topic as JSON, one message per window and slice, keyed
// RUN/WINDOW/SLICE (WINDOW is the window start in RFC 3339 or "total"; SLICE is the slice key
// or "*" for all records). A result emitted again after a restart has the same key and the
// same value, so on a compacted topic (or for a consumer keeping the last value per key) the
// sink is idempotent. The "*" message holds the whole results object (with its slices); the
// slice messages hold one slice each. A Kafka sink is used by one goroutine.
type Kafka struct {
	Run string
	w   *kafkago.Writer
}

// NewKafka returns a sink writing to topic through transport (TLS/SASL; may be nil).
func NewKafka(brokers []string, topic, run string, transport *kafkago.Transport) *Kafka {
	w := &kafkago.Writer{
		Addr:                   kafkago.TCP(brokers...),
		Topic:                  topic,
		Balancer:               &kafkago.Hash{},
		RequiredAcks:           kafkago.RequireAll,
		BatchTimeout:           5 * time.Millisecond,
		AllowAutoTopicCreation: true,
		MaxAttempts:            5,
		WriteTimeout:           30 * time.Second,
	}
	if transport != nil {
		w.Transport = transport
	}
	return &Kafka{Run: run, w: w}
}

// ResultKey is the message key of a result: RUN/WINDOW/SLICE.
func ResultKey(run string, w *pipeline.WindowSpan, slice string) string {
	win := "total"
	if w != nil {
		win = w.Start.UTC().Format(time.RFC3339Nano)
	}
	if slice == "" {
		slice = "*"
	}
	return run + "/" + win + "/" + slice
}

// KafkaMessages renders r as the sink's messages (exported for tests and tools).
func KafkaMessages(run string, r *pipeline.Results) ([]kafkago.Message, error) {
	raw, err := r.MarshalJSON()
	if err != nil {
		return nil, err
	}
	head, err := json.Marshal(map[string]any{"run": run})
	if err != nil {
		return nil, err
	}
	// {"run":...,"slice":null, <the results object's fields>}
	var all bytes.Buffer
	all.Write(head[:len(head)-1])
	all.WriteString(`,"slice":null,`)
	all.Write(raw[1:])
	msgs := []kafkago.Message{{Key: []byte(ResultKey(run, r.Window, "")), Value: all.Bytes()}}
	for _, s := range r.Slices {
		sub := &pipeline.Results{Records: s.Records, Errors: map[string]int64{}, Metrics: s.Metrics, Window: r.Window}
		b, err := sub.MarshalJSON()
		if err != nil {
			return nil, err
		}
		var one bytes.Buffer
		one.Write(head[:len(head)-1])
		one.WriteString(`,"slice":`)
		key, _ := json.Marshal(s.Key)
		one.Write(key)
		one.WriteByte(',')
		one.Write(b[1:])
		msgs = append(msgs, kafkago.Message{Key: []byte(ResultKey(run, r.Window, s.Key)), Value: one.Bytes()})
	}
	return msgs, nil
}

// Write sends r; it returns once the broker has acknowledged every message.
func (s *Kafka) Write(ctx context.Context, r *pipeline.Results) error {
	msgs, err := KafkaMessages(s.Run, r)
	if err != nil {
		return err
	}
	if err := s.w.WriteMessages(ctx, msgs...); err != nil {
		return fmt.Errorf("kafka sink %s: %w", s.w.Topic, err)
	}
	return nil
}

// Close flushes and closes the writer.
func (s *Kafka) Close() error { return s.w.Close() }

// DeadLetterJSON renders a dead letter as the JSON object of the dead-letter outputs.
func DeadLetterJSON(d pipeline.DeadLetter) ([]byte, error) {
	line := map[string]any{"position": d.Pos.String(), "reason": d.Reason, "error": d.Error}
	if d.Pos.Topic != "" {
		line["topic"], line["partition"], line["offset"] = d.Pos.Topic, d.Pos.Partition, d.Pos.Offset
		if d.Pos.Row >= 0 {
			line["row"] = d.Pos.Row
		}
	} else {
		line["file"], line["row"] = d.Pos.File, d.Pos.Row+1
	}
	switch {
	case d.Raw != nil && utf8.Valid(d.Raw):
		line["payload"] = string(d.Raw)
	case d.Raw != nil:
		line["payload_base64"] = base64.StdEncoding.EncodeToString(d.Raw)
	case d.Record != nil:
		rec := map[string]any{}
		for i, f := range d.Fields {
			if i < len(d.Record.Values) && d.Record.Values[i].Present() {
				rec[f] = ValueJSON(d.Record.Values[i])
			}
		}
		line["record"] = rec
	}
	return json.Marshal(line)
}

// KafkaDeadLetters writes rejected records of a Kafka run to a topic, keyed by their
// position (topic/partition/offset), so that copies written again after a restart can be
// recognized. A dead letter larger than the topic's max.message.bytes is truncated to fit
// (see fitDeadLetter). It is safe for concurrent use.
type KafkaDeadLetters struct {
	w        *kafkago.Writer
	maxBytes int // the topic's max.message.bytes
}

// NewKafkaDeadLetters returns a dead-letter writer to topic, for messages of up to the
// broker's default max.message.bytes (SetMaxMessageBytes sets the topic's).
func NewKafkaDeadLetters(brokers []string, topic string, transport *kafkago.Transport) *KafkaDeadLetters {
	w := &kafkago.Writer{Addr: kafkago.TCP(brokers...), Topic: topic, Balancer: &kafkago.Hash{}, RequiredAcks: kafkago.RequireAll, BatchTimeout: 5 * time.Millisecond, AllowAutoTopicCreation: true, MaxAttempts: 5, WriteTimeout: 30 * time.Second}
	if transport != nil {
		w.Transport = transport
	}
	k := &KafkaDeadLetters{w: w}
	k.SetMaxMessageBytes(DefaultMaxMessageBytes)
	return k
}

// SetMaxMessageBytes sets the largest record batch the topic accepts (its max.message.bytes):
// dead letters are truncated to fit, and batched within it. Call it before Write.
func (k *KafkaDeadLetters) SetMaxMessageBytes(n int) {
	k.maxBytes = n
	k.w.BatchBytes = int64(n)
}

// Write sends the dead letters and waits for the broker's acknowledgement. Its error is a
// *DeadLetterError naming the position of the dead letter that failed.
func (k *KafkaDeadLetters) Write(ctx context.Context, dead []pipeline.DeadLetter) error {
	msgs := make([]kafkago.Message, len(dead))
	for i, d := range dead {
		key := []byte(d.Pos.String())
		b, err := fitDeadLetter(d, k.maxBytes-batchOverhead-len(key))
		if err != nil {
			return &DeadLetterError{Topic: k.w.Topic, Pos: d.Pos, Err: fmt.Errorf("%w (max.message.bytes is %d)", err, k.maxBytes), Permanent: true}
		}
		msgs[i] = kafkago.Message{Key: key, Value: b}
	}
	if err := k.w.WriteMessages(ctx, msgs...); err != nil {
		return deadLetterWriteError(k.w.Topic, dead, err)
	}
	return nil
}

// Close closes the writer.
func (k *KafkaDeadLetters) Close() error { return k.w.Close() }

// DeadLetterLog appends rejected records of a Kafka run to a JSONL file, synced before Write
// returns. After a crash, records reprocessed from the last snapshot are appended again
// (their position tells the copies apart). It is safe for concurrent use.
type DeadLetterLog struct {
	mu   sync.Mutex
	path string
}

// NewDeadLetterLog returns an appender to path (created on the first write).
func NewDeadLetterLog(path string) *DeadLetterLog { return &DeadLetterLog{path: path} }

// Write appends one line per dead letter and syncs the file.
func (l *DeadLetterLog) Write(_ context.Context, dead []pipeline.DeadLetter) error {
	var buf bytes.Buffer
	for _, d := range dead {
		b, err := DeadLetterJSON(d)
		if err != nil {
			return err
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := appendFile(l.path, buf.Bytes()); err != nil {
		return fmt.Errorf("dead letters: %w", err)
	}
	return nil
}
