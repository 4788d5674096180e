package htmlreport

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/net/html"
)

var update = flag.Bool("update", false, "rewrite the golden structure files")

func loadRun(t *testing.T, path string) *Run {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	r, err := ParseResults(b)
	require.NoError(t, err)
	return r
}

func direction(typ string) string {
	switch typ {
	case "accuracy", "f1", "mcc":
		return "higher"
	case "perplexity":
		return "lower"
	}
	return "none"
}

// hostileInput is the page with every optional part: hostile names, a baseline, a history.
func hostileInput(t *testing.T) Input {
	t.Helper()
	hist, err := ReadHistory("testdata/history.jsonl")
	require.NoError(t, err)
	return Input{Title: "nightly <b>eval</b>", Source: "testdata/hostile.json", Run: loadRun(t, "testdata/hostile.json"),
		Baseline: loadRun(t, "testdata/baseline.json"), BaselineName: "baseline.json", History: hist, Direction: direction}
}

func render(t *testing.T, in Input) []byte {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, Render(&b, in))
	return b.Bytes()
}

func parse(t *testing.T, page []byte) *html.Node {
	t.Helper()
	doc, err := html.Parse(bytes.NewReader(page))
	require.NoError(t, err)
	return doc
}

func walk(n *html.Node, fn func(*html.Node)) {
	fn(n)
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walk(c, fn)
	}
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func text(n *html.Node) string {
	var b strings.Builder
	walk(n, func(c *html.Node) {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
	})
	return b.String()
}

// structure summarises the page for the golden files: headings, header facts, every table
// with its rows, every chart with its title and mark counts. Layout details (coordinates,
// colours) are not in it, so the golden files change only when content changes.
func structure(doc *html.Node) string {
	var b strings.Builder
	walk(doc, func(n *html.Node) {
		if n.Type != html.ElementNode {
			return
		}
		switch n.Data {
		case "h1", "h2":
			fmt.Fprintf(&b, "%s %s\n", n.Data, text(n))
		case "dt":
			fmt.Fprintf(&b, "fact %s = %s\n", text(n), text(n.NextSibling))
		case "table":
			fmt.Fprintf(&b, "table.%s\n", attr(n, "class"))
			walk(n, func(r *html.Node) {
				if r.Type != html.ElementNode || r.Data != "tr" {
					return
				}
				var cells []string
				for c := r.FirstChild; c != nil; c = c.NextSibling {
					if c.Type == html.ElementNode {
						s := text(c)
						if t := attr(c, "title"); t != "" && t != s {
							s += " {" + t + "}"
						}
						cells = append(cells, s)
					}
				}
				fmt.Fprintf(&b, "  | %s\n", strings.Join(cells, " | "))
			})
		case "svg":
			counts := map[string]int{}
			walk(n, func(c *html.Node) {
				if c.Type == html.ElementNode {
					counts[c.Data]++
				}
			})
			title := ""
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				if c.Type == html.ElementNode && c.Data == "title" {
					title = text(c)
					break
				}
			}
			fmt.Fprintf(&b, "svg.%s %q rect=%d text=%d line=%d circle=%d path=%d\n", attr(n, "class"), title,
				counts["rect"], counts["text"], counts["line"], counts["circle"], counts["path"])
		case "figcaption", "footer":
			fmt.Fprintf(&b, "%s %s\n", n.Data, text(n))
		}
	})
	return b.String()
}

// decisionsInput is the page of a run with intervals, the run's description, a failed gate
// and a calibration error, with a history carrying intervals and the windows of a windowed
// run.
func decisionsInput(t *testing.T) Input {
	hist, err := ReadHistory("testdata/history_ci.jsonl")
	require.NoError(t, err)
	b, err := os.ReadFile("testdata/windows.json")
	require.NoError(t, err)
	var raws []json.RawMessage
	require.NoError(t, json.Unmarshal(b, &raws))
	var wins []*Run
	for _, raw := range raws {
		w, err := ParseResults(raw)
		require.NoError(t, err)
		wins = append(wins, w)
	}
	return Input{Source: "decisions.json", Run: loadRun(t, "testdata/decisions.json"), History: hist, Windows: wins, Direction: direction}
}

func TestGoldenStructure(t *testing.T) {
	cases := []struct {
		name string
		in   func(t *testing.T) Input
	}{
		{"classification", func(t *testing.T) Input {
			return Input{Source: "classification.json", Run: loadRun(t, "testdata/classification.json"), Direction: direction}
		}},
		{"hostile", hostileInput},
		{"decisions", decisionsInput},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := structure(parse(t, render(t, c.in(t))))
			golden := filepath.Join("testdata", c.name+".structure.golden")
			if *update {
				require.NoError(t, os.WriteFile(golden, []byte(got), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err)
			require.Equal(t, string(want), got)
		})
	}
}

func TestHostileNamesAreEscaped(t *testing.T) {
	page := render(t, hostileInput(t))
	doc := parse(t, page)
	walk(doc, func(n *html.Node) {
		if n.Type != html.ElementNode {
			return
		}
		require.NotContains(t, []string{"script", "img", "b", "iframe", "object", "embed", "link"}, n.Data, "element injected by a name")
		for _, a := range n.Attr {
			require.False(t, strings.HasPrefix(a.Key, "on"), "event handler attribute %s=%q injected", a.Key, a.Val)
		}
	})
	// the hostile names are shown as text, not dropped
	s := string(page)
	require.Contains(t, s, "&lt;script&gt;alert(&#39;metric&#39;)&lt;/script&gt;")
	require.Contains(t, s, "lang=&#34;&gt;&lt;img src=x onerror=alert(1)&gt;")
	require.Contains(t, s, "&lt;/style&gt;&lt;script&gt;alert(&#39;reason&#39;)&lt;/script&gt;")
	require.Equal(t, 1, strings.Count(s, "</style>"), "a reason closed the style element")
	require.Contains(t, text(doc), "nightly <b>eval</b>")
}

// TestSelfContained: the page references nothing outside itself. The SVG namespace URI is
// a name, not a fetch.
func TestSelfContained(t *testing.T) {
	for _, in := range []Input{hostileInput(t), {Run: loadRun(t, "testdata/classification.json")}} {
		page := render(t, in)
		walk(parse(t, page), func(n *html.Node) {
			if n.Type != html.ElementNode {
				return
			}
			for _, a := range n.Attr {
				require.NotContains(t, []string{"src", "href", "xlink:href", "srcset", "action", "data"}, a.Key, "<%s %s=%q>", n.Data, a.Key, a.Val)
			}
		})
		rest := strings.ReplaceAll(string(page), `xmlns="http://www.w3.org/2000/svg"`, "")
		require.NotContains(t, rest, "http:")
		require.NotContains(t, rest, "https:")
		require.NotContains(t, rest, "@import")
		require.NotContains(t, rest, "@font-face")
	}
}

// TestTableValuesEqualResults: every scalar in the metrics table is the results JSON's value,
// shown to at least 4 significant digits, with the exact value in its tooltip.
func TestTableValuesEqualResults(t *testing.T) {
	run := loadRun(t, "testdata/classification.json")
	doc := parse(t, render(t, Input{Run: run}))
	got := map[string]*html.Node{}
	walk(doc, func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "tr" && attr(n, "data-metric") != "" {
			walk(n, func(c *html.Node) {
				if c.Type == html.ElementNode && strings.Contains(attr(c, "class"), "value") {
					got[attr(n, "data-metric")] = c
				}
			})
		}
	})
	require.Len(t, got, len(run.Metrics))
	for _, m := range run.Metrics {
		v, ok := m.Scalar()
		if !ok {
			continue
		}
		cell := got[m.Name]
		exact, err := strconv.ParseFloat(attr(cell, "title"), 64)
		require.NoError(t, err)
		require.Equal(t, v, exact, m.Name)
		shown, err := strconv.ParseFloat(text(cell), 64)
		require.NoError(t, err)
		require.InEpsilon(t, v, shown, 5e-4, m.Name)
	}
}

func TestShort(t *testing.T) {
	cases := []struct {
		v    float64
		want string
	}{
		{0, "0"}, {1, "1"}, {1140, "1140"}, {0.6878, "0.6878"}, {0.68777646, "0.6878"},
		{2.0476, "2.048"}, {12.5, "12.50"}, {0.000123456, "0.0001235"}, {-0.1, "-0.1000"},
		{1234.5678, "1235"}, {1e-9, "1e-09"}, {123456.7, "123457"},
	}
	for _, c := range cases {
		require.Equal(t, c.want, short(c.v), "%v", c.v)
	}
}

func TestDeltas(t *testing.T) {
	in := hostileInput(t)
	rows := map[string]metricRow{}
	for _, r := range buildPage(in).Rows {
		rows[r.Name] = r
	}
	acc := rows["<script>alert('metric')</script>"]
	require.Equal(t, "-0.05000", acc.Delta.Text)
	require.Equal(t, "worse", acc.DeltaClass)
	f1 := rows["f1"]
	require.Equal(t, "+0.01235", f1.Delta.Text)
	require.Equal(t, "better", f1.DeltaClass)
	require.Equal(t, "new", rows["mcc"].Delta.Text)
	require.Equal(t, "—", rows["confusion"].Delta.Text, "no delta between matrices")
	require.True(t, rows["confusion"].HasBase)
}

func TestParseErrors(t *testing.T) {
	cases := []struct{ in, want string }{
		{`[1,2]`, "not a results JSON"},
		{`{"metrics":{}}`, `expected an object with "records" and "metrics"`},
		{`{"records":1,"metrics":[]}`, "metrics: expected an object"},
		{`{"records":1,"metrics":{"a":{"type":"x","value":1}},"slices":{"s":{"records":"many"}}}`, `slices: slice "s"`},
	}
	for _, c := range cases {
		_, err := ParseResults([]byte(c.in))
		require.ErrorContains(t, err, c.want, c.in)
	}
}

func TestReadHistoryErrors(t *testing.T) {
	cases := []struct{ in, want string }{
		{"{\"time\":\"2026-01-01T00:00:00Z\",\"results\":{\"records\":1,\"metrics\":{}}}\nnot json\n", "h.jsonl:2: not a history line"},
		{"{\"time\":\"yesterday\",\"results\":{\"records\":1,\"metrics\":{}}}\n", "h.jsonl:1: time: expected an RFC 3339 timestamp"},
		{"{\"time\":\"2026-01-01T00:00:00Z\"}\n", `h.jsonl:1: expected a "results" member`},
	}
	for _, c := range cases {
		_, err := parseHistory("h.jsonl", strings.NewReader(c.in))
		require.ErrorContains(t, err, c.want)
	}
	h, err := parseHistory("h.jsonl", strings.NewReader("\n{\"time\":\"2026-01-01T00:00:00Z\",\"results\":{\"records\":7,\"metrics\":{}}}\n\n"))
	require.NoError(t, err)
	require.Len(t, h, 1)
	require.Equal(t, int64(7), h[0].Run.Records)
}
