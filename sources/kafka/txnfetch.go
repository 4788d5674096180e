package kafka

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	kafkago "github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/protocol"
	fetchAPI "github.com/segmentio/kafka-go/protocol/fetch"
)

// skipped marks, in Message.WriterData (which no reader uses), a message that the consumer
// must step over without decoding it: a transaction marker, or a record of an aborted
// transaction under read_committed. Handing such messages out, rather than dropping them,
// lets the consumer's position move past them, so that a bounded run reaches an end offset
// that lies after the last marker.
var skipped = new(byte)

// isSkipped reports whether the fetcher flagged m to be stepped over.
func isSkipped(m *kafkago.Message) bool { return m.WriterData == skipped }

// The read_committed fetch. kafka-go's Conn.ReadBatch asks for an isolation level but
// throws the fetch response's aborted-transaction list away and does not tell which
// producer wrote a message, so records of aborted transactions cannot be told from
// committed ones through it. The protocol package does decode both (the list, and each
// batch's producer id and transactional and control flags), so a read_committed fetcher
// sends its fetch requests through a kafka-go Transport and filters as the Java consumer
// does (KIP-98): a batch of a transactional producer whose aborted transaction began at or
// before the batch's last offset is dropped, until that producer's ABORT marker.

// committedFetch is the fetch state of a read_committed fetcher.
type committedFetch struct {
	transport *kafkago.Transport
	client    *kafkago.Client // for offsets, on the same transport
	msgs      []kafkago.Message
	next      int  // index in msgs of the next message to hand out
	loaded    bool // msgs holds a fetch response being read
	arena     []byte
}

func newCommittedFetch(cfg *Config) *committedFetch {
	t := cfg.transport()
	return &committedFetch{transport: t, client: &kafkago.Client{Addr: kafkago.TCP(cfg.Brokers...), Timeout: fetchReadTimeout, Transport: t}}
}

// own copies b into the arena (nil stays nil). The arena is never written again where a
// message points, so the messages handed out stay valid for as long as the caller keeps
// them.
func (cf *committedFetch) own(b []byte) []byte {
	if b == nil {
		return nil
	}
	if cap(cf.arena)-len(cf.arena) < len(b) {
		cf.arena = make([]byte, 0, max(len(b), 1<<20))
	}
	l := len(cf.arena)
	cf.arena = append(cf.arena, b...)
	return cf.arena[l : l+len(b) : l+len(b)]
}

func (cf *committedFetch) ownBytes(b protocol.Bytes) ([]byte, error) {
	if b == nil {
		return nil, nil
	}
	defer b.Close()
	n := b.Len()
	if cap(cf.arena)-len(cf.arena) < n {
		cf.arena = make([]byte, 0, max(n, 1<<20))
	}
	l := len(cf.arena)
	cf.arena = cf.arena[:l+n]
	if _, err := io.ReadFull(b, cf.arena[l:l+n]); err != nil {
		cf.arena = cf.arena[:l]
		return nil, err
	}
	return cf.arena[l : l+n : l+n], nil
}

// fetchCommitted sends a read_committed fetch of the partition from f.offset and loads its
// messages, flagged as skipped where they must not be scored.
func (f *fetcher) fetchCommitted(ctx context.Context, wait time.Duration) error {
	cf := f.cf
	rctx, cancel := context.WithTimeout(ctx, wait+fetchReadTimeout)
	defer cancel()
	resp, err := cf.transport.RoundTrip(rctx, kafkago.TCP(f.cfg.Brokers...), &fetchAPI.Request{
		ReplicaID:      -1,
		MaxWaitTime:    int32(wait / time.Millisecond),
		MinBytes:       1,
		MaxBytes:       int32(f.maxBytes),
		IsolationLevel: int8(kafkago.ReadCommitted),
		SessionID:      -1,
		SessionEpoch:   -1,
		Topics: []fetchAPI.RequestTopic{{
			Topic: f.tp.Topic,
			Partitions: []fetchAPI.RequestPartition{{
				Partition:          int32(f.tp.Partition),
				CurrentLeaderEpoch: -1,
				FetchOffset:        f.offset,
				LogStartOffset:     -1,
				PartitionMaxBytes:  int32(f.maxBytes),
			}},
		}},
	})
	if err != nil {
		return f.fetchError(fmt.Errorf("fetch %s: %w", f.tp, err))
	}
	res := resp.(*fetchAPI.Response)
	if res.ErrorCode != 0 {
		return f.fetchError(kafkago.Error(res.ErrorCode))
	}
	if len(res.Topics) != 1 || len(res.Topics[0].Partitions) != 1 {
		return f.fetchError(fmt.Errorf("fetch %s: the response holds %d topics, not the one partition asked for", f.tp, len(res.Topics)))
	}
	p := &res.Topics[0].Partitions[0]
	if p.ErrorCode != 0 {
		return f.fetchError(kafkago.Error(p.ErrorCode))
	}
	msgs, err := cf.load(f.tp, f.offset, p)
	if err != nil {
		return f.fetchError(fmt.Errorf("fetch %s: %w", f.tp, err))
	}
	cf.msgs, cf.next, cf.loaded = msgs, 0, true
	return nil
}

// load turns the record batches of a fetch response into messages at or after offset.
func (cf *committedFetch) load(tp TopicPartition, offset int64, p *fetchAPI.ResponsePartition) ([]kafkago.Message, error) {
	aborted := slices.Clone(p.AbortedTransactions)
	slices.SortFunc(aborted, func(a, b fetchAPI.ResponseTransaction) int { return cmpInt64(a.FirstOffset, b.FirstOffset) })
	abortedBy := map[int64]bool{} // producers whose current transaction was aborted
	msgs := cf.msgs[:0]
	clear(cf.msgs)
	stream, _ := p.RecordSet.Records.(*protocol.RecordStream)
	if stream == nil {
		return msgs, nil // an empty response
	}
	for _, batch := range stream.Records {
		start := len(msgs)
		var err error
		switch b := batch.(type) {
		case *protocol.ControlBatch:
			msgs, err = cf.appendControl(msgs, tp, offset, p.LastStableOffset, b, abortedBy)
			if err != nil {
				return nil, err
			}
			continue
		case *protocol.RecordBatch:
			msgs, err = cf.appendRecords(msgs, tp, offset, p.LastStableOffset, b)
			if err != nil {
				return nil, err
			}
			if !b.Attributes.Transactional() {
				continue
			}
			// The batch's last offset is its last record's; an empty batch (all of its
			// records compacted away) has no records to drop.
			if len(msgs) == start {
				continue
			}
			last := msgs[len(msgs)-1].Offset
			for len(aborted) > 0 && aborted[0].FirstOffset <= last {
				abortedBy[aborted[0].ProducerID] = true
				aborted = aborted[1:]
			}
			if abortedBy[b.ProducerID] {
				for i := start; i < len(msgs); i++ {
					msgs[i].WriterData = skipped
				}
			}
		default:
			// A message set of the old formats (v0, v1): no transactions.
			if msgs, err = cf.appendRecords(msgs, tp, offset, p.LastStableOffset, batch); err != nil {
				return nil, err
			}
		}
	}
	return msgs, nil
}

// appendRecords appends the records of batch at or after offset as messages.
func (cf *committedFetch) appendRecords(msgs []kafkago.Message, tp TopicPartition, offset, lso int64, batch protocol.RecordReader) ([]kafkago.Message, error) {
	for {
		r, err := batch.ReadRecord()
		if errors.Is(err, io.EOF) {
			return msgs, nil
		}
		if err != nil {
			return nil, err
		}
		if r.Offset < offset {
			closeBytes(r.Key, r.Value)
			continue
		}
		m := kafkago.Message{Topic: tp.Topic, Partition: tp.Partition, Offset: r.Offset, HighWaterMark: lso, Time: r.Time}
		if m.Key, err = cf.ownBytes(r.Key); err == nil {
			m.Value, err = cf.ownBytes(r.Value)
		}
		if err != nil {
			closeBytes(r.Key, r.Value)
			return nil, err
		}
		if len(r.Headers) > 0 {
			m.Headers = make([]kafkago.Header, len(r.Headers))
			for i, h := range r.Headers {
				m.Headers[i] = kafkago.Header{Key: h.Key, Value: cf.own(h.Value)}
			}
		}
		msgs = append(msgs, m)
	}
}

// appendControl appends the markers of a control batch at or after offset as skipped
// messages; an ABORT marker ends its producer's aborted transaction.
func (cf *committedFetch) appendControl(msgs []kafkago.Message, tp TopicPartition, offset, lso int64, b *protocol.ControlBatch, abortedBy map[int64]bool) ([]kafkago.Message, error) {
	for {
		r, err := b.ReadControlRecord()
		if errors.Is(err, io.EOF) {
			return msgs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("control record: %w", err)
		}
		if r.Type == 0 { // ABORT
			delete(abortedBy, b.ProducerID)
		}
		if r.Offset < offset {
			continue
		}
		msgs = append(msgs, kafkago.Message{Topic: tp.Topic, Partition: tp.Partition, Offset: r.Offset, HighWaterMark: lso, Time: r.Time, WriterData: skipped})
	}
}

func closeBytes(bs ...protocol.Bytes) {
	for _, b := range bs {
		if b != nil {
			b.Close()
		}
	}
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// takeCommitted hands out the next loaded message into m; it reports false once the
// loaded fetch is used up.
func (cf *committedFetch) take(m *kafkago.Message) bool {
	if cf.next >= len(cf.msgs) {
		clear(cf.msgs)
		cf.msgs, cf.next, cf.loaded = cf.msgs[:0], 0, false
		return false
	}
	*m = cf.msgs[cf.next]
	cf.next++
	return true
}

// readOffsets returns the partition's first and end offsets (isolation level read
// committed: the end is the last stable offset).
func (cf *committedFetch) readOffsets(ctx context.Context, tp TopicPartition) (first, last int64, err error) {
	a := &admin{client: cf.client, isolation: kafkago.ReadCommitted}
	tps := []TopicPartition{tp}
	firsts, err := a.listOffsets(ctx, tps, false)
	if err != nil {
		return 0, 0, err
	}
	lasts, err := a.listOffsets(ctx, tps, true)
	if err != nil {
		return 0, 0, err
	}
	return firsts[tp], lasts[tp], nil
}

func (cf *committedFetch) close() {
	cf.transport.CloseIdleConnections()
	cf.msgs, cf.loaded = nil, false
}
