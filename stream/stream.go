// Package stream is the Kafka-mode engine: it consumes topics through sources/kafka with one
// processor per assigned partition (each folds its records into a stages.Tracker and
// snapshots it to the state topic at every checkpoint), and an emitter that merges every
// partition's durable state into the results written to the sinks: windows as they
// complete, the running total every interval (continuous mode), and the total at the end.
// Report rebuilds the total of a group from its state topic alone.
//
// The command wires it (flags, config, topics, sinks, dead letters) and maps its errors to
// exit codes; a library user or another front end can drive the same run. Package pipeline
// holds the engine of file inputs; a new engine is a package next to these two.
//
// With a gate, every results object written carries its verdict (see Config.Gate).
//
// Imports: pipeline, pipeline/gate, stages, sources/kafka, config (defaults) and metrics/core.
//
// Memory: records handed to a processor are valid only during Process (kafka.Processor);
// what a processor keeps (dead letters' Raw) is copied. Results written to sinks belong to
// the sinks until Write returns. An Engine is used by one goroutine; it runs the consumer
// on one more.
package stream

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	kafkago "github.com/segmentio/kafka-go"

	"github.com/evalstream/evalstream/config"
	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/pipeline"
	"github.com/evalstream/evalstream/pipeline/gate"
	"github.com/evalstream/evalstream/sources/kafka"
	"github.com/evalstream/evalstream/stages"
)

// Config is what a run needs besides the consumer's kafka.Config.
type Config struct {
	// Plan is the evaluation: fields, metrics, slices.
	Plan *pipeline.Plan
	// Window is the window spec; nil: no windows.
	Window *stages.Spec
	// Policy is the bad-record policy.
	Policy pipeline.Policy
	// Dead writes dead letters; nil: bad records are only counted.
	Dead kafka.DeadLetterWriter
	// Sinks receive the results (windows, running totals, the final total). The engine
	// writes to them but does not close them.
	Sinks []pipeline.Sink
	// Continuous emits windows as they complete and the total every EmitInterval
	// (config.DefaultEmitInterval when <= 0); else results are emitted at the end only.
	Continuous   bool
	EmitInterval time.Duration
	// Gate, when set, is evaluated on every results object written — each window, each
	// running total and the final total — and its verdict is the results' gate object. A
	// failing verdict never stops the run (a continuous run is a service; a bounded run's
	// caller decides on the final total's verdict, Engine.Verdict); it is logged through
	// Logf, except for the final total of a bounded run. A gate that cannot be evaluated
	// (a *gate.ConfigError: a relative drop on a zero baseline slice...) stops the run
	// with that error, before the results are written.
	Gate *gate.Gate
	// Logf receives the engine's messages (a failing gate's verdicts); nil: none.
	Logf func(format string, args ...any)
}

// Engine is one run over Kafka. It is used by one goroutine: Consume, then Final.
type Engine struct {
	cfg      Config
	consumer *kafka.Consumer
	em       *emitter
	counts   *counts
}

// New validates kc and builds the consumer (kafka.New's errors are configuration errors).
func New(kc kafka.Config, c Config) (*Engine, error) {
	var bad atomic.Int64
	cn := &counts{live: map[*partProc]struct{}{}}
	newProc := func(tp kafka.TopicPartition, state []byte) (kafka.Processor, error) {
		p := &partProc{folder: pipeline.NewFolder(c.Plan), tr: stages.NewTracker(c.Plan, c.Window), pol: c.Policy, bad: &bad, wantDead: c.Dead != nil,
			windowless: c.Window == nil, columnar: c.Window == nil && c.Plan.Columnar(), counts: cn}
		if state != nil {
			if err := p.tr.Restore(state); err != nil {
				return nil, err
			}
		}
		p.counted = p.tr.Total.Skipped
		bad.Add(p.counted)
		cn.add(p)
		return p, nil
	}
	consumer, err := kafka.New(kc, newProc, c.Dead)
	if err != nil {
		return nil, err
	}
	logf := c.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	em := &emitter{plan: c.Plan, view: stages.NewView(c.Plan, c.Window), sinks: c.Sinks, consumer: consumer, continuous: c.Continuous, gate: c.Gate, logf: logf}
	return &Engine{cfg: c, consumer: consumer, em: em, counts: cn}, nil
}

// Consume runs the consumer until the end offsets (bounded mode) or until ctx is done
// (continuous mode), applying its updates and emitting as Config says. A sink failure
// stops the run and is returned; so is a *pipeline.BadRecordError over the policy's limit.
func (e *Engine) Consume(ctx context.Context) error {
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	updates := make(chan kafka.Update, 64)
	runErr := make(chan error, 1)
	go func() { runErr <- e.consumer.Run(rctx, updates) }()

	emitErr := e.em.loop(rctx, cancel, updates, e.cfg.EmitInterval)
	err := <-runErr
	if err == nil {
		err = emitErr
	}
	return err
}

// Final emits the windows that are complete and the total, and returns the total. Call it
// after Consume returned nil, with a context of its own (the run's may be cancelled).
func (e *Engine) Final(ctx context.Context) (*pipeline.Accumulator, error) {
	return e.em.final(ctx)
}

// Verdict returns the gate's verdict on the last total written (after Final: on the final
// total), or nil without a gate or before a total was written. The verdict is shared, not
// copied; it is not changed after it is returned.
func (e *Engine) Verdict() *gate.Verdict { return e.em.verdict }

// Range is the offsets of one partition that an emission covers: the messages [Start, End)
// (End is the next offset to read, as Kafka's end offsets are; Start == End when nothing was
// read). Offsets that hold no record (transaction markers, aborted messages) may lie inside.
type Range struct {
	Topic      string
	Partition  int
	Start, End int64
}

// Covered returns the offset range of every partition whose state the results emitted so far
// (and the next emission) merge, by topic and partition: for a total, all it folded since
// the group's first snapshot of the partition, across restarts; for a window, the same
// ranges as known when it is emitted (per-window ranges are not tracked, and a window may be
// emitted before the snapshot written with it is applied). Partitions
// without a snapshot yet are absent. Safe for concurrent use (a sink may call it from its
// Write); the slice belongs to the caller.
func (e *Engine) Covered() []Range { return e.em.covered() }

// lagSetter is implemented by sinks that report consumer lag (prometheus).
type lagSetter interface{ SetLag(map[string]int64) }

// partProc is the Processor of one partition: a stages.Tracker plus the bad-record policy.
type partProc struct {
	folder     *pipeline.Folder
	tr         *stages.Tracker
	pol        pipeline.Policy
	bad        *atomic.Int64 // bad records of every partition this instance owns
	counted    int64         // this partition's share of bad
	wantDead   bool
	dead       []pipeline.DeadLetter
	windowless bool
	columnar   bool // no windows, and every metric folds integer columns
	// scored and rejected count this processor's records for Engine.Progress: one atomic
	// add per message or run of messages, on a counter no other partition writes.
	scored, rejected atomic.Int64
	counts           *counts
}

// ValuesOnly reports whether nothing but the messages' records is used: no windows, which
// may take the message time (kafka.ValueProcessor).
func (p *partProc) ValuesOnly() bool { return p.windowless }

// Columnar reports whether ProcessColumns may succeed (kafka.ColumnProcessor).
func (p *partProc) Columnar() bool { return p.columnar }

// ProcessColumns folds a run of integer records into the total when every metric accepts
// all of them; else it reports false and the consumer calls Process for each.
func (p *partProc) ProcessColumns(c *pipeline.Columns) bool {
	if !p.columnar || !p.folder.FoldColumns(p.tr.Total, c) {
		return false
	}
	p.scored.Add(int64(c.N))
	return true
}

func (p *partProc) Process(recs []pipeline.Record, m *kafkago.Message) error {
	var scored, rejected int64
	defer func() {
		p.scored.Add(scored)
		p.rejected.Add(rejected)
	}()
	for i := range recs {
		rec := &recs[i]
		rej := p.tr.Fold(p.folder, rec, m.Time.UnixNano())
		if rej == nil {
			scored++
			continue
		}
		rejected++
		p.counted++
		n := p.bad.Add(1)
		if !p.pol.Unlimited && !p.pol.IsFraction && n > p.pol.MaxBad {
			return &pipeline.BadRecordError{Pos: rec.Pos, Rejection: rej, MaxBad: p.pol.MaxBad, OverLimit: p.pol.OnError != "fail" || p.pol.MaxBad > 0}
		}
		if p.wantDead {
			d := pipeline.DeadLetter{Pos: rec.Pos, Reason: rej.Reason, Error: rej.Error(), Raw: append([]byte(nil), rec.Raw...)}
			if m.Value == nil {
				// A tombstone: its key, which says what was deleted, is all it holds.
				d.Record, d.Fields = tombstoneRecord(m.Key), []string{kafka.FieldKey}
			}
			p.dead = append(p.dead, d)
		}
	}
	return nil
}

// tombstoneRecord is the record of a tombstone's dead letter: its key (null for none).
func tombstoneRecord(key []byte) *pipeline.Record {
	v := core.Value{Kind: core.Null}
	if key != nil {
		v = core.Value{Kind: core.String, Str: string(key)}
	}
	return &pipeline.Record{Values: []core.Value{v}}
}

func (p *partProc) Pending() bool { return p.tr.HasClosed() }

func (p *partProc) Checkpoint() (kafka.Checkpoint, error) {
	st, err := p.tr.MarshalBinary()
	if err != nil {
		return kafka.Checkpoint{}, err
	}
	cp := kafka.Checkpoint{State: st, Dead: p.dead}
	for _, c := range p.tr.Closed() {
		b, err := pipeline.EncodeState(c.Acc)
		if err != nil {
			return kafka.Checkpoint{}, err
		}
		cp.Windows = append(cp.Windows, kafka.WindowFinal{Start: c.Start, State: b})
	}
	return cp, nil
}

func (p *partProc) Ack() {
	p.tr.Ack()
	p.dead = nil
}

func (p *partProc) Close() {
	p.bad.Add(-p.counted)
	p.counts.retire(p)
}

// counts sums the records of every processor of the run, live and closed (a partition
// revoked in a rebalance keeps what it counted). Safe for concurrent use.
type counts struct {
	mu               sync.Mutex
	live             map[*partProc]struct{}
	scored, rejected int64 // of closed processors
}

func (c *counts) add(p *partProc) {
	c.mu.Lock()
	c.live[p] = struct{}{}
	c.mu.Unlock()
}

func (c *counts) retire(p *partProc) {
	c.mu.Lock()
	delete(c.live, p)
	c.scored += p.scored.Load()
	c.rejected += p.rejected.Load()
	c.mu.Unlock()
}

func (c *counts) sum() (scored, rejected int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	scored, rejected = c.scored, c.rejected
	for p := range c.live {
		scored += p.scored.Load()
		rejected += p.rejected.Load()
	}
	return scored, rejected
}

// Progress is how far a run has come, for a progress display.
type Progress struct {
	// Records and Bad count the records this instance scored and rejected in this run
	// (not those of the snapshots it resumed).
	Records, Bad int64
	// Done and Total are, in bounded mode, the offsets this run has passed and the
	// offsets it has to pass, summed over the partitions whose position is known (Total
	// is 0 in continuous mode, or before any position is known).
	Done, Total int64
	// Lag is, in continuous mode, how many messages the partitions this instance reads
	// are behind their high-water marks as of their last fetch; -1 when unknown.
	Lag int64
}

// Progress returns the run's progress. Safe for concurrent use with Consume.
func (e *Engine) Progress() Progress {
	p := Progress{Lag: -1}
	p.Records, p.Bad = e.counts.sum()
	for _, pos := range e.consumer.Positions() {
		if pos.End >= 0 {
			p.Total += max(pos.End-pos.Start, 0)
			p.Done += max(min(pos.Next, pos.End)-pos.Start, 0)
			continue
		}
		if pos.HighWater >= 0 {
			p.Lag = max(p.Lag, 0) + max(pos.HighWater-pos.Next, 0)
		}
	}
	return p
}

// emitter owns the view of every partition's durable state and writes results to sinks.
type emitter struct {
	plan       *pipeline.Plan
	view       *stages.View
	sinks      []pipeline.Sink
	consumer   *kafka.Consumer
	continuous bool
	synced     bool
	gate       *gate.Gate
	logf       func(format string, args ...any)
	// verdict is the gate's verdict on the last total written.
	verdict *gate.Verdict

	mu     sync.Mutex
	ranges map[kafka.TopicPartition]Range // of the snapshots in view
	parts  map[string]bool                // the partitions read, once synced (as stages.View counts them)
}

func (e *emitter) covered() []Range {
	e.mu.Lock()
	out := make([]Range, 0, len(e.ranges))
	for tp, r := range e.ranges {
		if e.parts == nil || e.parts[tp.String()] {
			out = append(out, r)
		}
	}
	e.mu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		if out[i].Topic != out[j].Topic {
			return out[i].Topic < out[j].Topic
		}
		return out[i].Partition < out[j].Partition
	})
	return out
}

// loop applies updates until the consumer closes the channel. In continuous mode it emits
// windows as they complete and the running total every interval. A sink failure cancels the
// run (the loop keeps draining so the consumer can stop).
func (e *emitter) loop(ctx context.Context, cancel context.CancelFunc, updates <-chan kafka.Update, interval time.Duration) error {
	var tick <-chan time.Time
	if e.continuous {
		if interval <= 0 {
			interval = time.Duration(config.DefaultEmitInterval)
		}
		t := time.NewTicker(interval)
		defer t.Stop()
		tick = t.C
	}
	var failed error
	fail := func(err error) {
		if ctx.Err() != nil {
			return // shutting down: the final emission, with its own deadline, follows
		}
		if failed == nil {
			failed = err
			cancel()
		}
	}
	for {
		select {
		case u, ok := <-updates:
			if !ok {
				return failed
			}
			if failed != nil {
				continue
			}
			if err := e.apply(u); err != nil {
				fail(err)
				continue
			}
			if e.continuous && e.synced && ctx.Err() == nil {
				if err := e.emitWindows(ctx); err != nil {
					fail(err)
				}
			}
		case <-tick:
			if failed != nil || !e.synced || ctx.Err() != nil {
				continue
			}
			if err := e.emitTotal(ctx); err != nil {
				fail(err)
			}
		}
	}
}

func (e *emitter) apply(u kafka.Update) error {
	switch u.Env.Kind {
	case kafka.KindSynced:
		e.view.SetPartitions(u.Parts)
		e.synced = true
		e.mu.Lock()
		e.parts = map[string]bool{}
		for _, p := range u.Parts {
			e.parts[p] = true
		}
		e.mu.Unlock()
	case kafka.KindSnapshot:
		if err := e.view.PutSnapshot(u.Part(), u.Payload, u.Env.Done, u.Env.Idle); err != nil {
			return err
		}
		tp := kafka.TopicPartition{Topic: u.Env.Topic, Partition: u.Env.Partition}
		e.mu.Lock()
		if e.ranges == nil {
			e.ranges = map[kafka.TopicPartition]Range{}
		}
		e.ranges[tp] = Range{Topic: tp.Topic, Partition: tp.Partition, Start: u.Env.Start, End: u.Env.Next}
		e.mu.Unlock()
	case kafka.KindWindow:
		e.view.PutFinal(u.Part(), u.Env.Window, u.Payload)
	}
	return nil
}

// emission names what a results object is, in the log lines of a failing gate.
type emission int

const (
	emitWindow emission = iota
	emitRunning
	emitFinal
)

// write evaluates the gate on acc (whose results r are) and writes r to every sink.
func (e *emitter) write(ctx context.Context, acc *pipeline.Accumulator, r *pipeline.Results, what emission) error {
	if e.gate != nil {
		v, err := e.gate.Evaluate(gate.FromRun(acc, r))
		if err != nil {
			return err
		}
		r.Gate = v
		if what != emitWindow {
			e.verdict = v
		}
		// A service's first running total comes before any record: its verdict is in the
		// results, but logging a failure for it would only be noise.
		if !v.Passed && (e.continuous || what != emitFinal) && r.Records > 0 {
			e.logf("gate FAILED on %s: %s", describe(r, what), failures(v))
		}
	}
	for _, s := range e.sinks {
		if err := s.Write(ctx, r); err != nil {
			return err
		}
	}
	return nil
}

// describe names the emission of r for a log line: the window's span, or which total, with
// its record count.
func describe(r *pipeline.Results, what emission) string {
	switch {
	case r.Window != nil:
		return fmt.Sprintf("window [%s, %s) (%d records)", r.Window.Start.Format(time.RFC3339Nano), r.Window.End.Format(time.RFC3339Nano), r.Records)
	case what == emitFinal:
		return fmt.Sprintf("the final total (%d records)", r.Records)
	default:
		return fmt.Sprintf("the running total (%d records)", r.Records)
	}
}

// failures lists the rule results of v that failed, one "metric [slice]: reason" each.
func failures(v *gate.Verdict) string {
	var out []string
	for _, rr := range v.Rules {
		if rr.Passed {
			continue
		}
		name := rr.Metric
		if rr.Slice != nil {
			name += " [" + *rr.Slice + "]"
		}
		out = append(out, name+": "+rr.Reason)
	}
	return strings.Join(out, "; ")
}

func (e *emitter) emitWindows(ctx context.Context) error {
	for _, start := range e.view.Ready() {
		acc, span, err := e.view.WindowTotal(start)
		if err != nil {
			return err
		}
		r := acc.Results()
		r.Window = span
		if err := e.write(ctx, acc, r, emitWindow); err != nil {
			return err
		}
		e.view.MarkEmitted(start)
	}
	return nil
}

func (e *emitter) emitTotal(ctx context.Context) error {
	for _, s := range e.sinks {
		if ls, ok := s.(lagSetter); ok {
			lctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			lag, err := e.consumer.Lag(lctx)
			cancel()
			if err == nil {
				ls.SetLag(lag)
			}
		}
	}
	total, err := e.view.Total()
	if err != nil {
		return err
	}
	return e.write(ctx, total, total.Results(), emitRunning)
}

// final emits the windows that are complete and the total, and returns the total.
func (e *emitter) final(ctx context.Context) (*pipeline.Accumulator, error) {
	if err := e.emitWindows(ctx); err != nil {
		return nil, err
	}
	total, err := e.view.Total()
	if err != nil {
		return nil, err
	}
	return total, e.write(ctx, total, total.Results(), emitFinal)
}

// Report merges the latest snapshot of every partition in the state topic of kc, which
// must hold those of one consumer group.
func Report(ctx context.Context, kc kafka.Config) (*pipeline.Accumulator, error) {
	topic := kc.StateTopic
	if err := kafka.Probe(ctx, kc); err != nil {
		return nil, err
	}
	ups, err := kafka.LoadState(ctx, kc)
	if err != nil {
		return nil, err
	}
	groups := map[string]bool{}
	for _, u := range ups {
		groups[u.Env.Group] = true
	}
	if len(ups) == 0 {
		return nil, fmt.Errorf("state topic %s holds no snapshots", topic)
	}
	if len(groups) > 1 {
		var names []string
		for g := range groups {
			names = append(names, fmt.Sprintf("%q", g))
		}
		sort.Strings(names)
		return nil, fmt.Errorf("state topic %s holds the snapshots of several groups (%s); give each group its own state topic", topic, strings.Join(names, ", "))
	}
	var acc *pipeline.Accumulator
	for _, u := range ups {
		a, err := stages.DecodeTotal(u.Payload)
		if err != nil {
			return nil, fmt.Errorf("snapshot of %s: %w", u.Part(), err)
		}
		if acc == nil {
			acc = a
			continue
		}
		if err := acc.Merge(a); err != nil {
			return nil, fmt.Errorf("snapshot of %s: %w", u.Part(), err)
		}
	}
	return acc, nil
}
