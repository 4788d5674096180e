package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	corpuswriter "github.com/evalstream/evalstream/sinks/corpus"
)

// sourceLine is the header line naming the inputs: the one part of the page that differs
// between the sink (no input names) and `report --html FILES`.
var sourceLine = regexp.MustCompile(`\n(<p class="source">[^<]*</p>)?\n<dl `)

func readPage(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return sourceLine.ReplaceAllString(string(b), "\n<dl ")
}

// TestHTMLReport: the html sink's page, `report --html` of the run's results JSON and of its
// saved state are the same page; baseline and history add deltas and trends; bad inputs are
// usage or runtime errors naming the file.
// runMetaBlock is the header's description of the run.
var runMetaBlock = regexp.MustCompile(`<dl class="meta" id="meta">.*?</dl>`)

func TestHTMLReport(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, corpuswriter.Write(filepath.Join(dir, "c.jsonl"), corpus(200, 3)))
	cfg := "source: {type: file, path: c.jsonl}\n" + metricsYAML + "\nsinks:\n" +
		"  - {type: json, path: out/r.json}\n  - {type: jsonl, path: out/h.jsonl}\n  - {type: html, path: out/r.html}\n"
	cfgPath := filepath.Join(dir, "c.yaml")
	require.NoError(t, os.WriteFile(cfgPath, []byte(cfg), 0o644))
	for range 2 {
		r := run(t, dir, "run", "-c", cfgPath, "--save-state", "out/r.state")
		require.Equal(t, 0, r.code, r.stderr)
	}
	sink := readPage(t, filepath.Join(dir, "out/r.html"))
	require.Contains(t, sink, `<table class="metrics">`)
	require.Contains(t, sink, `<dd id="records">200</dd>`)

	r := run(t, dir, "report", "--html", "out/from-json.html", "out/r.json")
	require.Equal(t, 0, r.code, r.stderr)
	require.Empty(t, r.stdout)
	require.Equal(t, sink, readPage(t, filepath.Join(dir, "out/from-json.html")))
	r = run(t, dir, "report", "--html", "out/from-state.html", "out/r.state")
	require.Equal(t, 0, r.code, r.stderr)
	// a state does not describe the run (no run name, time or inputs): the rest is the same
	require.Contains(t, sink, `<dl class="meta" id="meta">`)
	require.Equal(t, runMetaBlock.ReplaceAllString(sink, ""), readPage(t, filepath.Join(dir, "out/from-state.html")))

	r = run(t, dir, "report", "--html", "out/full.html", "--baseline", "out/r.state", "--history", "out/h.jsonl", "out/r.json")
	require.Equal(t, 0, r.code, r.stderr)
	full := readPage(t, filepath.Join(dir, "out/full.html"))
	for _, want := range []string{`<dt>history</dt><dd>2 runs</dd>`, `<title>trend: bleu over 2 runs`,
		`<th scope="col" class="num">delta</th>`, `>±0</td>`} {
		require.True(t, strings.Contains(full, want), "page lacks %s", want)
	}
	require.False(t, strings.Contains(full, "delta worse") || strings.Contains(full, "delta better"), "a run against itself moves nothing")

	require.NoError(t, os.WriteFile(filepath.Join(dir, "bad.jsonl"), []byte("{\"time\":\"x\"}\n"), 0o644))
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"report", "--history", "out/h.jsonl", "out/r.state"}, 2, "--history and --baseline go with --html"},
		{[]string{"report", "--html", "out/x.html"}, 2, "needs STATE files or a results JSON"},
		{[]string{"report", "--html", "out/x.html", "out/r.json", "out/r.state"}, 2, "not both"},
		{[]string{"report", "--html", "out/x.html", "out/r.json", "out/r.json"}, 2, "cannot be merged"},
		{[]string{"report", "--html", "out/x.html", "--history", "bad.jsonl", "out/r.json"}, 1, "bad.jsonl:1: time: expected an RFC 3339 timestamp"},
		{[]string{"report", "--html", "out/x.html", "--baseline", "c.yaml", "out/r.json"}, 1, "c.yaml"},
		{[]string{"report", "--html", "out/x.html", "missing.json"}, 1, "missing.json"},
	}
	for _, c := range cases {
		r := run(t, dir, c.args...)
		require.Equal(t, c.code, r.code, "%v: %s", c.args, r.stderr)
		require.Contains(t, r.stderr, c.want, "%v", c.args)
		_, err := os.Stat(filepath.Join(dir, "out/x.html"))
		require.True(t, os.IsNotExist(err), "%v left a page behind", c.args)
	}
	require.False(t, strings.Contains(sink, "http://") && !strings.Contains(sink, `xmlns="http://www.w3.org/2000/svg"`))
}
