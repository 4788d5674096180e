package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	kafkago "github.com/segmentio/kafka-go"

	"github.com/evalstream/evalstream/config"
	"github.com/evalstream/evalstream/pipeline"
	"github.com/evalstream/evalstream/pipeline/gate"
	"github.com/evalstream/evalstream/sinks"
	"github.com/evalstream/evalstream/sources/kafka"
	"github.com/evalstream/evalstream/stages"
	"github.com/evalstream/evalstream/stream"
)

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

// executeKafka runs a Kafka source with package stream: it wires the topics, the dead
// letters and the sinks, and maps the run's errors to exit codes.
func (j *job) executeKafka(ctx context.Context, stdout, stderr io.Writer, savePath string) error {
	// The progress display (shown from the start of consumption) owns the terminal line:
	// log lines and tables written meanwhile clear it first.
	progress := newProgress(stderr, j.noProgress)
	logw := stderr
	if progress != nil {
		logw = progress
		stdout = progress.around(stdout)
	}
	kc, transport, err := j.kafkaSettings(logw)
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
	var logMu sync.Mutex
	logf := func(format string, args ...any) {
		logMu.Lock()
		defer logMu.Unlock()
		fmt.Fprintf(logw, "evalstream: "+format+"\n", args...)
	}
	eng, err := stream.New(kc, stream.Config{Plan: j.plan, Window: spec, Policy: pol, Dead: dead, Sinks: outs,
		Continuous: continuous, EmitInterval: time.Duration(j.cfg.Source.EmitInterval), Gate: j.gate, Logf: logf})
	if err != nil {
		closeSinks(outs)
		return usageErr("%v", err)
	}
	j.covered = eng.Covered
	stopProgress := progress.run(kafkaCounts(eng))
	err = eng.Consume(ctx)
	stopProgress()
	if err != nil {
		closeSinks(outs)
		if ce := (*gate.ConfigError)(nil); errors.As(err, &ce) {
			return gateErr(err)
		}
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
	total, err := eng.Final(fctx)
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
		return gateErr(err)
	}
	if continuous {
		// A service: its gate's verdicts are in every results object it wrote, and the
		// failing ones were logged; stopping it is its normal end.
		return nil
	}
	// A bounded run ends as a file run does: no record scored is a failure, then the
	// gate's PASS/FAIL lines and exit 3 when it failed.
	if err := noRecordsErr(total); err != nil {
		return err
	}
	j.verdict = eng.Verdict()
	return j.gateOutcome(stdout, stderr)
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

// reportFromKafka merges the latest snapshot of every partition in the state topic of kc,
// which must hold those of one consumer group (stream.Report).
func reportFromKafka(ctx context.Context, kc kafka.Config) (*pipeline.Accumulator, error) {
	acc, err := stream.Report(ctx, kc)
	if err != nil {
		return nil, runtimeErr(err)
	}
	return acc, nil
}
