package kafka

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	kafkago "github.com/segmentio/kafka-go"
	"github.com/stretchr/testify/require"
)

// Concurrent commits of many partitions, in several rounds, all reach the broker, and each
// caller gets its answer.
func TestOffsetCommitter(t *testing.T) {
	env := os.Getenv("EVALSTREAM_KAFKA_BROKERS")
	if env == "" {
		t.Skip("EVALSTREAM_KAFKA_BROKERS is not set")
	}
	addrs := strings.Split(env, ",")
	const partitions = 8
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	suffix := fmt.Sprintf("%d-%04d", time.Now().UnixNano()%1e10, rand.Intn(10000))
	topic, group := "commit-"+suffix, "commit-g-"+suffix
	client := &kafkago.Client{Addr: kafkago.TCP(addrs...), Timeout: 20 * time.Second}
	resp, err := client.CreateTopics(ctx, &kafkago.CreateTopicsRequest{Topics: []kafkago.TopicConfig{{Topic: topic, NumPartitions: partitions, ReplicationFactor: 1}}})
	require.NoError(t, err)
	require.NoError(t, resp.Errors[topic])
	defer client.DeleteTopics(context.Background(), &kafkago.DeleteTopicsRequest{Topics: []string{topic}})

	cg, err := kafkago.NewConsumerGroup(kafkago.ConsumerGroupConfig{
		ID: group, Brokers: addrs, Topics: []string{topic}, Timeout: 10 * time.Second,
	})
	require.NoError(t, err)
	defer cg.Close()
	gen, err := cg.Next(ctx)
	require.NoError(t, err)
	oc := &offsetCommitter{gen: gen}
	all := make([]int, partitions)
	for p := range all {
		all[p] = p
	}
	for round := int64(1); round <= 3; round++ {
		var wg sync.WaitGroup
		errs := make([]error, partitions)
		for p := range partitions {
			wg.Go(func() { errs[p] = oc.commit(topic, p, round*100+int64(p)) })
		}
		wg.Wait()
		for p, err := range errs {
			require.NoError(t, err, "round %d partition %d", round, p)
		}
		got, err := client.OffsetFetch(ctx, &kafkago.OffsetFetchRequest{GroupID: group, Topics: map[string][]int{topic: all}})
		require.NoError(t, err)
		require.Len(t, got.Topics[topic], partitions)
		for _, p := range got.Topics[topic] {
			require.Equal(t, round*100+int64(p.Partition), p.CommittedOffset, "round %d partition %d", round, p.Partition)
		}
	}
	require.False(t, oc.busy)
	require.Empty(t, oc.waiters)
}
