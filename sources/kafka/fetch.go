package kafka

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
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
	cf        *committedFetch // read_committed: fetches through the protocol package instead
	offset    int64           // the next offset wanted
	fullBatch bool            // read the next message of batch in full, even for a lean read
	fullNext  bool            // set fullBatch for the next batch
	refreshed time.Time       // when the read deadline was last pushed back

	// now is the time, read every clockEvery messages (time.Now costs a good share of
	// a small message): the count adapts so that the clock is read about every
	// millisecond.
	now        time.Time
	clockEvery int
	sinceClock int
}

// newFetcher returns a fetcher of tp from offset whose fetches ask for up to maxBytes.
func newFetcher(cfg *Config, tp TopicPartition, offset int64, maxBytes int) *fetcher {
	f := &fetcher{cfg: cfg, tp: tp, maxBytes: maxBytes, offset: offset, clockEvery: 1}
	if cfg.committed() {
		f.cf = newCommittedFetch(cfg)
	}
	return f
}

// loaded reports whether a fetch response is being read.
func (f *fetcher) loaded() bool {
	if f.cf != nil {
		return f.cf.loaded
	}
	return f.batch != nil
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
	if now.Sub(f.refreshed) > time.Second && f.conn != nil {
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
		if f.loaded() {
			ok, err := f.take(ctx, m, nil)
			if ok || err != nil {
				return err
			}
			continue
		}
		if err := f.fetch(ctx, deadline); err != nil {
			return err
		}
	}
}

// run is a stretch of consecutive messages of one partition, read by fetcher.read.
type run struct {
	msgs []kafkago.Message
	// buf holds the values of a lean run; a full chunk is replaced, never reallocated, so
	// that the values read before stay put.
	buf []byte
}

// runBytes is the size of a lean run's value buffer (a variable for the tests), and
// leanMinSpare the room a lean read needs in it: a value larger than the room left is read
// again, in full.
var runBytes = 1 << 20

const leanMinSpare = 64 << 10

// read reads into r (replacing what it held) the next messages at or after the wanted
// offset: at least one, waiting for it as next does, then up to max those that the
// current fetch already holds. It returns next's errors, with r empty.
//
// A lean read takes only each message's value, offset and high watermark: its messages
// have no Key, Headers or Time, and their Values alias r's buffer (valid until the next
// read into r). Kafka-go skips a message's key without telling its length, so a value that
// may belong to a transaction marker (six bytes starting with two zero bytes, see
// isTxnMarker), an empty or null value, and a value larger than the room left in the
// buffer end the run before them: the first message of the next fetch, which starts at
// such a message, is read in full (then lean reads resume), so that every message the
// caller sees as lean is what next would have returned but for the missing fields.
func (f *fetcher) read(ctx context.Context, deadline time.Time, r *run, max int, lean bool) error {
	r.msgs = r.msgs[:0]
	if lean {
		if cap(r.buf) < runBytes {
			r.buf = make([]byte, 0, runBytes)
		}
		r.buf = r.buf[:0]
	}
	for len(r.msgs) < max {
		if err := ctx.Err(); err != nil {
			f.drop()
			r.msgs = r.msgs[:0]
			return err
		}
		if !f.loaded() {
			if len(r.msgs) > 0 {
				return nil
			}
			if err := f.fetch(ctx, deadline); err != nil {
				return err
			}
			continue
		}
		var buf *[]byte
		if lean && !f.fullBatch && f.cf == nil {
			if cap(r.buf)-len(r.buf) < leanMinSpare {
				return nil // len(r.msgs) > 0: the buffer is used
			}
			buf = &r.buf
		}
		r.msgs = slices.Grow(r.msgs, 1)[:len(r.msgs)+1]
		ok, err := f.take(ctx, &r.msgs[len(r.msgs)-1], buf)
		if !ok {
			r.msgs = r.msgs[:len(r.msgs)-1]
		}
		if err != nil {
			r.msgs = r.msgs[:0]
			return err
		}
	}
	return nil
}

// errReadFull ends a lean read before a message that must be read in full.
var errReadFull = errors.New("read the message in full")

// take reads the next message at or after the wanted offset from the current batch into
// m, in full, or lean into *buf when buf is not nil. It reports false when the batch is
// used up or failed (f.batch is then nil: the caller fetches again), and returns an error
// only after dropping the connection.
func (f *fetcher) take(ctx context.Context, m *kafkago.Message, buf *[]byte) (bool, error) {
	for {
		var err error
		if f.cf != nil {
			ok, err := f.cf.take(m)
			if err != nil {
				return false, f.fetchError(err)
			}
			if !ok {
				return false, nil
			}
		} else if buf != nil {
			err = f.takeLean(m, buf)
		} else {
			*m, err = f.batch.ReadMessage()
		}
		if err == nil {
			if f.sinceClock++; f.sinceClock >= f.clockEvery {
				f.tick()
			}
			if m.Offset < f.offset {
				continue // a compressed batch may start before the offset asked for
			}
			f.offset = m.Offset + 1
			if buf == nil && f.cf == nil {
				f.fullBatch = false // the message a lean read left was read in full
			}
			return true, nil
		}
		if errors.Is(err, errReadFull) || errors.Is(err, io.ErrShortBuffer) {
			// Fetch again from this message, and read that batch in full. Close discards
			// the rest of the batch and keeps the connection.
			f.batch.Close()
			f.batch = nil
			f.fullNext = true
			return false, nil
		}
		// Close returns the batch's error, except io.EOF: the end of the batch.
		err = f.batch.Close()
		f.batch = nil
		if err == nil || ctx.Err() != nil {
			return false, nil
		}
		return false, f.fetchError(err)
	}
}

// takeLean reads the next message's value into the spare room of *buf (at least
// leanMinSpare bytes). It returns errReadFull, leaving the batch to be closed, when the
// message must be read in full.
func (f *fetcher) takeLean(m *kafkago.Message, buf *[]byte) error {
	b := *buf
	spare := b[len(b):cap(b)]
	n, err := f.batch.Read(spare)
	if err != nil {
		return err
	}
	off := f.batch.Offset() - 1
	v := spare[:n:n]
	if off >= f.offset {
		if n == 0 || n == 6 && v[0] == 0 && v[1] == 0 {
			return errReadFull
		}
		*buf = b[:len(b)+n] // keep the value (a message before f.offset is skipped)
	}
	*m = kafkago.Message{Topic: f.tp.Topic, Partition: f.tp.Partition, Offset: off, HighWaterMark: f.batch.HighWaterMark(), Value: v}
	return nil
}

// fetch sends the next fetch request (dialing first when there is no connection): its
// messages are then read from f.batch. It returns errFetchDeadline when deadline has
// passed, and other errors as next does.
func (f *fetcher) fetch(ctx context.Context, deadline time.Time) error {
	f.now, f.sinceClock = time.Now(), 0
	wait := deadline.Sub(f.now)
	if wait <= 0 {
		return errFetchDeadline
	}
	if f.cf != nil {
		err := f.fetchCommitted(ctx, min(max(wait, 10*time.Millisecond), FetchMaxWait))
		if cerr := ctx.Err(); cerr != nil {
			f.drop()
			return cerr
		}
		return err
	}
	if f.conn == nil {
		if err := f.dial(ctx); err != nil {
			if cerr := ctx.Err(); cerr != nil {
				f.drop()
				return cerr
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
	f.fullBatch, f.fullNext = f.fullNext, false
	return nil
}

// fetchError handles a failed fetch: nil means fetch again now; an error is returned to
// the caller (the connection is then dropped).
func (f *fetcher) fetchError(err error) error {
	switch {
	case errors.Is(err, kafkago.RequestTimedOut):
		return nil
	case errors.Is(err, kafkago.OffsetOutOfRange):
		first, last, oerr := f.readOffsets()
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

// readOffsets returns the partition's first and end offsets.
func (f *fetcher) readOffsets() (first, last int64, err error) {
	if f.cf != nil {
		ctx, cancel := context.WithTimeout(context.Background(), fetchReadTimeout)
		defer cancel()
		return f.cf.readOffsets(ctx, f.tp)
	}
	f.conn.SetDeadline(time.Now().Add(fetchReadTimeout))
	defer f.conn.SetDeadline(time.Time{})
	return f.conn.ReadOffsets()
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
	if f.cf != nil {
		f.cf.release()
	}
}

// close releases the fetcher.
func (f *fetcher) close() {
	f.drop()
	if f.cf != nil {
		f.cf.close()
	}
}
