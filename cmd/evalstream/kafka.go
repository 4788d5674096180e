package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	kafkago "github.com/segmentio/kafka-go"

	"github.com/evalstream/evalstream/config"
	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/pipeline"
	"github.com/evalstream/evalstream/sinks"
	"github.com/evalstream/evalstream/sources/kafka"
	"github.com/evalstream/evalstream/stages"
)

// lagSetter is implemented by sinks that report consumer lag (prometheus).
type lagSetter interface{ SetLag(map[string]int64) }

// kafkaSettings turns the source config into the consumer config.
func (j *job) kafkaSettings(stderr io.Writer) (kafka.Config, *kafkago.Transport, error) {
	s := j.cfg.Source
	kc := kafka.Config{
		Brokers:        s.Brokers,
		Topics:         s.Topics,
		Group:          s.Group,
		Format:         s.Format,
		Start:          s.Start,
		Mode:           s.Mode,
		StateTopic:     j.cfg.State.Topic,
		MaxRecordBytes: s.MaxRecordBytes,
		Fields:         j.plan.Fields,
		Isolation:      s.Isolation,
		ConnectTimeout: time.Duration(s.ConnectTimeout),
	}
	if s.Topic != "" {
		kc.Topics = []string{s.Topic}
	}
	kc.CheckpointInterval = min(time.Duration(s.EmitInterval), kafka.DefaultCheckpointInterval)
	if v := os.Getenv("EVALSTREAM_KAFKA_SESSION_TIMEOUT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			return kc, nil, usageErr("EVALSTREAM_KAFKA_SESSION_TIMEOUT: %v", err)
		}
		kc.SessionTimeout = d
	}
	var mu sync.Mutex
	kc.Logf = func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(stderr, "evalstream: kafka: "+format+"\n", args...)
	}
	if err := kafkaSecurity(&kc, s); err != nil {
		return kc, nil, err
	}
	return kc, kafka.Transport(kc.TLS, kc.SASL), nil
}

// kafkaSecurity sets the TLS and SASL settings of the source config s on kc.
func kafkaSecurity(kc *kafka.Config, s config.Source) error {
	if t := s.TLS; t != nil {
		tc, err := kafka.TLSConfig(t.CAFile, t.CertFile, t.KeyFile, t.InsecureSkipVerify)
		if err != nil {
			return usageErr("source.tls: %v", err)
		}
		kc.TLS = tc
	}
	if a := s.SASL; a != nil {
		m, err := kafka.SASLMechanism(a.Mechanism, a.Username, a.Password)
		if err != nil {
			return usageErr("source.sasl: %v", err)
		}
		kc.SASL = m
	}
	return nil
}

// windowSpec builds the window spec of the config (nil without windows).
func (j *job) windowSpec() (*stages.Spec, error) {
	w := j.cfg.Window
	if w == nil {
		return nil, nil
	}
	field := -1
	if w.Time == "event" {
		field = j.plan.FieldIndex(w.Field)
	}
	spec, err := stages.NewSpec(time.Duration(w.Size), time.Duration(w.AllowedLateness), field, w.Field)
	if err != nil {
		return nil, usageErr("window: %v", err)
	}
	return spec, nil
}

// runName identifies the run in Kafka sink keys: the group, else the topics.
func (j *job) runName() string {
	if j.cfg.Source.Group != "" {
		return j.cfg.Source.Group
	}
	if j.cfg.Source.Topic != "" {
		return j.cfg.Source.Topic
	}
	return strings.Join(j.cfg.Source.Topics, ",")
}

// executeKafka runs a Kafka source: per-partition processors snapshotted to the state
// topic, and an emitter that merges every partition's durable state into results.
func (j *job) executeKafka(ctx context.Context, stdout, stderr io.Writer, savePath string) error {
	kc, transport, err := j.kafkaSettings(stderr)
	if err != nil {
		return err
	}
	spec, err := j.windowSpec()
	if err != nil {
		return err
	}
	if j.examplesPath() != "" {
		return usageErr("the examples sink is not available with a kafka source")
	}
	continuous := j.cfg.Source.Mode == "continuous"
	// A broker that is down, or a peer that is not one, is reported before any topic is
	// created or looked up, within connect_timeout.
	if err := kafka.Probe(ctx, kc); err != nil {
		if ctx.Err() != nil {
			return runtimeErr(errors.New(interruptedMessage(j.cfg.State.Topic)))
		}
		return runtimeErr(err)
	}

	ensure := func(topic string, compact bool, brokers []string) error {
		ectx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		c := kc
		c.Brokers = brokers
		if err := kafka.EnsureTopic(ectx, c, topic, compact); err != nil {
			return runtimeErr(err)
		}
		return nil
	}
	var dead kafka.DeadLetterWriter
	if j.cfg.Pipeline.OnError == "dead_letter" {
		dl := j.cfg.Pipeline.DeadLetter
		if dl.Topic != "" {
			if err := ensure(dl.Topic, false, kc.Brokers); err != nil {
				return err
			}
			w := sinks.NewKafkaDeadLetters(kc.Brokers, dl.Topic, transport)
			defer w.Close()
			dctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			limit, err := kafka.TopicMaxMessageBytes(dctx, kc, dl.Topic)
			cancel()
			if err != nil {
				fmt.Fprintf(stderr, "evalstream: kafka: %v; dead letters are kept under the default max.message.bytes (%d)\n", err, sinks.DefaultMaxMessageBytes)
			} else {
				w.SetMaxMessageBytes(limit)
			}
			dead = func(ctx context.Context, d []pipeline.DeadLetter) error {
				err := w.Write(ctx, d)
				if de := (*sinks.DeadLetterError)(nil); errors.As(err, &de) && de.Permanent {
					return kafka.Permanent(err)
				}
				return err
			}
		} else {
			// A dead-letter file that cannot be written stops the run: retrying the
			// checkpoint would not make the file writable.
			log := sinks.NewDeadLetterLog(dl.Path)
			dead = func(ctx context.Context, d []pipeline.DeadLetter) error { return kafka.Permanent(log.Write(ctx, d)) }
		}
	}
	outs := j.sinks(stdout)
	for _, s := range j.cfg.Sinks {
		switch s.Type {
		case "kafka":
			brokers := s.Brokers
			if len(brokers) == 0 {
				brokers = kc.Brokers
			}
			if err := ensure(s.Topic, true, brokers); err != nil {
				closeSinks(outs)
				return err
			}
			outs = append(outs, sinks.NewKafka(brokers, s.Topic, j.runName(), transport))
		case "prometheus":
			p, err := sinks.NewPrometheus(s.Addr, s.WebConfig, stderr)
			if err != nil {
				closeSinks(outs)
				return runtimeErr(err)
			}
			fmt.Fprintf(stderr, "evalstream: prometheus metrics on %s\n", p.URL())
			outs = append(outs, p)
		}
	}

	pol := j.policy()
	var bad atomic.Int64
	newProc := func(tp kafka.TopicPartition, state []byte) (kafka.Processor, error) {
		p := &partProc{folder: pipeline.NewFolder(j.plan), tr: stages.NewTracker(j.plan, spec), pol: pol, bad: &bad, wantDead: dead != nil,
			windowless: spec == nil, columnar: spec == nil && j.plan.Columnar()}
		if state != nil {
			if err := p.tr.Restore(state); err != nil {
				return nil, err
			}
		}
		p.counted = p.tr.Total.Skipped
		bad.Add(p.counted)
		return p, nil
	}
	consumer, err := kafka.New(kc, newProc, dead)
	if err != nil {
		closeSinks(outs)
		return usageErr("%v", err)
	}

	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	updates := make(chan kafka.Update, 64)
	runErr := make(chan error, 1)
	go func() { runErr <- consumer.Run(rctx, updates) }()

	em := &emitter{plan: j.plan, view: stages.NewView(j.plan, spec), sinks: outs, consumer: consumer, stderr: stderr, continuous: continuous}
	emitErr := em.loop(rctx, cancel, updates, time.Duration(j.cfg.Source.EmitInterval))
	err = <-runErr
	if err == nil {
		err = emitErr
	}
	if err != nil {
		closeSinks(outs)
		var bre *pipeline.BadRecordError
		if errors.As(err, &bre) {
			return runtimeErr(err)
		}
		if !continuous && ctx.Err() != nil {
			return runtimeErr(errors.New(interruptedMessage(j.cfg.State.Topic)))
		}
		return runtimeErr(err)
	}
	// Final emission, with a fresh deadline: ctx may be cancelled (SIGTERM).
	fctx, fcancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer fcancel()
	total, err := em.final(fctx)
	if err == nil {
		if p := pol; p.IsFraction && total.Skipped > 0 {
			share := float64(total.Skipped) / float64(total.Records+total.Skipped)
			if share > p.MaxBadFraction {
				err = fmt.Errorf("%w: %d of %d records (%.4g) are bad, max_bad is %g", pipeline.ErrTooManyBad, total.Skipped, total.Records+total.Skipped, share, p.MaxBadFraction)
			}
		}
	}
	if err == nil && savePath != "" {
		var b []byte
		if b, err = pipeline.EncodeState(total); err == nil {
			err = sinks.WriteFileAtomic(savePath, b)
		}
	}
	if cerr := closeSinks(outs); err == nil {
		err = cerr
	}
	if err != nil {
		return runtimeErr(err)
	}
	return nil
}

// interruptedMessage says what became of a bounded run stopped by a signal, true to the
// configuration: only a state topic keeps the progress for the next run.
func interruptedMessage(stateTopic string) string {
	if stateTopic == "" {
		return "interrupted before the end offsets: no results were written, and without a state topic (state.topic) the progress is not kept, so the next run starts over"
	}
	return fmt.Sprintf("interrupted before the end offsets: no results were written; the progress is in the state topic %s (run the same configuration again to resume)", stateTopic)
}

func closeSinks(outs []pipeline.Sink) error {
	var first error
	for _, s := range outs {
		if err := s.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

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
}

// ValuesOnly reports whether nothing but the messages' records is used: no windows, which
// may take the message time (kafka.ValueProcessor).
func (p *partProc) ValuesOnly() bool { return p.windowless }

// Columnar reports whether ProcessColumns may succeed (kafka.ColumnProcessor).
func (p *partProc) Columnar() bool { return p.columnar }

// ProcessColumns folds a run of integer records into the total when every metric accepts
// all of them; else it reports false and the consumer calls Process for each.
func (p *partProc) ProcessColumns(c *pipeline.Columns) bool {
	return p.columnar && p.folder.FoldColumns(p.tr.Total, c)
}

func (p *partProc) Process(recs []pipeline.Record, m *kafkago.Message) error {
	for i := range recs {
		rec := &recs[i]
		rej := p.tr.Fold(p.folder, rec, m.Time.UnixNano())
		if rej == nil {
			continue
		}
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

func (p *partProc) Close() { p.bad.Add(-p.counted) }

// emitter owns the view of every partition's durable state and writes results to sinks.
type emitter struct {
	plan       *pipeline.Plan
	view       *stages.View
	sinks      []pipeline.Sink
	consumer   *kafka.Consumer
	stderr     io.Writer
	continuous bool
	synced     bool
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
	case kafka.KindSnapshot:
		return e.view.PutSnapshot(u.Part(), u.Payload, u.Env.Done, u.Env.Idle)
	case kafka.KindWindow:
		e.view.PutFinal(u.Part(), u.Env.Window, u.Payload)
	}
	return nil
}

func (e *emitter) write(ctx context.Context, r *pipeline.Results) error {
	for _, s := range e.sinks {
		if err := s.Write(ctx, r); err != nil {
			return err
		}
	}
	return nil
}

func (e *emitter) emitWindows(ctx context.Context) error {
	for _, start := range e.view.Ready() {
		r, err := e.view.Window(start)
		if err != nil {
			return err
		}
		if err := e.write(ctx, r); err != nil {
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
	return e.write(ctx, total.Results())
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
	return total, e.write(ctx, total.Results())
}

// reportFromKafka merges the latest snapshot of every partition in the state topic of kc,
// which must hold those of one consumer group.
func reportFromKafka(ctx context.Context, kc kafka.Config) (*pipeline.Accumulator, error) {
	topic := kc.StateTopic
	if err := kafka.Probe(ctx, kc); err != nil {
		return nil, runtimeErr(err)
	}
	ups, err := kafka.LoadState(ctx, kc)
	if err != nil {
		return nil, runtimeErr(err)
	}
	groups := map[string]bool{}
	for _, u := range ups {
		groups[u.Env.Group] = true
	}
	if len(ups) == 0 {
		return nil, runtimeErr(fmt.Errorf("state topic %s holds no snapshots", topic))
	}
	if len(groups) > 1 {
		var names []string
		for g := range groups {
			names = append(names, fmt.Sprintf("%q", g))
		}
		sort.Strings(names)
		return nil, runtimeErr(fmt.Errorf("state topic %s holds the snapshots of several groups (%s); give each group its own state topic", topic, strings.Join(names, ", ")))
	}
	var acc *pipeline.Accumulator
	for _, u := range ups {
		a, err := stages.DecodeTotal(u.Payload)
		if err != nil {
			return nil, runtimeErr(fmt.Errorf("snapshot of %s: %w", u.Part(), err))
		}
		if acc == nil {
			acc = a
			continue
		}
		if err := acc.Merge(a); err != nil {
			return nil, runtimeErr(fmt.Errorf("snapshot of %s: %w", u.Part(), err))
		}
	}
	return acc, nil
}
