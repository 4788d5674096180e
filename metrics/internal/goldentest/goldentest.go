// Package goldentest runs metric golden files (produced by the reference libraries, see
// testdata/goldens) and property-tests the merge laws of every metric state.
package goldentest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"os"
	"reflect"
	"sort"
	"testing"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/stretchr/testify/require"
)

// Ctor builds a metric of type typ from its options.
type Ctor func(typ string, o *core.Options) (core.Metric, error)

// File is a golden file.
type File struct {
	Generator string            `json:"generator"`
	Versions  map[string]string `json:"versions"`
	Cases     []Case            `json:"cases"`
}

// Case is one golden case: a metric spec, records, and the reference library's value.
type Case struct {
	Name    string           `json:"name"`
	Metric  map[string]any   `json:"metric"`
	Records []map[string]any `json:"records"`
	Value   any              `json:"value"`
	Details map[string]any   `json:"details"`
	RTol    float64          `json:"rtol"`
	// Reject, when set, is the rejection reason every record must get from Check.
	Reject string `json:"reject"`
}

// Load reads a golden file.
func Load(t testing.TB, path string) File {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var f File
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	require.NoError(t, dec.Decode(&f), path)
	require.NotEmpty(t, f.Cases, path)
	return f
}

// Build constructs the case's metric the way the registry does: options, then role field
// overrides, then the unknown-option check. It returns the field name of every role.
func Build(c Case, ctor Ctor) (core.Metric, []string, error) {
	opts := map[string]any{}
	typ := ""
	for k, v := range c.Metric {
		switch k {
		case "type":
			typ = fmt.Sprint(v)
		case "name":
		default:
			opts[k] = jsonToGo(v)
		}
	}
	o := core.NewOptions(opts)
	m, err := ctor(typ, o)
	if err != nil {
		return nil, nil, err
	}
	if m == nil {
		return nil, nil, fmt.Errorf("constructor returned nil metric for %q", typ)
	}
	var fields []string
	for _, r := range m.Roles() {
		fields = append(fields, o.String(r.Name, r.Field))
	}
	if err := o.Err(); err != nil {
		return nil, nil, err
	}
	return m, fields, nil
}

func jsonToGo(v any) any {
	switch t := v.(type) {
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i
		}
		f, _ := t.Float64()
		return f
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = jsonToGo(e)
		}
		return out
	}
	return v
}

// Examples builds one Example per record; Seq is the record's index.
func Examples(fields []string, records []map[string]any) []core.Example {
	exs := make([]core.Example, len(records))
	for i, r := range records {
		vals := make([]core.Value, len(fields))
		for j, f := range fields {
			x, ok := r[f]
			if !ok {
				vals[j] = core.Value{Kind: core.Missing}
				continue
			}
			vals[j] = core.FromJSON(x)
		}
		exs[i] = core.Example{Values: vals, Seq: uint64(i)}
	}
	return exs
}

// RunFile runs every case of a golden file as a subtest: value and details within the
// case's rtol, then the merge laws. It logs the largest relative error of the file's cases.
func RunFile(t *testing.T, path string, ctor Ctor) {
	MaxRelErr = 0
	defer func() { t.Logf("%s: largest relative error against the goldens: %.3g", path, MaxRelErr) }()
	f := Load(t, path)
	seen := map[string]bool{}
	for _, c := range f.Cases {
		require.False(t, seen[c.Name], "duplicate case name %q", c.Name)
		seen[c.Name] = true
		t.Run(c.Name, func(t *testing.T) { RunCase(t, c, ctor) })
	}
}

// RunCase checks one case.
func RunCase(t *testing.T, c Case, ctor Ctor) {
	m, fields, err := Build(c, ctor)
	require.NoError(t, err)
	exs := Examples(fields, c.Records)
	if c.Reject != "" {
		for i := range exs {
			err := m.Check(&exs[i])
			require.Error(t, err, "record %d", i)
			var re *core.RecordError
			require.ErrorAs(t, err, &re)
			require.Equal(t, c.Reject, re.Reason, "record %d", i)
		}
		return
	}
	st := m.NewState()
	for i := range exs {
		require.NoError(t, m.Check(&exs[i]), "record %d", i)
		st.Add(&exs[i], 1)
	}
	res := st.Result()
	rtol := c.RTol
	if rtol == 0 {
		rtol = 1e-9
	}
	CompareValue(t, "value", jsonToGo(c.Value), res.Value, rtol)
	if res.Value == nil {
		require.NotEmpty(t, res.Reason, "a null value needs a reason")
	}
	for k, want := range c.Details {
		got, ok := res.Details[k]
		require.True(t, ok, "details.%s missing (have %v)", k, res.Details)
		CompareValue(t, "details."+k, jsonToGo(want), got, rtol)
	}
	CheckLaws(t, m, exs)
}

// CompareValue compares a golden value (number, list, list of lists, object, string, bool or
// nil) with a result value within a relative tolerance.
func CompareValue(t testing.TB, what string, want, got any, rtol float64) {
	t.Helper()
	switch w := want.(type) {
	case nil:
		require.Nil(t, got, "%s: want null", what)
	case int64, float64, json.Number:
		g, ok := toFloat(got)
		require.True(t, ok, "%s: want a number %v, got %T %v", what, want, got, got)
		wf, _ := toFloat(w)
		requireClose(t, what, wf, g, rtol)
	case []any:
		gv := reflect.ValueOf(got)
		require.True(t, got != nil && (gv.Kind() == reflect.Slice || gv.Kind() == reflect.Array), "%s: want a list, got %T %v", what, got, got)
		require.Equal(t, len(w), gv.Len(), "%s: length (got %v)", what, got)
		for i := range w {
			CompareValue(t, fmt.Sprintf("%s[%d]", what, i), jsonToGo(w[i]), gv.Index(i).Interface(), rtol)
		}
	case map[string]any:
		// An object (classification_report): the same keys, each entry compared.
		g, ok := got.(map[string]any)
		require.True(t, ok, "%s: want an object, got %T %v", what, got, got)
		wk := make([]string, 0, len(w))
		for k := range w {
			wk = append(wk, k)
		}
		gk := make([]string, 0, len(g))
		for k := range g {
			gk = append(gk, k)
		}
		require.ElementsMatch(t, wk, gk, "%s: keys", what)
		for k, x := range w {
			CompareValue(t, what+"."+k, jsonToGo(x), g[k], rtol)
		}
	default:
		require.Equal(t, fmt.Sprint(want), fmt.Sprint(got), what)
	}
}

func toFloat(x any) (float64, bool) {
	v := reflect.ValueOf(x)
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		return v.Float(), true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(v.Int()), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return float64(v.Uint()), true
	}
	if n, ok := x.(json.Number); ok {
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

// RelErr is |got-want| / max(|want|, tiny).
func RelErr(want, got float64) float64 {
	if want == got {
		return 0
	}
	d := math.Abs(got - want)
	den := math.Abs(want)
	if den < 1e-300 {
		return d
	}
	return d / den
}

// MaxRelErr records the largest relative error seen by requireClose, for reports.
var MaxRelErr float64

func requireClose(t testing.TB, what string, want, got, rtol float64) {
	t.Helper()
	require.False(t, math.IsNaN(got) || math.IsInf(got, 0), "%s: got non-finite %v", what, got)
	e := RelErr(want, got)
	if math.Abs(got-want) <= 1e-300 {
		e = 0
	}
	if e > MaxRelErr {
		MaxRelErr = e
	}
	require.LessOrEqual(t, e, rtol, "%s: want %.17g got %.17g (rel err %.3g)", what, want, got, e)
}

// CheckLaws property-tests the metric's state on the examples: identity, commutativity,
// associativity, split invariance over random shardings with random merge orders, and the
// serialization round trip — all with bit-identical results.
func CheckLaws(t testing.TB, m core.Metric, exs []core.Example) {
	t.Helper()
	fold := func(idx []int) core.State {
		s := m.NewState()
		for _, i := range idx {
			s.Add(&exs[i], 1)
		}
		return s
	}
	all := make([]int, len(exs))
	for i := range all {
		all[i] = i
	}
	whole := fold(all)
	want := Fingerprint(whole.Result())

	// Identity: merging an empty state either way changes nothing.
	left := m.NewState()
	require.NoError(t, left.Merge(whole))
	require.Equal(t, want, Fingerprint(left.Result()), "empty ⊕ s")
	right := fold(all)
	require.NoError(t, right.Merge(m.NewState()))
	require.Equal(t, want, Fingerprint(right.Result()), "s ⊕ empty")
	require.Equal(t, want, Fingerprint(whole.Result()), "Merge must not change its argument")

	rng := rand.New(rand.NewSource(int64(len(exs))*7919 + 17))
	for trial := 0; trial < 4; trial++ {
		k := 2 + rng.Intn(4)
		shards := make([][]int, k)
		for _, i := range rng.Perm(len(exs)) {
			s := rng.Intn(k)
			shards[s] = append(shards[s], i)
		}
		states := make([]core.State, k)
		for i := range shards {
			states[i] = fold(shards[i])
		}
		// Random merge order (commutativity) and a random tree shape (associativity).
		for len(states) > 1 {
			i := rng.Intn(len(states))
			j := rng.Intn(len(states) - 1)
			if j >= i {
				j++
			}
			require.NoError(t, states[i].Merge(states[j]))
			states = append(states[:j], states[j+1:]...)
		}
		require.Equal(t, want, Fingerprint(states[0].Result()), "split into %d shards", k)
	}

	// Serialization round trip, including of a merged state.
	b, err := whole.MarshalBinary()
	require.NoError(t, err)
	back, err := m.DecodeState(b)
	require.NoError(t, err)
	require.Equal(t, want, Fingerprint(back.Result()), "decode(encode(s))")
	b2, err := back.MarshalBinary()
	require.NoError(t, err)
	back2, err := m.DecodeState(b2)
	require.NoError(t, err)
	require.Equal(t, want, Fingerprint(back2.Result()), "decode(encode(decode(encode(s))))")
	// Truncated state bytes are an error, never a panic.
	for _, n := range []int{0, len(b) / 2, len(b) - 1} {
		if n < 0 || n >= len(b) {
			continue
		}
		_, err := m.DecodeState(b[:n])
		require.Error(t, err, "decoding %d of %d bytes must fail", n, len(b))
	}

	// Weighted add equals repeated add.
	if len(exs) > 0 {
		w := m.NewState()
		r := m.NewState()
		w.Add(&exs[0], 3)
		for i := 0; i < 3; i++ {
			r.Add(&exs[0], 1)
		}
		for i := 1; i < len(exs); i++ {
			w.Add(&exs[i], 1)
			r.Add(&exs[i], 1)
		}
		require.Equal(t, Fingerprint(r.Result()), Fingerprint(w.Result()), "Add(x, 3) = 3×Add(x, 1)")
	}
}

// Fingerprint renders a result with every float as its exact bits, for bit-identity checks.
func Fingerprint(r core.Result) string {
	var buf bytes.Buffer
	writeExact(&buf, r.Value)
	buf.WriteString("|" + r.Reason + "|")
	keys := make([]string, 0, len(r.Details))
	for k := range r.Details {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		buf.WriteString(k + "=")
		writeExact(&buf, r.Details[k])
		buf.WriteString(";")
	}
	return buf.String()
}

func writeExact(buf *bytes.Buffer, x any) {
	v := reflect.ValueOf(x)
	if !v.IsValid() {
		buf.WriteString("null")
		return
	}
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		fmt.Fprintf(buf, "%x", math.Float64bits(v.Float()))
	case reflect.Slice, reflect.Array:
		buf.WriteString("[")
		for i := 0; i < v.Len(); i++ {
			writeExact(buf, v.Index(i).Interface())
			buf.WriteString(",")
		}
		buf.WriteString("]")
	case reflect.Map:
		keys := v.MapKeys()
		ks := make([]string, len(keys))
		m := map[string]reflect.Value{}
		for i, k := range keys {
			ks[i] = fmt.Sprint(k.Interface())
			m[ks[i]] = v.MapIndex(k)
		}
		sort.Strings(ks)
		buf.WriteString("{")
		for _, k := range ks {
			buf.WriteString(k + ":")
			writeExact(buf, m[k].Interface())
			buf.WriteString(",")
		}
		buf.WriteString("}")
	default:
		fmt.Fprint(buf, x)
	}
}

// RequireCorruptPrefixes requires every proper prefix of s's bytes to decode as corrupt (an
// error wrapping core.ErrCorruptState, never a panic or a state).
func RequireCorruptPrefixes(t *testing.T, m core.Metric, s core.State) {
	t.Helper()
	b, err := s.MarshalBinary()
	require.NoError(t, err)
	for n := range len(b) {
		_, err := m.DecodeState(b[:n])
		require.ErrorIs(t, err, core.ErrCorruptState, "%d of %d bytes", n, len(b))
	}
}

// RequireCorruptWhenBroken requires s's bytes to decode, and to decode as corrupt once
// breakState has made s inconsistent (which its encoder writes as it is).
func RequireCorruptWhenBroken[S core.State](t *testing.T, m core.Metric, s S, breakState func(S)) {
	t.Helper()
	b, err := s.MarshalBinary()
	require.NoError(t, err)
	_, err = m.DecodeState(b)
	require.NoError(t, err, "the unbroken state decodes")
	breakState(s)
	b, err = s.MarshalBinary()
	require.NoError(t, err)
	_, err = m.DecodeState(b)
	require.ErrorIs(t, err, core.ErrCorruptState)
}
