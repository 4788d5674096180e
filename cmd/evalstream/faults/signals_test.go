//go:build linux

package faults

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// signalSeed picks the points at which TestSignalAtRandomPoints interrupts a run;
// EVALSTREAM_FAULTS_SEED replays another sequence.
func signalSeed(t *testing.T) int64 {
	seed := int64(13)
	if s := os.Getenv("EVALSTREAM_FAULTS_SEED"); s != "" {
		v, err := strconv.ParseInt(s, 10, 64)
		require.NoError(t, err)
		seed = v
	}
	t.Logf("seed %d (set EVALSTREAM_FAULTS_SEED to replay another)", seed)
	return seed
}

// SIGINT or SIGTERM at a random point of a file run that writes every kind of output.
// Whatever the point, the run either stops with exit 130 (SIGINT) or 143 (SIGTERM), "interrupted by SIGxxx after N
// records; no results written" and no output at all (not even a temporary file), or (the
// signal came after the outputs were written) exits 0 with exactly the outputs of an
// uninterrupted run. A signal before the Go runtime has installed its handlers (the first
// instants of the process) kills it with no output; that is accepted too.
func TestSignalAtRandomPoints(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "in.jsonl", corpusLines(40000, 2))
	write(t, dir, "c.yaml", outputsConfig)
	// One record per batch on one worker makes the run long enough to be hit mid-way.
	args := []string{"run", "-c", "c.yaml", "--save-state", "out/s.state", "--set", "pipeline.workers=1", "--set", "pipeline.batch_size=1"}

	began := time.Now()
	r := run(t, dir, args...)
	took := time.Since(began)
	require.Equal(t, 0, r.code, r.stderr)
	want := map[string][]byte{}
	for _, f := range files(t, filepath.Join(dir, "out")) {
		if f == "history.jsonl" {
			continue // holds the time of the run
		}
		want[f] = readComparable(t, filepath.Join(dir, "out", f))
	}
	require.Len(t, want, 5)
	t.Logf("an uninterrupted run takes %v", took)

	rng := rand.New(rand.NewSource(signalSeed(t)))
	outcomes := map[string]int{}
	for i := 0; i < 12; i++ {
		require.NoError(t, os.RemoveAll(filepath.Join(dir, "out")))
		sig, name, code := syscall.SIGINT, "SIGINT", 130
		if rng.Intn(2) == 1 {
			sig, name, code = syscall.SIGTERM, "SIGTERM", 143
		}
		// Points spread over the whole run and a little past it; the first two while the
		// binary starts (its first 5 ms, then up to 50 ms).
		delay := time.Duration(rng.Float64() * 1.1 * float64(took))
		switch i {
		case 0:
			delay = time.Duration(rng.Float64() * float64(5*time.Millisecond))
		case 1:
			delay = 5*time.Millisecond + time.Duration(rng.Float64()*float64(45*time.Millisecond))
		}
		c := start(t, dir, binary, args...)
		require.NoError(t, c.Start())
		c.started = true
		time.Sleep(delay)
		_ = c.Process.Signal(sig) // fails only when the run has already ended
		r := wait(t, c)
		t.Logf("%s at %v: exit %d %s", name, delay, r.code, r.firstLine())
		switch {
		case r.signaled:
			outcomes["killed before the handlers were installed"]++
			requireNoOutputs(t, filepath.Join(dir, "out"))
		case r.code == 0:
			outcomes["finished"]++
			got := files(t, filepath.Join(dir, "out"))
			require.Len(t, got, len(want)+1, "every output of the run, complete")
			for f, b := range want {
				require.Equal(t, b, readComparable(t, filepath.Join(dir, "out", f)), "%s after %s at %v", f, name, delay)
			}
		default:
			outcomes["interrupted"]++
			require.Equal(t, code, r.code, "%s at %v: %s", name, delay, r.stderr)
			require.Regexp(t, `^evalstream: interrupted by `+name+` after \d+ records; no results written\n$`, r.stderr)
			requireNoOutputs(t, filepath.Join(dir, "out"))
			if outcomes["interrupted"] == 1 {
				t.Logf("exit %d: %s", r.code, r.firstLine())
			}
		}
	}
	t.Logf("outcomes: %v", outcomes)
}

// readComparable reads an output file for comparison between runs: the CSV's first column
// (the time each row was written) and the results JSON's times (started_at, duration_s)
// are left out; other files are read as they are.
func readComparable(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	switch filepath.Ext(path) {
	case ".json":
		var v map[string]any
		require.NoError(t, json.Unmarshal(b, &v))
		require.Contains(t, v, "started_at")
		require.Contains(t, v, "duration_s")
		delete(v, "started_at")
		delete(v, "duration_s")
		out, err := json.Marshal(v)
		require.NoError(t, err)
		return out
	case ".csv":
	default:
		return b
	}
	rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	require.NoError(t, err)
	require.Equal(t, "time", rows[0][0])
	var out bytes.Buffer
	w := csv.NewWriter(&out)
	for _, r := range rows {
		require.NoError(t, w.Write(r[1:]))
	}
	w.Flush()
	return out.Bytes()
}
