package kafka_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"
	"github.com/stretchr/testify/require"
)

// createTopicWith creates a one-partition topic with the given topic configs.
func createTopicWith(t *testing.T, addrs []string, topic string, configs map[string]string) {
	t.Helper()
	c := &kafkago.Client{Addr: kafkago.TCP(addrs...), Timeout: 20 * time.Second}
	tc := kafkago.TopicConfig{Topic: topic, NumPartitions: 1, ReplicationFactor: 1}
	for k, v := range configs {
		tc.ConfigEntries = append(tc.ConfigEntries, kafkago.ConfigEntry{ConfigName: k, ConfigValue: v})
	}
	resp, err := c.CreateTopics(context.Background(), &kafkago.CreateTopicsRequest{Topics: []kafkago.TopicConfig{tc}})
	require.NoError(t, err)
	require.NoError(t, resp.Errors[topic])
	require.Eventually(t, func() bool {
		m, err := c.Metadata(context.Background(), &kafkago.MetadataRequest{Topics: []string{topic}})
		return err == nil && len(m.Topics) == 1 && m.Topics[0].Error == nil && len(m.Topics[0].Partitions) == 1 && m.Topics[0].Partitions[0].Leader.ID >= 0
	}, 30*time.Second, 100*time.Millisecond)
}

// TestDeadLettersLargerThanTheTopicAllows writes dead letters to a topic whose
// max.message.bytes is 4 KiB: a 20 KB bad text message and a 12 KB bad binary one are
// truncated to fit, marked "truncated": true, with the start of their payload; a tombstone
// has its own reason and keeps its key; the run ends with the right counts. With a limit
// that not even a dead letter without its payload fits, the run fails with exit 1 naming
// the offset of the record, and writes no results, instead of retrying without end.
func TestDeadLettersLargerThanTheTopicAllows(t *testing.T) {
	addrs := brokers(t)
	dir := t.TempDir()
	topic := uniqueName("bigbad")
	createTopic(t, addrs, topic, 1)
	recs := wmtRecords(t, 30)
	bigText := []byte(`{"prediction": "` + strings.Repeat("ü <&> ", 3000)) // unterminated: invalid json
	bigBinary := make([]byte, 12000)
	for i := range bigBinary {
		bigBinary[i] = byte(i*7) | 0x80
	}
	var msgs []msg
	for _, r := range recs[:10] {
		msgs = append(msgs, msg{Value: r})
	}
	msgs = append(msgs, msg{Value: bigText}, msg{Value: bigBinary}, msg{Key: []byte("deleted-7")})
	for _, r := range recs[10:] {
		msgs = append(msgs, msg{Value: r})
	}
	produce(t, addrs, topic, msgs)
	// Offsets 10, 11 and 12 are the bad ones.

	for _, iso := range []string{"read_committed", "read_uncommitted"} {
		t.Run(iso, func(t *testing.T) {
			dl := uniqueName("dl-small")
			createTopicWith(t, addrs, dl, map[string]string{"max.message.bytes": "4096"})
			out := filepath.Join(dir, iso+".json")
			cfg := kafkaConfig(t, dir, "k.yaml", addrs, topic, "", "", "  mode: bounded\n  isolation: "+iso+"\n",
				fmt.Sprintf("pipeline: {on_error: dead_letter, dead_letter: {topic: %s}}\n", dl), fmt.Sprintf("  - {type: json, path: %q}\n", out))
			r := run(t, 2*time.Minute, nil, "run", "-c", cfg)
			require.Equalf(t, 0, r.code, "run failed:\n%s", tail(r.stderr))
			res := parseJSON(t, readFile(t, out))
			require.Equal(t, float64(3), res["skipped"])
			require.Equal(t, map[string]any{"invalid json": float64(2), "tombstone (null value)": float64(1)}, res["errors"])

			byOffset := map[float64]map[string]any{}
			for _, m := range readTopic(t, addrs, dl, 3) {
				require.LessOrEqual(t, len(m.Key)+len(m.Value), 4096)
				var d map[string]any
				require.NoError(t, json.Unmarshal(m.Value, &d))
				byOffset[d["offset"].(float64)] = d
			}
			text := byOffset[10]
			require.Equal(t, true, text["truncated"])
			require.Equal(t, float64(len(bigText)), text["payload_bytes"])
			require.Equal(t, "invalid json", text["reason"])
			require.Greater(t, len(text["payload"].(string)), 1000)
			require.True(t, strings.HasPrefix(string(bigText), text["payload"].(string)))

			bin := byOffset[11]
			require.Equal(t, true, bin["truncated"])
			require.Equal(t, float64(len(bigBinary)), bin["payload_bytes"])
			raw, err := base64.StdEncoding.DecodeString(bin["payload_base64"].(string))
			require.NoError(t, err)
			require.Greater(t, len(raw), 1000)
			require.Equal(t, bigBinary[:len(raw)], raw)

			tomb := byOffset[12]
			require.Equal(t, "tombstone (null value)", tomb["reason"])
			require.Equal(t, map[string]any{"key": "deleted-7"}, tomb["record"])
			require.Nil(t, tomb["truncated"])
		})
	}

	// A limit below what a dead letter needs without its payload: exit 1, the offset named.
	dl := uniqueName("dl-tiny")
	createTopicWith(t, addrs, dl, map[string]string{"max.message.bytes": "200"})
	out := filepath.Join(dir, "tiny.json")
	cfg := kafkaConfig(t, dir, "k.yaml", addrs, topic, "", "", "  mode: bounded\n",
		fmt.Sprintf("pipeline: {on_error: dead_letter, dead_letter: {topic: %s}}\n", dl), fmt.Sprintf("  - {type: json, path: %q}\n", out))
	r := run(t, 2*time.Minute, nil, "run", "-c", cfg)
	require.Equalf(t, 1, r.code, "run:\n%s", tail(r.stderr))
	require.Contains(t, r.stderr, fmt.Sprintf("dead-letter topic %s: the dead letter of %s/0/10 cannot be written", dl, topic))
	_, err := os.Stat(out)
	require.True(t, errors.Is(err, os.ErrNotExist), "no results after a failed run")
}
