package sinks

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/pipeline"
	"github.com/evalstream/evalstream/sources"
	"github.com/stretchr/testify/require"
)

func sample() *pipeline.Results {
	return &pipeline.Results{
		Records: 3, Skipped: 1, Errors: map[string]int64{"invalid json": 1},
		Metrics: []pipeline.MetricResult{
			{Name: "bleu", Type: "bleu", Signature: "tok:13a", Result: core.Result{Value: 0.25, Details: map[string]any{"bp": 1.0}}},
			{Name: "prec", Type: "precision", Signature: "s", Result: core.Result{Value: []float64{0.5, 1}}},
			{Name: "cm", Type: "confusion_matrix", Signature: "s", Result: core.Result{Value: [][]float64{{1, 1}, {1, 1}}}},
			{Name: "r", Type: "pearson", Signature: "s", Result: core.Undefined("constant input", nil)},
		},
		Slices: []pipeline.SliceResult{{Key: "lang=de", Records: 2, Metrics: []pipeline.MetricResult{{Name: "bleu", Type: "bleu", Result: core.Result{Value: 0.5}}}}},
	}
}

func TestJSONSinkMatchesContract(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "sub", "r.json")
	require.NoError(t, (&JSON{Path: p}).Write(context.Background(), sample()))
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	var v map[string]any
	require.NoError(t, json.Unmarshal(b, &v))
	require.EqualValues(t, 3, v["records"])
	require.EqualValues(t, 1, v["skipped"])
	m := v["metrics"].(map[string]any)
	require.Equal(t, 0.25, m["bleu"].(map[string]any)["value"])
	require.Equal(t, []any{0.5, 1.0}, m["prec"].(map[string]any)["value"])
	require.Equal(t, []any{[]any{1.0, 1.0}, []any{1.0, 1.0}}, m["cm"].(map[string]any)["value"])
	require.Nil(t, m["r"].(map[string]any)["value"])
	require.Equal(t, "constant input", m["r"].(map[string]any)["reason"])
	require.Contains(t, v["slices"], "lang=de")
	// Metrics keep the config order in the file.
	require.Less(t, bytes.Index(b, []byte(`"bleu"`)), bytes.Index(b, []byte(`"prec"`)))
	entries, _ := os.ReadDir(filepath.Dir(p))
	require.Len(t, entries, 1, "no temporary file left behind")
}

func TestTableCSVAndHistory(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, (&Table{W: &buf}).Write(context.Background(), sample()))
	out := buf.String()
	for _, want := range []string{"metric", "bleu", "0.25", "[0.5, 1]", "true 0: [1, 1]", "true 1: [1, 1]", "null (constant input)", "[lang=de] bleu", "3 scored, 1 skipped", "invalid json"} {
		require.Contains(t, out, want)
	}
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "r.csv")
	require.NoError(t, (&CSV{Path: csvPath}).Write(context.Background(), sample()))
	f, err := os.Open(csvPath)
	require.NoError(t, err)
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	require.NoError(t, err)
	require.Len(t, rows, 1+1+2+4+1+1)
	require.Equal(t, []string{"lang=de", "bleu", "bleu", "", "", "", "0.5", "2", "", ""}, rows[9][2:])

	hist := filepath.Join(dir, "h.jsonl")
	s := &JSONL{Path: hist, Signature: "sha256:x", Now: func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }}
	require.NoError(t, s.Write(context.Background(), sample()))
	require.NoError(t, s.Write(context.Background(), sample()))
	b, err := os.ReadFile(hist)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	require.Len(t, lines, 2)
	var line map[string]any
	require.NoError(t, json.Unmarshal([]byte(lines[1]), &line))
	require.Equal(t, "2026-01-02T03:04:05Z", line["time"])
	require.Equal(t, "sha256:x", line["config_signature"])
}

func TestAtomicWriteFailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(blocker, []byte("x"), 0o644))
	err := (&JSON{Path: filepath.Join(blocker, "r.json")}).Write(context.Background(), sample())
	require.Error(t, err)
	f, err := CreateAtomic(filepath.Join(dir, "a.json"))
	require.NoError(t, err)
	_, _ = f.WriteString("partial")
	f.Abort()
	entries, _ := os.ReadDir(dir)
	require.Len(t, entries, 1)
}

func TestRecordFiles(t *testing.T) {
	dir := t.TempDir()
	rf, err := NewRecordFiles(filepath.Join(dir, "dead.jsonl"), filepath.Join(dir, "ex.jsonl"), "", []string{"bleu"})
	require.NoError(t, err)
	v := 0.5
	require.NoError(t, rf.WriteBatch(context.Background(),
		[]pipeline.DeadLetter{
			{Pos: pipeline.Position{File: "a.jsonl", Row: 1}, Reason: "invalid json", Raw: []byte(`{"x":`)},
			{Pos: pipeline.Position{File: "b.arrow", Row: 0}, Reason: "wrong type", Record: &pipeline.Record{Values: []core.Value{{Kind: core.Int, Int: 7}}}, Fields: []string{"label"}},
			{Pos: pipeline.Position{Topic: "t", Partition: 2, Offset: 9}, Reason: "invalid utf-8", Raw: []byte{0xff}},
		},
		[]pipeline.ExampleRow{{Seq: 4, Pos: pipeline.Position{File: "a.jsonl", Row: 3}, ID: core.Value{Kind: core.String, Str: "x1"}, Scores: []*float64{&v}}}))
	_, err = os.Stat(filepath.Join(dir, "dead.jsonl"))
	require.True(t, os.IsNotExist(err), "nothing visible before Commit")
	require.NoError(t, rf.Commit())
	b, err := os.ReadFile(filepath.Join(dir, "dead.jsonl"))
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	require.Len(t, lines, 3)
	require.Contains(t, lines[0], `"payload":"{\"x\":"`)
	require.Contains(t, lines[0], `"position":"a.jsonl:2"`)
	require.Contains(t, lines[1], `"record":{"label":7}`)
	require.Contains(t, lines[2], `"payload_base64":"/w=="`)
	require.Contains(t, lines[2], `"position":"t/2/9"`)
	b, err = os.ReadFile(filepath.Join(dir, "ex.jsonl"))
	require.NoError(t, err)
	require.JSONEq(t, `{"seq":4,"position":"a.jsonl:4","id":"x1","scores":{"bleu":0.5}}`, strings.TrimSpace(string(b)))
}

func TestExamplesParquet(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "ex.parquet")
	rf, err := NewRecordFiles("", p, "", []string{"bleu", "chrf"})
	require.NoError(t, err)
	v := 0.25
	var rows []pipeline.ExampleRow
	for i := 0; i < 3; i++ {
		rows = append(rows, pipeline.ExampleRow{Seq: uint64(i), Pos: pipeline.Position{File: "a.jsonl", Row: int64(i)}, Slice: "lang=de", Scores: []*float64{&v, nil}})
	}
	require.NoError(t, rf.WriteBatch(context.Background(), nil, rows))
	require.NoError(t, rf.Commit())
	src, err := sources.OpenFiles(sources.FileConfig{Path: p, Format: "auto"}, []string{"seq", "slice", "bleu", "chrf"}, 10, 0)
	require.NoError(t, err)
	defer src.Close()
	batch, err := src.Next(context.Background())
	require.NoError(t, err)
	require.Len(t, batch.Records, 3)
	r := batch.Records[2]
	require.Equal(t, core.Value{Kind: core.Int, Int: 2}, r.Values[0])
	require.Equal(t, "lang=de", r.Values[1].Str)
	require.Equal(t, 0.25, r.Values[2].Float)
	require.Equal(t, core.Null, r.Values[3].Kind)
}

// A directory is refused before anything is written.
func TestAtomicWriteOfDirectories(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{dir, dir + "/"} {
		require.ErrorContains(t, CheckWritable(p), "is a directory")
		require.ErrorContains(t, (&JSON{Path: p}).Write(context.Background(), sample()), p+": is a directory")
		require.ErrorContains(t, (&JSONL{Path: p}).Write(context.Background(), sample()), "is a directory")
		_, err := NewRecordFiles(p, "", "", nil)
		require.ErrorContains(t, err, "is a directory")
	}
	require.NoError(t, CheckWritable(filepath.Join(dir, "sub", "r.json")))
	require.NoError(t, CheckAppendable(filepath.Join(dir, "sub", "h.jsonl")))
	entries, err := os.ReadDir(filepath.Join(dir, "sub"))
	require.NoError(t, err)
	require.Empty(t, entries, "the checks leave nothing behind")
	hist := filepath.Join(dir, "sub", "h.jsonl")
	require.NoError(t, os.WriteFile(hist, []byte("{}\n"), 0o444))
	require.NoError(t, CheckWritable(hist), "a read-only file can be replaced")
	if os.Geteuid() != 0 { // root may write whatever the mode
		require.ErrorContains(t, CheckAppendable(hist), "append to "+hist+": permission denied")
	}
}

// An append that fails midway is cut back: the history keeps exactly its earlier lines.
func TestHistoryAppendOnAFullDisk(t *testing.T) {
	st, err := os.Stat("/dev/full")
	if err != nil || st.Mode()&os.ModeCharDevice == 0 {
		t.Skipf("no /dev/full here (%v)", err)
	}
	err = (&JSONL{Path: "/dev/full"}).Write(context.Background(), sample())
	require.ErrorContains(t, err, "append to /dev/full: no space left on device")
	err = (&DeadLetterLog{path: "/dev/full"}).Write(context.Background(), []pipeline.DeadLetter{{Reason: "invalid json", Raw: []byte("{")}})
	require.ErrorContains(t, err, "dead letters: append to /dev/full: no space left on device")
	rf, err := NewRecordFiles("/dev/full", "", "", nil)
	require.NoError(t, err)
	require.NoError(t, rf.WriteBatch(context.Background(), []pipeline.DeadLetter{{Reason: "invalid json", Raw: []byte("{")}}, nil))
	require.ErrorContains(t, rf.Commit(), "dead letters: write /dev/full: no space left on device")
}

// TestJSONLRunMeta: a history line carries the run's description before the results, and
// its results are the results' own JSON bytes (not re-escaped by the line's encoder).
func TestJSONLRunMeta(t *testing.T) {
	hist := filepath.Join(t.TempDir(), "h.jsonl")
	start := time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC)
	r := sample()
	r.Errors = map[string]int64{"a <b> & c": 1} // escaped once, by Results.MarshalJSON
	s := &JSONL{Path: hist, Signature: "sha256:x", Now: func() time.Time { return start.Add(5 * time.Second) },
		Meta: func() RunMeta {
			return RunMeta{Run: "nightly", StartedAt: start, Duration: 1500 * time.Millisecond, Version: "9.9.9",
				GitCommit: "abc", Inputs: []Input{{Path: "in.jsonl", Size: 3, SHA256: "ff"}}, MetricsSignature: "sha256:m"}
		}}
	require.NoError(t, s.Write(context.Background(), r))
	b, err := os.ReadFile(hist)
	require.NoError(t, err)
	raw, err := r.MarshalJSON()
	require.NoError(t, err)
	want := `{"time":"2026-01-02T03:04:05Z","run":"nightly","started_at":"2026-01-02T03:04:00Z","duration_s":1.5,"version":"9.9.9","git_commit":"abc",` +
		`"input":[{"path":"in.jsonl","size":3,"sha256_first_mib":"ff"}],"metrics_signature":"sha256:m","config_signature":"sha256:x","results":` + string(raw) + "}\n"
	require.Equal(t, want, string(b))
}

// TestCSVTidyAppend: rows are tidy (per-class arrays and matrices exploded), each run's rows
// are appended under one header, and a file with another header is refused untouched.
func TestCSVTidyAppend(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "r.csv")
	at := func(sec int, run string) *CSV {
		return &CSV{Path: p, Now: func() time.Time { return time.Date(2026, 1, 2, 3, 4, sec, 0, time.UTC) },
			Meta: func() RunMeta { return RunMeta{Run: run} }}
	}
	require.NoError(t, at(5, "n1").Write(context.Background(), sample()))
	require.NoError(t, at(6, "n2").Write(context.Background(), sample()))
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	require.NoError(t, err)
	require.Equal(t, CSVHeader, rows[0])
	per := [][]string{
		{"2026-01-02T03:04:05Z", "n1", "", "bleu", "bleu", "", "", "", "0.25", "3", "", "tok:13a"},
		{"2026-01-02T03:04:05Z", "n1", "", "prec", "precision", "0", "", "", "0.5", "3", "", "s"},
		{"2026-01-02T03:04:05Z", "n1", "", "prec", "precision", "1", "", "", "1", "3", "", "s"},
		{"2026-01-02T03:04:05Z", "n1", "", "cm", "confusion_matrix", "0", "0", "", "1", "3", "", "s"},
		{"2026-01-02T03:04:05Z", "n1", "", "cm", "confusion_matrix", "0", "1", "", "1", "3", "", "s"},
		{"2026-01-02T03:04:05Z", "n1", "", "cm", "confusion_matrix", "1", "0", "", "1", "3", "", "s"},
		{"2026-01-02T03:04:05Z", "n1", "", "cm", "confusion_matrix", "1", "1", "", "1", "3", "", "s"},
		{"2026-01-02T03:04:05Z", "n1", "", "r", "pearson", "", "", "", "", "3", "constant input", "s"},
		{"2026-01-02T03:04:05Z", "n1", "lang=de", "bleu", "bleu", "", "", "", "0.5", "2", "", ""},
	}
	require.Equal(t, per, rows[1:1+len(per)])
	require.Len(t, rows, 1+2*len(per))
	require.Equal(t, []string{"2026-01-02T03:04:06Z", "n2"}, rows[1+len(per)][:2])
	require.Equal(t, 1, strings.Count(string(b), "time,run,"), "one header")

	tests := []struct {
		name, content, want string
	}{
		{"older layout", "slice,metric,type,value,records,reason,signature\n,bleu,bleu,0.25,3,,\n", "another header"},
		{"not csv", "\"unterminated\n", "does not read as CSV"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := filepath.Join(t.TempDir(), "old.csv")
			require.NoError(t, os.WriteFile(q, []byte(tt.content), 0o644))
			err := (&CSV{Path: q}).Write(context.Background(), sample())
			require.ErrorIs(t, err, ErrCSVHeader)
			require.ErrorContains(t, err, tt.want)
			require.ErrorContains(t, err, q)
			got, err := os.ReadFile(q)
			require.NoError(t, err)
			require.Equal(t, tt.content, string(got))
		})
	}
	// An empty file gets the header.
	q := filepath.Join(dir, "empty.csv")
	require.NoError(t, os.WriteFile(q, nil, 0o644))
	require.NoError(t, (&CSV{Path: q}).Write(context.Background(), sample()))
	got, err := os.ReadFile(q)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(got), strings.Join(CSVHeader, ",")+"\n"))
}

// TestCSVStageAppendsAllOrNothing: a staged CSV leaves the file as it was until Commit,
// Abort leaves it untouched, and Commit appends the rows under the existing header.
func TestCSVStageAppendsAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "r.csv")
	s := &CSV{Path: p, Now: func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }}
	require.NoError(t, s.Write(context.Background(), sample()))
	first, err := os.ReadFile(p)
	require.NoError(t, err)

	tests := []struct {
		name   string
		commit bool
		want   string
	}{
		{"abort", false, string(first)},
		{"commit", true, string(first) + strings.SplitN(string(first), "\n", 2)[1]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := s.Stage(sample())
			require.NoError(t, err)
			got, err := os.ReadFile(p)
			require.NoError(t, err)
			require.Equal(t, string(first), string(got), "unchanged while staged")
			if tt.commit {
				require.NoError(t, f.Commit())
			} else {
				f.Abort()
			}
			got, err = os.ReadFile(p)
			require.NoError(t, err)
			require.Equal(t, tt.want, string(got))
			entries, err := os.ReadDir(dir)
			require.NoError(t, err)
			require.Len(t, entries, 1, "no temporary file left")
		})
	}
}

// TestCSVClassNames: per-class rows are named by details.classes when it lists one class per
// element (the sklearn preset reports only the classes seen), else by index.
func TestCSVClassNames(t *testing.T) {
	tests := []struct {
		name    string
		value   any
		details map[string]any
		want    [][2]string // class, predicted
	}{
		{"classes listed", []float64{0.5, 1}, map[string]any{"classes": []int64{3, 7}}, [][2]string{{"3", ""}, {"7", ""}}},
		{"names listed", []float64{0.5, 1}, map[string]any{"classes": []string{"neg", "pos"}}, [][2]string{{"neg", ""}, {"pos", ""}}},
		{"length differs", []float64{0.5, 1}, map[string]any{"classes": []int64{3}}, [][2]string{{"0", ""}, {"1", ""}}},
		{"no classes", []float64{0.5, 1}, nil, [][2]string{{"0", ""}, {"1", ""}}},
		{"matrix", [][]int64{{1, 0}, {0, 1}}, map[string]any{"classes": []int64{2, 5}}, [][2]string{{"2", "2"}, {"2", "5"}, {"5", "2"}, {"5", "5"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "r.csv")
			r := &pipeline.Results{Records: 2, Metrics: []pipeline.MetricResult{{Name: "m", Type: "precision", Result: core.Result{Value: tt.value, Details: tt.details}}}}
			require.NoError(t, (&CSV{Path: p}).Write(context.Background(), r))
			f, err := os.Open(p)
			require.NoError(t, err)
			defer f.Close()
			rows, err := csv.NewReader(f).ReadAll()
			require.NoError(t, err)
			var got [][2]string
			for _, row := range rows[1:] {
				got = append(got, [2]string{row[5], row[6]})
			}
			require.Equal(t, tt.want, got)
		})
	}
}

// TestJSONRunMeta: with Meta, the results JSON starts with the run's description, in the
// history line's layout, followed by the results exactly as without it.
func TestJSONRunMeta(t *testing.T) {
	start := time.Date(2026, 11, 25, 6, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		meta RunMeta
		head string
	}{
		{"full", RunMeta{Run: "nightly", StartedAt: start, Duration: 2500 * time.Millisecond, Version: "9.9.9", GitCommit: "abc",
			Inputs: []Input{{Path: "in.jsonl", Size: 3, SHA256: "ff"}}, MetricsSignature: "sha256:m"},
			`{"run":"nightly","started_at":"2026-11-25T06:00:00Z","duration_s":2.5,"version":"9.9.9","git_commit":"abc","input":[{"path":"in.jsonl","size":3,"sha256_first_mib":"ff"}],"metrics_signature":"sha256:m",`},
		{"no commit, no inputs", RunMeta{Run: "<score>", StartedAt: start, Version: "9.9.9"},
			`{"run":"<score>","started_at":"2026-11-25T06:00:00Z","duration_s":0,"version":"9.9.9","input":[],`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "r.json")
			require.NoError(t, (&JSON{Path: p, Meta: func() RunMeta { return tt.meta }}).Write(context.Background(), sample()))
			b, err := os.ReadFile(p)
			require.NoError(t, err)
			var compact bytes.Buffer
			require.NoError(t, json.Compact(&compact, b))
			raw, err := sample().MarshalJSON()
			require.NoError(t, err)
			require.Equal(t, tt.head+string(raw[1:]), compact.String())
		})
	}
}

// TestReportValue: an object value (classification_report) prints one table row per entry,
// classes in details.classes order then the other keys sorted, and one CSV row per entry
// and statistic.
func TestReportValue(t *testing.T) {
	row := func(p, r, f float64, s int64) map[string]any {
		return map[string]any{"precision": p, "recall": r, "f1-score": f, "support": s}
	}
	rep := map[string]any{
		"10": row(0.5, 1, 0.6666666666666666, 1), "2": row(1, 0.5, 0.6666666666666666, 2),
		"accuracy": 0.6666666666666666, "macro avg": row(0.75, 0.75, 0.6666666666666666, 3), "weighted avg": row(0.8333333333333333, 0.6666666666666666, 0.6666666666666666, 3),
	}
	r := &pipeline.Results{Records: 3, Metrics: []pipeline.MetricResult{{Name: "rep", Type: "classification_report", Signature: "s",
		Result: core.Result{Value: rep, Details: map[string]any{"classes": []int64{2, 10}}}}}}

	var b strings.Builder
	require.NoError(t, (&Table{W: &b, Digits: 3}).Write(context.Background(), r))
	lines := strings.Split(b.String(), "\n")
	want := []string{
		"2: precision 1  recall 0.5  f1-score 0.667  support 2",
		"10: precision 0.5  recall 1  f1-score 0.667  support 1",
		"accuracy: 0.667",
		"macro avg: precision 0.75  recall 0.75  f1-score 0.667  support 3",
		"weighted avg: precision 0.833  recall 0.667  f1-score 0.667  support 3",
	}
	require.Len(t, lines, 2+len(want)+2)
	for i, w := range want {
		require.Contains(t, lines[2+i], w)
	}
	require.True(t, strings.HasPrefix(lines[2], "rep "))

	p := filepath.Join(t.TempDir(), "r.csv")
	require.NoError(t, (&CSV{Path: p}).Write(context.Background(), r))
	f, err := os.Open(p)
	require.NoError(t, err)
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	var got [][3]string // class, stat, value
	for _, row := range rows[1:] {
		got = append(got, [3]string{row[5], row[7], row[8]})
	}
	require.Equal(t, [][3]string{
		{"2", "precision", "1"}, {"2", "recall", "0.5"}, {"2", "f1-score", "0.6666666666666666"}, {"2", "support", "2"},
		{"10", "precision", "0.5"}, {"10", "recall", "1"}, {"10", "f1-score", "0.6666666666666666"}, {"10", "support", "1"},
		{"accuracy", "", "0.6666666666666666"},
		{"macro avg", "precision", "0.75"}, {"macro avg", "recall", "0.75"}, {"macro avg", "f1-score", "0.6666666666666666"}, {"macro avg", "support", "3"},
		{"weighted avg", "precision", "0.8333333333333333"}, {"weighted avg", "recall", "0.6666666666666666"}, {"weighted avg", "f1-score", "0.6666666666666666"}, {"weighted avg", "support", "3"},
	}, got)
}
