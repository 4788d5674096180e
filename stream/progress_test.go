package stream

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"
	"github.com/stretchr/testify/require"

	"github.com/evalstream/evalstream/metrics"
	"github.com/evalstream/evalstream/pipeline"
	"github.com/evalstream/evalstream/sources/kafka"
)

// topicWith creates a fresh topic of two partitions against the broker of
// EVALSTREAM_KAFKA_BROKERS (skipping without one) and produces values to it, round robin.
func topicWith(t *testing.T, values []string) (broker, topic string) {
	t.Helper()
	env := os.Getenv("EVALSTREAM_KAFKA_BROKERS")
	if env == "" {
		t.Skip("EVALSTREAM_KAFKA_BROKERS is not set: start a broker with `.ci/kafka/kafka-ci.sh start` and export EVALSTREAM_KAFKA_BROKERS=127.0.0.1:9092")
	}
	broker = strings.Split(env, ",")[0]
	topic = fmt.Sprintf("progress-%d", time.Now().UnixNano())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := &kafkago.Client{Addr: kafkago.TCP(broker), Timeout: 30 * time.Second}
	resp, err := c.CreateTopics(ctx, &kafkago.CreateTopicsRequest{Topics: []kafkago.TopicConfig{{Topic: topic, NumPartitions: 2, ReplicationFactor: 1}}})
	require.NoError(t, err)
	require.NoError(t, resp.Errors[topic])
	w := &kafkago.Writer{Addr: kafkago.TCP(broker), Topic: topic, Balancer: &kafkago.RoundRobin{}, BatchTimeout: 10 * time.Millisecond, RequiredAcks: kafkago.RequireAll}
	defer w.Close()
	msgs := make([]kafkago.Message, len(values))
	for i, v := range values {
		msgs[i] = kafkago.Message{Value: []byte(v)}
	}
	require.Eventually(t, func() bool { return w.WriteMessages(ctx, msgs...) == nil }, time.Minute, 200*time.Millisecond)
	return broker, topic
}

// TestProgressCounts: the engine's progress counts this run's records and bad records,
// the offsets a bounded run passed of those it has to pass (all of them at the end), and a
// continuous run's lag behind the high-water marks (none once it has read everything).
func TestProgressCounts(t *testing.T) {
	var values []string
	for i := 0; i < 30; i++ {
		v := fmt.Sprintf(`{"label": %d, "prediction": %d}`, i%2, i%3%2)
		if i%10 == 9 {
			v = `{"prediction": 1}` // no label: bad
		}
		values = append(values, v)
	}
	broker, topic := topicWith(t, values)
	m, err := metrics.New(map[string]any{"type": "accuracy"})
	require.NoError(t, err)
	plan := pipeline.NewPlan([]*metrics.Metric{m}, nil)
	for _, tc := range []struct {
		mode string
		want Progress
	}{
		{"bounded", Progress{Records: 27, Bad: 3, Done: 30, Total: 30, Lag: -1}},
		{"continuous", Progress{Records: 27, Bad: 3, Lag: 0}},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			kc := kafka.Config{Brokers: []string{broker}, Topics: []string{topic}, Mode: tc.mode, Fields: plan.Fields, Logf: t.Logf}
			eng, err := New(kc, Config{Plan: plan, Policy: pipeline.Policy{OnError: "skip", Unlimited: true}, Continuous: tc.mode == "continuous", EmitInterval: time.Hour})
			require.NoError(t, err)
			require.Equal(t, Progress{Lag: -1}, eng.Progress(), "nothing known before the run")
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- eng.Consume(ctx) }()
			if tc.mode == "continuous" {
				require.Eventually(t, func() bool { return eng.Progress() == tc.want }, time.Minute, 50*time.Millisecond,
					"the run reads every message and catches up: %+v", eng.Progress())
				cancel()
			}
			require.NoError(t, <-done)
			require.Equal(t, tc.want, eng.Progress())
		})
	}
}
