package bleu

// gramInfo holds the counts of one hypothesis n-gram.
type gramInfo struct {
	hyp    int32  // occurrences in the hypothesis
	maxRef int32  // largest count in one reference so far
	ref    int32  // count in the current reference (valid when stamp is current)
	stamp  uint32 // the reference that ref belongs to
}

// counter computes clipped n-gram statistics of one hypothesis against its references
// (§1.1). It is scratch space owned by one state (or one SentenceScore call).
type counter struct {
	toks  strTable
	grams u64Table
	info  []gramInfo
	stamp uint32
	ids   []uint32 // token ids of the current hypothesis or reference
}

// startHyp interns the hypothesis tokens (which must stay unchanged until the record is done)
// and counts its n-grams of orders 1..maxN.
func (c *counter) startHyp(toks []string, maxN int) {
	c.toks.reset(toks)
	ids := c.ids[:0]
	for i := range toks {
		ids = append(ids, c.toks.intern(i))
	}
	c.ids = ids
	c.startGrams(len(ids) * maxN)
	c.countHyp(ids, maxN)
}

// startGrams empties the n-gram table for a new record.
func (c *counter) startGrams(want int) {
	c.grams.reset(want)
	c.info = c.info[:0]
	c.stamp = 0
}

// countHyp counts the n-grams of orders 1..maxN of the token ids.
func (c *counter) countHyp(ids []uint32, maxN int) {
	for i := range ids {
		p := uint64(0) // prefix: 0 for the empty n-gram, else id+1
		for n := 1; n <= maxN && i+n <= len(ids); n++ {
			id, isNew := c.grams.intern(p<<32 | uint64(ids[i+n-1]))
			if isNew {
				c.info = append(c.info, gramInfo{})
			}
			c.info[id].hyp++
			p = uint64(id) + 1
		}
	}
}

// refIDs maps reference tokens to hypothesis token ids (noID when absent).
func (c *counter) refIDs(toks []string) []uint32 {
	ids := c.ids[:0]
	for _, t := range toks {
		ids = append(ids, c.toks.lookup(t))
	}
	c.ids = ids
	return ids
}

// addRefMax folds one reference into the multiset union of references: it raises each
// n-gram's max reference count and adds the growth of min(hyp, maxref) to m[n-1], so that
// after the last reference m[n-1] is the clipped match count of order n.
func (c *counter) addRefMax(ids []uint32, maxN int, m []int64) {
	c.stamp++
	for i := range ids {
		p := uint64(0)
		for n := 1; n <= maxN && i+n <= len(ids); n++ {
			t := ids[i+n-1]
			if t == noID {
				break
			}
			id := c.grams.lookup(p<<32 | uint64(t))
			if id == noID {
				break
			}
			g := &c.info[id]
			if g.stamp != c.stamp {
				g.stamp, g.ref = c.stamp, 0
			}
			g.ref++
			if g.ref > g.maxRef {
				g.maxRef = g.ref
				if g.ref <= g.hyp {
					m[n-1]++
				}
			}
			p = uint64(id) + 1
		}
	}
}

// newRef starts counting a reference for refMatch.
func (c *counter) newRef() { c.stamp++ }

// refMatch counts the n-grams of one reference (orders 1..maxN) and adds
// Σ_g min(hyp(g), ref(g)) per order to match[n-1]. Call newRef first; several calls for the
// same reference (characters, then words) may share one stamp when their ids differ.
func (c *counter) refMatch(ids []uint32, maxN int, match []int64) {
	for i := range ids {
		p := uint64(0)
		for n := 1; n <= maxN && i+n <= len(ids); n++ {
			t := ids[i+n-1]
			if t == noID {
				break
			}
			id := c.grams.lookup(p<<32 | uint64(t))
			if id == noID {
				break
			}
			g := &c.info[id]
			if g.stamp != c.stamp {
				g.stamp, g.ref = c.stamp, 0
			}
			g.ref++
			if g.ref <= g.hyp {
				match[n-1]++
			}
			p = uint64(id) + 1
		}
	}
}

// total is the number of n-grams of order n in a sequence of length l.
func total(l, n int) int64 {
	if l < n {
		return 0
	}
	return int64(l - n + 1)
}
