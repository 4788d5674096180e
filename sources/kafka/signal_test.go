package kafka_test

import (
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestSignalThenResume sends SIGTERM, then SIGINT, at random points of a bounded run with a
// state topic: each interrupted run exits 1 saying the progress is in the state topic, writes
// no results, and leaves a final snapshot (the next run restores it, although the 5 s
// checkpoint interval had not come yet); the run that completes gives the results of an
// uninterrupted one.
func TestSignalThenResume(t *testing.T) {
	addrs := brokers(t)
	dir := t.TempDir()
	topic, group, state := uniqueName("signal"), uniqueName("g"), uniqueName("state")
	const parts = 4
	createTopic(t, addrs, topic, parts)
	recs := wmtRecords(t, 48000)
	recs = append(recs, recs...)
	msgs, _ := spread(t, recs, parts, dir)
	produce(t, addrs, topic, msgs)
	want := fileResults(t, dir, filepath.Join(dir, "part-*.jsonl"), "")

	out := filepath.Join(dir, "kafka.json")
	// emit_interval 1m: partitions are checkpointed every 5 s, after the signals come.
	cfg := kafkaConfig(t, dir, "k.yaml", addrs, topic, group, state, "  mode: bounded\n  emit_interval: 1m\n", "pipeline: {workers: 1}\n", fmt.Sprintf("  - {type: json, path: %q}\n", out))
	env := []string{"EVALSTREAM_KAFKA_SESSION_TIMEOUT=6s"}
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	restoredAt := regexp.MustCompile(`restored snapshot at offset (\d+)`)
	interrupted := 0
	// completed is the stderr of the run that finished, when one finished before its signal.
	completed := ""
	for i, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		var se lockedBuffer
		cmd := start(t, env, &se, "run", "-c", cfg)
		require.Eventually(t, func() bool { return strings.Contains(se.String(), "assigned [") }, time.Minute, 20*time.Millisecond)
		d := time.Duration(100+rng.Intn(1200)) * time.Millisecond
		time.Sleep(d)
		require.NoError(t, cmd.Process.Signal(sig))
		err := waitTimeout(t, cmd, 2*time.Minute)
		if err == nil {
			t.Logf("run %d finished before %v after %v", i+1, sig, d)
			completed = se.String()
			break
		}
		interrupted++
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee)
		require.Equalf(t, 128+int(sig), ee.ExitCode(), "128 + the signal's number; stderr:\n%s", tail(se.String()))
		require.Contains(t, se.String(), "evalstream: interrupted before the end offsets: no results were written; the progress is in the state topic "+state+" (run the same configuration again to resume)")
		_, serr := os.Stat(out)
		require.True(t, errors.Is(serr, os.ErrNotExist), "no results from an interrupted run")
		t.Logf("run %d: %v after %v", i+1, sig, d)
		if i > 0 {
			// This run restored what the previous one's final snapshots covered.
			require.Regexp(t, restoredAt, se.String())
		}
	}
	if completed == "" {
		var se lockedBuffer
		cmd := start(t, env, &se, "run", "-c", cfg)
		require.NoErrorf(t, waitTimeout(t, cmd, 3*time.Minute), "stderr:\n%s", tail(se.String()))
		completed = se.String()
	}
	if interrupted > 0 {
		// The snapshots restored (by the run that completed) are the final ones of the
		// interrupted runs: no periodic checkpoint came before the signals. How far they got
		// depends on the machine.
		restored := restoredAt.FindAllStringSubmatch(completed, -1)
		require.NotEmptyf(t, restored, "the interrupted run left no final snapshot:\n%s", tail(completed))
		var offsets []int
		for _, m := range restored {
			n, _ := strconv.Atoi(m[1])
			offsets = append(offsets, n)
		}
		t.Logf("the last run restored snapshots at offsets %v", offsets)
	}
	require.Equal(t, want, readFile(t, out), "results after %d interrupted runs must equal an uninterrupted run", interrupted)
}

// TestSignalWithoutStateTopic: an interrupted bounded run without a state topic does not
// promise a resume.
func TestSignalWithoutStateTopic(t *testing.T) {
	addrs := brokers(t)
	dir := t.TempDir()
	topic := uniqueName("signal-nostate")
	createTopic(t, addrs, topic, 2)
	recs := wmtRecords(t, 48000)
	msgs, _ := spread(t, recs, 2, dir)
	produce(t, addrs, topic, msgs)
	out := filepath.Join(dir, "kafka.json")
	cfg := kafkaConfig(t, dir, "k.yaml", addrs, topic, "", "", "  mode: bounded\n", "pipeline: {workers: 1}\n", fmt.Sprintf("  - {type: json, path: %q}\n", out))
	var se lockedBuffer
	cmd := start(t, nil, &se, "run", "-c", cfg)
	time.Sleep(300 * time.Millisecond)
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	err := waitTimeout(t, cmd, time.Minute)
	var ee *exec.ExitError
	require.ErrorAsf(t, err, &ee, "the run finished before the signal:\n%s", se.String())
	require.Equal(t, 130, ee.ExitCode(), "128 + SIGINT")
	require.Contains(t, se.String(), "evalstream: interrupted before the end offsets: no results were written, and without a state topic (state.topic) the progress is not kept, so the next run starts over")
	require.NotContains(t, se.String(), "resume")
	_, serr := os.Stat(out)
	require.True(t, errors.Is(serr, os.ErrNotExist))
}
