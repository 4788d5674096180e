package kafka_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestBrokerRestart stops the broker in the middle of a bounded run and starts it again:
// the run must finish with the results of an uninterrupted one. It needs
// EVALSTREAM_KAFKA_CTL, the script that started the broker (.ci/kafka/kafka-ci.sh), whose
// stop/resume subcommands stop and restart that broker on its data directory.
func TestBrokerRestart(t *testing.T) {
	addrs := brokers(t)
	ctl := os.Getenv("EVALSTREAM_KAFKA_CTL")
	if ctl == "" {
		t.Skip("EVALSTREAM_KAFKA_CTL is not set: set it to .ci/kafka/kafka-ci.sh (the script that started the broker) to run the broker-restart test")
	}
	dir := t.TempDir()
	topic, group, state := uniqueName("restart"), uniqueName("g"), uniqueName("state")
	const parts = 4
	createTopic(t, addrs, topic, parts)
	recs := wmtRecords(t, 48000)
	recs = append(append(recs, recs...), append(recs, recs...)...)
	msgs, _ := spread(t, recs, parts, dir)
	produce(t, addrs, topic, msgs)
	want := fileResults(t, dir, filepath.Join(dir, "part-*.jsonl"), "")

	out := filepath.Join(dir, "kafka.json")
	cfg := kafkaConfig(t, dir, "k.yaml", addrs, topic, group, state, "  mode: bounded\n  emit_interval: 200ms\n", "pipeline: {workers: 1}\n", fmt.Sprintf("  - {type: json, path: %q}\n", out))
	var se lockedBuffer
	cmd := start(t, []string{"EVALSTREAM_KAFKA_SESSION_TIMEOUT=6s"}, &se, "run", "-c", cfg)
	require.Eventually(t, func() bool { return strings.Contains(se.String(), "assigned [") }, time.Minute, 50*time.Millisecond)
	time.Sleep(800 * time.Millisecond) // let a few snapshots cover progress

	// The broker must stop while the run is reading: a run already done would test nothing.
	require.NotContainsf(t, se.String(), "every partition reached its end offset", "the run finished before the broker stopped: give the test more records")
	stopped := true
	kafkaCtl(t, ctl, "stop")
	t.Cleanup(func() {
		if stopped {
			kafkaCtl(t, ctl, "resume")
		}
	})
	t.Logf("broker stopped mid-run")
	time.Sleep(2 * time.Second)
	kafkaCtl(t, ctl, "resume")
	stopped = false
	t.Logf("broker restarted")

	err := waitTimeout(t, cmd, 4*time.Minute)
	require.NoErrorf(t, err, "the run must survive the broker restart:\n%s", tail(se.String()))
	require.Contains(t, se.String(), "retry", "the run saw the broker down and retried")
	require.Equal(t, want, readFile(t, out), "results after a broker restart must equal an uninterrupted run")
	t.Logf("%d records; results equal. evalstream's log:\n%s", len(recs), tail(se.String()))
}

func kafkaCtl(t *testing.T, ctl, action string) {
	t.Helper()
	out, err := exec.Command("bash", ctl, action).CombinedOutput()
	require.NoErrorf(t, err, "%s %s:\n%s", ctl, action, out)
}
