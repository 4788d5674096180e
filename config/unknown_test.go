package config

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestUnknownKeysAllAtOnce: every unknown key, at every level, is one problem that starts
// with its path and ends with the closest valid key when one is near.
func TestUnknownKeysAllAtOnce(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		want       []string
	}{
		{"top level and nested together", "soruce: {}\nsource: {type: file, paht: x}\npipeline: {on_eror: skip}\n", []string{
			`pipeline.on_eror: unknown key "on_eror" in pipeline (valid keys: batch_size, dead_letter, max_bad, on_error, workers); did you mean "on_error"?`,
			`soruce: unknown key "soruce" in the top level (valid keys: ci, gate, metrics, pipeline, run_name, sinks, slice_by, source, state, window); did you mean "source"?`,
			`source.paht: unknown key "paht" in source (valid keys: `,
			`; did you mean "path"?`,
		}},
		{"in a list", "sinks: [{type: stdout}, {type: json, pth: x, formt: y}]\n", []string{
			`sinks[1].formt: unknown key "formt" in a sink (valid keys: addr, brokers, format, path, topic, type, web_config); did you mean "format"?`,
			`sinks[1].pth: unknown key "pth" in a sink`,
		}},
		{"through a pointer", "source: {type: kafka, tls: {ca_fil: x}, sasl: {usernme: u}}\nwindow: {sise: 5m}\n", []string{
			`source.tls.ca_fil: unknown key "ca_fil" in tls (valid keys: ca_file, cert_file, insecure_skip_verify, key_file); did you mean "ca_file"?`,
			`source.sasl.usernme: unknown key "usernme" in sasl (valid keys: mechanism, password, username); did you mean "username"?`,
			`window.sise: unknown key "sise" in window (valid keys: allowed_lateness, field, size, time, type); did you mean "size"?`,
		}},
		{"two levels down", "pipeline: {dead_letter: {pth: x}}\n", []string{
			`pipeline.dead_letter.pth: unknown key "pth" in pipeline.dead_letter (valid keys: path, topic); did you mean "path"?`,
		}},
		{"nothing near", "zzzzzzzzzz: 1\n", []string{
			`zzzzzzzzzz: unknown key "zzzzzzzzzz" in the top level (valid keys: ci, gate, metrics, pipeline, run_name, sinks, slice_by, source, state, window)`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.yaml), nil)
			require.Error(t, err)
			for _, w := range tc.want {
				require.Contains(t, err.Error(), w)
			}
			c, probs, err := ParseAll([]byte(tc.yaml), nil)
			require.NoError(t, err)
			require.NotNil(t, c)
			require.Len(t, probs, len(uniqueLines(tc.want)))
		})
	}
}

// uniqueLines counts the wanted fragments that start a problem (a path), not those that
// continue one.
func uniqueLines(want []string) []string {
	var out []string
	for _, w := range want {
		if w[0] != ';' && w[0] != ' ' {
			out = append(out, w)
		}
	}
	return out
}

// TestParseAllKeepsTheRest: the config decoded past unknown keys and wrong-typed values
// keeps every valid value, so that validate can check it too.
func TestParseAllKeepsTheRest(t *testing.T) {
	c, probs, err := ParseAll([]byte("source: {type: file, path: a.jsonl, paht: x}\npipeline: {workers: many, batch_size: 7}\nmetrics: [{type: bleu}]\nsinks: [{type: stdout}]\n"), nil)
	require.NoError(t, err)
	require.Len(t, probs, 2)
	require.Contains(t, probs[0], "cannot unmarshal !!str `many` into int")
	require.Contains(t, probs[1], `source.paht: unknown key "paht"`)
	require.Equal(t, "a.jsonl", c.Source.Path)
	require.Equal(t, 7, c.Pipeline.BatchSize)
	require.Len(t, c.Metrics, 1)

	_, _, err = ParseAll([]byte("source: [\n"), nil)
	require.ErrorContains(t, err, "invalid YAML")
}
