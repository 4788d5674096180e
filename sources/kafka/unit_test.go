package kafka

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow/go/v15/arrow"
	"github.com/apache/arrow/go/v15/arrow/array"
	"github.com/apache/arrow/go/v15/arrow/ipc"
	"github.com/apache/arrow/go/v15/arrow/memory"
	kafkago "github.com/segmentio/kafka-go"
	"github.com/stretchr/testify/require"

	"github.com/evalstream/evalstream/metrics/core"
)

func TestDecodeJSONAndMetadata(t *testing.T) {
	fields := []string{"prediction", "references", "label", "key", "partition", "offset", "timestamp", "header.model", "header.none", "n"}
	d := NewDecoder("json", fields, 200)
	ts := time.Date(2024, 5, 1, 10, 0, 0, 5, time.UTC)
	m := &kafkago.Message{Topic: "t", Partition: 3, Offset: 42, Key: []byte("k1"), Time: ts,
		Headers: []kafkago.Header{{Key: "model", Value: []byte("m-a")}},
		Value:   []byte(`{"prediction": "a b", "references": ["a b", "c"], "label": 2, "n": 1.5, "offset": "mine"}`)}
	recs := d.Decode(m)
	require.Len(t, recs, 1)
	r := recs[0]
	require.Nil(t, r.Err)
	require.Equal(t, uint64(3)<<48|42, r.Seq)
	require.Equal(t, "t/3/42", r.Pos.String())
	require.Equal(t, m.Value, r.Raw)
	want := []core.Value{
		{Kind: core.String, Str: "a b"},
		{Kind: core.StringList, Strs: []string{"a b", "c"}},
		{Kind: core.Int, Int: 2},
		{Kind: core.String, Str: "k1"},
		{Kind: core.Int, Int: 3},
		{Kind: core.String, Str: "mine"}, // the record's own field wins over metadata
		{Kind: core.String, Str: "2024-05-01T10:00:00.000000005Z"},
		{Kind: core.String, Str: "m-a"},
		{},
		{Kind: core.Float, Float: 1.5},
	}
	require.Equal(t, want, r.Values)

	for _, c := range []struct {
		name, value, reason string
	}{
		{"syntax", `{"prediction": "a`, ReasonInvalidJSON},
		{"not an object", `["a"]`, ReasonInvalidJSON},
		{"null", `null`, ReasonInvalidJSON},
		{"empty", ``, ReasonInvalidJSON},
		{"trailing", `{"a": 1} {"b": 2}`, ReasonInvalidJSON},
		{"utf-8", "{\"prediction\": \"\xff\"}", ReasonInvalidUTF8},
		{"too large", `{"prediction": "` + strings.Repeat("x", 300) + `"}`, ReasonTooLarge},
	} {
		t.Run(c.name, func(t *testing.T) {
			recs := d.Decode(&kafkago.Message{Topic: "t", Partition: 0, Offset: 7, Key: []byte("k"), Value: []byte(c.value)})
			require.Len(t, recs, 1)
			require.NotNil(t, recs[0].Err)
			require.Equal(t, c.reason, recs[0].Err.Reason)
			require.Equal(t, []byte(c.value), recs[0].Raw)
			// metadata is still there for slicing and dead letters
			require.Equal(t, core.Value{Kind: core.String, Str: "k"}, recs[0].Values[3])
		})
	}
	// Invalid UTF-8 outside the projected fields is accepted (as encoding/json does).
	recs = d.Decode(&kafkago.Message{Value: []byte("{\"other\": \"\xff\", \"label\": 1}")})
	require.Nil(t, recs[0].Err)
	// A nil key is null.
	recs = d.Decode(&kafkago.Message{Value: []byte(`{}`)})
	require.Equal(t, core.Null, recs[0].Values[3].Kind)
}

func arrowMessage(t *testing.T) []byte {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "prediction", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "references", Type: arrow.ListOf(arrow.BinaryTypes.String)},
		{Name: "toks", Type: arrow.ListOf(arrow.ListOf(arrow.BinaryTypes.String))},
		{Name: "scores", Type: arrow.ListOf(arrow.PrimitiveTypes.Float32)},
		{Name: "label", Type: arrow.PrimitiveTypes.Int16},
		{Name: "big", Type: arrow.PrimitiveTypes.Uint64},
		{Name: "ok", Type: arrow.FixedWidthTypes.Boolean},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	b.Field(0).(*array.StringBuilder).AppendValues([]string{"x y", ""}, []bool{true, false})
	lb := b.Field(1).(*array.ListBuilder)
	lb.Append(true)
	lb.ValueBuilder().(*array.StringBuilder).AppendValues([]string{"r1", "r2"}, nil)
	lb.Append(true) // empty list
	tb := b.Field(2).(*array.ListBuilder)
	inner := tb.ValueBuilder().(*array.ListBuilder)
	tb.Append(true)
	inner.Append(true)
	inner.ValueBuilder().(*array.StringBuilder).AppendValues([]string{"a", "b"}, nil)
	tb.Append(false)
	sb := b.Field(3).(*array.ListBuilder)
	sb.Append(true)
	sb.ValueBuilder().(*array.Float32Builder).AppendValues([]float32{0.25, 0.75}, nil)
	sb.Append(true)
	sb.ValueBuilder().(*array.Float32Builder).AppendValues([]float32{1, 0}, []bool{true, false})
	b.Field(4).(*array.Int16Builder).AppendValues([]int16{1, -2}, nil)
	b.Field(5).(*array.Uint64Builder).AppendValues([]uint64{7, 1 << 63}, nil)
	b.Field(6).(*array.BooleanBuilder).AppendValues([]bool{true, false}, nil)
	rec := b.NewRecord()
	defer rec.Release()
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(schema))
	require.NoError(t, w.Write(rec))
	require.NoError(t, w.Write(rec)) // two batches in one stream
	require.NoError(t, w.Close())
	return buf.Bytes()
}

func TestDecodeArrow(t *testing.T) {
	d := NewDecoder("arrow", []string{"prediction", "references", "toks", "scores", "label", "big", "ok", "missing", "offset"}, 1<<20)
	recs := d.Decode(&kafkago.Message{Topic: "t", Partition: 1, Offset: 9, Value: arrowMessage(t)})
	require.Len(t, recs, 4)
	r0, r1 := recs[0], recs[1]
	require.Nil(t, r0.Err)
	require.Equal(t, []core.Value{
		{Kind: core.String, Str: "x y"},
		{Kind: core.StringList, Strs: []string{"r1", "r2"}},
		{Kind: core.StringLists, Lists: [][]string{{"a", "b"}}},
		{Kind: core.FloatList, Floats: []float64{0.25, 0.75}},
		{Kind: core.Int, Int: 1},
		{Kind: core.Int, Int: 7},
		{Kind: core.Bool, Int: 1},
		{},
		{Kind: core.Int, Int: 9},
	}, r0.Values)
	require.Equal(t, []core.Value{
		{Kind: core.Null},
		{Kind: core.StringList, Strs: []string{}},
		{Kind: core.Null},
		{Kind: core.Other}, // a null element
		{Kind: core.Int, Int: -2},
		{Kind: core.Float, Float: float64(uint64(1) << 63)},
		{Kind: core.Bool},
		{},
		{Kind: core.Int, Int: 9},
	}, r1.Values)
	require.Equal(t, int64(3), recs[3].Pos.Row)
	require.Equal(t, recs[0].Seq, recs[3].Seq)

	for _, v := range [][]byte{[]byte("garbage"), arrowMessage(t)[:100], nil} {
		recs := d.Decode(&kafkago.Message{Value: v})
		require.Len(t, recs, 1)
		require.NotNil(t, recs[0].Err)
		require.Equal(t, ReasonInvalidArrow, recs[0].Err.Reason)
	}
}

func FuzzDecodeArrow(f *testing.F) {
	f.Add([]byte("ARROW1"))
	f.Fuzz(func(t *testing.T, b []byte) {
		d := NewDecoder("arrow", []string{"prediction", "references"}, 1<<20)
		recs := d.Decode(&kafkago.Message{Value: b})
		require.NotEmpty(t, recs)
	})
}

func FuzzDecodeJSON(f *testing.F) {
	f.Add([]byte(`{"prediction": "a", "references": ["b"]}`))
	f.Add([]byte(`{"prediction": [1, 2.5e3], "references": [["b"]]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		d := NewDecoder("json", []string{"prediction", "references"}, 1<<20)
		recs := d.Decode(&kafkago.Message{Value: b})
		require.Len(t, recs, 1)
	})
}

func TestEnvelopeRoundTrip(t *testing.T) {
	env := Envelope{Kind: KindWindow, Group: "g", Topic: "t", Partition: 7, Start: 3, Next: 99, Done: true, Idle: true, Window: -5, Written: time.UnixMilli(1700000000123)}
	b := encodeEnvelope(env, []byte("payload"))
	u, err := decodeEnvelope(b)
	require.NoError(t, err)
	require.Equal(t, env, u.Env)
	require.Equal(t, []byte("payload"), u.Payload)
	require.Equal(t, "t/7", u.Part())
	for i := range b {
		c := append([]byte(nil), b...)
		c[i] ^= 0x40
		_, err := decodeEnvelope(c)
		require.ErrorIs(t, err, ErrSnapshot, "flipped byte %d", i)
	}
	_, err = decodeEnvelope(b[:len(b)-1])
	require.ErrorIs(t, err, ErrSnapshot)
	require.Equal(t, "g/t/7", snapshotKey("g", TopicPartition{"t", 7}))
	require.Equal(t, "-/t/7/window/5", windowKey("", TopicPartition{"t", 7}, 5))
}

func FuzzDecodeEnvelope(f *testing.F) {
	f.Add(encodeEnvelope(Envelope{Group: "g", Topic: "t"}, []byte("x")))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = decodeEnvelope(b)
	})
}

// TestSCRAMSHA256 replays the exchange of RFC 7677 section 3.
func TestSCRAMSHA256(t *testing.T) {
	m, err := SASLMechanism("scram-sha-256", "user", "pencil")
	require.NoError(t, err)
	require.Equal(t, "SCRAM-SHA-256", m.Name())
	s := &scramSession{m: m.(*scram), nonce: "rOprNGfwEbeRWgbNEkqO", firstBare: "n=user,r=rOprNGfwEbeRWgbNEkqO"}
	done, resp, err := s.Next(context.Background(), []byte("r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"))
	require.NoError(t, err)
	require.False(t, done)
	require.Equal(t, "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=", string(resp))
	done, _, err = s.Next(context.Background(), []byte("v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="))
	require.NoError(t, err)
	require.True(t, done)

	s2 := &scramSession{m: m.(*scram), nonce: "rOprNGfwEbeRWgbNEkqO", firstBare: "n=user,r=rOprNGfwEbeRWgbNEkqO"}
	_, _, err = s2.Next(context.Background(), []byte("r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"))
	require.NoError(t, err)
	_, _, err = s2.Next(context.Background(), []byte("v=AAAA"))
	require.Error(t, err, "a wrong server signature is refused")

	sm, ir, err := m.Start(context.Background())
	require.NoError(t, err)
	require.NotNil(t, sm)
	require.True(t, strings.HasPrefix(string(ir), "n,,n=user,r="))
	_, err = SASLMechanism("gssapi", "", "")
	require.Error(t, err)
}

func TestConfigValidate(t *testing.T) {
	c := Config{Brokers: []string{"x:1"}, Topics: []string{"a"}}
	require.NoError(t, c.Validate())
	require.Equal(t, "json", c.Format)
	require.Equal(t, "earliest", c.Start)
	require.Equal(t, "bounded", c.Mode)
	require.Equal(t, DefaultCheckpointInterval, c.CheckpointInterval)
	bad := Config{Topics: []string{"a", "a"}, StateTopic: "a", Format: "xml", Start: "now", Mode: "forever"}
	err := bad.Validate()
	require.Error(t, err)
	for _, s := range []string{"brokers", "duplicate", "state topic", "format", "start", "mode"} {
		require.Contains(t, err.Error(), s)
	}
}
