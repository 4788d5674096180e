package kafka

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	kafkago "github.com/segmentio/kafka-go"
	"golang.org/x/sync/errgroup"

	"github.com/evalstream/evalstream/pipeline"
)

// Processor is the accumulation state of one partition. The Consumer drives it from the
// single goroutine that owns the partition; it need not be safe for concurrent use.
type Processor interface {
	// Process folds the records decoded from one message. An error stops the run (for
	// example the bad-record policy says fail); the message is then not covered by any
	// snapshot. recs, with the strings and slices their values hold, and m are valid
	// only during the call (their memory is reused for the next message): copy what is
	// kept.
	Process(recs []pipeline.Record, m *kafkago.Message) error
	// Pending reports whether a checkpoint is due now (windows have closed).
	Pending() bool
	// Checkpoint returns what must become durable: the encoded state, the windows closed
	// since the last Ack and the dead letters since the last Ack. It does not change the
	// processor.
	Checkpoint() (Checkpoint, error)
	// Ack says the last Checkpoint is durable.
	Ack()
	// Close releases the processor: its partition is no longer owned.
	Close()
}

// ColumnProcessor is a Processor that can also fold records held column-wise, integer
// fields only (as pipeline.Folder.FoldColumns does), which saves building a
// pipeline.Record per message when no metric needs one.
type ColumnProcessor interface {
	Processor
	// Columnar reports whether ProcessColumns may ever succeed: every metric folds integer
	// columns and nothing depends on the message but its records (no windows). When it
	// does and the decoder needs no metadata field (key, timestamp, header.X), the
	// consumer may hand Process messages that lack Key, Headers and Time (as for a
	// ValueProcessor).
	Columnar() bool
	// ProcessColumns folds the records of consecutive messages of the partition, in
	// offset order: c.Ints[f][i] is field f (in the order of Config.Fields) of the i-th
	// one, a JSON object whose every field is an integer. It reports false, changing
	// nothing, when it cannot (some record is rejected); the consumer then hands the same
	// messages to Process one by one. c is valid only during the call.
	ProcessColumns(c *pipeline.Columns) bool
}

// ValueProcessor is a Processor that may use nothing of a message but its records, topic,
// partition, offset and high watermark: no windows on the message time. When ValuesOnly
// reports true and the decoder needs no metadata field, the consumer reads messages in lean
// runs (values only, into a reused buffer: no allocation per message, and a run of messages
// decoded and folded together) and hands Process messages that lack Key, Headers and Time.
type ValueProcessor interface {
	Processor
	ValuesOnly() bool
}

// Checkpoint is the durable form of a partition's state.
type Checkpoint struct {
	State   []byte
	Windows []WindowFinal
	Dead    []pipeline.DeadLetter
}

// WindowFinal is a window's final state in one partition.
type WindowFinal struct {
	Start int64
	State []byte
}

// NewProcessor creates the processor of a partition, restored from a snapshot payload, or
// empty when state is nil.
type NewProcessor func(tp TopicPartition, state []byte) (Processor, error)

// DeadLetterWriter makes dead letters durable before the snapshot that covers them.
type DeadLetterWriter func(ctx context.Context, dead []pipeline.DeadLetter) error

// fatalError stops the run; other errors are retried.
type fatalError struct{ err error }

func (e *fatalError) Error() string { return e.err.Error() }
func (e *fatalError) Unwrap() error { return e.err }

// Consumer reads topics partition by partition, folds messages into per-partition
// processors and snapshots them. Create it with New and call Run once.
type Consumer struct {
	cfg     Config
	newProc NewProcessor
	dead    DeadLetterWriter
	adm     *admin

	tps     []TopicPartition
	targets map[TopicPartition]int64
	store   store
	updates chan<- Update
	stopRun context.CancelFunc

	envMu     sync.Mutex
	envs      map[string]Envelope // latest snapshot envelope per "topic/partition"
	synced    bool                // the initial state has been read
	pos       map[TopicPartition]*Position
	completed bool
}

// New validates cfg and returns a consumer. dead may be nil (dead letters are dropped after
// being counted).
func New(cfg Config, newProc NewProcessor, dead DeadLetterWriter) (*Consumer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Consumer{cfg: cfg, newProc: newProc, dead: dead, adm: newAdmin(&cfg), envs: map[string]Envelope{}}, nil
}

// Run consumes until ctx is cancelled (continuous mode, and then it returns nil after a last
// snapshot of every owned partition) or, in bounded mode, until every partition's snapshot
// covers the end offset seen at start. It sends every durable snapshot and window final of
// the group (its own and other instances') to updates, then a KindSynced update once the
// earlier state is read, and closes updates when it returns. The caller must receive from
// updates until it is closed.
func (c *Consumer) Run(ctx context.Context, updates chan<- Update) (err error) {
	defer close(updates)
	c.updates = updates
	if err := Probe(ctx, c.cfg); err != nil {
		return err
	}
	tps, err := c.adm.partitions(ctx, c.cfg.Topics)
	if err != nil {
		return err
	}
	c.tps = tps
	if c.cfg.bounded() {
		if c.targets, err = c.adm.offsets(ctx, tps, true); err != nil {
			return err
		}
	}
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	c.stopRun = stop

	var ks *kafkaStore
	var tailDone chan error
	stopTail := func() {}
	if c.cfg.StateTopic != "" {
		if err := c.adm.ensureCompactedTopic(ctx, c.cfg.StateTopic, c.cfg.StateMaxBytes); err != nil {
			return err
		}
		group := c.cfg.Group
		if ks, err = newKafkaStore(ctx, &c.cfg, c.adm, c.cfg.StateTopic, &group, c.deliver); err != nil {
			return err
		}
		defer ks.close()
		tailCtx, cancel := context.WithCancel(context.Background())
		tailDone = make(chan error, 1)
		go func() { tailDone <- ks.tail(tailCtx) }()
		stopTail = func() { cancel(); <-tailDone }
		if err := ks.sync(runCtx); err != nil {
			stopTail()
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return err
		}
		c.store = ks
	} else {
		c.store = newMemStore(c.deliver)
	}
	parts := make([]string, len(tps))
	for i, tp := range tps {
		parts[i] = tp.String()
	}
	c.updates <- Update{Env: Envelope{Kind: KindSynced}, Parts: parts}
	c.envMu.Lock()
	c.synced = true
	c.envMu.Unlock()
	c.checkComplete()

	err = c.consume(runCtx)
	if ks != nil {
		// Let the last snapshots reach the receiver before closing.
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_ = ks.sync(sctx)
		cancel()
	}
	stopTail()
	if err != nil {
		return err
	}
	if c.cfg.bounded() && !c.isCompleted() {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return errors.New("kafka source stopped before reaching the end offsets")
	}
	return nil
}

// Partitions returns every partition read (after Run has started).
func (c *Consumer) Partitions() []TopicPartition { return c.tps }

// Lag returns, per "topic/partition", the broker's end offset minus the next offset of the
// partition's latest durable snapshot (from any instance of the group).
func (c *Consumer) Lag(ctx context.Context) (map[string]int64, error) {
	if len(c.tps) == 0 {
		return nil, nil
	}
	end, err := c.adm.offsets(ctx, c.tps, true)
	if err != nil {
		return nil, err
	}
	out := map[string]int64{}
	c.envMu.Lock()
	defer c.envMu.Unlock()
	for _, tp := range c.tps {
		if env, ok := c.envs[tp.String()]; ok {
			out[tp.String()] = max(end[tp]-env.Next, 0)
		}
	}
	return out, nil
}

func (c *Consumer) deliver(u Update) {
	if u.Env.Kind == KindSnapshot {
		c.envMu.Lock()
		c.envs[u.Part()] = u.Env
		// A snapshot read before the run synced is earlier runs' progress: this run
		// starts at its end. One first seen later covers this run from its start.
		start := u.Env.Start
		if !c.synced {
			start = u.Env.Next
		}
		c.track(TopicPartition{u.Env.Topic, u.Env.Partition}, start, u.Env.Next, -1)
		c.envMu.Unlock()
	}
	c.updates <- u
	if u.Env.Kind == KindSnapshot {
		c.checkComplete()
	}
}

func (c *Consumer) isCompleted() bool {
	c.envMu.Lock()
	defer c.envMu.Unlock()
	return c.completed
}

// checkComplete stops a bounded run once every partition's snapshot is done.
func (c *Consumer) checkComplete() {
	if !c.cfg.bounded() {
		return
	}
	c.envMu.Lock()
	defer c.envMu.Unlock()
	if c.completed || !c.synced {
		return
	}
	for _, tp := range c.tps {
		env, ok := c.envs[tp.String()]
		if !ok || !env.Done || env.Next < c.targets[tp] {
			return
		}
	}
	c.completed = true
	c.cfg.Logf("every partition reached its end offset")
	c.stopRun()
}

// consume runs the group membership (or, without a group, one assignment of every
// partition) until ctx is done or a fatal error.
func (c *Consumer) consume(ctx context.Context) error {
	if c.cfg.Group == "" {
		return c.runAssignment(ctx, nil, c.tps)
	}
	cg, err := kafkago.NewConsumerGroup(kafkago.ConsumerGroupConfig{
		ID:                c.cfg.Group,
		Brokers:           c.cfg.Brokers,
		Dialer:            c.cfg.dialer(),
		Topics:            c.cfg.Topics,
		SessionTimeout:    c.cfg.SessionTimeout,
		RebalanceTimeout:  c.cfg.SessionTimeout,
		HeartbeatInterval: c.cfg.SessionTimeout / 6,
		JoinGroupBackoff:  time.Second,
		StartOffset:       kafkago.FirstOffset,
		Timeout:           10 * time.Second,
		ErrorLogger:       kafkago.LoggerFunc(func(f string, a ...any) { c.cfg.Logf("consumer group: "+f, a...) }),
	})
	if err != nil {
		return &fatalError{fmt.Errorf("consumer group: %w", err)}
	}
	defer cg.Close()
	for {
		gen, err := cg.Next(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			c.cfg.Logf("consumer group %s: %v (retrying)", c.cfg.Group, err)
			continue
		}
		var tps []TopicPartition
		for topic, as := range gen.Assignments {
			for _, a := range as {
				tps = append(tps, TopicPartition{topic, a.ID})
			}
		}
		c.cfg.Logf("generation %d: assigned %v", gen.ID, tps)
		errc := make(chan error, 1)
		gen.Start(func(gctx context.Context) {
			actx, cancel := context.WithCancel(ctx)
			defer cancel()
			stopAfter := context.AfterFunc(gctx, cancel)
			defer stopAfter()
			errc <- c.runAssignment(actx, gen, tps)
			// Return only once the generation ends: kafka-go ends a generation when one of
			// its functions returns and then joins the next one (JoinGroup, SyncGroup,
			// OffsetFetch) before it sees cg.Close, which then waits for that round and
			// leaves the group. When the run is over, the deferred Close ends the
			// generation instead, and leaves at once.
			<-gctx.Done()
		})
		if err := <-errc; err != nil {
			return err
		}
	}
}

// runAssignment consumes the partitions until ctx is done. It returns only then (so that a
// generation is not ended early), or on a fatal error.
func (c *Consumer) runAssignment(ctx context.Context, gen *kafkago.Generation, tps []TopicPartition) error {
	for {
		err := c.store.sync(ctx)
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			return nil
		}
		c.cfg.Logf("reading state topic: %v (retrying)", err)
		sleep(ctx, time.Second)
	}
	var commits *offsetCommitter
	if gen != nil {
		commits = &offsetCommitter{gen: gen}
	}
	g, gctx := errgroup.WithContext(ctx)
	for _, tp := range tps {
		g.Go(func() error { return c.work(gctx, gen, commits, tp) })
	}
	if err := g.Wait(); err != nil {
		return err
	}
	<-ctx.Done()
	return nil
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// partState is a partition being consumed by its owner goroutine.
type partState struct {
	tp          TopicPartition
	commits     *offsetCommitter // nil without a group
	proc        Processor
	start, next int64
	done, idle  bool
	dirty       bool
}

// work owns one partition until ctx is done: restore, seek, fetch, fold, checkpoint.
func (c *Consumer) work(ctx context.Context, gen *kafkago.Generation, commits *offsetCommitter, tp TopicPartition) error {
	ps := &partState{tp: tp, commits: commits}
	key := snapshotKey(c.cfg.Group, tp)
	if u, ok := c.store.latest(key); ok {
		proc, err := c.newProc(tp, u.Payload)
		if err != nil {
			return &fatalError{fmt.Errorf("restore %s from its snapshot: %w", tp, err)}
		}
		ps.proc, ps.start, ps.next, ps.done, ps.idle = proc, u.Env.Start, u.Env.Next, u.Env.Done, u.Env.Idle
		c.cfg.Logf("%s: restored snapshot at offset %d", tp, ps.next)
		if gen != nil {
			// A crash between the snapshot write and its commit leaves the group offset
			// behind the durable snapshot: catch it up now.
			c.commit(ps)
		}
	} else {
		next, err := c.startOffset(ctx, gen, tp)
		if err != nil {
			return nil // ctx done
		}
		proc, err := c.newProc(tp, nil)
		if err != nil {
			return &fatalError{err}
		}
		ps.proc, ps.start, ps.next, ps.dirty = proc, next, next, true
	}
	defer ps.proc.Close()
	c.advance(tp, ps.next, ps.next, -1)
	target, bounded := c.targets[tp], c.cfg.bounded()
	if bounded && ps.next >= target {
		if ps.done && !ps.dirty {
			return nil
		}
		ps.done = true
		return c.checkpointRetry(ctx, ps)
	}
	if ps.dirty && !bounded {
		// Make the starting point durable first: a restart must not pick a new "latest".
		// (A bounded run starting at "latest" is already done; from "earliest" or
		// "committed" a restart before the first snapshot resolves the same start, so a
		// bounded run does without this write.)
		if err := c.checkpointRetry(ctx, ps); err != nil || ctx.Err() != nil {
			return err
		}
	}
	ps.done = false
	f := newFetcher(&c.cfg, tp, ps.next, FetchMaxBytes(c.cfg.MaxRecordBytes))
	defer f.close()
	dec := NewDecoder(c.cfg.Format, c.cfg.Fields, c.cfg.MaxRecordBytes)
	due := time.Now().Add(c.cfg.CheckpointInterval)
	// Messages are read in runs. A processor that needs only values (and one that folds
	// integer columns) gets lean runs of many messages; others get one full message at a
	// time.
	var r run
	max, lean := 1, false
	if vp, ok := ps.proc.(ValueProcessor); ok && vp.ValuesOnly() && !dec.needsMeta() {
		max, lean = runMessages, true
	}
	var cb *colBuilder
	if cp, ok := ps.proc.(ColumnProcessor); ok && cp.Columnar() && dec.columnar() {
		max, lean = runMessages, true
		cb = newColBuilder(cp, len(c.cfg.Fields))
	}
	for {
		if err := f.read(ctx, due, &r, max, lean); err != nil {
			if ctx.Err() != nil {
				return c.finalCheckpoint(ps)
			}
			if errors.Is(err, errFetchDeadline) {
				if !bounded && (ps.dirty || !ps.idle) {
					ps.idle = true
					ps.dirty = true
					if err := c.checkpoint(ctx, ps); err != nil {
						if fe := (*fatalError)(nil); errors.As(err, &fe) {
							return err
						}
						c.cfg.Logf("%s: %v (will retry)", tp, err)
					}
				}
				due = time.Now().Add(c.cfg.CheckpointInterval)
				continue
			}
			c.cfg.Logf("%s: fetch: %v (retrying)", tp, err)
			sleep(ctx, 500*time.Millisecond)
			continue
		}
		if err := c.fold(ps, r.msgs, dec, cb, target); err != nil {
			return err
		}
		if bounded && ps.next >= target {
			ps.done = true
			return c.checkpointRetry(ctx, ps)
		}
		if ps.proc.Pending() || !f.now.Before(due) {
			if err := c.checkpoint(ctx, ps); err != nil {
				if fe := (*fatalError)(nil); errors.As(err, &fe) {
					return err
				}
				c.cfg.Logf("%s: %v (will retry)", tp, err)
			}
			due = time.Now().Add(c.cfg.CheckpointInterval)
		}
	}
}

// runMessages is the most messages of a lean run.
const runMessages = 4096

// fold folds msgs, in order, skipping those before ps.next and stopping once ps.next
// reaches target in bounded mode. With cb, the messages whose value is a JSON object of
// integer fields are collected column-wise and folded together by the ColumnProcessor
// (ProcessColumns), and the others go through Process one by one, in order: the decoder
// and the processor see exactly what they would see message by message. An error is fatal.
func (c *Consumer) fold(ps *partState, msgs []kafkago.Message, dec *Decoder, cb *colBuilder, target int64) error {
	bounded, committed := c.cfg.bounded(), c.cfg.committed()
	var last *kafkago.Message
	for i := range msgs {
		m := &msgs[i]
		if m.Offset < ps.next {
			continue
		}
		crashPoint("fetch")
		switch {
		case isSkipped(m) || !committed && isTxnMarker(m):
		case cb.try() && dec.appendInts(m.Value, cb):
			cb.hit(m)
		default:
			cb.miss()
			if err := cb.flush(ps.proc, dec); err != nil {
				return err
			}
			recs := dec.Decode(m)
			if err := ps.proc.Process(recs, m); err != nil {
				return &fatalError{err}
			}
			dec.Reset()
		}
		crashPoint("process")
		ps.next, last = m.Offset+1, m
		if bounded && ps.next >= target {
			break
		}
	}
	if err := cb.flush(ps.proc, dec); err != nil {
		return err
	}
	dec.Reset()
	if last != nil {
		ps.dirty = true
		ps.idle = last.HighWaterMark > 0 && ps.next >= last.HighWaterMark
		c.advance(ps.tp, ps.next, ps.next, last.HighWaterMark)
	}
	return nil
}

// isTxnMarker reports whether m is a transaction marker: the control record that commits or
// aborts a transaction, which exactly-once producers leave in the partition. kafka-go's batch
// reader (read_uncommitted; the read_committed fetcher flags markers itself, see skipped)
// returns control records as messages without flagging them, so a marker is known by its
// layout: a 4-byte key (version 0, int16; type 0 abort or 1 commit, int16) and a 6-byte
// value (version 0, int16; coordinator epoch, int32). No JSON message starts with a zero
// byte, and no Arrow stream is 6 bytes long, so no record of either format is taken for one.
func isTxnMarker(m *kafkago.Message) bool {
	k, v := m.Key, m.Value
	return len(k) == 4 && k[0] == 0 && k[1] == 0 && k[2] == 0 && k[3] <= 1 &&
		len(v) == 6 && v[0] == 0 && v[1] == 0
}

// startOffset resolves where a partition without a snapshot begins.
func (c *Consumer) startOffset(ctx context.Context, gen *kafkago.Generation, tp TopicPartition) (int64, error) {
	for {
		first, err := c.adm.offsets(ctx, []TopicPartition{tp}, false)
		var last map[TopicPartition]int64
		if err == nil {
			last, err = c.adm.offsets(ctx, []TopicPartition{tp}, true)
		}
		if err == nil {
			switch c.cfg.Start {
			case "latest":
				return last[tp], nil
			case "committed":
				if gen != nil {
					for _, a := range gen.Assignments[tp.Topic] {
						if a.ID == tp.Partition && a.Offset >= 0 {
							return min(max(a.Offset, first[tp]), last[tp]), nil
						}
					}
				}
			}
			return first[tp], nil
		}
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		c.cfg.Logf("%s: list offsets: %v (retrying)", tp, err)
		sleep(ctx, time.Second)
	}
}

// checkpointRetry checkpoints until it succeeds, ctx is done (nil: nothing is lost, the
// last durable snapshot stands) or a fatal error.
func (c *Consumer) checkpointRetry(ctx context.Context, ps *partState) error {
	for {
		err := c.checkpoint(ctx, ps)
		if err == nil || ctx.Err() != nil {
			return nil
		}
		if fe := (*fatalError)(nil); errors.As(err, &fe) {
			return err
		}
		c.cfg.Logf("%s: %v (retrying)", ps.tp, err)
		sleep(ctx, time.Second)
	}
}

// finalCheckpoint snapshots a partition being given up, with a fresh deadline.
func (c *Consumer) finalCheckpoint(ps *partState) error {
	if !ps.dirty {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.checkpoint(ctx, ps); err != nil {
		if fe := (*fatalError)(nil); errors.As(err, &fe) {
			return err
		}
		c.cfg.Logf("%s: last snapshot failed (the previous one stands): %v", ps.tp, err)
	}
	return nil
}

// checkpoint makes the partition's state durable: dead letters, then window finals and the
// snapshot in one ordered write; then it commits the group offset the snapshot covers.
func (c *Consumer) checkpoint(ctx context.Context, ps *partState) error {
	cp, err := ps.proc.Checkpoint()
	if err != nil {
		return &fatalError{fmt.Errorf("%s: encode state: %w", ps.tp, err)}
	}
	crashPoint("checkpoint")
	if len(cp.Dead) > 0 && c.dead != nil {
		if err := c.dead(ctx, cp.Dead); err != nil {
			return fmt.Errorf("dead letters: %w", err)
		}
	}
	now := time.Now()
	env := Envelope{Group: c.cfg.Group, Topic: ps.tp.Topic, Partition: ps.tp.Partition, Start: ps.start, Next: ps.next, Written: now}
	ups := make([]Update, 0, len(cp.Windows)+1)
	for _, w := range cp.Windows {
		e := env
		e.Kind, e.Window = KindWindow, w.Start
		ups = append(ups, Update{Env: e, Payload: w.State})
	}
	env.Kind, env.Done, env.Idle = KindSnapshot, ps.done, ps.idle
	ups = append(ups, Update{Env: env, Payload: cp.State})
	if err := c.store.put(ctx, ups); err != nil {
		return err
	}
	crashPoint("snapshot")
	ps.proc.Ack()
	ps.dirty = false
	if ps.commits != nil {
		c.commit(ps)
		crashPoint("commit")
	}
	return nil
}

// commit sets the group offset to what the partition's durable snapshot covers. The
// snapshot is the truth; the group offset is advisory (lag, tooling), so a failure is
// logged, and the next checkpoint or restore of the partition commits again.
func (c *Consumer) commit(ps *partState) {
	if err := ps.commits.commit(ps.tp.Topic, ps.tp.Partition, ps.next); err != nil {
		c.cfg.Logf("%s: commit offset %d: %v (the snapshot is durable; the commit is advisory)", ps.tp, ps.next, err)
	}
}

// Permanent marks an error of a DeadLetterWriter that retrying cannot cure (a dead letter the
// sink refuses, a sink that cannot be written): the run stops with it instead of retrying
// the checkpoint.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return &fatalError{err}
}
