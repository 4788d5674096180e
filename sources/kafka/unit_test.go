package kafka

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

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
		name, value, reason, field, detail string
	}{
		{"syntax", `{"prediction": "a`, ReasonInvalidJSON, "", "unexpected end of line in string literal at byte 18"},
		{"bad value", `{"prediction": x}`, ReasonInvalidJSON, "", "invalid character 'x' looking for beginning of value at byte 16"},
		{"not an object", `["a"]`, ReasonInvalidJSON, "", "expected a JSON object at byte 1"},
		{"null", `null`, ReasonInvalidJSON, "", "expected a JSON object"},
		{"empty", ``, ReasonInvalidJSON, "", "empty message"},
		{"blank", " \n", ReasonInvalidJSON, "", "empty message"},
		{"trailing", `{"a": 1} {"b": 2}`, ReasonInvalidJSON, "", "after the top-level object at byte 10"},
		{"utf-8", "{\"prediction\": \"\xff\"}", ReasonInvalidUTF8, "prediction", "string value is not valid UTF-8"},
		{"utf-8 in a list", "{\"references\": [\"a\", \"\xff\"]}", ReasonInvalidUTF8, "references", "string value is not valid UTF-8"},
		{"too large", `{"prediction": "` + strings.Repeat("x", 300) + `"}`, ReasonTooLarge, "", "the message value has 318 bytes, more than max_record_bytes=200"},
	} {
		t.Run(c.name, func(t *testing.T) {
			recs := d.Decode(&kafkago.Message{Topic: "t", Partition: 0, Offset: 7, Key: []byte("k"), Value: []byte(c.value)})
			require.Len(t, recs, 1)
			require.NotNil(t, recs[0].Err)
			require.Equal(t, c.reason, recs[0].Err.Reason)
			require.Equal(t, c.field, recs[0].Err.Field)
			require.Contains(t, recs[0].Err.Detail, c.detail)
			require.Equal(t, []byte(c.value), recs[0].Raw)
			// metadata is still there for slicing and dead letters
			require.Equal(t, core.Value{Kind: core.String, Str: "k"}, recs[0].Values[3])
		})
	}
	// A null value is a tombstone, in either format, with the key kept for the dead letter;
	// an empty value is not.
	for _, format := range []string{"json", "arrow"} {
		fd := NewDecoder(format, d.fields, 200)
		recs := fd.Decode(&kafkago.Message{Topic: "t", Offset: 8, Key: []byte("deleted-id")})
		require.Len(t, recs, 1)
		require.NotNil(t, recs[0].Err, format)
		require.Equal(t, ReasonTombstone, recs[0].Err.Reason, format)
		require.Nil(t, recs[0].Raw)
		require.Equal(t, core.Value{Kind: core.String, Str: "deleted-id"}, recs[0].Values[3])
		recs = fd.Decode(&kafkago.Message{Topic: "t", Offset: 9, Value: []byte{}})
		require.NotEqual(t, ReasonTombstone, recs[0].Err.Reason, format)
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

	for _, v := range [][]byte{[]byte("garbage"), arrowMessage(t)[:100], {}} {
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

// stdDecodeJSON is how JSON messages were decoded before the projecting decoder: the object
// into a map of raw values with encoding/json, then each requested field with UseNumber and
// core.FromJSON, rejecting a string value with invalid UTF-8. It is the oracle of the tests:
// the decoder must give the same values and the same reasons.
func stdDecodeJSON(b []byte, fields []string) ([]core.Value, *core.RecordError) {
	out := make([]core.Value, len(fields))
	if len(bytes.TrimSpace(b)) == 0 {
		return out, &core.RecordError{Reason: ReasonInvalidJSON, Detail: "empty message"}
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		return out, &core.RecordError{Reason: ReasonInvalidJSON, Detail: err.Error()}
	}
	if obj == nil {
		return out, &core.RecordError{Reason: ReasonInvalidJSON, Detail: "expected a JSON object, got null"}
	}
	validUTF8 := utf8.Valid(b)
	for i, f := range fields {
		raw, ok := obj[f]
		if !ok {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var x any
		if err := dec.Decode(&x); err != nil {
			return make([]core.Value, len(fields)), &core.RecordError{Reason: ReasonInvalidJSON, Field: f, Detail: err.Error()}
		}
		v := core.FromJSON(x)
		if !validUTF8 && !utf8.Valid(raw) {
			switch v.Kind {
			case core.String, core.StringList, core.StringLists:
				return make([]core.Value, len(fields)), &core.RecordError{Reason: ReasonInvalidUTF8, Field: f, Detail: "string value is not valid UTF-8"}
			}
		}
		out[i] = v
	}
	return out, nil
}

// canon renders values so that two compare equal exactly when they are the same (floats by
// their bits; nil and empty lists alike).
func canon(vals []core.Value) []string {
	out := make([]string, len(vals))
	for i, v := range vals {
		switch v.Kind {
		case core.String:
			out[i] = "s:" + strconv.Quote(v.Str)
		case core.StringList:
			out[i] = fmt.Sprintf("sl:%q", v.Strs)
		case core.StringLists:
			out[i] = fmt.Sprintf("sls:%q", v.Lists)
		case core.Int:
			out[i] = fmt.Sprintf("i:%d", v.Int)
		case core.Float:
			out[i] = fmt.Sprintf("f:%x", math.Float64bits(v.Float))
		case core.FloatList:
			var b strings.Builder
			b.WriteString("fl:")
			for _, f := range v.Floats {
				fmt.Fprintf(&b, "%x,", math.Float64bits(f))
			}
			out[i] = b.String()
		case core.Bool:
			out[i] = fmt.Sprintf("b:%d", v.Int)
		default:
			out[i] = v.Kind.String()
		}
	}
	return out
}

// checkAgainstStd decodes b and checks the result against stdDecodeJSON: same values, same
// reason and field. Metadata fields are not requested.
func checkAgainstStd(t *testing.T, d *Decoder, fields []string, b []byte) {
	t.Helper()
	value := bytes.Clone(b)
	recs := d.Decode(&kafkago.Message{Value: value})
	require.Len(t, recs, 1)
	r := recs[0]
	require.Equal(t, b, r.Raw)
	want, werr := stdDecodeJSON(b, fields)
	if werr == nil {
		require.Nil(t, r.Err, "%q", b)
	} else {
		require.NotNil(t, r.Err, "%q: want %v", b, werr)
		require.Equal(t, werr.Reason, r.Err.Reason, "%q: %v", b, r.Err)
		if werr.Reason == ReasonInvalidUTF8 {
			require.Equal(t, werr.Field, r.Err.Field, "%q", b)
		}
		require.NotEmpty(t, r.Err.Detail)
	}
	require.Equal(t, canon(want), canon(r.Values), "%q", b)
	// The record owns its memory: scribbling over the message value changes nothing.
	for i := range value {
		value[i] = 'X'
	}
	require.Equal(t, canon(want), canon(r.Values), "%q after the message buffer was reused", b)
	require.Equal(t, b, r.Raw)
}

var jsonSeeds = []string{
	`{"prediction": "a", "references": ["b"]}`,
	`{"prediction": [1, 2.5e3], "references": [["b"]]}`,
	`{"prediction": "q\"\u00e9\ud83d\ude00\n", "references": ["\u0041", "x"], "label": -0}`,
	`{"label": 9223372036854775808, "n": 1e400, "prediction": -12.5e-3, "references": []}`,
	`{"label": true, "prediction": null, "references": [true, 2, false]}`,
	`{"prediction": {"a": [1, {"b": "\u0000"}]}, "references": [["a"], "b"], "label": [["x"], []]}`,
	`{"prediction": "a", "prediction": 2, "references": ["x", null]}`,
	"{\"prediction\": \"\xff\"}",
	"{\"references\": [\"ok\", \"\xc3\"]}",
	"{\"other\": \"\xff\", \"label\": 1}",
	"{\"prediction\": [1, \"\xff\"]}",
	"{\"predictio\xff\": \"x\"}",
	` { "prediction" : "a" } ` + "\r\n",
	`{"prediction": "a"} {"b": 2}`,
	`{"prediction": "a`,
	`["a"]`,
	`null`,
	`"x"`,
	``,
	" \t\n",
	`{"prediction": 01}`,
	`{"prediction": 1.}`,
	`{"prediction": "\x"}`,
	`{"prediction": "\ud800"}`,
	"{\"prediction\": \"a\x01\"}",
	`{"a": [[[[[[[[[[1]]]]]]]]]], "prediction": "ok"}`,
	"\xef\xbb\xbf{}",
}

func TestDecodeJSONMatchesEncodingJSON(t *testing.T) {
	fields := []string{"prediction", "references", "label", "n", "prediction"}
	d := NewDecoder("json", fields, 1<<20)
	for _, s := range jsonSeeds {
		checkAgainstStd(t, d, fields, []byte(s))
	}
	// Nesting beyond encoding/json's limit is invalid in both.
	deep := `{"prediction": ` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}`
	checkAgainstStd(t, d, fields, []byte(deep))
}

func FuzzDecodeJSON(f *testing.F) {
	for _, s := range jsonSeeds {
		f.Add([]byte(s))
	}
	fields := []string{"prediction", "references", "label"}
	f.Fuzz(func(t *testing.T, b []byte) {
		d := NewDecoder("json", fields, 1<<20)
		checkAgainstStd(t, d, fields, b)
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

// A decoded JSON record promises valid UTF-8 (the metrics then skip their check) only when
// the metadata strings filled into it are valid too.
func TestDecodeJSONMarksUTF8Checked(t *testing.T) {
	d := NewDecoder("json", []string{"prediction", "key", "header.model"}, 1<<20)
	msg := func(value, key, model string) *kafkago.Message {
		return &kafkago.Message{Topic: "t", Value: []byte(value), Key: []byte(key), Headers: []kafkago.Header{{Key: "model", Value: []byte(model)}}}
	}
	cases := []struct {
		name    string
		m       *kafkago.Message
		checked bool
	}{
		{"valid", msg(`{"prediction": "grüße"}`, "k", "m"), true},
		{"record fields win over metadata", msg(`{"prediction": "a", "key": "k", "header.model": "m"}`, "\xff", "\xff"), true},
		{"invalid key", msg(`{"prediction": "a"}`, "\xff", "m"), false},
		{"invalid header", msg(`{"prediction": "a"}`, "k", "\xc3"), false},
		{"invalid utf-8 value", msg("{\"prediction\": \"\xff\"}", "k", "m"), false},
		{"invalid json", msg(`{"prediction": `, "k", "m"), false},
	}
	for _, c := range cases {
		recs := d.Decode(c.m)
		require.Len(t, recs, 1, c.name)
		require.Equal(t, c.checked, recs[0].UTF8Checked, c.name)
	}
}

func TestIsTxnMarker(t *testing.T) {
	marker := func(typ byte) *kafkago.Message {
		return &kafkago.Message{Key: []byte{0, 0, 0, typ}, Value: []byte{0, 0, 0, 0, 0, 3}}
	}
	require.True(t, isTxnMarker(marker(1)), "commit")
	require.True(t, isTxnMarker(marker(0)), "abort")
	for name, m := range map[string]*kafkago.Message{
		"other control type": marker(2),
		"json value":         {Key: []byte{0, 0, 0, 1}, Value: []byte(`{"a":1}`)},
		"six json bytes":     {Key: []byte{0, 0, 0, 1}, Value: []byte(`{"a":}`)},
		"text key":           {Key: []byte("0001"), Value: []byte{0, 0, 0, 0, 0, 0}},
		"no key":             {Value: []byte{0, 0, 0, 0, 0, 0}},
		"long value":         {Key: []byte{0, 0, 0, 1}, Value: []byte{0, 0, 0, 0, 0, 0, 0}},
	} {
		require.False(t, isTxnMarker(m), name)
	}
}
