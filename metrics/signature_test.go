package metrics

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/evalstream/evalstream/internal/buildinfo"
	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/internal/goldentest"
)

// sigForm is the one form of every metric signature (core.Sig).
var sigForm = regexp.MustCompile(`^type:([a-z0-9_]+)\|compat:([a-z0-9_-]+)((?:\|[a-z][a-z0-9_]*:[^|:]*)*)\|version:` +
	regexp.QuoteMeta(buildinfo.Version) + `$`)

// TestSignatureForm: every registered type × preset has a signature of the one form, led by
// its type and preset, with each key once and the release last; no data key (nrefs) before
// records are seen.
func TestSignatureForm(t *testing.T) {
	for _, d := range Docs() {
		for _, p := range d.Presets {
			t.Run(d.Type+"/"+p, func(t *testing.T) {
				m, err := New(defaultEntry(d, p))
				require.NoError(t, err)
				sig := m.Signature()
				g := sigForm.FindStringSubmatch(sig)
				require.NotNil(t, g, "%q is not of the form type:T|compat:P|key:value...|version:%s", sig, buildinfo.Version)
				require.Equal(t, d.Type, g[1], sig)
				require.Equal(t, p, g[2], sig)
				seen := map[string]bool{}
				for _, kv := range strings.Split(sig, "|") {
					k, _, _ := strings.Cut(kv, ":")
					require.False(t, seen[k], "key %s twice in %q", k, sig)
					seen[k] = true
				}
				require.False(t, seen["nrefs"], "nrefs depends on the records: %q", sig)
				require.Equal(t, sig, core.SigOptions(sig)+"|version:"+buildinfo.Version)
			})
		}
	}
}

// TestSignatureCoversOptions: two values of an option that give different values on the
// golden records of a type × preset give different signatures (the signature covers every
// option that changes the value). The candidate values of an option are a few numbers and
// booleans and the words of its documentation (its choices); those the metric refuses are
// skipped.
func TestSignatureCoversOptions(t *testing.T) {
	cases := goldenCases(t)
	pairs := 0
	optionsSeen := 0
	for _, d := range Docs() {
		for _, p := range d.Presets {
			gc := cases[d.Type+"/"+p]
			require.NotEmpty(t, gc, "%s/%s has no golden cases", d.Type, p)
			dm, err := New(defaultEntry(d, p))
			require.NoError(t, err)
			fieldOption := map[string]bool{"compat": true}
			for _, r := range dm.Roles() {
				fieldOption[r.Name] = true // names the record field a role reads
			}
			for _, o := range d.Options {
				if fieldOption[o.Name] {
					continue
				}
				type variant struct {
					val        any
					sigs, vals []string
				}
				var vs []variant
				for _, v := range candidates(o) {
					if sigs, vals, ok := runVariant(d.Type, p, o.Name, v, gc); ok {
						vs = append(vs, variant{v, sigs, vals})
					}
				}
				if len(vs) >= 2 {
					optionsSeen++
				}
				for i := range vs {
					for j := i + 1; j < len(vs); j++ {
						for k := range gc {
							if vs[i].vals[k] == vs[j].vals[k] {
								continue
							}
							pairs++
							require.NotEqual(t, vs[i].sigs[k], vs[j].sigs[k], "%s/%s case %s: %s=%v and %s=%v give different values but one signature",
								d.Type, p, gc[k].Name, o.Name, vs[i].val, o.Name, vs[j].val)
						}
					}
				}
			}
		}
	}
	t.Logf("%d options with several accepted values; %d value-changing pairs checked", optionsSeen, pairs)
	require.Greater(t, optionsSeen, 40)
	require.Greater(t, pairs, 200)
}

// defaultEntry is the config entry of type d with preset p and its defaults (a required
// option, a retrieval cutoff, gets 10).
func defaultEntry(d core.Doc, p string) map[string]any {
	entry := map[string]any{"type": d.Type, "compat": p}
	for _, o := range d.Options {
		if o.Default == "required" {
			entry[o.Name] = 10
		}
	}
	return entry
}

// maxSigCases bounds the golden cases per type × preset that TestSignatureCoversOptions runs
// each candidate value on.
const maxSigCases = 12

// goldenCases maps type/preset to its golden cases that score records.
func goldenCases(t *testing.T) map[string][]goldentest.Case {
	files, err := filepath.Glob("../testdata/goldens/*.json")
	require.NoError(t, err)
	out := map[string][]goldentest.Case{}
	for _, f := range files {
		for _, c := range goldentest.Load(t, f).Cases {
			if c.Reject == "" {
				key := fmt.Sprintf("%v/%v", c.Metric["type"], presetOf(c.Metric))
				if len(out[key]) < maxSigCases {
					out[key] = append(out[key], c)
				}
			}
		}
	}
	return out
}

var docWord = regexp.MustCompile(`[A-Za-z0-9_.+-]+`)

// candidates are the values tried for option o.
func candidates(o core.OptionDoc) []any {
	out := []any{true, false, 0, 1, 2, 3, 5, 7, 0.25, 0.75, -100, "none"}
	seen := map[string]bool{}
	for _, v := range out {
		seen[fmt.Sprint(v)] = true
	}
	for _, w := range docWord.FindAllString(o.Default+" "+o.Help, -1) {
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// runVariant builds type typ with preset p and option name = v over the options of each
// golden case and returns, per case, the signature and a fingerprint of the value. ok is
// false when the metric refuses the option value.
func runVariant(typ, p, name string, v any, gc []goldentest.Case) (sigs, vals []string, ok bool) {
	ctor := func(typ string, o *core.Options) (core.Metric, error) { return constructors[typ](o) }
	for _, c := range gc {
		c.Metric = cloneMap(c.Metric)
		c.Metric["compat"] = p
		c.Metric[name] = v
		m, fields, err := goldentest.Build(c, ctor)
		if err != nil {
			return nil, nil, false
		}
		st := m.NewState()
		for _, ex := range goldentest.Examples(fields, c.Records) {
			if m.Check(&ex) == nil {
				st.Add(&ex, 1)
			}
		}
		r := st.Result()
		sigs = append(sigs, m.Signature())
		vals = append(vals, goldentest.Fingerprint(core.Result{Value: r.Value, Reason: r.Reason}))
	}
	return sigs, vals, true
}

func cloneMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
