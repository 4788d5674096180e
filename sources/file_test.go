package sources

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/stretchr/testify/require"

	"github.com/evalstream/evalstream/pipeline"
	"github.com/evalstream/evalstream/sources/internal/fileread"
)

func writeFile(t testing.TB, path, content string) string {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	return path
}

func gzipped(t testing.TB, s string) string {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	_, err := w.Write([]byte(s))
	require.NoError(t, err)
	require.NoError(t, w.Close())
	return b.String()
}

func TestValidate(t *testing.T) {
	require.NoError(t, FileConfig{Path: "x.jsonl"}.Validate())
	require.NoError(t, FileConfig{Path: "x", Format: "parquet"}.Validate())
	err := FileConfig{Path: "", Format: "csv"}.Validate()
	require.ErrorIs(t, err, ErrFormat)
	require.Contains(t, err.Error(), "path is empty")
	require.Contains(t, err.Error(), `format "csv"`)
	require.Error(t, FileConfig{Path: "data/[x.jsonl"}.Validate())
}

func TestExpand(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"b.jsonl", "a.arrow", "c.parquet", "d.jsonl.gz", "e.txt", ".hidden.jsonl", "_SUCCESS", "f.arrows", "g.NDJSON", "sub/h.jsonl"} {
		writeFile(t, filepath.Join(dir, n), "")
	}
	j := func(names ...string) []string {
		out := make([]string, len(names))
		for i, n := range names {
			out[i] = filepath.Join(dir, n)
		}
		return out
	}
	tests := []struct {
		name string
		cfg  FileConfig
		want []string
		err  error
	}{
		{"directory", FileConfig{Path: dir}, j("a.arrow", "b.jsonl", "c.parquet", "d.jsonl.gz", "f.arrows", "g.NDJSON"), nil},
		{"directory with format", FileConfig{Path: dir, Format: "jsonl"}, j("b.jsonl", "d.jsonl.gz", "g.NDJSON"), nil},
		{"glob", FileConfig{Path: filepath.Join(dir, "*.jsonl*")}, j("b.jsonl", "d.jsonl.gz"), nil},
		{"glob skips unsupported", FileConfig{Path: filepath.Join(dir, "*")}, j("a.arrow", "b.jsonl", "c.parquet", "d.jsonl.gz", "f.arrows", "g.NDJSON"), nil},
		{"glob with explicit format keeps all files", FileConfig{Path: filepath.Join(dir, "e.*"), Format: "jsonl"}, j("e.txt"), nil},
		{"nested glob", FileConfig{Path: filepath.Join(dir, "*", "*.jsonl")}, j("sub/h.jsonl"), nil},
		{"file", FileConfig{Path: filepath.Join(dir, "c.parquet")}, j("c.parquet"), nil},
		{"unknown extension", FileConfig{Path: filepath.Join(dir, "e.txt")}, nil, ErrFormat},
		{"unknown extension with format", FileConfig{Path: filepath.Join(dir, "e.txt"), Format: "jsonl"}, j("e.txt"), nil},
		{"no match", FileConfig{Path: filepath.Join(dir, "*.csv")}, nil, ErrNoFiles},
		{"missing file", FileConfig{Path: filepath.Join(dir, "nope.jsonl")}, nil, os.ErrNotExist},
		{"empty directory", FileConfig{Path: filepath.Join(dir, "sub"), Format: "arrow"}, nil, ErrNoFiles},
		{"bad format", FileConfig{Path: dir, Format: "csv"}, nil, ErrFormat},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Expand(tc.cfg)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestExpandLiteralFileWithGlobCharacters(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, filepath.Join(dir, "run[1].jsonl"), `{"a":1}`+"\n")
	got, err := Expand(FileConfig{Path: p})
	require.NoError(t, err)
	require.Equal(t, []string{p}, got)
}

const jsonlSample = `{"a":"x","b":1}
{"a":"y","b":[1,2]}

{"b":true}
not json
{"a":"\u00e9","b":null}
`

func TestJSONLRecords(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, filepath.Join(dir, "s.jsonl"), jsonlSample)
	src, err := OpenFiles(FileConfig{Path: p}, []string{"a", "b"}, 100, 0)
	require.NoError(t, err)
	require.Equal(t, int64(len(jsonlSample)), src.(pipeline.Sizer).TotalBytes())
	d := drain(t, src)
	require.Equal(t, []int{5}, d.sizes)
	require.Equal(t, int64(len(jsonlSample)), d.bytes)
	want := []gotRec{
		{Seq: 0, File: p, Row: 0, Vals: []string{`s:"x"`, "i:1"}, Raw: `{"a":"x","b":1}`},
		{Seq: 1, File: p, Row: 1, Vals: []string{`s:"y"`, "fl:3ff0000000000000,4000000000000000,"}, Raw: `{"a":"y","b":[1,2]}`},
		{Seq: 3, File: p, Row: 3, Vals: []string{"missing", "b:1"}, Raw: `{"b":true}`},
		{Seq: 4, File: p, Row: 4, Vals: []string{"missing", "missing"}, Raw: `not json`, Err: "invalid json: invalid character 'n' expected a JSON object at column 1"},
		{Seq: 5, File: p, Row: 5, Vals: []string{`s:"é"`, "null"}, Raw: `{"a":"\u00e9","b":null}`},
	}
	require.Equal(t, want, d.recs)
}

func TestJSONLLineEndings(t *testing.T) {
	dir := t.TempDir()
	// BOM, CRLF, no final newline.
	p := writeFile(t, filepath.Join(dir, "s.ndjson"), "\xEF\xBB\xBF{\"a\":1}\r\n\r\n{\"a\":2}")
	src, err := OpenFiles(FileConfig{Path: p}, []string{"a"}, 10, 0)
	require.NoError(t, err)
	d := drain(t, src)
	require.Len(t, d.recs, 2)
	require.Equal(t, []string{"i:1"}, d.recs[0].Vals)
	require.Equal(t, `{"a":1}`, d.recs[0].Raw)
	require.Equal(t, int64(2), d.recs[1].Row)
	require.Equal(t, "", d.recs[1].Err)
}

func TestJSONLBatchesAndSeqAcrossFiles(t *testing.T) {
	dir := t.TempDir()
	var a, b strings.Builder
	for i := 0; i < 30; i++ {
		a.WriteString(`{"i":` + strconv.Itoa(i) + "}\n")
	}
	for i := 0; i < 5; i++ {
		b.WriteString(`{"i":` + strconv.Itoa(100+i) + "}\n")
	}
	writeFile(t, filepath.Join(dir, "2.jsonl"), b.String())
	writeFile(t, filepath.Join(dir, "1.jsonl"), a.String())
	writeFile(t, filepath.Join(dir, "3.jsonl"), "\n\n") // no records
	writeFile(t, filepath.Join(dir, "4.jsonl.gz"), gzipped(t, `{"i":200}`+"\n"))
	for _, tc := range []struct {
		batch int
		sizes []int
	}{
		{1, repeat(1, 36)},
		{13, []int{13, 13, 4, 5, 1}},
		{4096, []int{30, 5, 1}},
	} {
		src, err := OpenFiles(FileConfig{Path: dir}, []string{"i"}, tc.batch, 0)
		require.NoError(t, err)
		total := src.(pipeline.Sizer).TotalBytes()
		d := drain(t, src)
		require.Equal(t, tc.sizes, d.sizes, "batch size %d", tc.batch)
		require.Equal(t, total, d.bytes)
		require.Len(t, d.recs, 36)
		for i := 1; i < len(d.recs); i++ {
			require.Less(t, d.recs[i-1].Seq, d.recs[i].Seq)
		}
		require.Equal(t, uint64(1)<<40|4, d.recs[34].Seq)
		require.Equal(t, uint64(3)<<40, d.recs[35].Seq)
		require.Equal(t, []string{"i:200"}, d.recs[35].Vals)
	}
}

func repeat(v, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func TestJSONLRecordTooLarge(t *testing.T) {
	dir := t.TempDir()
	big := `{"a":"` + strings.Repeat("x", 3*fileread.LineChunkSize) + `"}`
	content := `{"a":"1"}` + "\n" + big + "\n" + `{"a":"2"}` + "\n" + `{"a":"` + strings.Repeat("y", 50) + `"}` + "\n" + big
	p := writeFile(t, filepath.Join(dir, "big.jsonl"), content)
	for _, limit := range []int{20, 1000, 0} {
		src, err := OpenFiles(FileConfig{Path: p}, []string{"a"}, 2, limit)
		require.NoError(t, err)
		d := drain(t, src)
		require.Len(t, d.recs, 5)
		require.Equal(t, []string{`s:"1"`}, d.recs[0].Vals)
		require.Equal(t, []string{`s:"2"`}, d.recs[2].Vals)
		if limit == 0 {
			require.Equal(t, big, d.recs[1].Raw)
			require.Empty(t, d.recs[4].Err)
			continue
		}
		for _, i := range []int{1, 4} {
			require.Contains(t, d.recs[i].Err, "record too large")
			require.Contains(t, d.recs[i].Err, fmt.Sprintf("record of %d bytes", len(big)))
			require.Equal(t, []string{"missing"}, d.recs[i].Vals)
			require.Equal(t, int64(i), d.recs[i].Row)
		}
		if limit == 20 {
			require.Contains(t, d.recs[3].Err, "record too large")
		} else {
			require.Empty(t, d.recs[3].Err)
		}
	}
}

func TestJSONLLongLinesAcrossChunks(t *testing.T) {
	// Lines straddling buffer boundaries keep their content, including aliased strings of
	// earlier batches that are still held.
	dir := t.TempDir()
	var sb strings.Builder
	var want []string
	for i := 0; sb.Len() < 3*fileread.LineChunkSize; i++ {
		s := strings.Repeat(string(rune('a'+i%26)), 1+(i*7919)%5000)
		want = append(want, s)
		sb.WriteString(`{"s":"` + s + `"}` + "\n")
	}
	p := writeFile(t, filepath.Join(dir, "long.jsonl"), sb.String())
	src, err := OpenFiles(FileConfig{Path: p}, []string{"s"}, 7, 0)
	require.NoError(t, err)
	var held []*pipeline.Batch
	var got []string
	for {
		b, err := src.Next(context.Background())
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		held = append(held, b)
	}
	for _, b := range held {
		for _, r := range b.Records {
			got = append(got, r.Values[0].Str)
		}
	}
	require.Equal(t, want, got)
}

func TestJSONLGzip(t *testing.T) {
	dir := t.TempDir()
	good := gzipped(t, jsonlSample)
	p := writeFile(t, filepath.Join(dir, "s.jsonl.gz"), good)
	src, err := OpenFiles(FileConfig{Path: p}, []string{"a", "b"}, 2, 0)
	require.NoError(t, err)
	d := drain(t, src)
	require.Len(t, d.recs, 5)
	require.Equal(t, int64(len(good)), d.bytes)

	// gzip detected by magic bytes even without the .gz suffix.
	p2 := writeFile(t, filepath.Join(dir, "magic.jsonl"), good)
	src, err = OpenFiles(FileConfig{Path: p2}, []string{"a", "b"}, 2, 0)
	require.NoError(t, err)
	require.Len(t, drain(t, src).recs, 5)

	for name, content := range map[string]string{
		"truncated.jsonl.gz": good[:len(good)/2],
		"corrupt.jsonl.gz":   good[:20] + strings.Repeat("\xff", 10) + good[30:],
		"badcrc.jsonl.gz":    good[:len(good)-8] + "\x00\x00\x00\x00" + good[len(good)-4:],
		"header.jsonl.gz":    "\x1f\x8bjunk",
	} {
		t.Run(name, func(t *testing.T) {
			p := writeFile(t, filepath.Join(dir, name), content)
			src, err := OpenFiles(FileConfig{Path: p}, []string{"a"}, 1, 0)
			if err == nil {
				for {
					var b *pipeline.Batch
					b, err = src.Next(context.Background())
					if err != nil {
						break
					}
					if b.Release != nil {
						b.Release()
					}
				}
				require.NoError(t, src.Close())
			}
			require.Error(t, err)
			require.NotErrorIs(t, err, io.EOF)
			require.ErrorIs(t, err, ErrCorrupt)
			require.Contains(t, err.Error(), p)
		})
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, filepath.Join(dir, "a.jsonl"), `{"a":1}`+"\n")
	src, err := OpenFiles(FileConfig{Path: p}, []string{"a"}, 1, 0)
	require.NoError(t, err)
	require.NoError(t, os.Chmod(p, 0))    // unreadable after expansion
	if f, err := os.Open(p); err == nil { // running as root
		f.Close()
		require.NoError(t, os.Remove(p))
	}
	_, err = src.Next(context.Background())
	require.Error(t, err)
	require.Contains(t, err.Error(), p)
	var pe *os.PathError
	require.True(t, errors.As(err, &pe))
	// A failed source stays failed.
	_, err = src.Next(context.Background())
	require.ErrorIs(t, err, io.EOF)

	_, err = OpenFiles(FileConfig{Path: filepath.Join(dir, "none*.jsonl")}, nil, 1, 0)
	require.ErrorIs(t, err, ErrNoFiles)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p = writeFile(t, filepath.Join(dir, "b.jsonl"), `{"a":1}`+"\n")
	src, err = OpenFiles(FileConfig{Path: p}, []string{"a"}, 1, 0)
	require.NoError(t, err)
	_, err = src.Next(ctx)
	require.ErrorIs(t, err, context.Canceled)
	require.NoError(t, src.Close())
}

func TestDefaultBatchSize(t *testing.T) {
	var sb strings.Builder
	for i := 0; i < DefaultBatchSize+5; i++ {
		sb.WriteString(`{"a":1}` + "\n")
	}
	p := writeFile(t, filepath.Join(t.TempDir(), "a.jsonl"), sb.String())
	src, err := OpenFiles(FileConfig{Path: p}, []string{"a"}, 0, -1)
	require.NoError(t, err)
	require.Equal(t, []int{DefaultBatchSize, 5}, drain(t, src).sizes)
}

func TestNoFields(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, filepath.Join(dir, "a.jsonl"), `{"a":1}`+"\n"+`{"b":2}`+"\n")
	src, err := openFiles(FileConfig{Path: p}, nil, 10, 0, memory.DefaultAllocator)
	require.NoError(t, err)
	d := drain(t, src)
	require.Len(t, d.recs, 2)
	require.Empty(t, d.recs[0].Vals)
}

// TestTailBatches checks that the last batches shrink when several consumers share them, that
// the batch bytes of a JSON Lines file are exact (they add up to the file size, and a batch
// of equal lines has bytes in proportion to its records), and that one consumer gets full
// batches to the end.
func TestTailBatches(t *testing.T) {
	// Enough lines that a full batch is under 1/fileread.BatchShare of the file.
	const lines, batch = 40000, 1024
	line := `{"prediction": "a b c d e f g h", "references": ["a b c d"]}` + "\n"
	path := filepath.Join(t.TempDir(), "tail.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(strings.Repeat(line, lines)), 0o644))
	for _, consumers := range []int{1, 2, 8} {
		src, err := OpenFiles(FileConfig{Path: path}, []string{"prediction", "references"}, batch, 0)
		require.NoError(t, err)
		ctx := pipeline.WithConsumers(pipeline.WithDeferredDecode(context.Background()), consumers)
		var sizes []int
		var total int64
		for {
			b, err := src.Next(ctx)
			if errors.Is(err, io.EOF) {
				break
			}
			require.NoError(t, err)
			n := len(b.Records)
			sizes = append(sizes, n)
			require.Equal(t, int64(n*len(line)), b.Bytes, "batch %d of %d records", len(sizes), n)
			total += b.Bytes
			b.Release()
		}
		require.NoError(t, src.Close())
		require.Equal(t, int64(lines*len(line)), total)
		rows := 0
		for i, n := range sizes {
			rows += n
			if i > 0 {
				require.LessOrEqual(t, n, sizes[i-1], "consumers %d: sizes %v", consumers, sizes)
			}
		}
		require.Equal(t, lines, rows)
		require.Equal(t, batch, sizes[0])
		last := sizes[len(sizes)-1]
		if consumers == 1 {
			require.Equal(t, lines%batch, last)
			continue
		}
		require.LessOrEqual(t, last, 64, "consumers %d: sizes %v", consumers, sizes)
		require.Equal(t, 64, sizes[len(sizes)-2], "consumers %d: sizes %v", consumers, sizes)
		require.Less(t, len(sizes), lines/batch+1+10*consumers, "consumers %d: too many small batches: %v", consumers, sizes)
	}
}

// TestBatchBytes checks that a batch of lines covers at most 1/fileread.BatchShare of the
// input (the line that reaches the bound ends it), in both decoding modes, that a small input
// keeps batches of at least 32 KiB, and that the batch bytes add up to the file size.
func TestBatchBytes(t *testing.T) {
	line := `{"prediction": "` + strings.Repeat("word ", 100) + `", "references": ["a b c d"]}` + "\n"
	cases := []struct {
		name  string
		lines int
		want  int // records of a batch before the tail
	}{
		{name: "share of the input", lines: 3000, want: (3000*len(line)/fileread.BatchShare + len(line) - 1) / len(line)},
		{name: "small input: 32 KiB batches", lines: 300, want: (32<<10 + len(line) - 1) / len(line)},
		{name: "tiny input: one batch", lines: 20, want: 20},
	}
	for _, tc := range cases {
		for _, deferred := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s deferred=%v", tc.name, deferred), func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "b.jsonl")
				require.NoError(t, os.WriteFile(path, []byte(strings.Repeat(line, tc.lines)), 0o644))
				src, err := OpenFiles(FileConfig{Path: path}, []string{"prediction", "references"}, 1024, 0)
				require.NoError(t, err)
				ctx := context.Background()
				if deferred {
					ctx = pipeline.WithDeferredDecode(ctx)
				}
				var sizes []int
				var total int64
				for {
					b, err := src.Next(ctx)
					if errors.Is(err, io.EOF) {
						break
					}
					require.NoError(t, err)
					require.NoError(t, pipeline.DecodeBatch(b))
					sizes = append(sizes, len(b.Records))
					total += b.Bytes
					if b.Release != nil {
						b.Release()
					}
				}
				require.NoError(t, src.Close())
				require.Equal(t, int64(tc.lines*len(line)), total)
				rows := 0
				for i, n := range sizes {
					rows += n
					if i < len(sizes)-1 {
						require.Equal(t, tc.want, n, "sizes %v", sizes)
					}
				}
				require.Equal(t, tc.lines, rows)
			})
		}
	}
}
