package sinks

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	kafkago "github.com/segmentio/kafka-go"
	"github.com/stretchr/testify/require"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/pipeline"
)

func TestFitDeadLetter(t *testing.T) {
	pos := pipeline.Position{Topic: "t", Partition: 1, Offset: 42, Row: -1}
	text := []byte(`{"prediction": "` + strings.Repeat(`é "<q>" `, 2000))
	binary := make([]byte, 9000)
	for i := range binary {
		binary[i] = byte(i) | 0x80
	}
	long := strings.Repeat("x", 5000)
	tests := []struct {
		name   string
		d      pipeline.DeadLetter
		limit  int
		field  string // the truncated payload's field; "" when it fits whole
		prefix func(v any) bool
	}{
		{"fits", pipeline.DeadLetter{Pos: pos, Reason: "invalid json", Error: "e", Raw: []byte(`{"a": 1`)}, 1000, "", nil},
		{"text", pipeline.DeadLetter{Pos: pos, Reason: "invalid json", Error: "e", Raw: text}, 2000, "payload",
			func(v any) bool { return strings.HasPrefix(string(text), v.(string)) && len(v.(string)) > 500 }},
		{"binary", pipeline.DeadLetter{Pos: pos, Reason: "invalid json", Error: "e", Raw: binary}, 3000, "payload_base64",
			func(v any) bool {
				b, err := base64.StdEncoding.DecodeString(v.(string))
				return err == nil && len(b) > 1000 && string(binary[:len(b)]) == string(b)
			}},
		{"record and a long error", pipeline.DeadLetter{Pos: pos, Reason: "wrong type", Error: long, Fields: []string{"prediction"},
			Record: &pipeline.Record{Values: []core.Value{{Kind: core.String, Str: long}}}}, 2500, "record_prefix",
			func(v any) bool { return strings.HasPrefix(v.(string), `{"prediction":"xxx`) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := fitDeadLetter(tt.d, tt.limit)
			require.NoError(t, err)
			require.LessOrEqual(t, len(b), tt.limit)
			var got map[string]any
			require.NoError(t, json.Unmarshal(b, &got))
			require.Equal(t, "t/1/42", got["position"])
			require.Equal(t, float64(42), got["offset"])
			require.Equal(t, tt.d.Reason, got["reason"])
			if tt.field == "" {
				full, err := DeadLetterJSON(tt.d)
				require.NoError(t, err)
				require.Equal(t, string(full), string(b))
				return
			}
			require.Equal(t, true, got["truncated"])
			require.True(t, tt.prefix(got[tt.field]), "%s: %.80v", tt.field, got[tt.field])
			require.LessOrEqual(t, len(got["error"].(string)), 1030)
		})
	}
	// Not even the position and reason fit.
	_, err := fitDeadLetter(pipeline.DeadLetter{Pos: pos, Reason: "invalid json", Error: "e", Raw: text}, 60)
	require.ErrorContains(t, err, "more than the 60 bytes the topic's max.message.bytes leaves for it")
}

func TestDeadLetterWriteErrors(t *testing.T) {
	dead := []pipeline.DeadLetter{{Pos: pipeline.Position{Topic: "t", Offset: 1, Row: -1}}, {Pos: pipeline.Position{Topic: "t", Offset: 2, Row: -1}}}
	for _, tt := range []struct {
		err       error
		pos       string
		permanent bool
	}{
		{kafkago.WriteErrors{nil, kafkago.MessageSizeTooLarge}, "t/0/2", true},
		{kafkago.WriteErrors{kafkago.TopicAuthorizationFailed, nil}, "t/0/1", true},
		{kafkago.WriteErrors{kafkago.UnknownTopicOrPartition, nil}, "t/0/1", true},
		{kafkago.WriteErrors{kafkago.NotEnoughReplicas, nil}, "t/0/1", false},
		{kafkago.MessageTooLargeError{}, "t/0/1", true},
		{fmt.Errorf("dial: %w", errors.New("connection refused")), "t/0/1", false},
	} {
		err := deadLetterWriteError("dl", dead, tt.err)
		var de *DeadLetterError
		require.ErrorAs(t, err, &de)
		require.Equal(t, tt.permanent, de.Permanent, "%v", tt.err)
		require.Contains(t, err.Error(), "dead-letter topic dl: the dead letter of "+tt.pos+" cannot be written")
	}
}
