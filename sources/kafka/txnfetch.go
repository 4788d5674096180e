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

// committedFetch is the fetch state of a read_committed fetcher: the record batches of the
// last fetch response, read one record at a time.
type committedFetch struct {
	transport *kafkago.Transport
	client    *kafkago.Client // for offsets, on the same transport
	loaded    bool            // a fetch response is being read

	tp        TopicPartition
	from      int64 // records before this offset are not handed out
	lso       int64
	batches   []protocol.RecordReader
	batch     int // index in batches of the batch being read
	skipBatch bool
	aborted   []fetchAPI.ResponseTransaction // not yet reached, by first offset
	abortedBy map[int64]bool                 // producers whose current transaction was aborted
	arena     []byte
}

func newCommittedFetch(cfg *Config) *committedFetch {
	t := cfg.transport()
	return &committedFetch{transport: t, client: &kafkago.Client{Addr: kafkago.TCP(cfg.Brokers...), Timeout: fetchReadTimeout, Transport: t}, batch: -1}
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
	cf.load(f.tp, f.offset, p)
	return nil
}

// load starts reading the record batches of a fetch response from offset.
func (cf *committedFetch) load(tp TopicPartition, offset int64, p *fetchAPI.ResponsePartition) {
	cf.tp, cf.from, cf.lso = tp, offset, p.LastStableOffset
	if cf.lso < 0 {
		cf.lso = p.HighWatermark // a broker that does not tell (fetch versions before 4)
	}
	cf.aborted = slices.Clone(p.AbortedTransactions)
	slices.SortFunc(cf.aborted, func(a, b fetchAPI.ResponseTransaction) int { return cmpInt64(a.FirstOffset, b.FirstOffset) })
	if cf.abortedBy == nil {
		cf.abortedBy = map[int64]bool{}
	}
	clear(cf.abortedBy)
	clear(cf.batches)
	cf.batches, cf.batch, cf.skipBatch = cf.batches[:0], -1, false
	if stream, _ := p.RecordSet.Records.(*protocol.RecordStream); stream != nil {
		cf.batches = append(cf.batches, stream.Records...)
	}
	cf.loaded = true
}

// startBatch decides whether the records of batch i are skipped, as the Java consumer does
// (KIP-98): the aborted transactions that began at or before the batch's first offset are
// added to the aborted producers; a transactional batch of an aborted producer is skipped.
// Comparing with the first offset rather than the last (which kafka-go does not decode) is
// the same: a transaction's first offset is the first offset of one of its producer's
// batches, which no other batch spans.
func (cf *committedFetch) startBatch(i int) {
	cf.batch, cf.skipBatch = i, false
	b, ok := cf.batches[i].(*protocol.RecordBatch)
	if !ok || !b.Attributes.Transactional() {
		return
	}
	for len(cf.aborted) > 0 && cf.aborted[0].FirstOffset <= b.BaseOffset {
		cf.abortedBy[cf.aborted[0].ProducerID] = true
		cf.aborted = cf.aborted[1:]
	}
	cf.skipBatch = cf.abortedBy[b.ProducerID]
}

// take reads the next record at or after the fetch offset into m: a record of an aborted
// transaction, or a transaction marker, is flagged skipped. It reports false once the
// response is used up.
func (cf *committedFetch) take(m *kafkago.Message) (bool, error) {
	for {
		if cf.batch < 0 || cf.batch >= len(cf.batches) {
			if cf.batch+1 >= len(cf.batches) {
				cf.release()
				return false, nil
			}
			cf.startBatch(cf.batch + 1)
		}
		var ok bool
		var err error
		if cb, isControl := cf.batches[cf.batch].(*protocol.ControlBatch); isControl {
			ok, err = cf.takeMarker(m, cb)
		} else {
			ok, err = cf.takeRecord(m, cf.batches[cf.batch])
		}
		if err != nil {
			cf.release()
			return false, err
		}
		if ok {
			return true, nil
		}
		if cf.batch+1 >= len(cf.batches) {
			cf.release()
			return false, nil
		}
		cf.startBatch(cf.batch + 1)
	}
}

// takeRecord reads the batch's next record at or after the fetch offset; false at its end.
func (cf *committedFetch) takeRecord(m *kafkago.Message, batch protocol.RecordReader) (bool, error) {
	for {
		r, err := batch.ReadRecord()
		if errors.Is(err, io.EOF) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		if r.Offset < cf.from {
			closeBytes(r.Key, r.Value)
			continue
		}
		*m = kafkago.Message{Topic: cf.tp.Topic, Partition: cf.tp.Partition, Offset: r.Offset, HighWaterMark: cf.lso, Time: r.Time}
		if cf.skipBatch {
			closeBytes(r.Key, r.Value)
			m.WriterData = skipped
			return true, nil
		}
		if m.Key, err = cf.ownBytes(r.Key); err == nil {
			m.Value, err = cf.ownBytes(r.Value)
		}
		if err != nil {
			closeBytes(r.Key, r.Value)
			return false, err
		}
		if len(r.Headers) > 0 {
			m.Headers = make([]kafkago.Header, len(r.Headers))
			for i, h := range r.Headers {
				m.Headers[i] = kafkago.Header{Key: h.Key, Value: cf.own(h.Value)}
			}
		}
		return true, nil
	}
}

// takeMarker reads the control batch's next marker at or after the fetch offset, as a
// skipped message; an ABORT marker ends its producer's aborted transaction.
func (cf *committedFetch) takeMarker(m *kafkago.Message, b *protocol.ControlBatch) (bool, error) {
	for {
		r, err := b.ReadControlRecord()
		if errors.Is(err, io.EOF) {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("%s: control record: %w", cf.tp, err)
		}
		if r.Type == 0 { // ABORT
			delete(cf.abortedBy, b.ProducerID)
		}
		if r.Offset < cf.from {
			continue
		}
		*m = kafkago.Message{Topic: cf.tp.Topic, Partition: cf.tp.Partition, Offset: r.Offset, HighWaterMark: cf.lso, Time: r.Time, WriterData: skipped}
		return true, nil
	}
}

// release drops the response being read.
func (cf *committedFetch) release() {
	clear(cf.batches)
	cf.batches, cf.batch, cf.loaded = cf.batches[:0], -1, false
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
	cf.release()
	cf.transport.CloseIdleConnections()
}
