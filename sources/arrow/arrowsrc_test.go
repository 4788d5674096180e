package arrow

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/memory"
	"github.com/stretchr/testify/require"
)

// TestErrorsNamePosition damages the second record batch of a file: the error names the
// file and the batch.
func TestErrorsNamePosition(t *testing.T) {
	mem := memory.NewGoAllocator()
	fields := []arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String}, {Name: "i", Type: arrow.PrimitiveTypes.Int64}}
	r1 := recordFromJSON(t, mem, fields, `[{"s":"a","i":1},{"s":"b","i":2}]`)
	r2 := recordFromJSON(t, mem, fields, `[{"s":"c","i":3},{"s":"d","i":4}]`)
	defer r1.Release()
	defer r2.Release()
	dir := t.TempDir()
	damage := map[string]func(t *testing.T, path string, data []byte) []byte{
		FormatArrows: func(t *testing.T, _ string, data []byte) []byte {
			return data[:len(data)-20] // into the last message's body
		},
		FormatArrow: func(t *testing.T, path string, data []byte) []byte {
			f, err := os.Open(path)
			require.NoError(t, err)
			defer f.Close()
			ft, err := readFooter(f, int64(len(data)))
			require.NoError(t, err)
			blocks := ft.records
			require.Len(t, blocks, 2)
			for i := blocks[1].offset + 8; i < blocks[1].offset+blocks[1].meta; i++ {
				data[i] = 0xFF
			}
			return data
		},
	}
	want := map[string]string{FormatArrows: "record batch 1", FormatArrow: "record batch 1"}
	for format, fn := range damage {
		t.Run(format, func(t *testing.T) {
			path := filepath.Join(dir, "d."+format)
			writeArrowFile(t, path, format, r1, r2)
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(path, fn(t, path, data), 0o644))
			src, err := OpenFiles(FileConfig{Path: path}, []string{"s", "i"}, 2, 0)
			require.NoError(t, err)
			var got []string
			for {
				b, err := src.Next(context.Background())
				if err != nil {
					require.NotErrorIs(t, err, io.EOF)
					require.ErrorIs(t, err, ErrCorrupt)
					require.Contains(t, err.Error(), path+": "+want[format])
					break
				}
				for _, r := range b.Records {
					got = append(got, canon(r.Values[0]))
				}
				b.Release()
			}
			require.Equal(t, []string{`s:"a"`, `s:"b"`}, got, "the first batch is delivered before the error")
			require.NoError(t, src.Close())
		})
	}
}
