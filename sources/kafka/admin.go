package kafka

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"time"

	kafkago "github.com/segmentio/kafka-go"
)

// admin wraps the protocol client used for metadata, offsets and topic creation. It is
// safe for concurrent use.
type admin struct {
	client    *kafkago.Client
	isolation kafkago.IsolationLevel // of the end offsets
}

func newAdmin(c *Config) *admin {
	return &admin{client: &kafkago.Client{Addr: kafkago.TCP(c.Brokers...), Timeout: 15 * time.Second, Transport: c.transport()}, isolation: c.isolation()}
}

// partitions lists every partition of the topics, sorted.
func (a *admin) partitions(ctx context.Context, topics []string) ([]TopicPartition, error) {
	resp, err := a.client.Metadata(ctx, &kafkago.MetadataRequest{Topics: topics})
	if err != nil {
		return nil, fmt.Errorf("kafka metadata: %w", err)
	}
	var out []TopicPartition
	found := map[string]bool{}
	for _, t := range resp.Topics {
		if t.Error != nil {
			if errors.Is(t.Error, kafkago.UnknownTopicOrPartition) {
				return nil, fmt.Errorf("topic %q does not exist on the cluster at %s (evalstream reads existing topics; it does not create them)", t.Name, a.client.Addr)
			}
			return nil, fmt.Errorf("topic %q: %w", t.Name, t.Error)
		}
		found[t.Name] = true
		for _, p := range t.Partitions {
			out = append(out, TopicPartition{t.Name, p.ID})
		}
	}
	for _, t := range topics {
		if !found[t] {
			return nil, fmt.Errorf("topic %q does not exist on the cluster at %s (evalstream reads existing topics; it does not create them)", t, a.client.Addr)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Topic != out[j].Topic {
			return out[i].Topic < out[j].Topic
		}
		return out[i].Partition < out[j].Partition
	})
	return out, nil
}

// offsets returns the first (earliest) or the end (latest) offset of every partition. A
// transient error of the broker (a partition of a topic just created has no leader yet, a
// leader moved) is retried for a few seconds.
func (a *admin) offsets(ctx context.Context, tps []TopicPartition, latest bool) (map[TopicPartition]int64, error) {
	for attempt := 0; ; attempt++ {
		out, err := a.listOffsets(ctx, tps, latest)
		var kerr kafkago.Error
		if err == nil || attempt >= 30 || !errors.As(err, &kerr) || !kerr.Temporary() {
			return out, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (a *admin) listOffsets(ctx context.Context, tps []TopicPartition, latest bool) (map[TopicPartition]int64, error) {
	// Under read_committed the end offset is the last stable offset: a bounded run stops
	// before a transaction still open at start.
	req := &kafkago.ListOffsetsRequest{Topics: map[string][]kafkago.OffsetRequest{}, IsolationLevel: a.isolation}
	for _, tp := range tps {
		r := kafkago.FirstOffsetOf(tp.Partition)
		if latest {
			r = kafkago.LastOffsetOf(tp.Partition)
		}
		req.Topics[tp.Topic] = append(req.Topics[tp.Topic], r)
	}
	resp, err := a.client.ListOffsets(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("kafka list offsets: %w", err)
	}
	out := make(map[TopicPartition]int64, len(tps))
	for topic, ps := range resp.Topics {
		for _, p := range ps {
			if p.Error != nil {
				return nil, fmt.Errorf("list offsets of %s/%d: %w", topic, p.Partition, p.Error)
			}
			// kafka-go files the answer under the timestamp the broker echoes, which is -1
			// (LastOffset) for both queries on recent brokers: take whichever was filled.
			off := p.LastOffset
			if !latest && off < 0 {
				off = p.FirstOffset
			}
			out[TopicPartition{topic, p.Partition}] = off
		}
	}
	for _, tp := range tps {
		if _, ok := out[tp]; !ok {
			return nil, fmt.Errorf("list offsets: no answer for %s", tp)
		}
	}
	return out, nil
}

// EnsureTopic creates topic unless it exists: one partition, replicated up to 3 times,
// compacted when compact is set (for keyed results). Only cfg's Brokers, TLS and SASL are
// used.
func EnsureTopic(ctx context.Context, cfg Config, topic string, compact bool) error {
	a := newAdmin(&cfg)
	if !compact {
		return a.ensureTopic(ctx, topic, nil)
	}
	return a.ensureTopic(ctx, topic, []kafkago.ConfigEntry{{ConfigName: "cleanup.policy", ConfigValue: "compact"}})
}

// ensureCompactedTopic creates the state topic (compacted, one partition) unless it
// exists.
// EnsureStateTopic creates cfg's state topic (compacted, for snapshots of up to
// cfg.StateMaxBytes) unless it exists. Run does this itself; a deployment or a benchmark
// may do it beforehand.
func EnsureStateTopic(ctx context.Context, cfg Config) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	if cfg.StateTopic == "" {
		return errors.New("kafka: no state topic configured")
	}
	return newAdmin(&cfg).ensureCompactedTopic(ctx, cfg.StateTopic, cfg.StateMaxBytes)
}

func (a *admin) ensureCompactedTopic(ctx context.Context, topic string, maxMessageBytes int) error {
	return a.ensureTopic(ctx, topic, []kafkago.ConfigEntry{
		{ConfigName: "cleanup.policy", ConfigValue: "compact"},
		{ConfigName: "max.message.bytes", ConfigValue: strconv.Itoa(maxMessageBytes)},
		{ConfigName: "segment.ms", ConfigValue: "3600000"},
		{ConfigName: "min.cleanable.dirty.ratio", ConfigValue: "0.1"},
	})
}

func (a *admin) ensureTopic(ctx context.Context, topic string, configs []kafkago.ConfigEntry) error {
	meta, err := a.client.Metadata(ctx, &kafkago.MetadataRequest{Topics: []string{topic}})
	if err != nil {
		return fmt.Errorf("kafka metadata: %w", err)
	}
	for _, t := range meta.Topics {
		if t.Name == topic && t.Error == nil && len(t.Partitions) > 0 {
			return nil
		}
	}
	rf := len(meta.Brokers)
	if rf > 3 {
		rf = 3
	}
	if rf < 1 {
		rf = 1
	}
	resp, err := a.client.CreateTopics(ctx, &kafkago.CreateTopicsRequest{Topics: []kafkago.TopicConfig{{
		Topic: topic, NumPartitions: 1, ReplicationFactor: rf, ConfigEntries: configs,
	}}})
	if err != nil {
		return fmt.Errorf("create topic %q: %w", topic, err)
	}
	if err := resp.Errors[topic]; err != nil && !errors.Is(err, kafkago.TopicAlreadyExists) {
		return fmt.Errorf("create topic %q: %w", topic, err)
	}
	// Wait until the new topic's leader is known, so that the first write succeeds.
	for i := 0; i < 100; i++ {
		m, err := a.client.Metadata(ctx, &kafkago.MetadataRequest{Topics: []string{topic}})
		if err == nil && len(m.Topics) == 1 && m.Topics[0].Error == nil && len(m.Topics[0].Partitions) > 0 && m.Topics[0].Partitions[0].Leader.ID >= 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return nil
}

// TopicMaxMessageBytes returns the largest record batch topic accepts: its max.message.bytes
// (the topic's own, else the broker's message.max.bytes). Only cfg's Brokers, TLS and SASL
// are used.
func TopicMaxMessageBytes(ctx context.Context, cfg Config, topic string) (int, error) {
	a := newAdmin(&cfg)
	resp, err := a.client.DescribeConfigs(ctx, &kafkago.DescribeConfigsRequest{Resources: []kafkago.DescribeConfigRequestResource{{
		ResourceType: kafkago.ResourceTypeTopic, ResourceName: topic, ConfigNames: []string{"max.message.bytes"},
	}}})
	if err != nil {
		return 0, fmt.Errorf("describe topic %s: %w", topic, err)
	}
	for _, r := range resp.Resources {
		if r.Error != nil {
			return 0, fmt.Errorf("describe topic %s: %w", topic, r.Error)
		}
		for _, e := range r.ConfigEntries {
			if e.ConfigName == "max.message.bytes" {
				n, err := strconv.Atoi(e.ConfigValue)
				if err != nil || n <= 0 {
					return 0, fmt.Errorf("topic %s: max.message.bytes is %q", topic, e.ConfigValue)
				}
				return n, nil
			}
		}
	}
	return 0, fmt.Errorf("describe topic %s: no max.message.bytes in the answer", topic)
}
