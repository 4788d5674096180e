package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"
	"github.com/stretchr/testify/require"
)

// kafkaBroker returns the first broker of EVALSTREAM_KAFKA_BROKERS, or skips the test.
func kafkaBroker(t *testing.T) string {
	t.Helper()
	brokers := os.Getenv("EVALSTREAM_KAFKA_BROKERS")
	if brokers == "" {
		t.Skip("EVALSTREAM_KAFKA_BROKERS is not set: start a broker with `.ci/kafka/kafka-ci.sh start` and export EVALSTREAM_KAFKA_BROKERS=127.0.0.1:9092")
	}
	return strings.Split(brokers, ",")[0]
}

// newTopic creates a fresh one-partition topic named after prefix and produces values to it.
func newTopic(t *testing.T, broker, prefix string, values []string) string {
	t.Helper()
	topic := fmt.Sprintf("%s-%d", prefix, time.Now().UnixNano())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := &kafkago.Client{Addr: kafkago.TCP(broker), Timeout: 30 * time.Second}
	resp, err := c.CreateTopics(ctx, &kafkago.CreateTopicsRequest{Topics: []kafkago.TopicConfig{{Topic: topic, NumPartitions: 1, ReplicationFactor: 1}}})
	require.NoError(t, err)
	require.NoError(t, resp.Errors[topic])
	if len(values) == 0 {
		return topic
	}
	w := &kafkago.Writer{Addr: kafkago.TCP(broker), Topic: topic, BatchTimeout: 10 * time.Millisecond, RequiredAcks: kafkago.RequireAll}
	defer w.Close()
	// One timestamp for all: they fall in one window whatever the clock.
	now := time.Now()
	msgs := make([]kafkago.Message, len(values))
	for i, v := range values {
		msgs[i] = kafkago.Message{Value: []byte(v), Time: now}
	}
	// A topic just created may not have its leader yet.
	require.Eventually(t, func() bool { return w.WriteMessages(ctx, msgs...) == nil }, time.Minute, 200*time.Millisecond, "produce to %s", topic)
	return topic
}

// accuracyRecords are 16 records of which 12 are right: accuracy 0.75, a binary fraction,
// so that drops are exact (against gateBaseline's 0.8125: 0.0625).
func accuracyRecords() []string {
	var out []string
	for i := 0; i < 16; i++ {
		pred := i % 2
		if i < 4 {
			pred = 1 - pred
		}
		out = append(out, fmt.Sprintf(`{"label": %d, "prediction": %d}`, i%2, pred))
	}
	return out
}

// readResultsJSON reads a results JSON, decoded.
func readResultsJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var res map[string]any
	require.NoError(t, json.Unmarshal(b, &res))
	return res
}

// TestKafkaBoundedGate: a bounded Kafka run applies its gate to its final results as a file
// run does — the gate object in the results, PASS/FAIL lines under the table (on stderr
// without a stdout sink), exit 3 with the results written when a rule fails — against no
// baseline, a results JSON, and a state saved by a file run of the same records (with
// replicates, so a significant_only rule runs the paired test).
func TestKafkaBoundedGate(t *testing.T) {
	broker := kafkaBroker(t)
	dir := t.TempDir()
	recs := accuracyRecords()
	topic := newTopic(t, broker, "kgate", recs)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "base.json"), []byte(gateBaseline), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "recs.jsonl"), []byte(strings.Join(recs, "\n")+"\n"), 0o644))
	const ci = "ci: {resamples: 200, seed: 7}\n"
	// The baseline state: the same records from a file, with replicates.
	fileCfg := filepath.Join(dir, "file.yaml")
	require.NoError(t, os.WriteFile(fileCfg, []byte("source: {type: file, path: recs.jsonl}\nmetrics: [{type: accuracy, name: acc}]\n"+ci+"sinks: [{type: json, path: file.json}]\n"), 0o644))
	r := run(t, dir, "run", "-c", fileCfg, "--no-progress", "--save-state", "base.state")
	require.Equal(t, 0, r.code, r.stderr)

	for _, tc := range []struct {
		name     string
		sinks    string
		extra    string // top-level config lines
		gate     string
		code     int
		lines    []string // PASS/FAIL lines, on stdout with a stdout sink, else on stderr
		passed   bool
		delta    any
		hasP     bool
		stderrIn string
	}{
		{name: "absolute rule passes", sinks: "[{type: stdout}, {type: json, path: out.json}]",
			gate: "{rules: [{metric: acc, min: 0.5}]}", code: 0,
			lines: []string{"gate PASS acc: 0.75 ≥ min 0.5", "gate PASSED"}, passed: true, delta: nil},
		{name: "absolute rule fails", sinks: "[{type: stdout}, {type: json, path: out.json}]",
			gate: "{rules: [{metric: acc, min: 0.8}]}", code: 3,
			lines: []string{"gate FAIL acc: 0.75 < min 0.8", "gate FAILED"}, delta: nil,
			stderrIn: "gate failed: 1 of 1 rule checks failed"},
		{name: "drop against a results JSON fails, lines on stderr", sinks: "[{type: json, path: out.json}]",
			gate: "{baseline: base.json, rules: [{metric: acc, max_drop: 0.05}]}", code: 3,
			lines: []string{"gate FAIL acc: dropped 0.0625 > max_drop 0.05", "gate FAILED"}, delta: -0.0625},
		{name: "drop against a results JSON passes", sinks: "[{type: stdout}, {type: json, path: out.json}]",
			gate: "{baseline: base.json, rules: [{metric: acc, max_drop: 0.1}]}", code: 0,
			lines: []string{"gate PASS acc: dropped 0.0625 ≤ max_drop 0.1", "gate PASSED"}, passed: true, delta: -0.0625},
		{name: "state baseline, paired test", sinks: "[{type: stdout}, {type: json, path: out.json}]", extra: ci,
			gate: "{baseline: base.state, rules: [{metric: acc, max_drop: 0, significant_only: true}]}", code: 0,
			lines: []string{"gate PASS acc: no drop (delta +0)", "gate PASSED"}, passed: true, delta: 0.0, hasP: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, "out.json")
			_ = os.Remove(out)
			cfg := filepath.Join(dir, "k.yaml")
			require.NoError(t, os.WriteFile(cfg, []byte(fmt.Sprintf("source: {type: kafka, brokers: [%q], topic: %s, mode: bounded}\nmetrics: [{type: accuracy, name: acc}]\n%ssinks: %s\ngate: %s\n",
				broker, topic, tc.extra, tc.sinks, tc.gate)), 0o644))
			r := run(t, dir, "run", "-c", cfg, "--no-progress")
			require.Equal(t, tc.code, r.code, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			where := r.stdout
			if !strings.Contains(tc.sinks, "stdout") {
				where = r.stderr
				require.NotContains(t, r.stdout, "gate ")
			}
			for _, l := range tc.lines {
				require.Contains(t, where, l+"\n")
			}
			if tc.stderrIn != "" {
				require.Contains(t, r.stderr, tc.stderrIn)
			}
			// The failing final total of a bounded run is reported by its lines, not logged twice.
			require.NotContains(t, r.stderr, "gate FAILED on")
			res := readResultsJSON(t, out)
			require.EqualValues(t, 16, res["records"])
			g, ok := res["gate"].(map[string]any)
			require.True(t, ok, "the results carry the gate: %v", res)
			require.Equal(t, tc.passed, g["passed"])
			rules := g["rules"].([]any)
			require.Len(t, rules, 1)
			rule := rules[0].(map[string]any)
			require.Equal(t, 0.75, rule["value"])
			require.Equal(t, tc.delta, rule["delta"])
			if tc.hasP {
				require.Equal(t, 1.0, rule["p_value"], "no difference: every replicate difference is at least |0|")
			} else {
				require.Nil(t, rule["p_value"])
			}
		})
	}
}

// TestKafkaBoundedNoRecords: a bounded Kafka run that scored no record exits 1 as a file run
// does, whatever on_error — an empty topic, and a topic whose every record is bad under
// skip — and still writes its results (the bad records' reasons).
func TestKafkaBoundedNoRecords(t *testing.T) {
	broker := kafkaBroker(t)
	dir := t.TempDir()
	empty := newTopic(t, broker, "kempty", nil)
	bad := newTopic(t, broker, "kbad", []string{`{"prediction": 1}`, `{"prediction": 0}`, `{"prediction": 1}`})
	for _, tc := range []struct {
		name, topic, pipeline, want string
		skipped                     float64
	}{
		{"empty topic", empty, "", "no record was scored: the input holds no records", 0},
		{"every record bad", bad, "pipeline: {on_error: skip, max_bad: 10}\n", "no record was scored: all 3 records were bad", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, "out.json")
			_ = os.Remove(out)
			cfg := filepath.Join(dir, "k.yaml")
			require.NoError(t, os.WriteFile(cfg, []byte(fmt.Sprintf("source: {type: kafka, brokers: [%q], topic: %s, mode: bounded}\n%smetrics: [{type: accuracy}]\nsinks: [{type: json, path: out.json}]\n",
				broker, tc.topic, tc.pipeline)), 0o644))
			r := run(t, dir, "run", "-c", cfg, "--no-progress")
			require.Equal(t, 1, r.code, r.stderr)
			require.Contains(t, r.stderr, tc.want)
			res := readResultsJSON(t, out)
			require.EqualValues(t, 0, res["records"])
			require.Equal(t, tc.skipped, res["skipped"])
		})
	}
}

// TestKafkaContinuousGate: a continuous run evaluates its gate on every emission — each
// results line of the history carries its verdict, and each failing one is logged on
// stderr with what it was (the running total, a window) — and keeps running; stopped by
// SIGTERM, it exits 0.
func TestKafkaContinuousGate(t *testing.T) {
	broker := kafkaBroker(t)
	for _, tc := range []struct {
		name, window string
		// wantLog must be logged at least twice while the run goes on.
		wantLog *regexp.Regexp
	}{
		{"running totals", "", regexp.MustCompile(`evalstream: gate FAILED on the running total \(16 records\): acc: 0\.75 < min 0\.9\n`)},
		// Every message falls in the current hour (message time); the window is
		// emitted, open, once the partition is idle (it has no more messages).
		{"windows", "window: {type: tumbling, size: 1h, time: message}\n",
			regexp.MustCompile(`evalstream: gate FAILED on window \[\d{4}-\d\d-\d\dT\d\d:00:00Z, \d{4}-\d\d-\d\dT\d\d:00:00Z\) \(16 records\): acc: 0\.75 < min 0\.9\n`)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			topic := newTopic(t, broker, "kgatec", accuracyRecords())
			cfg := filepath.Join(dir, "k.yaml")
			require.NoError(t, os.WriteFile(cfg, []byte(fmt.Sprintf(`source: {type: kafka, brokers: [%q], topic: %s, group: %s-g, mode: continuous, emit_interval: 200ms}
metrics: [{type: accuracy, name: acc}]
%ssinks: [{type: jsonl, path: history.jsonl}]
gate: {rules: [{metric: acc, min: 0.9}, {metric: acc, max: 1}]}
`, broker, topic, topic, tc.window)), 0o644))
			cmd := exec.Command(binary, "run", "-c", cfg, "--no-progress")
			cmd.Dir = dir
			var out lockedOutput
			cmd.Stdout, cmd.Stderr = &out, &out
			require.NoError(t, cmd.Start())
			defer func() { _ = cmd.Process.Kill() }()
			seen := func() bool {
				if tc.window == "" {
					return len(tc.wantLog.FindAllString(out.String(), -1)) >= 2
				}
				// A window is emitted once (again only if its contributions change);
				// a running total after it shows the run went on.
				return tc.wantLog.MatchString(out.String()) && strings.Contains(out.String(), "gate FAILED on the running total (16 records)")
			}
			require.Eventually(t, seen, 2*time.Minute, 100*time.Millisecond, "failing emissions logged:\n%s", out.String())
			require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
			require.NoError(t, cmd.Wait(), "a failing gate does not change how a service ends:\n%s", out.String())
			require.Contains(t, out.String(), "evalstream: gate FAILED on the final total (16 records): acc: 0.75 < min 0.9\n")
			require.NotContains(t, out.String(), "gate PASS", "a continuous run logs the failures only")

			b, err := os.ReadFile(filepath.Join(dir, "history.jsonl"))
			require.NoError(t, err)
			lines := strings.Split(strings.TrimSpace(string(b)), "\n")
			require.GreaterOrEqual(t, len(lines), 3)
			windows := 0
			for _, l := range lines {
				var h struct {
					Results struct {
						Records int64           `json:"records"`
						Window  json.RawMessage `json:"window"`
						Gate    *struct {
							Passed bool `json:"passed"`
							Rules  []struct {
								Passed bool   `json:"passed"`
								Reason string `json:"reason"`
							} `json:"rules"`
						} `json:"gate"`
					} `json:"results"`
				}
				require.NoError(t, json.Unmarshal([]byte(l), &h))
				g := h.Results.Gate
				require.NotNil(t, g, "every emission carries its verdict: %s", l)
				require.False(t, g.Passed)
				require.Len(t, g.Rules, 2)
				if h.Results.Window != nil {
					windows++
				}
				if h.Results.Records == 0 {
					continue // a total emitted before the first snapshot: no value to bound
				}
				require.Equal(t, int64(16), h.Results.Records)
				require.Equal(t, "0.75 < min 0.9", g.Rules[0].Reason)
				require.True(t, g.Rules[1].Passed)
			}
			if tc.window != "" {
				require.Positive(t, windows, "the window's results are in the history")
			}
		})
	}
}
