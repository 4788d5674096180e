package regress

import (
	"cmp"
	"math"
	"math/big"
	"math/bits"
	"slices"
	"unsafe"

	"github.com/evalstream/evalstream/metrics/core"
)

const spearmanVersion = 1

// Spearman is the `spearman` metric. It is immutable and safe for concurrent use.
type Spearman struct {
	compat string // scipy | mindnlp
	sig    string
}

// NewSpearman returns the `spearman` metric: presets `scipy` (default: average ranks, then the
// Pearson correlation of the ranks) and `mindnlp` (descending ordinal ranks, ties broken by
// record order, ρ = 1 − 6Σd²/(n(n²−1))).
func NewSpearman(o *core.Options) (core.Metric, error) {
	m := &Spearman{}
	m.compat = o.String("compat", "scipy", "scipy", "mindnlp")
	m.sig = core.NewSig("spearman", m.compat).String()
	return m, nil
}

// Roles lists prediction and label.
func (m *Spearman) Roles() []core.Role { return numberRoles }

// Signature identifies the metric and its options.
func (m *Spearman) Signature() string { return m.sig }

// Check rejects records whose prediction or label is not a finite number.
func (m *Spearman) Check(ex *core.Example) error {
	_, _, err := pair(ex, false)
	return err
}

// NewState returns an empty state.
func (m *Spearman) NewState() core.State { return &SpearmanState{m: m} }

// obs is one record: its values, its global position and its weight (32 bytes).
type obs struct {
	x, y float64
	seq  uint64
	w    int64
}

func cmpObs(a, b obs) int {
	if c := cmp.Compare(a.seq, b.seq); c != 0 {
		return c
	}
	if c := cmp.Compare(a.x, b.x); c != 0 {
		return c
	}
	if c := cmp.Compare(a.y, b.y); c != 0 {
		return c
	}
	return cmp.Compare(a.w, b.w)
}

// SpearmanState keeps every record (ranks need them all): about 32 bytes per record. Merge is a
// union; Result and MarshalBinary sort the records canonically (by Seq, then values), so any
// split of the input gives bit-identical results. It is not safe for concurrent use.
type SpearmanState struct {
	m      *Spearman
	obs    []obs
	sorted bool
}

// Add keeps one record with its weight; records Check rejects are ignored.
func (s *SpearmanState) Add(ex *core.Example, weight int64) {
	x, y, err := pair(ex, false)
	if err != nil || weight <= 0 {
		return
	}
	// −0 and +0 are the same value for ranking; store one of them.
	s.obs = append(s.obs, obs{x: x + 0, y: y + 0, seq: ex.Seq, w: weight})
	s.sorted = false
}

// Merge appends other's records (other is unchanged).
func (s *SpearmanState) Merge(other core.State) error {
	o, ok := other.(*SpearmanState)
	if !ok || o.m.sig != s.m.sig {
		return core.Incompatible(s, other)
	}
	if len(o.obs) > 0 {
		s.obs = append(s.obs, o.obs...)
		s.sorted = false
	}
	return nil
}

// canon sorts the records canonically. It reorders the state's internal slice but not its
// contents.
func (s *SpearmanState) canon() {
	if s.sorted {
		return
	}
	s.sorted = true
	n := len(s.obs)
	if slices.IsSortedFunc(s.obs, cmpObs) { // one worker's records, a decoded state
		return
	}
	if uint64(n) >= 1<<32 {
		slices.SortFunc(s.obs, cmpObs)
		return
	}
	// By Seq with a radix sort, then each run of equal Seqs (records of inputs that share
	// positions) by the rest of cmpObs.
	keys := make([]uint64, 2*n)
	for i := range s.obs {
		keys[i] = s.obs[i].seq
	}
	permute(s.obs, stableOrder(keys[:n], keys[n:]))
	for i := 0; i < n; {
		j := i + 1
		for j < n && s.obs[j].seq == s.obs[i].seq {
			j++
		}
		if j-i > 1 {
			slices.SortFunc(s.obs[i:j], cmpObs)
		}
		i = j
	}
}

// MarshalBinary writes the signature and the records in canonical order.
func (s *SpearmanState) MarshalBinary() ([]byte, error) {
	s.canon()
	var e core.Encoder
	e.Byte(spearmanVersion)
	e.String(s.m.sig)
	e.Uvarint(uint64(len(s.obs)))
	for _, o := range s.obs {
		e.Float64(o.x)
		e.Float64(o.y)
		e.Uvarint(o.seq)
		e.Varint(o.w)
	}
	return e.B, nil
}

// DecodeState reads a state written by MarshalBinary.
func (m *Spearman) DecodeState(b []byte) (core.State, error) {
	d := core.NewDecoder(b)
	d.Version("spearman", spearmanVersion)
	sig := d.String()
	if d.Err() == nil && sig != m.sig {
		return nil, incompatible(sig, m.sig)
	}
	n := d.Len(8 + 8 + 1 + 1)
	s := &SpearmanState{m: m, obs: make([]obs, 0, n)}
	var total int64
	for i := 0; i < n && d.Err() == nil; i++ {
		o := obs{x: d.Float64(), y: d.Float64(), seq: d.Uvarint(), w: d.Varint()}
		if d.Err() != nil {
			break
		}
		if !finite(o.x, o.y) || o.w <= 0 || total+o.w < total {
			return nil, corrupt("spearman: invalid record")
		}
		total += o.w
		s.obs = append(s.obs, obs{x: o.x + 0, y: o.y + 0, seq: o.seq, w: o.w})
	}
	if err := d.Finish(); err != nil {
		return nil, err
	}
	return s, nil
}

// Result ranks the records and computes rho. It does not change the state's contents.
func (s *SpearmanState) Result() core.Result {
	s.canon()
	var n int64
	for _, o := range s.obs {
		n += o.w
	}
	if n < 2 {
		return undefined("fewer than 2 records", n)
	}
	if s.m.compat == "mindnlp" {
		return s.mindnlp(n)
	}
	return s.scipy(n)
}

// keyed is a record's sort key and its index in canonical order. Its index is an int64, not
// an int, so that keyed is 16 bytes on 32-bit platforms too: sortedKeys keeps two uint64 per
// record in a []keyed's memory.
type keyed struct {
	v float64
	i int64
}

// sortedKeys's keys and scratch (2n uint64) must fit in n keyed: this fails to compile if not.
var _ [unsafe.Sizeof(keyed{}) - 2*unsafe.Sizeof(uint64(0))]struct{}

// sortedKeys returns (key, index) pairs sorted by key (ascending, or descending with desc),
// ties in canonical (index) order.
func sortedKeys(obs []obs, key func(o *obs) float64, desc bool) []keyed {
	if uint64(len(obs)) >= 1<<32 {
		return compareSortedKeys(obs, key, desc)
	}
	ks := make([]keyed, len(obs))
	// A stable radix sort keeps equal keys in index order; descending order sorts the
	// complemented keys. Its keys and their scratch are ks's memory (ks is 16 bytes of no
	// pointers per record), which the result overwrites once the keys are sorted: at the
	// largest states, the sort then adds 8 bytes per record to ks, not 24.
	var flip uint64
	if desc {
		flip = ^uint64(0)
	}
	n := len(obs)
	keys := unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(ks))), 2*n)
	for i := range obs {
		keys[i] = orderedBits(key(&obs[i])) ^ flip
	}
	for j, i := range stableOrder(keys[:n], keys[n:]) {
		ks[j] = keyed{key(&obs[i]), int64(i)}
	}
	return ks
}

// compareSortedKeys is sortedKeys by a comparison sort, for states of 2^32 records or more
// (stableOrder numbers records in 32 bits).
func compareSortedKeys(obs []obs, key func(o *obs) float64, desc bool) []keyed {
	ks := make([]keyed, len(obs))
	for i := range obs {
		ks[i] = keyed{key(&obs[i]), int64(i)}
	}
	slices.SortFunc(ks, func(a, b keyed) int {
		c := cmp.Compare(a.v, b.v)
		if desc {
			c = -c
		}
		if c != 0 {
			return c
		}
		return cmp.Compare(a.i, b.i)
	})
	return ks
}

// avgRanks gives each record the average (1-based) rank of its tie group, in ascending order
// of key; a record of weight w occupies w positions.
func avgRanks(obs []obs, key func(o *obs) float64) []float64 {
	ks := sortedKeys(obs, key, false)
	ranks := make([]float64, len(obs))
	var pos int64 // records before the current tie group
	for i := 0; i < len(ks); {
		v := ks[i].v
		j := i
		var w int64
		for j < len(ks) && ks[j].v == v {
			w += obs[ks[j].i].w
			j++
		}
		r := float64(pos) + float64(w+1)/2
		for k := i; k < j; k++ {
			ranks[ks[k].i] = r
		}
		pos += w
		i = j
	}
	return ranks
}

// scipy: Pearson correlation of the average ranks, with np.corrcoef's final operation order
// applied to the exactly computed co-moments.
func (s *SpearmanState) scipy(n int64) core.Result {
	rx := avgRanks(s.obs, func(o *obs) float64 { return o.x })
	ry := avgRanks(s.obs, func(o *obs) float64 { return o.y })
	var mom moments
	for i, o := range s.obs {
		mom.add(rx[i], ry[i], o.w)
	}
	ex := mom.exact()
	dxxS, dyyS, dxyS := ex.comoments()
	dxx, dyy, dxy := dxxS.Float(), dyyS.Float(), dxyS.Float()
	if dxx == 0 || dyy == 0 {
		return undefined("constant input", n)
	}
	nf := float64(n)
	f := nf - 1
	cxx, cyy, cxy := dxx/nf/f, dyy/nf/f, dxy/nf/f
	r := cxy / math.Sqrt(cxx) / math.Sqrt(cyy)
	return core.Result{Value: clip(r), Details: map[string]any{"n": n}}
}

// ordinalStarts gives each record the 0-based start of its block of ranks in descending order
// of key, ties going to the earlier record in canonical (Seq) order.
func ordinalStarts(obs []obs, key func(o *obs) float64) []int64 {
	ks := sortedKeys(obs, key, true)
	starts := make([]int64, len(obs))
	var pos int64
	for _, k := range ks {
		starts[k.i] = pos
		pos += obs[k.i].w
	}
	return starts
}

// mindnlp: ρ = 1 − 6Σd²/(n(n²−1)) on ordinal ranks, Σd² summed exactly in 128 bits. A record of
// weight w is w consecutive copies: each copy has the same rank difference.
func (s *SpearmanState) mindnlp(n int64) core.Result {
	px := ordinalStarts(s.obs, func(o *obs) float64 { return o.x })
	py := ordinalStarts(s.obs, func(o *obs) float64 { return o.y })
	var hi, lo uint64
	for i, o := range s.obs {
		d := px[i] - py[i]
		if d < 0 {
			d = -d
		}
		h1, l1 := bits.Mul64(uint64(d), uint64(d))
		h2, l2 := bits.Mul64(l1, uint64(o.w))
		_, l3 := bits.Mul64(h1, uint64(o.w))
		h2 += l3
		var c uint64
		lo, c = bits.Add64(lo, l2, 0)
		hi, _ = bits.Add64(hi, h2, c)
	}
	sum := new(big.Int).SetUint64(hi)
	sum.Lsh(sum, 64).Or(sum, new(big.Int).SetUint64(lo))
	num := new(big.Int).Mul(sum, big.NewInt(6))
	bn := big.NewInt(n)
	den := new(big.Int).Mul(bn, bn)
	den.Sub(den, big.NewInt(1)).Mul(den, bn)
	a, _ := new(big.Float).SetInt(num).Float64()
	b, _ := new(big.Float).SetInt(den).Float64()
	return core.Result{Value: 1 - a/b, Details: map[string]any{"n": n}}
}
