package kafka

import (
	"sync"

	kafkago "github.com/segmentio/kafka-go"
)

// offsetCommitter commits the group offsets of one generation's partitions. A commit that
// comes while another is in flight waits for it and then goes out in one request with every
// other waiting commit, so that partitions checkpointing together (at the end of a bounded
// run, all of them) wait for about two round trips to the coordinator instead of one each in
// turn. It is safe for concurrent use.
type offsetCommitter struct {
	gen *kafkago.Generation

	mu      sync.Mutex
	busy    bool // a caller is sending requests
	pending map[string]map[int]int64
	waiters []chan error
}

// commit sets the group offset of topic/partition to next. It returns once a request that
// holds it was answered, with that request's error.
func (oc *offsetCommitter) commit(topic string, partition int, next int64) error {
	done := make(chan error, 1)
	oc.mu.Lock()
	if oc.pending == nil {
		oc.pending = map[string]map[int]int64{}
	}
	if oc.pending[topic] == nil {
		oc.pending[topic] = map[int]int64{}
	}
	oc.pending[topic][partition] = next
	oc.waiters = append(oc.waiters, done)
	if oc.busy {
		oc.mu.Unlock()
		return <-done
	}
	// This caller sends requests until no commit waits (its own goes in the first one).
	oc.busy = true
	for len(oc.waiters) > 0 {
		offsets, waiters := oc.pending, oc.waiters
		oc.pending, oc.waiters = nil, nil
		oc.mu.Unlock()
		err := oc.gen.CommitOffsets(offsets)
		for _, w := range waiters {
			w <- err
		}
		oc.mu.Lock()
	}
	oc.busy = false
	oc.mu.Unlock()
	return <-done
}
