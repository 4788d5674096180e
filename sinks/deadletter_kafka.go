package sinks

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	kafkago "github.com/segmentio/kafka-go"

	"github.com/evalstream/evalstream/pipeline"
)

// DefaultMaxMessageBytes is the broker's default message.max.bytes (1 MiB + 12 bytes of
// batch overhead), the limit of a topic without its own max.message.bytes.
const DefaultMaxMessageBytes = 1048588

// batchOverhead bounds what a record batch of one record adds to the record's key and value:
// 61 bytes of batch header and the record's own varints, with room to spare.
const batchOverhead = 128

// DeadLetterError is a dead letter that could not be written: Pos is its record's position.
// Permanent is set when writing it again cannot succeed (the record is too large even
// truncated, the topic is missing, access is denied): the run must stop rather than retry.
type DeadLetterError struct {
	Topic     string
	Pos       pipeline.Position
	Err       error
	Permanent bool
}

func (e *DeadLetterError) Error() string {
	return fmt.Sprintf("dead-letter topic %s: the dead letter of %s cannot be written: %v", e.Topic, e.Pos, e.Err)
}

func (e *DeadLetterError) Unwrap() error { return e.Err }

// deadLetterWriteError names the first dead letter that failed in err (from
// Writer.WriteMessages) and says whether retrying can help: kafka-go has already retried
// the errors the broker calls retriable (MaxAttempts), and a broker that is down (a network
// error) is retried by the caller; a non-retriable broker error (message too large, not
// authorised, invalid record), or a topic that still does not exist, is permanent.
func deadLetterWriteError(topic string, dead []pipeline.DeadLetter, err error) error {
	first := 0
	cause := err
	var werrs kafkago.WriteErrors
	if errors.As(err, &werrs) {
		for i, e := range werrs {
			if e != nil && i < len(dead) {
				first, cause = i, e
				break
			}
		}
	}
	pos := pipeline.Position{}
	if len(dead) > 0 {
		pos = dead[first].Pos
	}
	return &DeadLetterError{Topic: topic, Pos: pos, Err: cause, Permanent: permanentWriteError(cause)}
}

func permanentWriteError(err error) bool {
	var tooLarge kafkago.MessageTooLargeError
	if errors.As(err, &tooLarge) {
		return true
	}
	var kerr kafkago.Error
	if errors.As(err, &kerr) {
		return !kerr.Temporary() || kerr == kafkago.UnknownTopicOrPartition
	}
	return false
}

// fitDeadLetter renders d as DeadLetterJSON does, in at most limit bytes. A dead letter too
// large (a big message rejected, say, as "record too large") keeps its position, reason and
// error and as much of the start of its payload as fits, with "truncated": true and the
// payload's full size in "payload_bytes": the payload's start in "payload" (text) or
// "payload_base64" (binary), or, for a record without a raw payload, the start of the
// record's JSON rendering in "record_prefix".
func fitDeadLetter(d pipeline.DeadLetter, limit int) ([]byte, error) {
	b, err := DeadLetterJSON(d)
	if err != nil || len(b) <= limit {
		return b, err
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		return nil, err
	}
	var payload []byte
	field := "payload"
	switch {
	case d.Raw != nil:
		payload = d.Raw
		if !utf8.Valid(d.Raw) {
			field = "payload_base64"
		}
	case obj["record"] != nil:
		payload, field = obj["record"], "record_prefix"
	}
	delete(obj, "payload")
	delete(obj, "payload_base64")
	delete(obj, "record")
	obj["truncated"] = json.RawMessage("true")
	obj["payload_bytes"] = json.RawMessage(fmt.Sprint(len(payload)))
	// An error message may be long too (it can quote the value): keep its first KiB.
	if e, ok := obj["error"]; ok && len(e) > 1024 {
		var s string
		if json.Unmarshal(e, &s) == nil {
			obj["error"], _ = json.Marshal(truncateUTF8(s, 1024) + "...")
		}
	}
	head, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	room := limit - len(head) - len(`,"":""`) - len(field)
	if room < 0 {
		return nil, fmt.Errorf("even without its payload the dead letter takes %d bytes, more than the %d bytes the topic's max.message.bytes leaves for it", len(head), limit)
	}
	// JSON escaping can make the prefix longer than its bytes: shrink until it fits.
	for n := room; ; n = n * 3 / 4 {
		var v []byte
		if field == "payload_base64" {
			v, _ = json.Marshal(base64.StdEncoding.EncodeToString(payload[:min(len(payload), n/4*3)]))
		} else {
			v, _ = json.Marshal(truncateUTF8(string(payload), n))
		}
		if len(v) <= room+2 || n == 0 {
			obj[field] = v
			break
		}
	}
	return json.Marshal(obj)
}

// truncateUTF8 returns the longest prefix of s of at most n bytes that does not split a
// UTF-8 sequence.
func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
