package kafka_test

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
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

// fakePeer listens on 127.0.0.1 and serves every connection with serve; it returns the
// address.
func fakePeer(t *testing.T, serve func(net.Conn)) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				serve(c)
			}()
		}
	}()
	return l.Addr().String()
}

// TestConnectFaults runs bounded Kafka runs against brokers that are not there, peers that
// are not brokers and a broker reached the wrong way: each is exit 1 with a first line that
// names the address and the likely cause, within connect_timeout, and no results file. A
// SASL failure never shows the password.
func TestConnectFaults(t *testing.T) {
	dir := t.TempDir()
	refused := func() string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		addr := l.Addr().String()
		l.Close()
		return addr
	}()
	garbage := fakePeer(t, func(c net.Conn) {
		c.Read(make([]byte, 64))
		c.Write([]byte("\x7f\xff\xff\xffgarbage garbage garbage"))
		time.Sleep(time.Minute)
	})
	silent := fakePeer(t, func(c net.Conn) { time.Sleep(time.Minute) })
	// An HTTP server that answers a request line it cannot parse at once, as nginx does
	// (Go's net/http waits for the end of the line: that is the silent case).
	httpAddr := fakePeer(t, func(c net.Conn) {
		c.Read(make([]byte, 64))
		c.Write([]byte("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"))
	})
	web := httptest.NewServer(http.NotFoundHandler())
	defer web.Close()
	webAddr := strings.TrimPrefix(web.URL, "http://")

	type tc struct {
		name, broker, extra, want string
	}
	tests := []tc{
		{"nothing listening", refused, "", "broker " + refused + ": cannot connect: dial tcp " + refused + ": connect: connection refused (is a Kafka broker listening there?)"},
		{"peer writes garbage", garbage, "", "broker " + garbage + ": answered bytes that are not a Kafka response"},
		{"http server", httpAddr, "", "broker " + httpAddr + ": answered with HTTP: it is an HTTP server, not a Kafka broker"},
		{"http server with tls", webAddr, ", tls: {insecure_skip_verify: true}", "broker " + webAddr + ": answered the TLS handshake with HTTP: it is an HTTP server, not a Kafka broker"},
		{"silent peer", silent, "", "broker " + silent + ": accepted the connection but did not answer a Kafka request within connect_timeout (1s): it is not a Kafka listener (or a TLS listener: then set source.tls)"},
	}
	if b := os.Getenv("EVALSTREAM_KAFKA_BROKERS"); b != "" {
		addr := strings.Split(b, ",")[0]
		topic := uniqueName("exists")
		createTopic(t, []string{addr}, topic, 1)
		tests = append(tests,
			tc{"tls against plaintext", addr, ", tls: {insecure_skip_verify: true}", "broker " + addr + ": closed the connection during the TLS handshake (EOF): it is most likely a plaintext listener (remove source.tls, or use the broker's TLS listener)"},
			tc{"sasl against plaintext", addr, ", sasl: {mechanism: plain, username: u, password: pw-not-shown-1}", "broker " + addr + ": SASL authentication failed (mechanism PLAIN, user u): "},
			tc{"topic missing", addr, "", `topic "no-such-topic" does not exist on the cluster at ` + addr},
		)
	}
	if b := os.Getenv("EVALSTREAM_KAFKA_SASL_BROKERS"); b != "" {
		addr := strings.Split(b, ",")[0]
		user := cmp.Or(os.Getenv("EVALSTREAM_KAFKA_SASL_USER"), "evalstream")
		tests = append(tests,
			tc{"sasl wrong password", addr, ", sasl: {mechanism: plain, username: " + user + ", password: pw-not-shown-2}", "broker " + addr + ": SASL authentication failed (mechanism PLAIN, user " + user + "): "},
			tc{"sasl listener without sasl", addr, "", "broker " + addr + ": closed the connection on the first request (EOF): the listener probably requires authentication (source.sasl)"},
		)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(dir, "out.json")
			topic := "no-such-topic"
			cfg := writeFile(t, filepath.Join(dir, "c.yaml"), fmt.Sprintf("source: {type: kafka, brokers: [%q], topic: %s, connect_timeout: 1s%s}\nmetrics: [{type: exact_match}]\nsinks: [{type: json, path: %q}]\n", tt.broker, topic, tt.extra, out))
			r := run(t, time.Minute, nil, "run", "-c", cfg)
			require.Equalf(t, 1, r.code, "stderr:\n%s", r.stderr)
			first, _, _ := strings.Cut(r.stderr, "\n")
			require.Contains(t, first, "evalstream: "+tt.want)
			require.NotContains(t, r.stderr, "pw-not-shown")
			_, err := os.Stat(out)
			require.True(t, errors.Is(err, os.ErrNotExist), "no results file")
		})
	}

	// The right password reads the topic through the SASL listener.
	if b := os.Getenv("EVALSTREAM_KAFKA_SASL_BROKERS"); b != "" {
		addrs := brokers(t)
		topic := uniqueName("sasl")
		createTopic(t, addrs, topic, 1)
		recs := wmtRecords(t, 20)
		var msgs []msg
		for _, r := range recs {
			msgs = append(msgs, msg{Value: r})
		}
		produce(t, addrs, topic, msgs)
		user := cmp.Or(os.Getenv("EVALSTREAM_KAFKA_SASL_USER"), "evalstream")
		password := cmp.Or(os.Getenv("EVALSTREAM_KAFKA_SASL_PASSWORD"), "evalstream-test-secret")
		out := filepath.Join(dir, "sasl.json")
		cfg := kafkaConfig(t, dir, "sasl.yaml", strings.Split(b, ","), topic, "", "", fmt.Sprintf("  mode: bounded\n  sasl: {mechanism: plain, username: %s, password: %s}\n", user, password), "", fmt.Sprintf("  - {type: json, path: %q}\n", out))
		r := run(t, time.Minute, nil, "run", "-c", cfg)
		require.Equalf(t, 0, r.code, "stderr:\n%s", r.stderr)
		require.NotContains(t, r.stderr, password)
		require.Equal(t, float64(len(recs)), parseJSON(t, readFile(t, out))["records"])
	}
}

// TestValidateChecksTLSFiles: `evalstream validate` reports a TLS file that does not exist
// (exit 2), before any connection is tried.
func TestValidateChecksTLSFiles(t *testing.T) {
	dir := t.TempDir()
	ca := filepath.Join(dir, "missing-ca.pem")
	cfg := writeFile(t, filepath.Join(dir, "c.yaml"), fmt.Sprintf("source: {type: kafka, brokers: [\"127.0.0.1:1\"], topic: t, tls: {ca_file: %q}}\nmetrics: [{type: exact_match}]\nsinks: [{type: stdout}]\n", ca))
	r := run(t, time.Minute, nil, "validate", "-c", cfg)
	require.Equal(t, 2, r.code)
	require.Contains(t, r.stderr, "source.tls.ca_file: stat "+ca+": no such file or directory")
}

// TestDeadLetterFileUnwritable: a Kafka run whose dead-letter file cannot be written stops
// with exit 1 naming the file, instead of retrying the checkpoint without end.
func TestDeadLetterFileUnwritable(t *testing.T) {
	addrs := brokers(t)
	dir := t.TempDir()
	topic := uniqueName("dlfile")
	createTopic(t, addrs, topic, 1)
	produce(t, addrs, topic, []msg{{Value: []byte(`{"prediction": "a", "references": ["a"]}`)}, {Value: []byte(`not json`)}})
	notADir := writeFile(t, filepath.Join(dir, "file"), "x")
	out := filepath.Join(dir, "out.json")
	cfg := kafkaConfig(t, dir, "k.yaml", addrs, topic, "", "", "  mode: bounded\n",
		fmt.Sprintf("pipeline: {on_error: dead_letter, dead_letter: {path: %q}}\n", filepath.Join(notADir, "bad.jsonl")), fmt.Sprintf("  - {type: json, path: %q}\n", out))
	r := run(t, time.Minute, nil, "run", "-c", cfg)
	require.Equalf(t, 1, r.code, "stderr:\n%s", r.stderr)
	first, _, _ := strings.Cut(r.stderr, "\n")
	require.Contains(t, first, "dead letters: mkdir "+notADir+": not a directory")
	_, err := os.Stat(out)
	require.True(t, errors.Is(err, os.ErrNotExist))
}
