package metrics

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/internal/goldentest"
	"github.com/stretchr/testify/require"
)

// TestCatalogue checks that every documented type has a constructor, builds with its
// defaults and every preset, and lists its options.
func TestCatalogue(t *testing.T) {
	docs := Docs()
	require.Len(t, docs, len(constructors))
	for _, d := range docs {
		require.Contains(t, constructors, d.Type)
		require.NotEmpty(t, d.Presets, d.Type)
		require.NotEmpty(t, d.Value, d.Type)
		require.Contains(t, []string{core.DirectionHigher, core.DirectionLower, core.DirectionNone}, d.Direction, d.Type)
		for _, p := range d.Presets {
			entry := map[string]any{"type": d.Type, "compat": p}
			for _, o := range d.Options {
				// An option without a default (retrieval cutoffs) must be given.
				if o.Default == "required" {
					_, err := New(entry)
					require.ErrorContains(t, err, o.Name+":", "%s without %s", d.Type, o.Name)
					entry[o.Name] = 10
				}
			}
			m, err := New(entry)
			require.NoError(t, err, "%s compat=%s", d.Type, p)
			require.NotEmpty(t, m.Signature())
			require.Len(t, m.Fields, len(m.Roles()))
		}
	}
	_, err := New(map[string]any{"type": "bleu", "bogus": 1})
	require.ErrorContains(t, err, "bogus: unknown option")
	_, err = New(map[string]any{"type": "nope"})
	require.ErrorContains(t, err, "unknown metric type")
}

// TestGoldensThroughRegistry runs every golden case through metrics.New (the path the CLI
// takes), requires each documented type and preset to have golden cases, and logs the
// largest relative error per type and preset.
func TestGoldensThroughRegistry(t *testing.T) {
	files, err := filepath.Glob("../testdata/goldens/*.json")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	maxErr := map[string]float64{}
	cases := map[string]int{}
	ctor := func(typ string, o *core.Options) (core.Metric, error) {
		c, ok := constructors[typ]
		if !ok {
			return nil, fmt.Errorf("unknown type %q", typ)
		}
		return c(o)
	}
	for _, f := range files {
		gf := goldentest.Load(t, f)
		for _, c := range gf.Cases {
			key := fmt.Sprintf("%v/%v", c.Metric["type"], presetOf(c.Metric))
			goldentest.MaxRelErr = 0
			t.Run(filepath.Base(f)+"/"+c.Name, func(t *testing.T) {
				m, fields, err := goldentest.Build(c, ctor)
				require.NoError(t, err)
				exs := goldentest.Examples(fields, c.Records)
				if c.Reject != "" {
					return
				}
				st := m.NewState()
				for i := range exs {
					require.NoError(t, m.Check(&exs[i]))
					st.Add(&exs[i], 1)
				}
				rtol := c.RTol
				if rtol == 0 {
					rtol = 1e-9
				}
				goldentest.CompareValue(t, "value", c.Value, st.Result().Value, rtol)
			})
			cases[key]++
			if goldentest.MaxRelErr > maxErr[key] {
				maxErr[key] = goldentest.MaxRelErr
			}
		}
	}
	var missing, lines []string
	for _, d := range Docs() {
		for _, p := range d.Presets {
			key := d.Type + "/" + p
			if cases[key] == 0 {
				missing = append(missing, key)
			}
		}
	}
	for k, n := range cases {
		lines = append(lines, fmt.Sprintf("%-32s %5d cases  max rel err %.3g", k, n, maxErr[k]))
	}
	sort.Strings(lines)
	t.Logf("golden coverage:\n%s", strings.Join(lines, "\n"))
	require.Empty(t, missing, "type/preset without golden cases")
}

func presetOf(m map[string]any) string {
	if p, ok := m["compat"]; ok {
		return fmt.Sprint(p)
	}
	for _, d := range Docs() {
		if d.Type == fmt.Sprint(m["type"]) {
			return d.Presets[0]
		}
	}
	return "?"
}
