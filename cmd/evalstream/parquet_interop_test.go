package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// parquetMetrics score the columns of sources/parquet/testdata/parquet, one run each (a record
// missing a field of any metric would be rejected for all): correlations between decimals
// of every physical type and integers or floats, classification of integers against scale-0
// decimals, BLEU of strings against lists. Records with a null or out-of-range field are
// rejected and counted, so the rejection counts are compared too.
var parquetMetrics = []string{
	"{type: pearson, prediction: d9_2, label: f64}",
	"{type: spearman, prediction: d18_4, label: d38_10}",
	"{type: pearson, prediction: d38_0, label: i64}",
	"{type: pearson, prediction: d2_1, label: f32}",
	"{type: spearman, prediction: d76_20, label: d5_0}",
	"{type: pearson, prediction: i32, label: id}",
	"{type: accuracy, prediction: label, label: d5_0}",
	"{type: bleu, prediction: s, references: toks}",
}

// TestParquetWritersScoreAsJSONL scores Parquet files of pyarrow, duckdb and polars and
// their JSONL twin: the results are identical, byte for byte. (The sources tests compare
// every fixture's decoded values with the twin's; these four cover LZ4_RAW,
// BYTE_STREAM_SPLIT, the DELTA encodings, data pages v2 and decimals of each writer, end
// to end, at a process start per run.)
var inputPosition = regexp.MustCompile(`"[^"]*\.(?:jsonl|parquet):(\d+)"`)

func TestParquetWritersScoreAsJSONL(t *testing.T) {
	data, err := filepath.Abs(filepath.Join("..", "..", "sources", "parquet", "testdata", "parquet"))
	require.NoError(t, err)
	dir := t.TempDir()
	runs := 0
	score := func(path, metric string) string {
		runs++
		cfg := fmt.Sprintf("source: {type: file, path: %q}\npipeline: {on_error: skip}\nmetrics:\n  - %s\nsinks:\n  - {type: json, path: out/%d.json}\n", path, metric, runs)
		p := filepath.Join(dir, fmt.Sprintf("%d.yaml", runs))
		require.NoError(t, os.WriteFile(p, []byte(cfg), 0o644))
		r := run(t, dir, "run", "-c", p)
		require.Equal(t, 0, r.code, r.stderr)
		// error_examples name the input file: compare their rows.
		return inputPosition.ReplaceAllString(readResults(t, filepath.Join(dir, "out", fmt.Sprintf("%d.json", runs))), `"ROW $1"`)
	}
	var paths []string
	for _, name := range []string{"pa_bss_v2_lz4", "pa_delta_v1", "duck_v2_zstd", "pl_lz4"} {
		paths = append(paths, filepath.Join(data, name+".parquet"))
	}
	for _, metric := range parquetMetrics {
		want := score(filepath.Join(data, "records.jsonl"), metric)
		require.NotContains(t, want, `"records": 0,`, metric)
		for _, p := range paths {
			name := filepath.Base(p)
			if strings.Contains(metric, "d76_20") && !strings.HasPrefix(name, "pa_") {
				continue // only pyarrow writes decimals of more than 38 digits
			}
			require.Equal(t, want, score(p, metric), "%s: %s", name, metric)
		}
	}
	// duckdb's type for the literal 0.5 is DECIMAL.
	lit := "{type: pearson, prediction: lit, label: id}"
	require.Equal(t, score(filepath.Join(data, "duck_literals.jsonl"), lit), score(filepath.Join(data, "duck_literals.parquet"), lit))
}
