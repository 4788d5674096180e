package kafka

import (
	"fmt"
	"testing"

	kafkago "github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/protocol"
	fetchAPI "github.com/segmentio/kafka-go/protocol/fetch"
	"github.com/stretchr/testify/require"
)

// TestCommittedFetchSkipsAbortedTransactions feeds the read_committed fetcher a fetch
// response whose transactions of three producers interleave, as the broker returns it: the
// records of aborted transactions and every marker are flagged skipped, the committed and
// non-transactional records are not, also when the fetch starts in the middle of an
// aborted transaction, and a producer's transaction after its aborted one counts again.
func TestCommittedFetchSkipsAbortedTransactions(t *testing.T) {
	recs := func(offsets ...int64) protocol.RecordReader {
		var rs []protocol.Record
		for _, o := range offsets {
			rs = append(rs, protocol.Record{Offset: o, Key: protocol.NewBytes([]byte("k")), Value: protocol.NewBytes(fmt.Appendf(nil, `{"n": %d}`, o))})
		}
		return protocol.NewRecordReader(rs...)
	}
	txn := func(pid int64, offsets ...int64) *protocol.RecordBatch {
		return &protocol.RecordBatch{Attributes: protocol.Transactional, BaseOffset: offsets[0], ProducerID: pid, Records: recs(offsets...)}
	}
	marker := func(pid, offset int64, commit bool) *protocol.ControlBatch {
		typ := int16(0)
		if commit {
			typ = 1
		}
		b := protocol.NewControlBatch(protocol.ControlRecord{Offset: offset, Type: typ, Data: []byte{0, 0, 0, 0, 0, 0}})
		b.Attributes, b.BaseOffset, b.ProducerID = protocol.Transactional|protocol.Control, offset, pid
		return b
	}
	response := func() *fetchAPI.ResponsePartition {
		return &fetchAPI.ResponsePartition{
			HighWatermark: 15, LastStableOffset: 15,
			AbortedTransactions: []fetchAPI.ResponseTransaction{{ProducerID: 3, FirstOffset: 13}, {ProducerID: 2, FirstOffset: 4}},
			RecordSet: protocol.RecordSet{Records: &protocol.RecordStream{Records: []protocol.RecordReader{
				&protocol.RecordBatch{BaseOffset: 0, ProducerID: -1, Records: recs(0, 1)}, // not transactional
				txn(1, 2, 3),         // committed
				txn(2, 4, 5),         // aborted
				txn(1, 6),            // committed
				marker(1, 7, true),   // COMMIT of 1
				txn(2, 8),            // aborted
				marker(2, 9, false),  // ABORT of 2
				txn(2, 10, 11),       // committed: 2's next transaction
				marker(2, 12, true),  // COMMIT of 2
				txn(3, 13),           // aborted
				marker(3, 14, false), // ABORT of 3
			}}},
		}
	}
	for _, tt := range []struct {
		from               int64
		scored, wasSkipped []int64
	}{
		{0, []int64{0, 1, 2, 3, 6, 10, 11}, []int64{4, 5, 7, 8, 9, 12, 13, 14}},
		{5, []int64{6, 10, 11}, []int64{5, 7, 8, 9, 12, 13, 14}},
		{11, []int64{11}, []int64{12, 13, 14}},
	} {
		t.Run(fmt.Sprint("from ", tt.from), func(t *testing.T) {
			cf := &committedFetch{batch: -1}
			tp := TopicPartition{"t", 0}
			cf.load(tp, tt.from, response())
			var scored, wasSkipped []int64
			for {
				var m kafkago.Message
				ok, err := cf.take(&m)
				require.NoError(t, err)
				if !ok {
					break
				}
				require.Equal(t, int64(15), m.HighWaterMark)
				if isSkipped(&m) {
					wasSkipped = append(wasSkipped, m.Offset)
					require.Nil(t, m.Value)
					continue
				}
				scored = append(scored, m.Offset)
				require.Equal(t, fmt.Sprintf(`{"n": %d}`, m.Offset), string(m.Value))
				require.Equal(t, "k", string(m.Key))
			}
			require.Equal(t, tt.scored, scored)
			require.Equal(t, tt.wasSkipped, wasSkipped)
			require.False(t, cf.loaded)
		})
	}
}
