package kafka

import (
	"context"
	"errors"
	"fmt"
	"time"

	kafkago "github.com/segmentio/kafka-go"
)

// FetchMaxWait is how long the broker may hold a fetch of a partition that has no new data.
const FetchMaxWait = 250 * time.Millisecond

// FetchMaxBytes is the most bytes one fetch of a partition asks for: one record of
// maxRecordBytes plus 1 MiB, and at least 10 MiB.
func FetchMaxBytes(maxRecordBytes int) int { return max(maxRecordBytes+1<<20, 10<<20) }

// fetchReadTimeout bounds a read of the connection that makes no progress: waiting for a
// fetch response beyond its FetchMaxWait, or a stalled batch.
const fetchReadTimeout = 10 * time.Second

// errFetchDeadline is returned by fetcher.next when no message arrived before the deadline.
var errFetchDeadline = errors.New("no message before the deadline")

// fetcher reads one partition from its leader, batch by batch, on the caller's goroutine:
// a fetch request returns up to FetchMaxBytes of messages, which are then read one at a
// time from the connection. This is what kafka-go's Reader does on a goroutine of its own,
// without the channel send and receive per message (and a consumer that folds messages as
// they come needs no read-ahead). After a failure the connection is dropped; the next call
// dials the leader again and resumes at the next offset. A fetcher is not safe for
// concurrent use.
type fetcher struct {
	cfg      *Config
	tp       TopicPartition
	maxBytes int

	conn      *kafkago.Conn
	stopAfter func() bool // the context.AfterFunc that interrupts conn's reads
	batch     *kafkago.Batch
	offset    int64     // the next offset wanted
	refreshed time.Time // when the read deadline was last pushed back

	// now is the time, read every clockEvery messages (time.Now costs a good share of
	// a small message): the count adapts so that the clock is read about every
	// millisecond.
	now        time.Time
	clockEvery int
	sinceClock int
}

// newFetcher returns a fetcher of tp from offset whose fetches ask for up to maxBytes.
func newFetcher(cfg *Config, tp TopicPartition, offset int64, maxBytes int) *fetcher {
	return &fetcher{cfg: cfg, tp: tp, maxBytes: maxBytes, offset: offset, clockEvery: 1}
}

// tick reads the clock after a message and keeps the read deadline ahead of the processing,
// which may be slow.
func (f *fetcher) tick() {
	now := time.Now()
	switch el := now.Sub(f.now); {
	case el < time.Millisecond/2 && f.clockEvery < 256:
		f.clockEvery *= 2
	case el > 2*time.Millisecond && f.clockEvery > 1:
		f.clockEvery /= 2
	}
	f.now, f.sinceClock = now, 0
	if now.Sub(f.refreshed) > time.Second {
		f.refreshed = now
		f.conn.SetReadDeadline(now.Add(fetchReadTimeout))
	}
}

// next reads the next message at or after the wanted offset into m. It returns
// errFetchDeadline when none arrived before deadline, ctx's error once ctx is done, and any
// other error after dropping the connection (the caller backs off and calls again). The
// message's Value, Key and Headers are the caller's: nothing reuses them.
func (f *fetcher) next(ctx context.Context, deadline time.Time, m *kafkago.Message) error {
	for {
		if err := ctx.Err(); err != nil {
			f.drop()
			return err
		}
		if f.batch != nil {
			var err error
			if *m, err = f.batch.ReadMessage(); err == nil {
				if f.sinceClock++; f.sinceClock >= f.clockEvery {
					f.tick()
				}
				if m.Offset < f.offset {
					continue // a compressed batch may start before the offset asked for
				}
				f.offset = m.Offset + 1
				return nil
			}
			// Close returns the batch's error, except io.EOF: the end of the batch.
			if err = f.batch.Close(); err == nil {
				f.batch = nil
				continue // fetch more
			}
			f.batch = nil
			if ctx.Err() != nil {
				continue
			}
			if err = f.fetchError(err); err != nil {
				return err
			}
			continue
		}
		f.now, f.sinceClock = time.Now(), 0
		wait := deadline.Sub(f.now)
		if wait <= 0 {
			return errFetchDeadline
		}
		if f.conn == nil {
			if err := f.dial(ctx); err != nil {
				if ctx.Err() != nil {
					continue
				}
				return err
			}
		}
		wait = min(max(wait, 10*time.Millisecond), FetchMaxWait)
		f.refreshed = f.now
		f.conn.SetReadDeadline(f.now.Add(wait + fetchReadTimeout))
		if _, err := f.conn.Seek(f.offset, kafkago.SeekAbsolute|kafkago.SeekDontCheck); err != nil {
			f.drop()
			return err
		}
		f.batch = f.conn.ReadBatchWith(kafkago.ReadBatchConfig{MinBytes: 1, MaxBytes: f.maxBytes, MaxWait: wait})
	}
}

// fetchError handles a failed fetch: nil means fetch again now; an error is returned to
// the caller (the connection is then dropped).
func (f *fetcher) fetchError(err error) error {
	switch {
	case errors.Is(err, kafkago.RequestTimedOut):
		return nil
	case errors.Is(err, kafkago.OffsetOutOfRange):
		f.conn.SetDeadline(time.Now().Add(fetchReadTimeout))
		first, last, oerr := f.conn.ReadOffsets()
		f.conn.SetDeadline(time.Time{})
		switch {
		case oerr != nil:
			err = fmt.Errorf("%w (then reading the offsets: %v)", err, oerr)
		case f.offset < first:
			f.cfg.Logf("%s: offset %d was deleted; skipping to the first offset %d (%d messages)", f.tp, f.offset, first, first-f.offset)
			f.offset = first
			return nil
		case f.offset < last:
			return nil
		default:
			err = fmt.Errorf("%w: offset %d is past the end offset %d", err, f.offset, last)
		}
	}
	f.drop()
	return err
}

// dial connects to the partition's leader through the first broker that answers, and
// skips to the first offset when the wanted one was deleted (as kafka-go's Reader does).
func (f *fetcher) dial(ctx context.Context) error {
	d := f.cfg.dialer()
	var errs []error
	for _, b := range f.cfg.Brokers {
		conn, err := d.DialLeader(ctx, "tcp", b, f.tp.Topic, f.tp.Partition)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		conn.SetDeadline(time.Now().Add(fetchReadTimeout))
		first, _, err := conn.ReadOffsets()
		conn.SetDeadline(time.Time{})
		if err != nil {
			conn.Close()
			errs = append(errs, err)
			continue
		}
		if f.offset < first {
			f.cfg.Logf("%s: offset %d was deleted; skipping to the first offset %d (%d messages)", f.tp, f.offset, first, first-f.offset)
			f.offset = first
		}
		f.conn = conn
		// Cancelling ctx interrupts a read in progress.
		f.stopAfter = context.AfterFunc(ctx, func() { conn.SetDeadline(time.Now()) })
		return nil
	}
	return fmt.Errorf("connect to the leader of %s: %w", f.tp, errors.Join(errs...))
}

// drop closes the connection and the batch being read (whose unread rest is not read).
func (f *fetcher) drop() {
	if f.conn != nil {
		f.stopAfter()
		f.conn.Close()
		f.conn = nil
	}
	if f.batch != nil {
		f.batch.Close()
		f.batch = nil
	}
}

// close releases the fetcher.
func (f *fetcher) close() { f.drop() }
