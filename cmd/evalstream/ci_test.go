package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	corpuswriter "github.com/evalstream/evalstream/sinks/corpus"
)

// ciMetrics counts, in a results JSON, the metrics (overall and per slice) that carry a ci
// object, and checks every interval's shape.
func ciMetrics(t *testing.T, results string, resamples int) int {
	t.Helper()
	var v struct {
		Metrics map[string]struct {
			Value any             `json:"value"`
			CI    *map[string]any `json:"ci"`
		} `json:"metrics"`
		Slices map[string]struct {
			Metrics map[string]struct {
				Value any             `json:"value"`
				CI    *map[string]any `json:"ci"`
			} `json:"metrics"`
		} `json:"slices"`
	}
	require.NoError(t, json.Unmarshal([]byte(results), &v), results)
	n := 0
	check := func(name string, ci *map[string]any) {
		if ci == nil {
			return
		}
		n++
		c := *ci
		require.Equal(t, "poisson", c["method"], name)
		require.EqualValues(t, resamples, c["resamples"], name)
		require.Contains(t, c, "low", name)
		require.Contains(t, c, "high", name)
		require.Contains(t, c, "stderr", name)
	}
	for name, m := range v.Metrics {
		check(name, m.CI)
	}
	for key, s := range v.Slices {
		for name, m := range s.Metrics {
			check(key+"/"+name, m.CI)
		}
	}
	return n
}

// TestCIDeterminism: with `ci` on, results (values and intervals, overall and per slice)
// are bit-identical across workers, batch sizes, file formats, the same rows split over
// several files (with ci.key), and saved states merged in any order (statistics.md §1).
func TestCIDeterminism(t *testing.T) {
	dir := t.TempDir()
	recs := corpus(240, 5)
	require.NoError(t, corpuswriter.Write(filepath.Join(dir, "c.jsonl"), recs))
	require.NoError(t, corpuswriter.Write(filepath.Join(dir, "c.parquet"), recs))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "parts"), 0o755))
	require.NoError(t, corpuswriter.Write(filepath.Join(dir, "parts", "b.jsonl"), recs[:70]))
	require.NoError(t, corpuswriter.Write(filepath.Join(dir, "parts", "a.parquet"), recs[70:200]))
	require.NoError(t, corpuswriter.Write(filepath.Join(dir, "parts", "c.arrow"), recs[200:]))

	const resamples = 40
	keyed := writeConfig(t, dir, "keyed", "c.jsonl", fmt.Sprintf("ci: {resamples: %d, seed: 99, key: id}\n", resamples))
	r := run(t, dir, "run", "-c", keyed)
	require.Equal(t, 0, r.code, r.stderr)
	want := readResults(t, filepath.Join(dir, "out/keyed.json"))
	// Every metric but the confusion matrix has an interval, overall and in each of 3 slices.
	require.Equal(t, 4*14, ciMetrics(t, want, resamples), want)

	variant := func(name string, args ...string) string {
		t.Helper()
		out := "out/" + name + ".json"
		r := run(t, dir, append([]string{"run", "-c", keyed, "--set", "sinks[0].path=" + out}, args...)...)
		require.Equal(t, 0, r.code, "%s: %s", name, r.stderr)
		return readResults(t, filepath.Join(dir, out))
	}
	for _, wb := range [][2]string{{"1", "1"}, {"2", "7"}, {"4", "4096"}, {"4", "1"}} {
		name := "w" + wb[0] + "b" + wb[1]
		require.Equal(t, want, variant(name, "--set", "pipeline.workers="+wb[0], "--set", "pipeline.batch_size="+wb[1]), name)
	}
	require.Equal(t, want, variant("parquet", "--set", "source.path=c.parquet"), "parquet")
	// The same rows split over three files of three formats, read as a directory.
	require.Equal(t, want, variant("dir", "--set", "source.path=parts", "--set", "pipeline.workers=2", "--set", "pipeline.batch_size=5"), "split over files")

	// Each part saved as a state (replicates included), merged and reported in any order.
	var states []string
	for _, part := range []string{"parts/c.arrow", "parts/a.parquet", "parts/b.jsonl"} {
		st := filepath.Join("out", filepath.Base(part)+".state")
		r := run(t, dir, "run", "-c", keyed, "--set", "source.path="+part, "--set", "sinks[0].path=out/part.json", "--save-state", st)
		require.Equal(t, 0, r.code, r.stderr)
		states = append(states, st)
	}
	for i, order := range [][]int{{0, 1, 2}, {2, 0, 1}, {1, 2, 0}} {
		merged := fmt.Sprintf("out/merged%d.state", i)
		r := run(t, dir, "merge", "-o", merged, states[order[0]], states[order[1]], states[order[2]])
		require.Equal(t, 0, r.code, r.stderr)
		r = run(t, dir, "report", "--format", "json", merged)
		require.Equal(t, 0, r.code, r.stderr)
		require.Equal(t, want, r.stdout, "merge order %v", order)
	}
	r = run(t, dir, "report", "--format", "json", states[1], states[2], states[0])
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, want, r.stdout, "report of three states")

	// Another seed resamples differently: the intervals change.
	other := variant("seed", "--set", "ci.seed=100")
	require.NotEqual(t, want, other)
	require.Equal(t, 4*14, ciMetrics(t, other, resamples))

	// Without a key the unit is the row: workers, batches and a state round trip still
	// give identical results.
	byRow := writeConfig(t, dir, "byrow", "c.jsonl", fmt.Sprintf("ci: {resamples: %d}\n", resamples))
	r = run(t, dir, "run", "-c", byRow, "--save-state", "out/byrow.state")
	require.Equal(t, 0, r.code, r.stderr)
	wantRow := readResults(t, filepath.Join(dir, "out/byrow.json"))
	require.NotEqual(t, want, wantRow, "row units and id units resample differently")
	for _, wb := range [][2]string{{"1", "1"}, {"3", "11"}} {
		out := "out/byrow-w" + wb[0] + ".json"
		r := run(t, dir, "run", "-c", byRow, "--set", "sinks[0].path="+out, "--set", "pipeline.workers="+wb[0], "--set", "pipeline.batch_size="+wb[1])
		require.Equal(t, 0, r.code, r.stderr)
		require.Equal(t, wantRow, readResults(t, filepath.Join(dir, out)), "workers %s batch %s", wb[0], wb[1])
	}
	r = run(t, dir, "report", "--format", "json", "out/byrow.state")
	require.Equal(t, 0, r.code, r.stderr)
	require.Equal(t, wantRow, r.stdout, "report of the saved state")
}
