package regress

import (
	"cmp"
	"math"
	"math/rand"
	"slices"
	"testing"
	"unsafe"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/stretchr/testify/require"
)

// stableOrder sorts keys that differ only in their top digit (bits 55..63), only in their
// lowest bit, in one middle digit after others were permuted, and all-equal keys, like a
// stable comparison sort of the indices.
func TestStableOrderEdgeKeys(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	gen := map[string]func(i int) uint64{
		"top digit only":  func(int) uint64 { return uint64(r.Intn(512)) << 55 },
		"top bit only":    func(int) uint64 { return uint64(r.Intn(2)) << 63 },
		"low bit only":    func(int) uint64 { return uint64(r.Intn(2)) },
		"all equal":       func(int) uint64 { return 0xdeadbeefcafef00d },
		"top and low":     func(int) uint64 { return uint64(r.Intn(4))<<62 | uint64(r.Intn(3)) },
		"digit boundary":  func(int) uint64 { return uint64(r.Intn(4)) << 10 }, // bits 10..11 straddle digits 0 and 1
		"descending":      func(i int) uint64 { return ^uint64(i) },
		"random":          func(int) uint64 { return r.Uint64() },
		"random few bits": func(int) uint64 { return r.Uint64() & (1<<63 | 1<<40 | 1<<21 | 1) },
	}
	for name, g := range gen {
		for _, n := range []int{0, 1, 2, 3, 100, 3000} {
			keys := make([]uint64, n)
			for i := range keys {
				keys[i] = g(i)
			}
			orig := slices.Clone(keys)
			want := make([]uint32, n)
			for i := range want {
				want[i] = uint32(i)
			}
			slices.SortStableFunc(want, func(a, b uint32) int { return cmp.Compare(orig[a], orig[b]) })
			scratch := make([]uint64, 2*n)
			copy(scratch, keys)
			got := stableOrder(scratch[:n], scratch[n:])
			require.Equal(t, want, got, "%s n=%d", name, n)
		}
	}
}

// orderedBits orders every finite and infinite value like <, subnormals and both zeros
// included (-0 below +0: states keep +0 only).
func TestOrderedBitsOrder(t *testing.T) {
	vs := []float64{math.Inf(-1), -math.MaxFloat64, -1e300, -1, -math.SmallestNonzeroFloat64 * 3,
		-math.SmallestNonzeroFloat64, math.Copysign(0, -1), 0, math.SmallestNonzeroFloat64,
		math.SmallestNonzeroFloat64 * 3, 0x1p-1022, 1, 1e300, math.MaxFloat64, math.Inf(1)}
	for i := 1; i < len(vs); i++ {
		require.Less(t, orderedBits(vs[i-1]), orderedBits(vs[i]), "%g < %g", vs[i-1], vs[i])
	}
}

// Every way into a Spearman state stores +0 for −0 (the radix keys tell them apart, the
// comparison sort did not): Add, DecodeState, and Merge of both.
func TestSpearmanStoresPositiveZero(t *testing.T) {
	negz := math.Copysign(0, -1)
	for _, compat := range []string{"scipy", "mindnlp"} {
		m := build(t, "spearman", map[string]any{"compat": compat}).(*Spearman)
		a := m.NewState().(*SpearmanState)
		e := &core.Example{Values: []core.Value{{Kind: core.Float, Float: negz}, {Kind: core.Float, Float: negz}}, Seq: 1}
		a.Add(e, 1)
		e2 := &core.Example{Values: []core.Value{{Kind: core.Float, Float: 0}, {Kind: core.Float, Float: 1}}, Seq: 2}
		a.Add(e2, 1)
		// A state file written with −0 (by hand: MarshalBinary of a state that holds −0).
		raw := &SpearmanState{m: m, obs: []obs{{x: negz, y: negz, seq: 0, w: 1}}, sorted: true}
		b, err := raw.MarshalBinary()
		require.NoError(t, err)
		d, err := m.DecodeState(b)
		require.NoError(t, err)
		require.NoError(t, a.Merge(d))
		for _, o := range a.obs {
			require.False(t, math.Signbit(o.x), "%s: x of %+v", compat, o)
			require.False(t, math.Signbit(o.y), "%s: y of %+v", compat, o)
		}
	}
}

// The rank sort writes its keys and scratch (2n uint64) into the memory of its []keyed
// result: keyed must hold at least 16 bytes, which it does not where int is 4 bytes.
func TestKeyedHoldsTwoKeys(t *testing.T) {
	require.GreaterOrEqual(t, unsafe.Sizeof(keyed{}), 2*unsafe.Sizeof(uint64(0)))
}
