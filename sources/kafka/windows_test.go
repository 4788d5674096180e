package kafka_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math/rand"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// windowedEvent is one produced record with its event time.
type windowedEvent struct {
	partition int
	ts        time.Time
	line      []byte // the JSON record (with its ts field)
}

// simulateWindows applies the documented window rules independently of the code under test:
// per partition, in offset order, the watermark is the largest event time seen; a record
// whose window end + lateness <= watermark is late. It returns the records of each window
// (by start) and the number of late records.
func simulateWindows(evs []windowedEvent, size, lateness time.Duration) (map[int64][][]byte, int) {
	wm := map[int]int64{}
	has := map[int]bool{}
	wins := map[int64][][]byte{}
	late := 0
	for _, e := range evs {
		t := e.ts.UnixNano()
		start := t - t%int64(size)
		if has[e.partition] && start+int64(size)+int64(lateness) <= wm[e.partition] {
			late++
			continue
		}
		wins[start] = append(wins[start], e.line)
		if !has[e.partition] || t > wm[e.partition] {
			wm[e.partition], has[e.partition] = t, true
		}
	}
	return wins, late
}

// makeWindowedEvents builds records over a few minutes of event time in 2020 (an old topic:
// backfill), out of order within the lateness, with some records beyond it, and event
// times written as RFC 3339 strings, epoch seconds (with halves) and epoch milliseconds.
func makeWindowedEvents(t *testing.T, recs [][]byte, parts int, base time.Time) []windowedEvent {
	r := rand.New(rand.NewSource(3))
	clock := make([]time.Duration, parts)
	var evs []windowedEvent
	for i, rec := range recs {
		p := i % parts
		clock[p] += time.Duration(r.Intn(900)) * time.Millisecond
		ts := base.Add(clock[p])
		switch x := r.Intn(20); {
		case x < 3:
			ts = ts.Add(-time.Duration(r.Intn(25)) * time.Second) // out of order, within lateness
		case x == 3:
			ts = ts.Add(-3 * time.Minute) // beyond the lateness once the clock has advanced
		}
		var m map[string]any
		require.NoError(t, json.Unmarshal(rec, &m))
		switch i % 3 {
		case 0:
			m["ts"] = ts.UTC().Format(time.RFC3339Nano)
		case 1:
			half := ts.UnixMilli() / 500
			ts = time.UnixMilli(half * 500)
			m["ts"] = float64(half) / 2
		default:
			ts = time.UnixMilli(ts.UnixMilli())
			m["ts"] = ts.UnixMilli()
		}
		b, err := json.Marshal(m)
		require.NoError(t, err)
		evs = append(evs, windowedEvent{partition: p, ts: ts, line: b})
	}
	return evs
}

// jsonlResults reads a jsonl sink file: the window results by start, and the totals.
func jsonlResults(t *testing.T, path string) (map[string]map[string]any, []map[string]any) {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	wins := map[string]map[string]any{}
	var totals []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var line struct{ Results map[string]any }
		require.NoError(t, json.Unmarshal(sc.Bytes(), &line))
		if w, ok := line.Results["window"].(map[string]any); ok {
			wins[w["start"].(string)] = line.Results
		} else {
			totals = append(totals, line.Results)
		}
	}
	require.NoError(t, sc.Err())
	return wins, totals
}

// parseJSON parses results JSON for comparing a Kafka run with a file run over the same
// records. error_examples name topic/partition/offset on one side and file:line on the
// other: they are checked apart (requireKafkaPositions) and left out here.
func parseJSON(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(s), &m))
	delete(m, "error_examples")
	return m
}

// requireKafkaPositions checks that results JSON names, for reason, the first rejected
// messages as topic/partition/offset.
func requireKafkaPositions(t *testing.T, s, reason, topic string) {
	t.Helper()
	var m struct {
		Examples map[string][]string `json:"error_examples"`
	}
	require.NoError(t, json.Unmarshal([]byte(s), &m))
	require.NotEmpty(t, m.Examples[reason], "error_examples of %q", reason)
	for _, p := range m.Examples[reason] {
		require.Regexp(t, "^"+regexp.QuoteMeta(topic)+"/[0-9]+/[0-9]+$", p)
	}
}

func TestWindowsOutOfOrderLateBackfill(t *testing.T) {
	addrs := brokers(t)
	dir := t.TempDir()
	topic := uniqueName("win")
	const parts = 2
	createTopic(t, addrs, topic, parts)
	base := time.Date(2020, 3, 1, 12, 0, 0, 0, time.UTC)
	evs := makeWindowedEvents(t, wmtRecords(t, 3000), parts, base)
	var msgs []msg
	for _, e := range evs {
		msgs = append(msgs, msg{Partition: e.partition, Value: e.line})
	}
	produce(t, addrs, topic, msgs)
	size, lateness := time.Minute, 30*time.Second
	wantWins, wantLate := simulateWindows(evs, size, lateness)
	require.Greater(t, wantLate, 10, "the corpus must hold late records")
	require.Greater(t, len(wantWins), 5)

	window := "window: {type: tumbling, size: 1m, time: event, field: ts, allowed_lateness: 30s}\npipeline: {on_error: skip}\n"
	runOnce := func(name string) (map[string]map[string]any, []map[string]any) {
		out := filepath.Join(dir, name+".jsonl")
		cfg := kafkaConfig(t, dir, name+".yaml", addrs, topic, uniqueName("g"), uniqueName("state"), "  mode: bounded\n", window, fmt.Sprintf("  - {type: jsonl, path: %q}\n", out))
		r := run(t, 3*time.Minute, nil, "run", "-c", cfg)
		require.Equalf(t, 0, r.code, "windowed run failed:\n%s", tail(r.stderr))
		return jsonlResults(t, out)
	}
	wins, totals := runOnce("first")
	require.Len(t, totals, 1)
	require.Len(t, wins, len(wantWins), "one result per window")

	starts := make([]int64, 0, len(wantWins))
	for s := range wantWins {
		starts = append(starts, s)
	}
	sort.Slice(starts, func(i, j int) bool { return starts[i] < starts[j] })
	var all [][]byte
	for _, s := range starts {
		recs := wantWins[s]
		all = append(all, recs...)
		key := time.Unix(0, s).UTC().Format(time.RFC3339)
		got, ok := wins[key]
		require.Truef(t, ok, "window %s missing", key)
		f := filepath.Join(dir, "w.jsonl")
		require.NoError(t, os.WriteFile(f, append(bytes.Join(recs, []byte("\n")), '\n'), 0o644))
		want := parseJSON(t, fileResults(t, dir, f, ""))
		require.Equal(t, map[string]any{"start": key, "end": time.Unix(0, s+int64(size)).UTC().Format(time.RFC3339)}, got["window"])
		cp := map[string]any{}
		for k, v := range got {
			if k != "window" {
				cp[k] = v
			}
		}
		require.Equalf(t, want, cp, "window %s: results must equal a file run over its records", key)
	}
	f := filepath.Join(dir, "all.jsonl")
	require.NoError(t, os.WriteFile(f, append(bytes.Join(all, []byte("\n")), '\n'), 0o644))
	want := parseJSON(t, fileResults(t, dir, f, ""))
	want["skipped"] = float64(wantLate)
	want["errors"] = map[string]any{"late record": float64(wantLate)}
	ex, _ := totals[0]["error_examples"].(map[string]any)
	require.Len(t, ex["late record"], 5, "the first late records are named")
	total := maps.Clone(totals[0])
	delete(total, "error_examples")
	require.Equal(t, want, total, "the total counts late records as bad")
	t.Logf("%d records, %d windows, %d late records: every window equals a file run over its records", len(evs), len(wins), wantLate)

	// Backfill: replaying the topic (new group, new state) gives the same windows.
	wins2, totals2 := runOnce("second")
	require.Equal(t, wins, wins2)
	require.Equal(t, totals, totals2)
}

func TestContinuousWindowsAndPrometheus(t *testing.T) {
	addrs := brokers(t)
	dir := t.TempDir()
	topic, group, state := uniqueName("cont"), uniqueName("g"), uniqueName("state")
	const parts = 2
	createTopic(t, addrs, topic, parts)
	recs := wmtRecords(t, 600)
	base := time.Now().Add(-time.Hour).Truncate(time.Minute)
	mk := func(from, to int, minute int) []msg {
		var ms []msg
		for i := from; i < to; i++ {
			ts := base.Add(time.Duration(minute)*time.Minute + time.Duration(i%50)*time.Second)
			ms = append(ms, msg{Partition: i % parts, Value: recs[i], Time: ts})
		}
		return ms
	}
	out := filepath.Join(dir, "c.jsonl")
	cfg := kafkaConfig(t, dir, "c.yaml", addrs, topic, group, state,
		"  mode: continuous\n  emit_interval: 300ms\n",
		"window: {type: tumbling, size: 1m, time: message, allowed_lateness: 5s}\npipeline: {on_error: skip}\n",
		fmt.Sprintf("  - {type: jsonl, path: %q}\n  - {type: prometheus, addr: \"127.0.0.1:0\"}\n", out))
	var se lockedBuffer
	cmd := start(t, []string{"EVALSTREAM_KAFKA_SESSION_TIMEOUT=6s"}, &se, "run", "-c", cfg)
	defer func() { _ = cmd.Process.Kill() }()

	produce(t, addrs, topic, mk(0, 200, 0))
	produce(t, addrs, topic, mk(200, 400, 1)) // closes minute 0 in both partitions
	first := base.UTC().Format(time.RFC3339)
	require.Eventuallyf(t, func() bool {
		wins, _ := jsonlResultsIfExists(t, out)
		_, ok := wins[first]
		return ok
	}, 60*time.Second, 200*time.Millisecond, "window %s should be emitted once the watermark passes it", first)
	wins, _ := jsonlResultsIfExists(t, out)
	require.Equal(t, float64(200), wins[first]["records"])

	// Prometheus: values per window and slice, records, bad records, lag.
	addr := regexp.MustCompile(`http://([0-9.:]+)/metrics`).FindStringSubmatch(se.String())
	require.NotNil(t, addr, "the prometheus address is printed:\n%s", se.String())
	var body string
	require.Eventually(t, func() bool {
		resp, err := http.Get("http://" + addr[1] + "/metrics")
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		body = string(b)
		return strings.Contains(body, `evalstream_records{scope="total",slice=""} 400`) && strings.Contains(body, "evalstream_consumer_lag{")
	}, 30*time.Second, 200*time.Millisecond)
	require.Contains(t, body, `evalstream_metric_value{scope="window",metric="bleu",type="bleu",slice=""}`)
	require.Contains(t, body, `evalstream_metric_value{scope="total",metric="bleu",type="bleu",slice=""}`)
	require.Contains(t, body, "evalstream_records_per_second ")
	require.Contains(t, body, `evalstream_bad_records{reason="all"} 0`)

	produce(t, addrs, topic, mk(400, 600, 2))
	require.Eventually(t, func() bool {
		_, totals := jsonlResultsIfExists(t, out)
		return len(totals) > 0 && totals[len(totals)-1]["records"] == float64(600)
	}, 60*time.Second, 200*time.Millisecond)
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	require.NoErrorf(t, waitTimeout(t, cmd, time.Minute), "continuous run must exit 0 on SIGTERM:\n%s", se.String())
	wins, totals := jsonlResults(t, out)
	require.Equal(t, float64(600), totals[len(totals)-1]["records"])
	second := base.Add(time.Minute).UTC().Format(time.RFC3339)
	require.Equal(t, float64(200), wins[second]["records"])
	f := filepath.Join(dir, "all.jsonl")
	require.NoError(t, os.WriteFile(f, append(bytes.Join(recs, []byte("\n")), '\n'), 0o644))
	require.Equal(t, parseJSON(t, fileResults(t, dir, f, "")), totals[len(totals)-1])

	// Every line names the offsets its emission covered; they only grow, and the last total
	// covers all 300 messages of each partition.
	ins := jsonlInputs(t, out)
	prev := make([]float64, parts)
	for i, in := range ins {
		require.Len(t, in, 1, "line %d", i)
		require.Equal(t, topic, in[0]["topic"], "line %d", i)
		ps, _ := in[0]["partitions"].([]any)
		for _, p := range ps {
			pr := p.(map[string]any)
			n := int(pr["partition"].(float64))
			require.Equal(t, float64(0), pr["start_offset"], "line %d", i)
			require.GreaterOrEqual(t, pr["end_offset"].(float64), prev[n], "line %d partition %d", i, n)
			prev[n] = pr["end_offset"].(float64)
		}
	}
	last := ins[len(ins)-1][0]["partitions"]
	require.Equal(t, []any{
		map[string]any{"partition": float64(0), "start_offset": float64(0), "end_offset": float64(300)},
		map[string]any{"partition": float64(1), "start_offset": float64(0), "end_offset": float64(300)},
	}, last)
}

// jsonlInputs reads the input fingerprints of every line of a jsonl sink file.
func jsonlInputs(t *testing.T, path string) [][]map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var out [][]map[string]any
	for _, l := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var line struct {
			Input []map[string]any `json:"input"`
		}
		require.NoError(t, json.Unmarshal(l, &line))
		out = append(out, line.Input)
	}
	return out
}

func jsonlResultsIfExists(t *testing.T, path string) (map[string]map[string]any, []map[string]any) {
	if _, err := os.Stat(path); err != nil {
		return nil, nil
	}
	return jsonlResults(t, path)
}

// lockedBuffer collects a process's output while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
