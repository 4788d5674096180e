package sources

import (
	"os"
	"path/filepath"
	"testing"

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
			require.Equal(t, tc.want, fis[0].Format)
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
