package kafka

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"sort"
	"sync"
	"time"

	kafkago "github.com/segmentio/kafka-go"
	"golang.org/x/sync/errgroup"
)

// store keeps partition snapshots durable and readable by any instance.
type store interface {
	// put writes updates in order; when it returns nil they are durable.
	put(ctx context.Context, ups []Update) error
	// sync returns once every update made durable before the call is visible to latest.
	sync(ctx context.Context) error
	// latest returns the newest snapshot under key.
	latest(key string) (Update, bool)
}

// memStore keeps snapshots in memory: nothing survives the process.
type memStore struct {
	deliver func(Update)
	mu      sync.Mutex
	m       map[string]Update
}

func newMemStore(deliver func(Update)) *memStore {
	return &memStore{deliver: deliver, m: map[string]Update{}}
}

func (s *memStore) put(_ context.Context, ups []Update) error {
	for _, u := range ups {
		if u.Env.Kind == KindSnapshot {
			s.mu.Lock()
			s.m[snapshotKey(u.Env.Group, TopicPartition{u.Env.Topic, u.Env.Partition})] = u
			s.mu.Unlock()
		}
		s.deliver(u)
	}
	return nil
}

func (s *memStore) sync(context.Context) error { return nil }

func (s *memStore) latest(key string) (Update, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	u, ok := s.m[key]
	return u, ok
}

// kafkaStore keeps snapshots in a compacted topic and tails it, so that every instance
// sees every partition's latest snapshot. put is safe for concurrent use.
type kafkaStore struct {
	cfg     *Config
	adm     *admin
	topic   string
	group   *string // only this group's messages (nil: every group)
	w       *kafkago.Writer
	deliver func(Update)

	parts []int

	mu      sync.Mutex
	m       map[string]Update
	pos     map[int]int64
	changed chan struct{} // closed and replaced whenever pos advances
}

func newKafkaStore(ctx context.Context, cfg *Config, adm *admin, topic string, group *string, deliver func(Update)) (*kafkaStore, error) {
	tps, err := adm.partitions(ctx, []string{topic})
	if err != nil {
		return nil, fmt.Errorf("state topic: %w", err)
	}
	first, err := adm.offsets(ctx, tps, false)
	if err != nil {
		return nil, fmt.Errorf("state topic: %w", err)
	}
	// The state topic is written without transactions: it is read with the batch reader
	// (read_uncommitted), whatever the isolation of the topics scored.
	scfg := *cfg
	scfg.Isolation = ReadUncommitted
	s := &kafkaStore{cfg: &scfg, adm: adm, topic: topic, group: group, deliver: deliver, m: map[string]Update{}, pos: map[int]int64{}, changed: make(chan struct{})}
	for _, tp := range tps {
		s.parts = append(s.parts, tp.Partition)
		s.pos[tp.Partition] = first[tp]
	}
	s.w = &kafkago.Writer{
		Addr:         kafkago.TCP(cfg.Brokers...),
		Topic:        topic,
		Balancer:     routeBalancer{},
		RequiredAcks: kafkago.RequireAll,
		BatchTimeout: 2 * time.Millisecond,
		BatchSize:    1 << 16,
		BatchBytes:   int64(cfg.StateMaxBytes),
		Compression:  kafkago.Zstd,
		MaxAttempts:  5,
		WriteTimeout: 30 * time.Second,
		ReadTimeout:  30 * time.Second,
		Transport:    Transport(cfg.TLS, cfg.SASL),
	}
	return s, nil
}

// routeBalancer sends every message of one Kafka partition's state to the same state-topic
// partition (by the route header), so that they stay in order.
type routeBalancer struct{}

func (routeBalancer) Balance(msg kafkago.Message, partitions ...int) int {
	h := fnv.New32a()
	for _, hd := range msg.Headers {
		if hd.Key == routeHeader {
			h.Write(hd.Value)
		}
	}
	return partitions[int(h.Sum32()%uint32(len(partitions)))]
}

func (s *kafkaStore) put(ctx context.Context, ups []Update) error {
	msgs := make([]kafkago.Message, len(ups))
	for i, u := range ups {
		tp := TopicPartition{u.Env.Topic, u.Env.Partition}
		key := snapshotKey(u.Env.Group, tp)
		route := key
		if u.Env.Kind == KindWindow {
			key = windowKey(u.Env.Group, tp, u.Env.Window)
		}
		msgs[i] = kafkago.Message{Key: []byte(key), Value: encodeEnvelope(u.Env, u.Payload), Headers: []kafkago.Header{{Key: routeHeader, Value: []byte(route)}}}
	}
	if err := s.w.WriteMessages(ctx, msgs...); err != nil {
		return fmt.Errorf("write snapshot to state topic %s: %w", s.topic, err)
	}
	return nil
}

func (s *kafkaStore) latest(key string) (Update, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	u, ok := s.m[key]
	return u, ok
}

func (s *kafkaStore) snapshots() []Update {
	s.mu.Lock()
	defer s.mu.Unlock()
	keys := make([]string, 0, len(s.m))
	for k := range s.m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]Update, len(keys))
	for i, k := range keys {
		out[i] = s.m[k]
	}
	return out
}

func (s *kafkaStore) sync(ctx context.Context) error {
	var tps []TopicPartition
	for _, p := range s.parts {
		tps = append(tps, TopicPartition{s.topic, p})
	}
	end, err := s.adm.offsets(ctx, tps, true)
	if err != nil {
		return fmt.Errorf("state topic: %w", err)
	}
	for {
		s.mu.Lock()
		ok := true
		for _, tp := range tps {
			if s.pos[tp.Partition] < end[tp] {
				ok = false
			}
		}
		ch := s.changed
		s.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-ch:
		}
	}
}

// tail reads the state topic until ctx is done, delivering every message.
func (s *kafkaStore) tail(ctx context.Context) error {
	g, gctx := errgroup.WithContext(ctx)
	for _, p := range s.parts {
		s.mu.Lock()
		start := s.pos[p]
		s.mu.Unlock()
		g.Go(func() error { return s.tailPartition(gctx, p, start) })
	}
	return g.Wait()
}

func (s *kafkaStore) tailPartition(ctx context.Context, p int, start int64) error {
	f := newFetcher(s.cfg, TopicPartition{s.topic, p}, start, s.cfg.StateMaxBytes+1<<20)
	defer f.close()
	var msg kafkago.Message
	for {
		if err := f.next(ctx, time.Now().Add(time.Minute), &msg); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if errors.Is(err, errFetchDeadline) {
				continue
			}
			s.cfg.Logf("state topic %s/%d: %v (retrying)", s.topic, p, err)
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(time.Second):
			}
			continue
		}
		u, err := decodeEnvelope(msg.Value)
		switch {
		case err != nil:
			s.cfg.Logf("state topic %s/%d offset %d: %v (ignored)", s.topic, p, msg.Offset, err)
		case s.group != nil && u.Env.Group != *s.group:
			// another group's state
		default:
			if u.Env.Kind == KindSnapshot {
				s.mu.Lock()
				s.m[snapshotKey(u.Env.Group, TopicPartition{u.Env.Topic, u.Env.Partition})] = u
				s.mu.Unlock()
			}
			if s.deliver != nil {
				s.deliver(u)
			}
		}
		s.mu.Lock()
		s.pos[p] = msg.Offset + 1
		close(s.changed)
		s.changed = make(chan struct{})
		s.mu.Unlock()
	}
}

func (s *kafkaStore) close() error { return s.w.Close() }

// LoadState reads the state topic cfg.StateTopic to its end and returns the latest snapshot
// of every partition of every group it holds, sorted by key (what `report --from-kafka`
// merges). Only cfg's Brokers, TLS, SASL, StateMaxBytes and Logf are used.
func LoadState(ctx context.Context, cfg Config) ([]Update, error) {
	if len(cfg.Brokers) == 0 || cfg.StateTopic == "" {
		return nil, errors.New("load state: brokers and a state topic are required")
	}
	if cfg.StateMaxBytes <= 0 {
		cfg.StateMaxBytes = DefaultStateMaxBytes
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	adm := newAdmin(&cfg)
	s, err := newKafkaStore(ctx, &cfg, adm, cfg.StateTopic, nil, nil)
	if err != nil {
		return nil, err
	}
	defer s.close()
	tctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- s.tail(tctx) }()
	err = s.sync(ctx)
	cancel()
	if terr := <-done; err == nil && terr != nil {
		err = terr
	}
	if err != nil {
		return nil, err
	}
	return s.snapshots(), nil
}
