package rouge

import (
	"bytes"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"
)

// lcsTable is the textbook DP, the oracle of the bit-parallel LCS tests: the full O(|r|·|c|) LCS table of rouge-score's `_lcs_table(ref, can)`, kept to
// read one LCS back (rougeLsum). Its buffer is reused.
type lcsTable struct {
	t    []int32
	cols int
}

func (lt *lcsTable) at(i, j int) int32 { return lt.t[i*lt.cols+j] }

// fill computes the table of r (rows) against c (columns).
func (lt *lcsTable) fill(r, c []int32) {
	rows, cols := len(r)+1, len(c)+1
	lt.cols = cols
	need := rows * cols
	if cap(lt.t) < need {
		lt.t = make([]int32, need)
	}
	lt.t = lt.t[:need]
	t := lt.t
	for j := 0; j < cols; j++ {
		t[j] = 0
	}
	for i := 1; i < rows; i++ {
		row, prev := t[i*cols:(i+1)*cols], t[(i-1)*cols:i*cols]
		row[0] = 0
		ri := r[i-1]
		for j := 1; j < cols; j++ {
			switch {
			case ri == c[j-1]:
				row[j] = prev[j-1] + 1
			case prev[j] >= row[j-1]:
				row[j] = prev[j]
			default:
				row[j] = row[j-1]
			}
		}
	}
}

// backtrack appends to dst the indices into r of the LCS that rouge-score's
// `_backtrack_norec` reads out: from the bottom-right cell, take the diagonal on equal
// tokens, else move left when T[i][j-1] > T[i-1][j], else up. Indices come out descending.
func (lt *lcsTable) backtrack(dst []int32, r, c []int32) []int32 {
	i, j := len(r), len(c)
	for i > 0 && j > 0 {
		switch {
		case r[i-1] == c[j-1]:
			dst = append(dst, int32(i-1))
			i--
			j--
		case lt.at(i, j-1) > lt.at(i-1, j):
			j--
		default:
			i--
		}
	}
	return dst
}

// lsumOracle returns the indices rouge-score's rougeLsum reads from the textbook table.
func lsumOracle(r, c []int32) []int32 {
	var tab lcsTable
	tab.fill(r, c)
	return tab.backtrack(nil, r, c)
}

// checkLsumLCS requires the union of the LCS indices of every reference sentence in rs
// against the prediction sentences cs (symbols < k) to be the textbook table's: with each
// sentence loaded alone (its own indices) and with all of them loaded, one reference
// sentence at a time (union) and two (union2); with masks of a row per symbol of rs (full)
// and with k rows and a zero one (a vocabulary of rs past 2k+64).
func checkLsumLCS(t *testing.T, l *lsumLCS, k int, cs, rs [][]int32) {
	t.Helper()
	distinct := k
	for _, r := range rs {
		for _, s := range r {
			distinct = max(distinct, int(s)+1)
		}
	}
	for _, d := range []int{distinct, 2*k + 65} {
		checkLsumLayout(t, l, k, d, cs, rs)
		require.Equal(t, d <= 2*k+64, l.full)
	}
}

// checkLsumLayout is checkLsumLCS with the masks for symbols of rs below distinct.
func checkLsumLayout(t *testing.T, l *lsumLCS, k, distinct int, cs, rs [][]int32) {
	t.Helper()
	check := func(cs [][]int32) {
		t.Helper()
		l.reset(k, distinct)
		for _, c := range cs {
			l.addSentence(c)
		}
		wants := make([][]uint64, len(rs))
		for i, r := range rs {
			want := make([]uint64, (len(r)+63)>>6)
			for _, c := range cs {
				for _, x := range lsumOracle(r, c) {
					want[x>>6] |= 1 << (uint(x) & 63)
				}
			}
			got := make([]uint64, len(want))
			l.union(got, r, func(p int) []int32 { return cs[p] })
			require.Equal(t, want, got, "r=%v cs=%v", r, cs)
			wants[i] = want
		}
		// union2 on every pair of sentences of 1 to 64 tokens (each with itself too).
		for i, r1 := range rs {
			for j, r2 := range rs {
				if len(r1) == 0 || len(r1) > 64 || len(r2) == 0 || len(r2) > 64 {
					continue
				}
				m1, m2 := l.union2(r1, r2, func(p int) []int32 { return cs[p] })
				require.Equal(t, wants[i], []uint64{m1}, "r1=%v r2=%v cs=%v", r1, r2, cs)
				require.Equal(t, wants[j], []uint64{m2}, "r1=%v r2=%v cs=%v", r1, r2, cs)
			}
		}
	}
	for _, c := range cs {
		check([][]int32{c})
	}
	check(cs)
}

// randSeq returns n symbols below k; a small k repeats symbols a lot (many tied LCSs, where
// only the exact backtracking rule picks rouge-score's).
func randSeq(rng *rand.Rand, n, k int) []int32 {
	s := make([]int32, n)
	for i := range s {
		s[i] = int32(rng.Intn(k))
	}
	return s
}

// TestLsumLCS compares the bit-parallel rougeLsum indices with the textbook table's on random
// sentences of every length class (empty, one word, exact multiples of 64, several words),
// with reference symbols that never occur in the prediction, and with a reused lsumLCS.
func TestLsumLCS(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	var l lsumLCS
	lengths := []int{0, 1, 2, 5, 63, 64, 65, 127, 128, 129, 200}
	for trial := 0; trial < 2000; trial++ {
		k := 1 + rng.Intn(6)
		if trial%3 == 0 {
			k = 1 + rng.Intn(60)
		}
		pick := func() int {
			if rng.Intn(3) == 0 {
				return lengths[rng.Intn(len(lengths))]
			}
			return rng.Intn(90)
		}
		cs := make([][]int32, 1+rng.Intn(4))
		for i := range cs {
			cs[i] = randSeq(rng, pick(), k)
		}
		rs := make([][]int32, 1+rng.Intn(3))
		for i := range rs {
			rs[i] = randSeq(rng, pick(), k+2) // k and k+1 never occur in a prediction
		}
		checkLsumLCS(t, &l, k+2, cs, rs)
		if trial%5 == 0 {
			// Symbols >= the loaded k match nothing.
			checkLsumLCS(t, &l, k, cs, rs)
		}
	}
	// Long sentences (many words per row).
	for trial := 0; trial < 20; trial++ {
		k := 1 + rng.Intn(30)
		cs := [][]int32{randSeq(rng, 300+rng.Intn(700), k)}
		rs := [][]int32{randSeq(rng, 300+rng.Intn(700), k)}
		checkLsumLCS(t, &l, k, cs, rs)
	}
}

// FuzzLsumLCS: for any two symbol strings (bytes mod 8 are symbols; the byte 0xff splits the
// prediction into sentences), the bit-parallel rougeLsum indices and the LCS length of
// bitLCS are the textbook table's.
func FuzzLsumLCS(f *testing.F) {
	f.Add([]byte{0, 1, 2, 0xff, 1, 2}, []byte{1, 2, 3})
	f.Add(bytes.Repeat([]byte{1, 0, 1}, 50), bytes.Repeat([]byte{0, 1}, 70))
	f.Fuzz(func(t *testing.T, pred, ref []byte) {
		var cs [][]int32
		cur := []int32{}
		for _, b := range pred {
			if b == 0xff {
				cs = append(cs, cur)
				cur = []int32{}
				continue
			}
			cur = append(cur, int32(b%8))
		}
		cs = append(cs, cur)
		r := make([]int32, len(ref))
		for i, b := range ref {
			r[i] = int32(b % 8)
		}
		var l lsumLCS
		checkLsumLCS(t, &l, 8, cs, [][]int32{r})
		var b bitLCS
		b.load(cs[0], 8, 8)
		var tab lcsTable
		tab.fill(cs[0], r)
		require.Equal(t, int(tab.at(len(cs[0]), len(r))), b.length(r))
	})
}

// TestOverlapsMatchesCounts: the n-gram overlaps of overlaps are those of counting n-grams
// in maps, for n = 1 and 2, on random examples of few and of many distinct candidate tokens,
// with reference tokens absent from the candidate, short and empty sequences and several
// references, reusing one scratch.
func TestOverlapsMatchesCounts(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	var sc scratch
	for trial := 0; trial < 1000; trial++ {
		sc.reset()
		n := 1 + trial%2
		k := 1 + rng.Intn(maxPairTokens)
		if trial%5 == 0 {
			k = 1 + rng.Intn(2*maxPairTokens) // n = 1 has no bound
		}
		if trial%7 == 0 {
			k = 1 + rng.Intn(4)
		}
		// The candidate first, then references with tokens of up to k+10 ids: dense ids as
		// load makes them (the candidate's are 0..kc-1).
		dense := map[int32]int32{}
		var seqs [][]int32
		for i, nseq := 0, 2+rng.Intn(4); i < nseq; i++ {
			s := randSeq(rng, rng.Intn(3*k/2+3), k+10*min(i, 1))
			for x, tok := range s {
				if _, ok := dense[tok]; !ok {
					dense[tok] = int32(len(dense))
				}
				s[x] = dense[tok]
			}
			if i == 0 {
				sc.kc = len(dense)
			}
			sc.seq = append(sc.seq, s...)
			sc.ends = append(sc.ends, len(sc.seq))
			seqs = append(seqs, s)
		}
		sc.distinct = len(dense)
		if n == 2 && sc.kc > maxPairTokens {
			continue // the id path's
		}
		counts := func(s []int32) map[[2]int32]int64 {
			c := map[[2]int32]int64{}
			for i := 0; i+n <= len(s); i++ {
				var g [2]int32
				copy(g[:], s[i:i+n])
				c[g]++
			}
			return c
		}
		cc := counts(seqs[0])
		var want []triple
		for _, r := range seqs[1:] {
			tr := triple{cand: int64(max(len(seqs[0])-n+1, 0)), ref: int64(max(len(r)-n+1, 0))}
			for g, x := range counts(r) {
				tr.match += min(x, cc[g])
			}
			want = append(want, tr)
		}
		sc.triples = sc.triples[:0]
		sc.overlaps(n)
		require.Equal(t, want, sc.triples, "n=%d seqs=%v", n, seqs)
	}
}
