package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/evalstream/evalstream/pipeline"
	"github.com/evalstream/evalstream/stream"
)

const (
	// progressTick is how often the counters are read.
	progressTick = 500 * time.Millisecond
	// progressQuiet is how long a run goes before it shows progress on a terminal: a short
	// run prints nothing.
	progressQuiet = time.Second
	// progressLogEvery is how often a run whose stderr is not a terminal (a CI log, a file)
	// logs a progress line: often enough to show that it is alive, rarely enough not to
	// fill the log.
	progressLogEvery = 10 * time.Second
)

// progressCounts is one reading of a run's counters.
type progressCounts struct {
	records, bad int64
	// done of total is how much of the input was read: bytes of the input files, or
	// offsets of a bounded Kafka run; total 0 = unknown (no percentage or ETA).
	done, total int64
	// lag is a continuous Kafka run's lag in messages; -1 = unknown or not applicable.
	lag int64
	// line, when set, is shown instead of the counters (bench --compare counts runs of
	// other programs, not records).
	line string
}

// fileCounts reads the counters of a file run; total is the input's size (0 = unknown).
func fileCounts(p *pipeline.Progress, total int64) func() progressCounts {
	return func() progressCounts {
		return progressCounts{records: p.Records.Load(), bad: p.Bad.Load(), done: p.Bytes.Load(), total: total, lag: -1}
	}
}

// kafkaCounts reads the counters of a Kafka run: offsets passed of those to pass in a
// bounded run, the lag in a continuous one.
func kafkaCounts(eng *stream.Engine) func() progressCounts {
	return func() progressCounts {
		p := eng.Progress()
		return progressCounts{records: p.Records, bad: p.Bad, done: p.Done, total: p.Total, lag: p.Lag}
	}
}

// progressPrinter renders a run's progress on stderr: on a terminal one line redrawn in
// place (records, rate, bad records, and the percentage and ETA when the input size is
// known, or the lag of a continuous Kafka run); elsewhere one log line every
// progressLogEvery. It takes the time from its caller (update's now), so that its
// throttling is tested without waiting. Its methods are safe for concurrent use: one
// goroutine drives update while others write log lines through it (Write), which clear
// the terminal line first so that a message never lands in the middle of it.
type progressPrinter struct {
	mu    sync.Mutex
	w     io.Writer
	tty   bool
	start time.Time
	next  time.Time // not a terminal: when the next line is due
	shown bool      // terminal: a line is on screen
	// lastAt and lastRecords are the time and record count of the last line shown: a
	// continuous Kafka run (a service, which may run for months) shows the rate since
	// then, not since its start.
	lastAt      time.Time
	lastRecords int64
}

func newProgressPrinter(w io.Writer, tty bool, start time.Time) *progressPrinter {
	return &progressPrinter{w: w, tty: tty, start: start, next: start.Add(progressLogEvery)}
}

// update shows the counters read at now, if it is time to.
func (p *progressPrinter) update(now time.Time, c progressCounts) {
	p.mu.Lock()
	defer p.mu.Unlock()
	el := now.Sub(p.start)
	if p.tty && el < progressQuiet || !p.tty && now.Before(p.next) {
		return
	}
	rate := averageRate(el, c.records)
	if c.lag >= 0 && !p.lastAt.IsZero() && now.After(p.lastAt) {
		rate = float64(c.records-p.lastRecords) / now.Sub(p.lastAt).Seconds()
	}
	p.lastAt, p.lastRecords = now, c.records
	if p.tty {
		fmt.Fprint(p.w, "\r"+formatProgress(rate, el, c)+"\033[K")
		p.shown = true
		return
	}
	// The next line is due on the 10 s grid from the start, however late this tick came.
	for !p.next.After(now) {
		p.next = p.next.Add(progressLogEvery)
	}
	fmt.Fprintf(p.w, "evalstream: progress: %s\n", formatProgress(rate, el, c))
}

// clear removes the terminal line, if one is shown; p.mu is held.
func (p *progressPrinter) clear() {
	if p.tty && p.shown {
		fmt.Fprint(p.w, "\r\033[K")
		p.shown = false
	}
}

// finish clears the terminal line, so that the results and messages that follow start on a
// clean line. Log lines stay.
func (p *progressPrinter) finish() {
	p.mu.Lock()
	p.clear()
	p.mu.Unlock()
}

// Write writes b (whole lines) to the printer's writer after clearing the terminal line;
// the next tick draws it again.
func (p *progressPrinter) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clear()
	return p.w.Write(b)
}

// around returns a writer for w (another stream on the same terminal, stdout) whose
// writes clear the terminal line first, as Write does.
func (p *progressPrinter) around(w io.Writer) io.Writer {
	if !p.tty {
		return w
	}
	return writerFunc(func(b []byte) (int, error) {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.clear()
		return w.Write(b)
	})
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

// progressLine describes the progress after el: records, rate since the start and bad
// records; with a known total, the share read and the time left at the rate so far; with a
// known lag, the lag.
func progressLine(el time.Duration, c progressCounts) string {
	return formatProgress(averageRate(el, c.records), el, c)
}

func averageRate(el time.Duration, records int64) float64 {
	if el <= 0 {
		return 0
	}
	return float64(records) / el.Seconds()
}

// formatProgress is progressLine with the rate given.
func formatProgress(rate float64, el time.Duration, c progressCounts) string {
	if c.line != "" {
		return c.line
	}
	line := fmt.Sprintf("%d records, %.0f rec/s, %d bad", c.records, rate, c.bad)
	if c.lag >= 0 {
		line += fmt.Sprintf(", lag %d", c.lag)
	}
	if c.total <= 0 {
		return line
	}
	frac := min(float64(c.done)/float64(c.total), 1)
	line += fmt.Sprintf(", %.1f%%", 100*frac)
	if frac > 0 {
		eta := time.Duration(float64(el) * (1 - frac) / frac)
		line += ", ETA " + eta.Round(time.Second).String()
	}
	return line
}

// newProgress returns the progress display of a run on stderr (see progressPrinter), or nil
// when off or when stderr is not a file (a test's buffer).
func newProgress(stderr io.Writer, off bool) *progressPrinter {
	f, ok := stderr.(*os.File)
	if off || !ok {
		return nil
	}
	st, err := f.Stat()
	if err != nil {
		return nil
	}
	return newProgressPrinter(f, st.Mode()&os.ModeCharDevice != 0, time.Now())
}

// run shows the counters read every progressTick until the returned function is called;
// that function stops it and clears a terminal line. A nil printer shows nothing.
func (p *progressPrinter) run(read func() progressCounts) func() {
	if p == nil {
		return func() {}
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(progressTick)
		defer t.Stop()
		for {
			select {
			case <-done:
				p.finish()
				return
			case now := <-t.C:
				p.update(now, read())
			}
		}
	}()
	return func() { close(done); <-finished }
}

// startProgress shows the progress of a file run on stderr until the returned function is
// called (see newProgress and run).
func startProgress(stderr io.Writer, off bool, p *pipeline.Progress, src pipeline.Source) func() {
	var total int64
	if s, ok := src.(pipeline.Sizer); ok {
		total = s.TotalBytes()
	}
	return newProgress(stderr, off).run(fileCounts(p, total))
}
