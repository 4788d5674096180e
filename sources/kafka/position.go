package kafka

import "sort"

// Position is where a run stands in one partition (Consumer.Positions).
type Position struct {
	TopicPartition
	// Start is the offset this run began at in the partition: where it started reading, or
	// the next offset of the partition's snapshot when the run resumed one (what earlier
	// runs folded is not this run's progress).
	Start int64
	// Next is the next offset to fold: live for the partitions this instance reads, else
	// from the latest snapshot another instance of the group wrote. Next >= Start.
	Next int64
	// End is the end offset a bounded run stops at, or -1 in continuous mode.
	End int64
	// HighWater is the partition's high-water mark at this instance's last fetch that
	// returned messages, or -1 when unknown (not read here, or nothing fetched yet).
	HighWater int64
}

// track records that this run reached next in tp (seen is how: at the start of reading,
// by a fold, or by a snapshot), creating the partition's position at start if it has none.
// hw is the high-water mark of the fetch, or -1. It is called with envMu held.
func (c *Consumer) track(tp TopicPartition, start, next, hw int64) {
	if c.pos == nil {
		c.pos = map[TopicPartition]*Position{}
	}
	p, ok := c.pos[tp]
	if !ok {
		// Run sets targets before it starts what calls track.
		end := int64(-1)
		if c.cfg.bounded() {
			end = c.targets[tp]
		}
		p = &Position{TopicPartition: tp, Start: start, Next: start, End: end, HighWater: -1}
		c.pos[tp] = p
	}
	// A partition read again from its snapshot (after a rebalance) moves back; progress
	// does not.
	p.Next = max(p.Next, next)
	if hw >= 0 {
		p.HighWater = hw
	}
}

// advance is track for the partition's owner goroutine.
func (c *Consumer) advance(tp TopicPartition, start, next, hw int64) {
	c.envMu.Lock()
	c.track(tp, start, next, hw)
	c.envMu.Unlock()
}

// Positions returns the position of every partition read that this run has reached, by
// reading it or from a snapshot, by topic and partition; partitions without one yet are
// absent. Safe for concurrent use with Run; the slice belongs to the caller.
func (c *Consumer) Positions() []Position {
	c.envMu.Lock()
	out := make([]Position, 0, len(c.pos))
	for _, p := range c.pos {
		out = append(out, *p)
	}
	c.envMu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		if out[i].Topic != out[j].Topic {
			return out[i].Topic < out[j].Topic
		}
		return out[i].Partition < out[j].Partition
	})
	return out
}
