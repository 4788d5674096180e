package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestProgressLine(t *testing.T) {
	tests := []struct {
		name                      string
		el                        time.Duration
		records, bad, done, total int64
		lag                       int64
		want                      string
	}{
		{"size unknown", 2 * time.Second, 1000, 3, 5000, 0, -1, "1000 records, 500 rec/s, 3 bad"},
		{"a quarter read", 10 * time.Second, 2500, 0, 25, 100, -1, "2500 records, 250 rec/s, 0 bad, 25.0%, ETA 30s"},
		{"nothing read yet", 3 * time.Second, 0, 0, 0, 100, -1, "0 records, 0 rec/s, 0 bad, 0.0%"},
		{"more read than the size (capped)", time.Second, 10, 0, 150, 100, -1, "10 records, 10 rec/s, 0 bad, 100.0%, ETA 0s"},
		{"long run", 90 * time.Minute, 1_000_000, 12, 3, 4, -1, "1000000 records, 185 rec/s, 12 bad, 75.0%, ETA 30m0s"},
		{"no time elapsed", 0, 0, 0, 0, 0, -1, "0 records, 0 rec/s, 0 bad"},
		// A bounded Kafka run: offsets passed of those between the start and end offsets.
		{"kafka bounded", 20 * time.Second, 6000, 2, 6000, 8000, -1, "6000 records, 300 rec/s, 2 bad, 75.0%, ETA 7s"},
		// A continuous Kafka run: no end, the lag behind the high-water marks.
		{"kafka continuous", 4 * time.Second, 800, 1, 0, 0, 35, "800 records, 200 rec/s, 1 bad, lag 35"},
		{"kafka continuous, caught up", 4 * time.Second, 800, 0, 0, 0, 0, "800 records, 200 rec/s, 0 bad, lag 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, progressLine(tt.el, progressCounts{records: tt.records, bad: tt.bad, done: tt.done, total: tt.total, lag: tt.lag}))
		})
	}
}

// TestProgressThrottle drives the printer with an injected clock: on a terminal it stays
// quiet for the first second, then redraws one line at every tick and clears it at the
// end; elsewhere it logs one line per 10 s on a grid from the start (a late tick does not
// shift the grid, a long stall does not produce a burst) and leaves its lines.
func TestProgressThrottle(t *testing.T) {
	start := time.Date(2026, 11, 25, 20, 0, 0, 0, time.UTC)
	at := func(d time.Duration) time.Time { return start.Add(d) }
	tests := []struct {
		name  string
		tty   bool
		ticks []time.Duration
		want  string
	}{
		{"terminal, short run", true, []time.Duration{500 * time.Millisecond}, ""},
		{"terminal", true, []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second},
			"\r10 records, 10 rec/s, 0 bad, 10.0%, ETA 9s\033[K" +
				"\r20 records, 10 rec/s, 0 bad, 20.0%, ETA 8s\033[K" +
				"\r\033[K"},
		{"log, short run", false, []time.Duration{time.Second, 9500 * time.Millisecond}, ""},
		{"log every 10 s", false, []time.Duration{9500 * time.Millisecond, 10 * time.Second, 10500 * time.Millisecond, 19500 * time.Millisecond, 20500 * time.Millisecond},
			"evalstream: progress: 100 records, 10 rec/s, 0 bad, 100.0%, ETA 0s\n" +
				"evalstream: progress: 205 records, 10 rec/s, 0 bad, 100.0%, ETA 0s\n"},
		{"log after a stall", false, []time.Duration{35 * time.Second, 36 * time.Second, 40 * time.Second},
			"evalstream: progress: 350 records, 10 rec/s, 0 bad, 100.0%, ETA 0s\n" +
				"evalstream: progress: 400 records, 10 rec/s, 0 bad, 100.0%, ETA 0s\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			p := newProgressPrinter(&buf, tt.tty, start)
			for _, d := range tt.ticks {
				// 10 records a second; 10 % of the bytes a second.
				n := int64(d / (100 * time.Millisecond))
				p.update(at(d), progressCounts{records: n, done: n, total: 100, lag: -1})
			}
			p.finish()
			require.Equal(t, tt.want, buf.String())
			if !tt.tty {
				require.NotContains(t, buf.String(), "\r", "no terminal control in a log")
				require.Equal(t, strings.Count(tt.want, "\n"), strings.Count(buf.String(), "\n"))
			}
		})
	}
}

// TestProgressAndLogLines: on a terminal, a log line (a Kafka message, a failing gate) or a
// table written while the progress line is shown clears it first, and the next tick draws
// it again; in a log, lines are written as they come.
func TestProgressAndLogLines(t *testing.T) {
	start := time.Date(2026, 11, 25, 20, 0, 0, 0, time.UTC)
	c := progressCounts{records: 20, total: 0, lag: 3}
	for _, tc := range []struct {
		name string
		tty  bool
		want string
	}{
		{"terminal", true, "\r20 records, 10 rec/s, 0 bad, lag 3\033[K" + "\r\033[K" + "evalstream: kafka: assigned\n" +
			"table\n" + "\r20 records, 0 rec/s, 0 bad, lag 3\033[K" + "\r\033[K"},
		{"log", false, "evalstream: kafka: assigned\n" + "table\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// stdout and stderr share the terminal: the test writes both into one buffer.
			var errb bytes.Buffer
			p := newProgressPrinter(&errb, tc.tty, start)
			out := p.around(&errb)
			p.update(start.Add(2*time.Second), c)
			_, err := p.Write([]byte("evalstream: kafka: assigned\n"))
			require.NoError(t, err)
			_, err = out.Write([]byte("table\n"))
			require.NoError(t, err)
			p.update(start.Add(3*time.Second), c)
			p.finish()
			require.Equal(t, tc.want, errb.String())
		})
	}
}

// TestProgressRateOfAService: a continuous Kafka run (a known lag) shows the rate since its
// previous line, so that a service running for days shows its current rate; other runs
// show the rate since their start.
func TestProgressRateOfAService(t *testing.T) {
	start := time.Date(2026, 11, 25, 20, 0, 0, 0, time.UTC)
	var buf bytes.Buffer
	p := newProgressPrinter(&buf, false, start)
	// 1000 records a second for 10 s, then 100 a second.
	p.update(start.Add(10*time.Second), progressCounts{records: 10000, lag: 5})
	p.update(start.Add(20*time.Second), progressCounts{records: 11000, lag: 0})
	require.Equal(t, "evalstream: progress: 10000 records, 1000 rec/s, 0 bad, lag 5\n"+
		"evalstream: progress: 11000 records, 100 rec/s, 0 bad, lag 0\n", buf.String())
	buf.Reset()
	p = newProgressPrinter(&buf, false, start)
	p.update(start.Add(10*time.Second), progressCounts{records: 10000, lag: -1})
	p.update(start.Add(20*time.Second), progressCounts{records: 11000, lag: -1})
	require.Equal(t, "evalstream: progress: 10000 records, 1000 rec/s, 0 bad\n"+
		"evalstream: progress: 11000 records, 550 rec/s, 0 bad\n", buf.String())
}
