package arrow

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
// source does: through NewStreamReader and CheckRecordBatch.
func readMessage(b []byte) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	rd, err := NewStreamReader(b, memory.NewGoAllocator())
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
