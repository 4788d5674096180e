package bench

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/evalstream/evalstream/metrics"
	"github.com/evalstream/evalstream/pipeline"
)

// RunFile counts every pass into one Progress (what `evalstream bench` shows), and announces
// the bytes all the passes read together before the first.
func TestRunFileProgress(t *testing.T) {
	for _, c := range []struct {
		name      string
		file      string
		mix       string
		scoreOnly bool
		passes    int64
	}{
		{"jsonl, stages and scoring", "t.jsonl", "bleu", false, 2 + 2*2},
		{"jsonl, scoring only", "t.jsonl", "bleu", true, 2 * 2},
		{"arrow columns", "c.arrow", "classification", false, 2 + 2*2},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), c.file)
			const n = 700
			require.NoError(t, WriteCorpus(path, Mixes[c.mix], n))
			st, err := os.Stat(path)
			require.NoError(t, err)
			var ms []*metrics.Metric
			for _, spec := range Mixes[c.mix].Metrics[:1] {
				m, err := metrics.New(map[string]any{"type": spec})
				require.NoError(t, err)
				ms = append(ms, m)
			}
			prog := &pipeline.Progress{}
			var total int64
			starts := 0
			rep, err := RunFile(context.Background(), FileOptions{Input: path, Plan: pipeline.NewPlan(ms, nil), Specs: Mixes[c.mix].Metrics[:1],
				Mix: Mixes[c.mix], Workers: []int{1, 2}, Repeat: 2, Batch: 64, MaxRecordBytes: 1 << 20, ScoreOnly: c.scoreOnly, Stderr: io.Discard,
				Progress: prog, ProgressStart: func(b int64) { total = b; starts++ }})
			require.NoError(t, err)
			require.Equal(t, int64(n), rep.Records)
			require.Equal(t, 1, starts)
			require.Equal(t, st.Size()*c.passes, total)
			require.Equal(t, int64(n)*c.passes, prog.Records.Load())
			require.Equal(t, total, prog.Bytes.Load(), "the progress reaches 100%% at the end")
		})
	}
}
