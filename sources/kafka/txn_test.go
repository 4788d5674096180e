package kafka_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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
