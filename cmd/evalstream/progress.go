package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/evalstream/evalstream/pipeline"
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

// progressPrinter renders a run's progress on stderr: on a terminal one line redrawn in
// place (records, rate, bad records, and the percentage and ETA when the input size is
// known); elsewhere one log line every progressLogEvery. It takes the time from its caller
// (update's now), so that its throttling is tested without waiting. It is not safe for
// concurrent use: one goroutine drives it.
type progressPrinter struct {
	w     io.Writer
	tty   bool
	total int64 // input bytes; 0 = unknown
	start time.Time
	next  time.Time // not a terminal: when the next line is due
	shown bool      // terminal: a line is on screen
}

func newProgressPrinter(w io.Writer, tty bool, total int64, start time.Time) *progressPrinter {
	return &progressPrinter{w: w, tty: tty, total: total, start: start, next: start.Add(progressLogEvery)}
}

// update shows the counters read at now, if it is time to.
func (p *progressPrinter) update(now time.Time, records, bad, bytes int64) {
	el := now.Sub(p.start)
	if p.tty {
		if el < progressQuiet {
			return
		}
		fmt.Fprint(p.w, "\r"+progressLine(el, records, bad, bytes, p.total)+"\033[K")
		p.shown = true
		return
	}
	if now.Before(p.next) {
		return
	}
	// The next line is due on the 10 s grid from the start, however late this tick came.
	for !p.next.After(now) {
		p.next = p.next.Add(progressLogEvery)
	}
	fmt.Fprintf(p.w, "evalstream: progress: %s\n", progressLine(el, records, bad, bytes, p.total))
}

// finish clears the terminal line, so that the results and messages that follow start on a
// clean line. Log lines stay.
func (p *progressPrinter) finish() {
	if p.tty && p.shown {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

// progressLine describes the progress after el: records, rate and bad records; with a known
// total size, the share of bytes read and the time left at the rate so far.
func progressLine(el time.Duration, records, bad, bytes, total int64) string {
	rate := 0.0
	if el > 0 {
		rate = float64(records) / el.Seconds()
	}
	line := fmt.Sprintf("%d records, %.0f rec/s, %d bad", records, rate, bad)
	if total <= 0 {
		return line
	}
	frac := min(float64(bytes)/float64(total), 1)
	line += fmt.Sprintf(", %.1f%%", 100*frac)
	if frac > 0 {
		eta := time.Duration(float64(el) * (1 - frac) / frac)
		line += ", ETA " + eta.Round(time.Second).String()
	}
	return line
}

// startProgress shows the progress of a run on stderr (see progressPrinter) until the
// returned function is called; that function stops it and clears a terminal line. Nothing
// is shown when off, or when stderr is not a file (a test's buffer).
func startProgress(stderr io.Writer, off bool, p *pipeline.Progress, src pipeline.Source) func() {
	f, ok := stderr.(*os.File)
	if off || !ok {
		return func() {}
	}
	st, err := f.Stat()
	if err != nil {
		return func() {}
	}
	var total int64
	if s, ok := src.(pipeline.Sizer); ok {
		total = s.TotalBytes()
	}
	pp := newProgressPrinter(f, st.Mode()&os.ModeCharDevice != 0, total, time.Now())
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(progressTick)
		defer t.Stop()
		for {
			select {
			case <-done:
				pp.finish()
				return
			case now := <-t.C:
				pp.update(now, p.Records.Load(), p.Bad.Load(), p.Bytes.Load())
			}
		}
	}()
	return func() { close(done); <-finished }
}
