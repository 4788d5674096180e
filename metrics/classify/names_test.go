package classify

import (
	"errors"
	"fmt"
	"math/rand"
	"testing"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/internal/goldentest"
	"github.com/evalstream/evalstream/metrics/stats"
	"github.com/stretchr/testify/require"
)

// nameTypes are every type that takes class names without the classes option, with options
// that exercise their name-dependent parts.
var nameTypes = []struct {
	typ  string
	opts map[string]any
}{
	{"accuracy", nil},
	{"precision", map[string]any{"compat": "sklearn", "average": "macro"}},
	{"recall", map[string]any{"compat": "sklearn"}},
	{"f1", nil},
	{"f1", map[string]any{"compat": "sklearn", "average": "weighted", "beta": 2}},
	{"confusion_matrix", nil},
	{"mcc", nil},
	{"mcc", map[string]any{"compat": "mindnlp"}},
	{"cohen_kappa", map[string]any{"weights": "linear"}},
	{"cohen_kappa", map[string]any{"weights": "quadratic"}},
	{"balanced_accuracy", map[string]any{"adjusted": true}},
	{"classification_report", nil},
}

// namedRecords draws n records over the names, each shard of a split seeing only some of them.
func namedRecords(rng *rand.Rand, n int, names []string) []core.Example {
	exs := make([]core.Example, n)
	for i := range exs {
		y := names[rng.Intn(len(names))]
		p := y
		if rng.Intn(3) == 0 {
			p = names[rng.Intn(len(names))]
		}
		exs[i] = core.Example{Values: []core.Value{core.FromJSON(p), core.FromJSON(y)}, Seq: uint64(i)}
	}
	return exs
}

// saved folds exs into a state of a freshly built metric and returns its bytes: what
// `evalstream score --save-state` writes for one input.
func saved(t *testing.T, typ string, opts map[string]any, exs []core.Example) []byte {
	m := build(t, typ, opts)
	s := m.NewState()
	for i := range exs {
		require.NoError(t, m.Check(&exs[i]))
		s.Add(&exs[i], 1)
	}
	b, err := s.MarshalBinary()
	require.NoError(t, err)
	return b
}

// TestNamesMergeOfSavedStates: states saved from inputs that saw different class names —
// disjoint, overlapping, one empty — decoded by another metric instance (as `evalstream
// merge` does) and merged in every order and tree shape give exactly the result and the
// bytes of one run over all inputs. Local class numbers differ between the shards (each
// numbers names as it first sees them), so this fails unless merge maps them by name.
func TestNamesMergeOfSavedStates(t *testing.T) {
	splits := map[string][][]string{
		"disjoint":    {{"pos", "neg"}, {"neu", "mixed"}, {"Zz", "é"}},
		"overlapping": {{"pos", "neg", "neu"}, {"neu", "pos"}, {"neg", "unknown", "pos"}},
		"one empty":   {{"b", "a"}, {}, {"c", "a"}},
		"one class":   {{"only"}, {"only"}, {"only"}},
	}
	for _, nt := range nameTypes {
		for split, sets := range splits {
			t.Run(fmt.Sprintf("%s %v/%s", nt.typ, nt.opts, split), func(t *testing.T) {
				rng := rand.New(rand.NewSource(int64(len(split))))
				var shards [][]core.Example
				var all []core.Example
				for _, names := range sets {
					var exs []core.Example
					if len(names) > 0 {
						exs = namedRecords(rng, 20+rng.Intn(30), names)
					}
					shards = append(shards, exs)
					all = append(all, exs...)
				}
				one := saved(t, nt.typ, nt.opts, all)
				m := build(t, nt.typ, nt.opts)
				whole, err := m.DecodeState(one)
				require.NoError(t, err)
				want := goldentest.Fingerprint(whole.Result())
				var bs [][]byte
				for _, exs := range shards {
					bs = append(bs, saved(t, nt.typ, nt.opts, exs))
				}
				for _, order := range [][3]int{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}} {
					dec := func(i int) core.State {
						s, err := m.DecodeState(bs[order[i]])
						require.NoError(t, err)
						return s
					}
					// ((a ⊕ b) ⊕ c)
					left := dec(0)
					require.NoError(t, left.Merge(dec(1)))
					require.NoError(t, left.Merge(dec(2)))
					// (a ⊕ (b ⊕ c))
					right := dec(1)
					require.NoError(t, right.Merge(dec(2)))
					a := dec(0)
					require.NoError(t, a.Merge(right))
					for _, s := range []core.State{left, a} {
						require.Equal(t, want, goldentest.Fingerprint(s.Result()), "order %v", order)
						b, err := s.MarshalBinary()
						require.NoError(t, err)
						require.Equal(t, one, b, "order %v: bytes of the merged state", order)
					}
				}
			})
		}
	}
}

// TestNamesSplitInvariance runs goldentest's merge laws (random shardings and merge orders,
// the serialization round trip, weighted adds) on named records of every type.
func TestNamesSplitInvariance(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	names := []string{"neg", "pos", "neu", "Neg", "10", "9", "日本", "é"}
	for _, nt := range nameTypes {
		t.Run(fmt.Sprintf("%s %v", nt.typ, nt.opts), func(t *testing.T) {
			m := build(t, nt.typ, nt.opts)
			for _, n := range []int{1, 7, 60} {
				goldentest.CheckLaws(t, m, namedRecords(rng, n, names))
			}
		})
	}
}

// TestNamesOrder: the classes are the sorted names seen (code point order), whatever the
// order records arrive in; per-class results are keyed by name.
func TestNamesOrder(t *testing.T) {
	recs := [][2]any{{"pos", "pos"}, {"neg", "pos"}, {"neu", "neu"}, {"neg", "neg"}, {"B", "neg"}}
	want := []string{"B", "neg", "neu", "pos"}
	for _, typ := range []string{"f1", "confusion_matrix", "classification_report", "cohen_kappa"} {
		for _, rev := range []bool{false, true} {
			m := build(t, typ, nil)
			s := m.NewState()
			for i := range recs {
				r := recs[i]
				if rev {
					r = recs[len(recs)-1-i]
				}
				e := ex(r[0], r[1])
				require.NoError(t, m.Check(e))
				s.Add(e, 1)
			}
			res := s.Result()
			require.Equal(t, want, res.Details["classes"], "%s reversed=%t", typ, rev)
			switch typ {
			case "f1":
				// mindnlp: 2·tp / (true + pred) per class: B 0/1, neg 2/4, neu 2/2, pos 2/3.
				require.Equal(t, []float64{0, 0.5, 1, 2.0 / 3}, res.Value)
			case "confusion_matrix":
				require.Equal(t, [][]float64{{0, 0, 0, 0}, {1, 1, 0, 0}, {0, 0, 1, 0}, {0, 1, 0, 1}}, res.Value)
			case "classification_report":
				rep := res.Value.(map[string]any)
				require.Contains(t, rep, "B")
				require.Equal(t, int64(2), rep["pos"].(map[string]any)["support"])
			}
		}
	}
	// balanced_accuracy lists the true classes only.
	m := build(t, "balanced_accuracy", nil)
	require.Equal(t, []string{"neg", "neu", "pos"}, run(t, m, []any{"pos", "neg", "neu", "B"}, []any{"pos", "pos", "neu", "neg"}).Details["classes"])
}

// TestNamesRejections: what makes a record with names invalid, per record.
func TestNamesRejections(t *testing.T) {
	cases := []struct {
		name        string
		typ         string
		opts        map[string]any
		pred, label any
		reason      string
		detail      string
	}{
		{"name and id", "f1", nil, "pos", 1, "mixed class types", `prediction is the class name "pos" but label is the class id 1`},
		{"id and name", "accuracy", nil, 0, "neg", "mixed class types", `prediction is the class id 0 but label is the class name "neg"`},
		{"scores and name", "accuracy", nil, []any{0.1, 0.9}, "pos", "mixed class types", "prediction is a list of scores"},
		{"name and one-hot", "confusion_matrix", nil, "pos", []any{0, 1}, "mixed class types", "label is a list of scores"},
		{"empty name", "mcc", nil, "", "pos", "missing field", "empty class name"},
		{"invalid utf-8", "cohen_kappa", nil, "pos", "\xff\xfe", "invalid utf-8", "not valid UTF-8"},
		{"num_classes fixes ids", "precision", map[string]any{"num_classes": 2}, "pos", "neg", "wrong type", "num_classes fixes the classes to the ids 0..1"},
		{"top_k needs scores", "accuracy", map[string]any{"top_k": 2}, "pos", "pos", "wrong type", "top_k 2 needs a list of scores"},
		{"classes: unknown name", "f1", map[string]any{"classes": "[a, b]"}, "a", "c", "unknown class", `"c" is not one of the classes a, b`},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			m := build(t, tt.typ, tt.opts)
			err := m.Check(ex(tt.pred, tt.label))
			var re *core.RecordError
			require.ErrorAs(t, err, &re)
			require.Equal(t, tt.reason, re.Reason)
			require.Contains(t, re.Detail, tt.detail)
			// Add ignores what Check rejects.
			s := m.NewState()
			s.Add(ex(tt.pred, tt.label), 1)
			require.Equal(t, goldentest.Fingerprint(m.NewState().Result()), goldentest.Fingerprint(s.Result()))
		})
	}
}

// TestNamesMixedAcrossRecords: records that give ids and records that give names, in any
// split and through the batch path of integer columns, make the value null (scikit-learn
// raises on a mix of label types); never a value that depends on which worker saw what.
func TestNamesMixedAcrossRecords(t *testing.T) {
	for _, typ := range []string{"accuracy", "f1", "classification_report", "mcc"} {
		t.Run(typ, func(t *testing.T) {
			m := build(t, typ, nil)
			exs := []core.Example{*ex("a", "b"), *ex(1, 1), *ex("b", "b"), *ex(0, 1)}
			goldentest.CheckLaws(t, m, exs)
			s := m.NewState()
			for i := range exs {
				s.Add(&exs[i], 1)
			}
			res := s.Result()
			require.Nil(t, res.Value)
			require.Equal(t, "mixed class ids and names", res.Reason)
			require.Equal(t, int64(4), res.Details["records"])
			require.Empty(t, s.(*State).names.list, "the counts are dropped")

			// Integer columns folded in one batch, merged with a state of names.
			cols := s.(*State).m
			ints := m.NewState().(*State)
			require.True(t, cols.CheckIntColumns([][]int64{{0, 1}, {1, 1}}))
			ints.AddIntColumns([][]int64{{0, 1}, {1, 1}}, 1)
			names := m.NewState()
			names.Add(ex("a", "b"), 1)
			for _, pair := range [][2]core.State{{ints, names}, {names, ints}} {
				c, err := core.CopyState(m, pair[0])
				require.NoError(t, err)
				require.NoError(t, c.Merge(pair[1]))
				require.Equal(t, "mixed class ids and names", c.Result().Reason)
			}
		})
	}
}

// TestNamesMaxClasses: max_classes bounds the distinct names a state keeps. One more name
// than allowed makes the value null in every split (the condition is on the union of the
// names seen), and the state drops its names so that a free-text label cannot grow it.
func TestNamesMaxClasses(t *testing.T) {
	problems := []struct {
		typ  string
		opts map[string]any
		want string
	}{
		{"f1", map[string]any{"max_classes": 0}, "max_classes"},
		{"f1", map[string]any{"max_classes": 5, "classes": "[a, b]"}, "max_classes: does not apply with classes"},
		{"precision", map[string]any{"max_classes": 5, "num_classes": 3}, "max_classes: does not apply with num_classes"},
		{"confusion_matrix", map[string]any{"max_classes": 2000}, "max_classes"},
	}
	for _, p := range problems {
		o := core.NewOptions(p.opts)
		_, err := ctor(p.typ, o)
		if err == nil {
			err = o.Err()
		}
		require.ErrorContains(t, err, p.want, "%s %v", p.typ, p.opts)
	}
	require.Contains(t, build(t, "f1", map[string]any{"max_classes": 4}).Signature(), "|max_classes:4|")
	require.NotContains(t, build(t, "f1", map[string]any{"max_classes": defaultMaxNames}).Signature(), "max_classes")
	require.NotContains(t, build(t, "confusion_matrix", nil).Signature(), "max_classes")

	for _, typ := range []string{"f1", "confusion_matrix", "classification_report", "cohen_kappa"} {
		t.Run(typ, func(t *testing.T) {
			m := build(t, typ, map[string]any{"max_classes": 4})
			four := []core.Example{*ex("a", "b"), *ex("c", "d"), *ex("a", "a"), *ex("d", "b")}
			s := m.NewState()
			for i := range four {
				s.Add(&four[i], 1)
			}
			require.NotNil(t, s.Result().Value, "exactly max_classes names")

			five := append(four, *ex("e", "a"))
			goldentest.CheckLaws(t, m, five)
			// Each shard sees at most 4 names; only their union has 5.
			a, b := m.NewState(), m.NewState()
			a.Add(&five[0], 1)
			a.Add(&five[1], 1)
			b.Add(&five[3], 1)
			b.Add(&five[4], 1)
			require.NotNil(t, a.Result().Value)
			require.NotNil(t, b.Result().Value)
			require.NoError(t, a.Merge(b))
			res := a.Result()
			require.Nil(t, res.Value)
			require.Equal(t, "too many classes", res.Reason)
			require.Equal(t, int64(4), res.Details["max_classes"])
			require.Empty(t, a.(*State).names.list)
			require.Zero(t, a.(*State).mat.n)
			// A further name, or a merge, keeps it so.
			a.Add(ex("f", "g"), 1)
			require.Equal(t, "too many classes", a.Result().Reason)
			require.Equal(t, int64(5), a.Result().Details["records"])
		})
	}
}

// TestNamesFreeTextMemory: a label column of distinct free text stays within max_classes
// names per state.
func TestNamesFreeTextMemory(t *testing.T) {
	m := build(t, "f1", nil)
	s := m.NewState().(*State)
	for i := range 3 * defaultMaxNames {
		s.Add(ex(fmt.Sprintf("answer %d", i), fmt.Sprintf("text %d", i)), 1)
		require.LessOrEqual(t, len(s.names.list), defaultMaxNames)
	}
	require.Equal(t, "too many classes", s.Result().Reason)
	require.Empty(t, s.names.list)
}

// TestNamesDecodeRejects: malformed named states are corrupt, never a panic; a named state
// does not decode into a metric that takes ids only.
func TestNamesDecodeRejects(t *testing.T) {
	m := build(t, "f1", nil)
	s := m.NewState()
	for _, r := range [][2]any{{"b", "a"}, {"a", "a"}, {"c", "b"}} {
		s.Add(ex(r[0], r[1]), 1)
	}
	good, err := s.MarshalBinary()
	require.NoError(t, err)
	require.Equal(t, byte(namedStateVersion), good[0])

	encode := func(seen byte, names []string, cells [][3]int64, n int) []byte {
		var e core.Encoder
		e.Byte(namedStateVersion)
		e.String(m.Signature())
		e.Byte(seen)
		e.Varint(0)
		var total int64
		for _, c := range cells {
			total += c[2]
		}
		e.Varint(total)
		e.Uvarint(uint64(len(names)))
		for _, x := range names {
			e.String(x)
		}
		e.Uvarint(uint64(n))
		e.Uvarint(uint64(len(cells)))
		for _, c := range cells {
			e.Uvarint(uint64(c[0]))
			e.Uvarint(uint64(c[1]))
			e.Varint(c[2])
		}
		return e.B
	}
	ok := encode(seenNames, []string{"a", "b"}, [][3]int64{{0, 1, 2}, {1, 1, 1}}, 2)
	st, err := m.DecodeState(ok)
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b"}, st.Result().Details["classes"])

	bad := map[string][]byte{
		"names out of order": encode(seenNames, []string{"b", "a"}, [][3]int64{{0, 1, 2}, {1, 1, 1}}, 2),
		"duplicate name":     encode(seenNames, []string{"a", "a"}, [][3]int64{{0, 1, 2}, {1, 1, 1}}, 2),
		"name without count": encode(seenNames, []string{"a", "b", "c"}, [][3]int64{{0, 1, 2}, {1, 1, 1}}, 3),
		"matrix size":        encode(seenNames, []string{"a", "b"}, [][3]int64{{0, 1, 2}}, 3),
		"no names kind":      encode(seenIDs, []string{"a", "b"}, [][3]int64{{0, 1, 2}, {1, 1, 1}}, 2),
		"mixed with counts":  encode(seenIDs|seenNames, []string{"a", "b"}, [][3]int64{{0, 1, 2}, {1, 1, 1}}, 2),
		"unknown kind bit":   encode(seenNames|8, []string{"a", "b"}, [][3]int64{{0, 1, 2}, {1, 1, 1}}, 2),
		"empty name":         encode(seenNames, []string{"", "b"}, [][3]int64{{0, 1, 2}, {1, 1, 1}}, 2),
		"not utf-8":          encode(seenNames, []string{"a", "\xff"}, [][3]int64{{0, 1, 2}, {1, 1, 1}}, 2),
		"version 3":          append([]byte{3}, ok[1:]...),
		// A state writes format 2 once it has seen a record: merged into a state of ids,
		// these would make it "mixed class ids and names".
		"names without records":      encode(seenNames, nil, nil, 0),
		"mixed without records":      encode(seenIDs|seenNames, nil, nil, 0),
		"too many names, no records": encode(seenNames|tooMany, nil, nil, 0),
	}
	for name, b := range bad {
		_, err := m.DecodeState(b)
		require.ErrorIs(t, err, core.ErrCorruptState, name)
	}
	acc := build(t, "accuracy", nil)
	var ae core.Encoder
	ae.Byte(namedStateVersion)
	ae.String(acc.Signature())
	ae.Byte(seenNames)
	ae.Varint(0) // correct
	ae.Varint(0) // total
	ae.Uvarint(0)
	ae.Uvarint(0)
	ae.Uvarint(0)
	_, err = acc.DecodeState(ae.B)
	require.ErrorIs(t, err, core.ErrCorruptState, "accuracy: names without records")

	// A state of ids without records has no classes: a matrix of 5 classes there would grow
	// the matrix of every state it is merged into.
	var ie core.Encoder
	ie.Byte(stateVersion)
	ie.String(m.Signature())
	ie.Varint(0) // correct
	ie.Varint(0) // total
	ie.Uvarint(5)
	ie.Uvarint(0)
	_, err = m.DecodeState(ie.B)
	require.ErrorIs(t, err, core.ErrCorruptState, "ids: classes without records")

	// More names than max_classes.
	small := build(t, "f1", map[string]any{"max_classes": 1})
	var e core.Encoder
	e.Byte(namedStateVersion)
	e.String(small.Signature())
	rest := ok[1+len(m.Signature())+1:] // after the version and the signature (< 128 bytes)
	_, err = small.DecodeState(append(e.B, rest...))
	require.ErrorIs(t, err, core.ErrCorruptState)

	// num_classes fixes ids: a named state is refused by a metric whose num_classes is given.
	cm := build(t, "confusion_matrix", nil)
	cs := cm.NewState()
	cs.Add(ex("x", "y"), 1)
	b, err := cs.MarshalBinary()
	require.NoError(t, err)
	ids := build(t, "confusion_matrix", map[string]any{"num_classes": 2})
	require.NotEqual(t, cm.Signature(), ids.Signature())
	_, err = ids.DecodeState(b)
	require.True(t, errors.Is(err, core.ErrIncompatible), "%v", err)
	require.ErrorIs(t, ids.NewState().Merge(cs), core.ErrIncompatible)
}

// TestNamesIDStatesKeepFormat1: a state of class ids serializes as before names existed, so
// states saved by earlier builds and by this one are the same bytes.
func TestNamesIDStatesKeepFormat1(t *testing.T) {
	m := build(t, "f1", nil)
	s := m.NewState()
	s.Add(ex(1, 0), 1)
	b, err := s.MarshalBinary()
	require.NoError(t, err)
	var e core.Encoder
	e.Byte(1)
	e.String(m.Signature())
	e.Varint(0)
	e.Varint(1)
	e.Uvarint(2)
	e.Uvarint(1)
	e.Uvarint(0)
	e.Uvarint(1)
	e.Varint(1)
	require.Equal(t, e.B, b)
}

// bootstrapLaw gives each example the unit of its row, as the pipeline does without a ci key.
type bootstrapLaw struct{ *stats.Bootstrap }

func (m bootstrapLaw) NewState() core.State {
	return &bootstrapLawState{m.Bootstrap.NewState().(*stats.BootstrapState)}
}

func (m bootstrapLaw) DecodeState(b []byte) (core.State, error) {
	s, err := m.Bootstrap.DecodeState(b)
	if err != nil {
		return nil, err
	}
	return &bootstrapLawState{s.(*stats.BootstrapState)}, nil
}

type bootstrapLawState struct{ *stats.BootstrapState }

func (s *bootstrapLawState) Add(ex *core.Example, w int64) {
	e := *ex
	e.Unit = stats.UnitOfRow(int64(ex.Seq))
	s.BootstrapState.Add(&e, w)
}

func (s *bootstrapLawState) Merge(o core.State) error {
	if l, ok := o.(*bootstrapLawState); ok {
		o = l.BootstrapState
	}
	return s.BootstrapState.Merge(o)
}

// Result puts every replicate's value and the interval in Details, for the fingerprint.
func (s *bootstrapLawState) Result() core.Result {
	r := s.BootstrapState.Result()
	d := map[string]any{"replicates": s.ReplicateValues()}
	for k, v := range r.Details {
		d[k] = v
	}
	if iv := r.CI; iv != nil {
		d["ci"] = []any{iv.Low, iv.High, iv.Stderr, iv.Undefined}
	}
	r.Details = d
	return r
}

// TestNamesBootstrap: with a Poisson-bootstrap ci, every replicate state (folded through the
// ReplicaAdder path, one decode per record) is the metric's state of the records weighted
// with that replicate's weights, and the replicates merge by name: random splits whose shards
// saw different names, merged in random orders, give the same replicates and interval.
func TestNamesBootstrap(t *testing.T) {
	cfg := stats.Config{Method: stats.MethodPoisson, Resamples: 24, Level: 0.95, Seed: 99}
	rng := rand.New(rand.NewSource(3))
	exs := namedRecords(rng, 80, []string{"pos", "neg", "neu", "other"})
	// Shards that see different names: sort records by label into runs.
	for _, nt := range nameTypes {
		t.Run(fmt.Sprintf("%s %v", nt.typ, nt.opts), func(t *testing.T) {
			inner := build(t, nt.typ, nt.opts)
			b := stats.NewBootstrap(inner, cfg)
			goldentest.CheckLaws(t, bootstrapLaw{b}, exs)

			s := b.NewState().(*stats.BootstrapState)
			weights := make([][]uint8, len(exs))
			for i := range exs {
				e := exs[i]
				e.Unit = stats.UnitOfRow(int64(i))
				s.Add(&e, 1)
				weights[i] = make([]uint8, cfg.Resamples)
				stats.PoissonWeights(cfg.Seed, e.Unit, weights[i])
			}
			require.Len(t, s.Reps, cfg.Resamples)
			for r := range cfg.Resamples {
				direct := inner.NewState()
				for i := range exs {
					if w := weights[i][r]; w > 0 {
						direct.Add(&exs[i], int64(w))
					}
				}
				require.Equal(t, goldentest.Fingerprint(direct.Result()), goldentest.Fingerprint(s.Reps[r].Result()), "replicate %d", r)
			}

			// Shards by label: each sees one name as the label.
			byLabel := map[string]core.State{}
			var order []string
			for i := range exs {
				y := exs[i].Values[1].Str
				if byLabel[y] == nil {
					byLabel[y] = bootstrapLaw{b}.NewState()
					order = append(order, y)
				}
				byLabel[y].Add(&exs[i], 1)
			}
			whole := bootstrapLaw{b}.NewState()
			for i := range exs {
				whole.Add(&exs[i], 1)
			}
			want := goldentest.Fingerprint(whole.Result())
			for trial := 0; trial < 3; trial++ {
				rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
				acc := bootstrapLaw{b}.NewState()
				for _, y := range order {
					bs, err := byLabel[y].MarshalBinary()
					require.NoError(t, err)
					d, err := bootstrapLaw{b}.DecodeState(bs)
					require.NoError(t, err)
					require.NoError(t, acc.Merge(d))
				}
				require.Equal(t, want, goldentest.Fingerprint(acc.Result()), "merge order %v", order)
			}
		})
	}
}

// TestNamesSelfMerge: s ⊕ s counts every record twice, also for named states (the merge reads
// the cells it adds to).
func TestNamesSelfMerge(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	exs := namedRecords(rng, 300, []string{"a", "b", "c", "d"})
	for _, nt := range nameTypes {
		m := build(t, nt.typ, nt.opts)
		s, twice := m.NewState(), m.NewState()
		for i := range exs {
			s.Add(&exs[i], 1)
			twice.Add(&exs[i], 2)
		}
		require.NoError(t, s.Merge(s))
		require.Equal(t, goldentest.Fingerprint(twice.Result()), goldentest.Fingerprint(s.Result()), "%s %v", nt.typ, nt.opts)
	}
}
