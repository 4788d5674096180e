package kafka

import (
	"errors"
	"fmt"
	"hash/crc32"
	"strconv"
	"time"

	"github.com/evalstream/evalstream/metrics/core"
)

// ErrSnapshot is wrapped by every error about an unreadable state-topic message.
var ErrSnapshot = errors.New("invalid state snapshot")

const (
	snapMagic   = "ESKS"
	snapVersion = 1
	// routeHeader carries the partition key a state message is routed by, so that a
	// partition's window finals and snapshots land in one state-topic partition, in order.
	routeHeader = "evalstream-route"
)

// Kind says what a state-topic message holds.
type Kind uint8

// Kinds of Update.
const (
	// KindSnapshot is a partition's state covering offsets [Start, Next).
	KindSnapshot Kind = iota
	// KindWindow is a partition's final state of one window (Envelope.Window).
	KindWindow
	// KindSynced is sent once, after the state of earlier runs has been read.
	KindSynced
)

// TopicPartition names a partition.
type TopicPartition struct {
	Topic     string
	Partition int
}

func (tp TopicPartition) String() string { return tp.Topic + "/" + strconv.Itoa(tp.Partition) }

// Envelope is the metadata of a state-topic message; the payload it carries is opaque here
// (see stages.Tracker).
type Envelope struct {
	Kind      Kind
	Group     string
	Topic     string
	Partition int
	// Start is the first offset the state covers, Next the offset of the next message to
	// read: the state holds exactly the messages [Start, Next).
	Start, Next int64
	// Done: bounded mode reached the end offset it was run to.
	Done bool
	// Idle: the partition had no more messages when the snapshot was written.
	Idle bool
	// Window is the start (Unix ns) of the window of a KindWindow message.
	Window int64
	// Written is when the message was written (informational).
	Written time.Time
}

// Update is one message of the state topic (or of the in-memory store), as delivered to
// the consumer of Consumer.Run.
type Update struct {
	Env     Envelope
	Payload []byte
	// Parts lists every partition ("topic/partition") of the topics read; set on the
	// KindSynced update only.
	Parts []string
}

// Part returns the "topic/partition" the update is about.
func (u *Update) Part() string {
	return TopicPartition{u.Env.Topic, u.Env.Partition}.String()
}

func groupKey(group string) string {
	if group == "" {
		return "-"
	}
	return group
}

// snapshotKey is the compaction key of a partition's snapshots.
func snapshotKey(group string, tp TopicPartition) string {
	return groupKey(group) + "/" + tp.String()
}

// windowKey is the compaction key of a partition's final state of one window.
func windowKey(group string, tp TopicPartition, start int64) string {
	return snapshotKey(group, tp) + "/window/" + strconv.FormatInt(start, 10)
}

func encodeEnvelope(env Envelope, payload []byte) []byte {
	var e core.Encoder
	e.B = append(e.B, snapMagic...)
	e.Byte(snapVersion)
	e.Byte(byte(env.Kind))
	e.String(env.Group)
	e.String(env.Topic)
	e.Varint(int64(env.Partition))
	e.Varint(env.Start)
	e.Varint(env.Next)
	e.Bool(env.Done)
	e.Bool(env.Idle)
	e.Varint(env.Window)
	e.Varint(env.Written.UnixMilli())
	e.String(string(payload))
	sum := crc32.ChecksumIEEE(e.B)
	return append(e.B, byte(sum), byte(sum>>8), byte(sum>>16), byte(sum>>24))
}

func decodeEnvelope(b []byte) (Update, error) {
	if len(b) < len(snapMagic)+5 || string(b[:len(snapMagic)]) != snapMagic {
		return Update{}, fmt.Errorf("%w: not an evalstream state message", ErrSnapshot)
	}
	body, tr := b[:len(b)-4], b[len(b)-4:]
	if sum := crc32.ChecksumIEEE(body); tr[0] != byte(sum) || tr[1] != byte(sum>>8) || tr[2] != byte(sum>>16) || tr[3] != byte(sum>>24) {
		return Update{}, fmt.Errorf("%w: checksum mismatch", ErrSnapshot)
	}
	d := core.NewDecoder(body[len(snapMagic):])
	if v := d.Byte(); v != snapVersion {
		return Update{}, fmt.Errorf("%w: version %d, this build reads %d", ErrSnapshot, v, snapVersion)
	}
	var env Envelope
	env.Kind = Kind(d.Byte())
	env.Group = d.String()
	env.Topic = d.String()
	env.Partition = int(d.Varint())
	env.Start = d.Varint()
	env.Next = d.Varint()
	env.Done = d.Bool()
	env.Idle = d.Bool()
	env.Window = d.Varint()
	env.Written = time.UnixMilli(d.Varint())
	payload := []byte(d.String())
	if err := d.Finish(); err != nil {
		return Update{}, fmt.Errorf("%w: %v", ErrSnapshot, err)
	}
	if env.Kind != KindSnapshot && env.Kind != KindWindow {
		return Update{}, fmt.Errorf("%w: unknown kind %d", ErrSnapshot, env.Kind)
	}
	return Update{Env: env, Payload: payload}, nil
}
