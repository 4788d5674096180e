package sources

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/stretchr/testify/require"
)

// interopFiles holds files written by the real writers (testdata/interop/gen.py).
const interopFiles = "../testdata/interop/files"

func readInterop(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(interopFiles, name))
	require.NoError(t, err)
	return b
}

func TestSniff(t *testing.T) {
	stream := readInterop(t, "pyarrow_stream.arrows")
	legacy := readInterop(t, "pyarrow_stream_legacy.arrows")
	require.NotEqual(t, []byte{0xff, 0xff, 0xff, 0xff}, legacy[:4], "the legacy fixture has no continuation marker")
	eos := []byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0}
	hugeLen := append([]byte{0xff, 0xff, 0xff, 0xff}, 0, 0, 0, 0x40) // a 1 GiB schema message
	tests := []struct {
		name   string
		head   []byte
		size   int64 // 0: len(head)
		format string
		binary bool
		array  bool
		refuse bool
	}{
		{"arrow file", readInterop(t, "pyarrow_file.arrow"), 0, FormatArrow, true, false, false},
		{"polars arrow file", readInterop(t, "polars_ipc_newest_uncompressed.arrow"), 0, FormatArrow, true, false, false},
		{"stream", stream, 0, FormatArrows, true, false, false},
		{"stream, head only", stream[:64], int64(len(stream)), FormatArrows, true, false, false},
		{"legacy stream", legacy, 0, FormatArrows, true, false, false},
		{"empty stream", eos, 0, FormatArrows, true, false, false},
		{"stream claiming more than the file", hugeLen, 1 << 20, "", false, false, false},
		{"parquet", readInterop(t, "pandas.parquet"), 0, FormatParquet, true, false, false},
		{"feather v1", readInterop(t, "pyarrow_v1.feather"), 0, FormatArrow, true, false, true},
		{"gzip", readInterop(t, "pandas.jsonl.gz"), 0, FormatJSONL, false, false, false},
		{"json lines", readInterop(t, "pandas.json"), 0, FormatJSONL, false, false, false},
		{"json lines after a BOM and blank lines", []byte("\xef\xbb\xbf\n\n  {\"a\":1}\n"), 0, FormatJSONL, false, false, false},
		{"json array", []byte(" [{\"a\":1}]"), 0, "", false, true, false},
		{"text", []byte("prediction,label\n"), 0, "", false, false, false},
		{"text with a plausible length", []byte("\x10\x00\x00\x00{\"a\":1}\n\n\n\n\n\n\n\n\n\n\n\n"), 0, "", false, false, false},
		{"empty", nil, 0, "", false, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			size := tc.size
			if size == 0 {
				size = int64(len(tc.head))
			}
			s := sniff(tc.head, size)
			require.Equal(t, tc.format, s.format)
			require.Equal(t, tc.binary, s.binary)
			require.Equal(t, tc.array, s.jsonArray)
			require.Equal(t, tc.refuse, s.refused != nil)
		})
	}
}

// TestFormatFromContent: each file is read as its bytes say, whatever its name and whether
// or not a format is given; where the bytes and the format disagree it is a format error.
func TestFormatFromContent(t *testing.T) {
	dir := t.TempDir()
	put := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, b, 0o644))
		return p
	}
	streamAsArrow := put("data-00000-of-00001.arrow", readInterop(t, "hf_save_to_disk/data-00000-of-00001.arrow"))
	fileAsArrows := put("f.arrows", readInterop(t, "pyarrow_file.arrow"))
	parquetAsJSONL := put("p.jsonl", readInterop(t, "pandas.parquet"))
	parquetNoExt := put("part-0", readInterop(t, "pandas.parquet"))
	jsonl := put("r.json", readInterop(t, "pandas.json"))
	jsonlAsParquet := put("j.parquet", readInterop(t, "records.jsonl"))
	gz := put("r.arrow.gz", readInterop(t, "pandas.jsonl.gz"))
	txt := put("notes.txt", []byte("hello\n"))
	corrupt := put("broken.arrow", []byte("not an arrow file at all"))
	feather := put("v1.feather", readInterop(t, "pyarrow_v1.feather"))

	tests := []struct {
		path, format, want string
		err                error
	}{
		{streamAsArrow, "", FormatArrows, nil},
		{streamAsArrow, FormatArrow, FormatArrows, nil},
		{streamAsArrow, FormatArrows, FormatArrows, nil},
		{fileAsArrows, "", FormatArrow, nil},
		{fileAsArrows, FormatArrows, FormatArrow, nil},
		{parquetAsJSONL, "", FormatParquet, nil},
		{parquetAsJSONL, FormatJSONL, "", ErrFormat},
		{parquetNoExt, "", FormatParquet, nil},
		{parquetNoExt, FormatArrow, "", ErrFormat},
		{jsonl, "", FormatJSONL, nil},
		{jsonl, FormatParquet, "", ErrFormat},
		{jsonlAsParquet, "", FormatJSONL, nil},
		{gz, "", FormatJSONL, nil},
		{txt, "", "", ErrFormat},
		{txt, FormatJSONL, FormatJSONL, nil},
		{corrupt, "", FormatArrow, nil},              // the extension: the Arrow reader says what is wrong
		{corrupt, FormatParquet, FormatParquet, nil}, // the bytes do not tell: as told
		{feather, "", "", ErrFormat},
		{feather, FormatArrow, "", ErrFormat},
	}
	for _, tc := range tests {
		t.Run(filepath.Base(tc.path)+"/"+tc.format, func(t *testing.T) {
			fis, err := expand(FileConfig{Path: tc.path, Format: tc.format})
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				require.Contains(t, err.Error(), tc.path)
				return
			}
			require.NoError(t, err)
			require.Len(t, fis, 1)
			require.Equal(t, tc.want, fis[0].format)
		})
	}
}

func TestExpandByContent(t *testing.T) {
	dir := t.TempDir()
	put := func(name string, b []byte) {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), b, 0o644))
	}
	// An HF datasets save_to_disk directory, and other files users' tools leave.
	put("hf/data-00000-of-00002.arrow", readInterop(t, "hf_save_to_disk/data-00000-of-00001.arrow"))
	put("hf/data-00001-of-00002.arrow", readInterop(t, "hf_save_to_disk/data-00000-of-00001.arrow"))
	put("hf/dataset_info.json", readInterop(t, "hf_save_to_disk/dataset_info.json"))
	put("hf/state.json", readInterop(t, "hf_save_to_disk/state.json"))
	put("mixed/part-0", readInterop(t, "pandas.parquet"))
	put("mixed/a.pq", readInterop(t, "pandas.parquet"))
	put("mixed/b.ipc", readInterop(t, "pyarrow_file.arrow"))
	put("mixed/c.json", readInterop(t, "pandas.json"))
	put("mixed/d.jsonl", readInterop(t, "records.jsonl"))
	put("mixed/e.arrows", readInterop(t, "pyarrow_stream.arrows"))
	put("mixed/README", []byte("notes\n"))
	j := func(names ...string) []string {
		out := make([]string, len(names))
		for i, n := range names {
			out[i] = filepath.Join(dir, n)
		}
		return out
	}
	hf := j("hf/data-00000-of-00002.arrow", "hf/data-00001-of-00002.arrow")
	tests := []struct {
		name string
		cfg  FileConfig
		want []string
		err  error
	}{
		{"hf directory", FileConfig{Path: filepath.Join(dir, "hf")}, hf, nil},
		{"hf directory as arrows", FileConfig{Path: filepath.Join(dir, "hf"), Format: FormatArrows}, hf, nil},
		{"hf directory as arrow", FileConfig{Path: filepath.Join(dir, "hf"), Format: FormatArrow}, hf, nil},
		{"hf directory as jsonl", FileConfig{Path: filepath.Join(dir, "hf"), Format: FormatJSONL}, nil, ErrNoFiles},
		{"mixed directory", FileConfig{Path: filepath.Join(dir, "mixed")}, j("mixed/a.pq", "mixed/b.ipc", "mixed/d.jsonl", "mixed/e.arrows", "mixed/part-0"), nil},
		{"mixed directory as parquet", FileConfig{Path: filepath.Join(dir, "mixed"), Format: FormatParquet}, j("mixed/a.pq", "mixed/part-0"), nil},
		{"mixed directory as arrows", FileConfig{Path: filepath.Join(dir, "mixed"), Format: FormatArrows}, j("mixed/b.ipc", "mixed/e.arrows"), nil},
		{"glob takes .json", FileConfig{Path: filepath.Join(dir, "mixed", "*.json*")}, j("mixed/c.json", "mixed/d.jsonl"), nil},
		{"glob skips what cannot be told", FileConfig{Path: filepath.Join(dir, "mixed", "*")}, j("mixed/a.pq", "mixed/b.ipc", "mixed/c.json", "mixed/d.jsonl", "mixed/e.arrows", "mixed/part-0"), nil},
		{"glob with a format", FileConfig{Path: filepath.Join(dir, "mixed", "*"), Format: FormatArrow}, j("mixed/b.ipc", "mixed/e.arrows"), nil},
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

// ipcMessages returns the offsets of the metadata flatbuffers of an Arrow IPC stream's
// messages (after the continuation marker and length).
func ipcMessages(t *testing.T, b []byte) []int {
	t.Helper()
	var out []int
	for p := 0; p+8 <= len(b); {
		require.Equal(t, uint32(0xFFFFFFFF), binary.LittleEndian.Uint32(b[p:]))
		n := int(binary.LittleEndian.Uint32(b[p+4:]))
		if n == 0 {
			break
		}
		meta := b[p+8 : p+8+n]
		body, err := verifyMessage(meta, int64(len(b)))
		require.NoError(t, err)
		out = append(out, p+8)
		p += 8 + n + int(body)
	}
	return out
}

// recordBatchVectors returns, for the record batch message whose metadata starts at off, the
// positions (in b) of the record's length, of its FieldNode vector and of its Buffer vector.
func recordBatchVectors(t *testing.T, b []byte, off int) (length, nodes, buffers int) {
	t.Helper()
	v := &fbv{b: b[off:], budget: 100}
	msg, ok := v.table(int(v.u32(0)))
	require.True(t, ok)
	rb, present, ok := v.subTable(msg, 2)
	require.True(t, present && ok)
	lp, present, ok := v.field(rb, 0, 8)
	require.True(t, present && ok)
	ns, _, present, ok := v.vector(rb, 1, 16)
	require.True(t, present && ok)
	bs, _, present, ok := v.vector(rb, 2, 16)
	require.True(t, present && ok)
	return off + lp, off + ns, off + bs
}

// TestHugeClaimsInArrowMetadata: Arrow IPC metadata that claims a 2^40-element list, column
// or buffer is an error naming the file, never a panic or an allocation of that size.
func TestHugeClaimsInArrowMetadata(t *testing.T) {
	mem := memory.NewGoAllocator()
	fields := []arrow.Field{
		{Name: "scores", Type: arrow.ListOf(arrow.PrimitiveTypes.Float64)},
		{Name: "big", Type: arrow.LargeListOf(arrow.PrimitiveTypes.Float64)},
		{Name: "label", Type: arrow.PrimitiveTypes.Int64},
	}
	rec := recordFromJSON(t, mem, fields, `[{"scores":[0.1,0.2],"big":[1,2],"label":1},{"scores":[0.3],"big":[3],"label":2}]`)
	defer rec.Release()
	dir := t.TempDir()
	orig := filepath.Join(dir, "orig.arrows")
	writeArrowFile(t, orig, FormatArrows, rec)
	data, err := os.ReadFile(orig)
	require.NoError(t, err)
	msgs := ipcMessages(t, data)
	require.Len(t, msgs, 2) // schema, record batch
	length, nodes, buffers := recordBatchVectors(t, data, msgs[1])
	const huge = 1 << 40
	// Field nodes in order: scores, its values, big, its values, label. Buffers: per node
	// validity then offsets/values.
	tests := []struct {
		name  string
		patch func(b []byte)
	}{
		{"record length", func(b []byte) { binary.LittleEndian.PutUint64(b[length:], huge) }},
		{"list length", func(b []byte) { binary.LittleEndian.PutUint64(b[nodes:], huge) }},
		{"list values length", func(b []byte) { binary.LittleEndian.PutUint64(b[nodes+16:], huge) }},
		{"large list values length", func(b []byte) { binary.LittleEndian.PutUint64(b[nodes+48:], huge) }},
		{"int column length", func(b []byte) { binary.LittleEndian.PutUint64(b[nodes+64:], huge) }},
		{"null count", func(b []byte) { binary.LittleEndian.PutUint64(b[nodes+8:], huge) }},
		{"buffer length", func(b []byte) { binary.LittleEndian.PutUint64(b[buffers+16+8:], huge) }},
		{"buffer offset", func(b []byte) { binary.LittleEndian.PutUint64(b[buffers+16:], huge) }},
	}
	for _, tc := range tests {
		for _, asFile := range []bool{false, true} {
			name := tc.name + map[bool]string{false: " (stream)", true: " (file)"}[asFile]
			t.Run(name, func(t *testing.T) {
				b := append([]byte(nil), data...)
				tc.patch(b)
				path := filepath.Join(dir, "huge.arrows")
				if asFile {
					path = filepath.Join(dir, "huge.arrow")
					b = streamToFile(t, b, msgs)
				}
				require.NoError(t, os.WriteFile(path, b, 0o644))
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				err := readAllErr(path, []string{"scores", "big", "label"})
				runtime.ReadMemStats(&after)
				require.ErrorIs(t, err, ErrCorrupt)
				t.Log(err)
				require.Contains(t, err.Error(), path)
				require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(64<<20), "allocated for a claim the file cannot back")
			})
		}
		// The same stream as a Kafka message (format: arrow) goes through the same checks.
		t.Run(tc.name+" (message)", func(t *testing.T) {
			b := append([]byte(nil), data...)
			tc.patch(b)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			err := readMessage(b)
			runtime.ReadMemStats(&after)
			require.Error(t, err)
			t.Log(err)
			require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(64<<20), "allocated for a claim the message cannot back")
		})
	}
}

// readMessage reads every record batch of an Arrow IPC stream held in memory as the Kafka
// source does: through NewArrowStreamReader and CheckRecordBatch.
func readMessage(b []byte) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	rd, err := NewArrowStreamReader(b, memory.NewGoAllocator())
	if err != nil {
		return err
	}
	defer rd.Release()
	for rd.Next() {
		if err := CheckRecordBatch(rd.Record(), int64(len(b))); err != nil {
			return err
		}
	}
	return rd.Err()
}

// streamToFile wraps the messages of a stream (metadata at msgs) in an Arrow IPC file: the
// magic, the stream, a footer listing its record batches (built by arrow's writer from the
// same schema, then re-pointed), and the magic.
func streamToFile(t *testing.T, stream []byte, msgs []int) []byte {
	t.Helper()
	// The stream's messages keep their positions, shifted by the 8 bytes of the magic, so
	// a footer written by arrow for the unpatched record (same sizes) lists the same blocks.
	mem := memory.NewGoAllocator()
	fields := []arrow.Field{
		{Name: "scores", Type: arrow.ListOf(arrow.PrimitiveTypes.Float64)},
		{Name: "big", Type: arrow.LargeListOf(arrow.PrimitiveTypes.Float64)},
		{Name: "label", Type: arrow.PrimitiveTypes.Int64},
	}
	rec := recordFromJSON(t, mem, fields, `[{"scores":[0.1,0.2],"big":[1,2],"label":1},{"scores":[0.3],"big":[3],"label":2}]`)
	defer rec.Release()
	p := filepath.Join(t.TempDir(), "f.arrow")
	writeArrowFile(t, p, FormatArrow, rec)
	f, err := os.ReadFile(p)
	require.NoError(t, err)
	// arrow writes the file as magic, padding, the same stream, footer: replace the stream.
	require.Equal(t, stream[:msgs[1]-8], f[8:8+msgs[1]-8], "arrow's file embeds the same stream")
	out := append([]byte(nil), f...)
	copy(out[8:], stream[:len(stream)-8]) // without the end-of-stream marker
	return out
}
