package sinks

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/pipeline"
)

func TestHTMLSink(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	res := &pipeline.Results{Records: 3, Errors: map[string]int64{},
		Metrics: []pipeline.MetricResult{{Name: "acc<x>", Type: "accuracy", Signature: "s", Result: core.Result{Value: 2.0 / 3}}}}
	cases := []struct {
		name, path, err string
	}{
		{"file", filepath.Join(dir, "out", "r.html"), ""},
		{"directory", filepath.Join(dir, "sub"), "is a directory"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := (&HTML{Path: c.path}).Write(context.Background(), res)
			if c.err != "" {
				require.ErrorContains(t, err, c.err)
				entries, rerr := os.ReadDir(dir)
				require.NoError(t, rerr)
				for _, e := range entries {
					require.Contains(t, []string{"sub", "out"}, e.Name(), "a failed write left a file behind")
				}
				return
			}
			require.NoError(t, err)
			b, err := os.ReadFile(c.path)
			require.NoError(t, err)
			require.Contains(t, string(b), `<th scope="row">acc&lt;x&gt;</th><td>accuracy</td><td class="num value" title="0.6666666666666666">0.6667</td>`)
		})
	}
	require.Equal(t, "higher", MetricDirection("accuracy"))
	require.Equal(t, "", MetricDirection("no-such-type"))
}
