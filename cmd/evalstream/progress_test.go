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
		name                       string
		el                         time.Duration
		records, bad, bytes, total int64
		want                       string
	}{
		{"size unknown", 2 * time.Second, 1000, 3, 5000, 0, "1000 records, 500 rec/s, 3 bad"},
		{"a quarter read", 10 * time.Second, 2500, 0, 25, 100, "2500 records, 250 rec/s, 0 bad, 25.0%, ETA 30s"},
		{"nothing read yet", 3 * time.Second, 0, 0, 0, 100, "0 records, 0 rec/s, 0 bad, 0.0%"},
		{"more read than the size (capped)", time.Second, 10, 0, 150, 100, "10 records, 10 rec/s, 0 bad, 100.0%, ETA 0s"},
		{"long run", 90 * time.Minute, 1_000_000, 12, 3, 4, "1000000 records, 185 rec/s, 12 bad, 75.0%, ETA 30m0s"},
		{"no time elapsed", 0, 0, 0, 0, 0, "0 records, 0 rec/s, 0 bad"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, progressLine(tt.el, tt.records, tt.bad, tt.bytes, tt.total))
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
			p := newProgressPrinter(&buf, tt.tty, 100, start)
			for _, d := range tt.ticks {
				// 10 records a second; 10 % of the bytes a second.
				n := int64(d / (100 * time.Millisecond))
				p.update(at(d), n, 0, n)
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
