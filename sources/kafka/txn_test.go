package kafka_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"
	"github.com/stretchr/testify/require"
)

// A topic written by a transactional producer holds a transaction marker after each commit.
// Bounded mode must read it to the end without counting the markers as bad records, and give
// the results of file mode over the same records (the default policy, fail, would stop at the
// first marker otherwise).
func TestTransactionalTopic(t *testing.T) {
	addrs := brokers(t)
	ctl := os.Getenv("EVALSTREAM_KAFKA_CTL")
	if ctl == "" {
		t.Skip("EVALSTREAM_KAFKA_CTL is not set: set it to .ci/kafka/kafka-ci.sh, whose txproduce command produces the transactions (Java)")
	}
	dir := t.TempDir()
	topic, group, state := uniqueName("txn"), uniqueName("g"), uniqueName("state")
	createTopic(t, addrs, topic, 1)
	recs := wmtRecords(t, 50)
	var lines bytes.Buffer
	for _, r := range recs {
		lines.Write(r)
		lines.WriteByte('\n')
	}
	cmd := exec.Command("bash", ctl, "txproduce", topic, "7") // 8 transactions, the last one short
	cmd.Stdin = bytes.NewReader(lines.Bytes())
	out, err := cmd.CombinedOutput()
	require.NoErrorf(t, err, "txproduce:\n%s", out)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "all.jsonl"), lines.Bytes(), 0o644))
	want := fileResults(t, dir, filepath.Join(dir, "all.jsonl"), "")

	// The partition really holds markers: 50 records and 8 commits.
	c, err := kafkago.DialLeader(t.Context(), "tcp", addrs[0], topic, 0)
	require.NoError(t, err)
	last, err := c.ReadLastOffset()
	c.Close()
	require.NoError(t, err)
	require.Equal(t, int64(len(recs)+8), last)

	res := filepath.Join(dir, "kafka.json")
	cfg := kafkaConfig(t, dir, "k.yaml", addrs, topic, group, state, "  mode: bounded\n", "", fmt.Sprintf("  - {type: json, path: %q}\n", res))
	r := run(t, 2*time.Minute, nil, "run", "-c", cfg)
	require.Equalf(t, 0, r.code, "kafka run failed:\n%s", tail(r.stderr))
	require.Equal(t, want, readFile(t, res))
}

// Two transactional producers interleave their records in one partition and every third
// transaction of each is aborted after its records reached the broker (a producer that failed
// over). Under read_committed (the default) exactly the committed records are scored: the
// results equal file mode over the committed lines. Under read_uncommitted the aborted
// records count too: the results equal file mode over every line. Markers are never records.
func TestAbortedTransactions(t *testing.T) {
	addrs := brokers(t)
	ctl := os.Getenv("EVALSTREAM_KAFKA_CTL")
	if ctl == "" {
		t.Skip("EVALSTREAM_KAFKA_CTL is not set: set it to .ci/kafka/kafka-ci.sh, whose txproduce command produces the transactions (Java)")
	}
	dir := t.TempDir()
	topic := uniqueName("aborted")
	createTopic(t, addrs, topic, 1)
	recs := wmtRecords(t, 90)
	var lines bytes.Buffer
	for _, r := range recs {
		lines.Write(r)
		lines.WriteByte('\n')
	}
	// Transactions of 5 records, each third one aborted, two producers.
	cmd := exec.Command("bash", ctl, "txproduce", topic, "5", "3", "2")
	cmd.Stdin = bytes.NewReader(lines.Bytes())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoErrorf(t, err, "txproduce:\n%s", stderr.String())
	var committed bytes.Buffer
	n := 0
	for _, l := range strings.Split(string(out), "\n") {
		if rest, ok := strings.CutPrefix(l, "committed\t"); ok {
			committed.WriteString(rest + "\n")
			n++
		}
	}
	// 45 records per producer in 9 transactions, 3 of them aborted: 30 committed each.
	require.Equal(t, 60, n)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "all.jsonl"), lines.Bytes(), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "committed.jsonl"), committed.Bytes(), 0o644))
	wantAll := fileResults(t, dir, filepath.Join(dir, "all.jsonl"), "")
	wantCommitted := fileResults(t, dir, filepath.Join(dir, "committed.jsonl"), "")
	require.NotEqual(t, wantAll, wantCommitted)

	// The aborted records really are in the partition: 90 records and 18 markers.
	c, err := kafkago.DialLeader(t.Context(), "tcp", addrs[0], topic, 0)
	require.NoError(t, err)
	last, err := c.ReadLastOffset()
	c.Close()
	require.NoError(t, err)
	require.Equal(t, int64(len(recs)+18), last)

	for _, tc := range []struct {
		name, source, want string
	}{
		{"default (read_committed)", "  mode: bounded\n", wantCommitted},
		{"read_committed", "  mode: bounded\n  isolation: read_committed\n", wantCommitted},
		{"read_uncommitted", "  mode: bounded\n  isolation: read_uncommitted\n", wantAll},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := filepath.Join(dir, "kafka.json")
			os.Remove(res)
			cfg := kafkaConfig(t, dir, "k.yaml", addrs, topic, "", "", tc.source, "", fmt.Sprintf("  - {type: json, path: %q}\n", res))
			r := run(t, 2*time.Minute, nil, "run", "-c", cfg)
			require.Equalf(t, 0, r.code, "kafka run failed:\n%s", tail(r.stderr))
			require.Equal(t, tc.want, readFile(t, res))
		})
	}
}
