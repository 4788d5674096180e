package arrow

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/apache/arrow/go/v15/arrow/ipc"
	"github.com/apache/arrow/go/v15/arrow/memory"

	"github.com/evalstream/evalstream/sources/internal/fileread"
)

// arrow/go v15 trusts the lengths inside Arrow IPC metadata (flatbuffers): a corrupted
// vector length makes it allocate gigabytes up front (a fatal out-of-memory, which no
// recover can catch) and a corrupted offset makes it panic. The functions below verify the
// metadata of a footer or a message before arrow reads it: every table, vector and string
// lies inside its buffer, vectors fit, body buffers lie inside the body, and block positions
// lie inside the file. They check what arrow relies on, not full semantic validity; what
// remains is caught by recovered and by Go's bounds checks.

var errBadMetadata = errors.New("malformed Arrow IPC metadata")

// fbv walks one flatbuffer.
type fbv struct {
	b      []byte
	budget int // tables left to visit (bounds the work on DAG-shaped input)
}

type fbt struct{ pos, vt, vtLen, tLen int }

func (v *fbv) in(p, n int) bool { return p >= 0 && n >= 0 && p <= len(v.b) && n <= len(v.b)-p }

func (v *fbv) u16(p int) int   { return int(binary.LittleEndian.Uint16(v.b[p:])) }
func (v *fbv) u32(p int) int64 { return int64(binary.LittleEndian.Uint32(v.b[p:])) }
func (v *fbv) i64(p int) int64 { return int64(binary.LittleEndian.Uint64(v.b[p:])) }

func (v *fbv) table(pos int) (fbt, bool) {
	v.budget--
	if v.budget < 0 || !v.in(pos, 4) {
		return fbt{}, false
	}
	vt := int64(pos) - int64(int32(binary.LittleEndian.Uint32(v.b[pos:])))
	if vt < 0 || vt > int64(len(v.b)) || !v.in(int(vt), 4) {
		return fbt{}, false
	}
	t := fbt{pos: pos, vt: int(vt), vtLen: v.u16(int(vt)), tLen: v.u16(int(vt) + 2)}
	if t.vtLen < 4 || !v.in(t.vt, t.vtLen) || !v.in(pos, t.tLen) {
		return fbt{}, false
	}
	return t, true
}

// field returns the position of an inline field of size bytes (present=false if absent).
func (v *fbv) field(t fbt, slot, size int) (p int, present, ok bool) {
	o := 4 + 2*slot
	if o+2 > t.vtLen {
		return 0, false, true
	}
	fo := v.u16(t.vt + o)
	if fo == 0 {
		return 0, false, true
	}
	p = t.pos + fo
	return p, true, v.in(p, size)
}

// ref follows an offset field (table, vector or string).
func (v *fbv) ref(t fbt, slot int) (int, bool, bool) {
	p, present, ok := v.field(t, slot, 4)
	if !present || !ok {
		return 0, present, ok
	}
	target := int64(p) + v.u32(p)
	if target >= int64(len(v.b)) {
		return 0, true, false
	}
	return int(target), true, true
}

// vector returns the start and length of a vector field with elements of size bytes.
func (v *fbv) vector(t fbt, slot, size int) (start, n int, present, ok bool) {
	p, present, ok := v.ref(t, slot)
	if !present || !ok {
		return 0, 0, present, ok
	}
	if !v.in(p, 4) {
		return 0, 0, true, false
	}
	n64 := v.u32(p)
	if n64*int64(size) > int64(len(v.b)-p-4) {
		return 0, 0, true, false
	}
	return p + 4, int(n64), true, true
}

func (v *fbv) subTable(t fbt, slot int) (fbt, bool, bool) {
	p, present, ok := v.ref(t, slot)
	if !present || !ok {
		return fbt{}, present, ok
	}
	st, ok := v.table(p)
	return st, true, ok
}

// tables calls fn for each table of a vector of tables.
func (v *fbv) tables(t fbt, slot int, fn func(fbt) bool) bool {
	start, n, present, ok := v.vector(t, slot, 4)
	if !present || !ok {
		return ok
	}
	for i := 0; i < n; i++ {
		ep := start + 4*i
		target := int64(ep) + v.u32(ep)
		if target >= int64(len(v.b)) {
			return false
		}
		et, ok := v.table(int(target))
		if !ok || !fn(et) {
			return false
		}
	}
	return true
}

func (v *fbv) str(t fbt, slot int) bool {
	_, _, _, ok := v.vector(t, slot, 1)
	return ok
}

func (v *fbv) optTable(t fbt, slot int) bool {
	_, _, ok := v.subTable(t, slot)
	return ok
}

func (v *fbv) keyValues(t fbt, slot int) bool {
	return v.tables(t, slot, func(kv fbt) bool { return v.str(kv, 0) && v.str(kv, 1) })
}

const (
	fbTypeTimestamp = 10
	fbTypeUnion     = 14

	fbHeaderSchema     = 1
	fbHeaderDictionary = 2
	fbHeaderRecord     = 3

	maxFieldDepth = 64
)

func (v *fbv) schema(t fbt) bool {
	if _, _, ok := v.field(t, 0, 2); !ok {
		return false
	}
	if !v.tables(t, 1, func(f fbt) bool { return v.fieldDef(f, 1) }) {
		return false
	}
	_, _, _, ok := v.vector(t, 3, 8)
	return ok && v.keyValues(t, 2)
}

func (v *fbv) fieldDef(t fbt, depth int) bool {
	if depth > maxFieldDepth || !v.str(t, 0) {
		return false
	}
	if _, _, ok := v.field(t, 1, 1); !ok { // nullable
		return false
	}
	typ := 0
	if p, present, ok := v.field(t, 2, 1); !ok {
		return false
	} else if present {
		typ = int(v.b[p])
	}
	tt, present, ok := v.subTable(t, 3)
	if !ok {
		return false
	}
	if present {
		switch typ {
		case fbTypeTimestamp:
			if !v.str(tt, 1) {
				return false
			}
		case fbTypeUnion:
			if _, _, _, ok := v.vector(tt, 1, 4); !ok {
				return false
			}
		}
	}
	dict, present, ok := v.subTable(t, 4)
	if !ok || (present && !v.optTable(dict, 1)) {
		return false
	}
	return v.tables(t, 5, func(c fbt) bool { return v.fieldDef(c, depth+1) }) && v.keyValues(t, 6)
}

// recordBatch checks a RecordBatch table whose body has bodyLen bytes. It returns nil or
// what is wrong, for the error.
func (v *fbv) recordBatch(t fbt, bodyLen int64) error {
	p, present, ok := v.field(t, 0, 8)
	if !ok || (present && v.i64(p) < 0) {
		return errors.New("record batch length")
	}
	start, n, _, ok := v.vector(t, 1, 16) // FieldNode{length, null_count}
	if !ok {
		return errors.New("field nodes")
	}
	for i := 0; i < n; i++ {
		if l, nulls := v.i64(start+16*i), v.i64(start+16*i+8); l < 0 || nulls < 0 || nulls > l {
			return fmt.Errorf("field node %d claims %d values and %d nulls", i, l, nulls)
		}
	}
	start, nbuf, _, ok := v.vector(t, 2, 16) // Buffer{offset, length}
	if !ok {
		return errors.New("buffers")
	}
	for i := 0; i < nbuf; i++ {
		off, l := v.i64(start+16*i), v.i64(start+16*i+8)
		if off < 0 || l < 0 || off > bodyLen || l > bodyLen-off {
			return fmt.Errorf("buffer %d claims %d bytes at offset %d of a %d-byte body", i, l, off, bodyLen)
		}
	}
	if !v.optTable(t, 3) {
		return errors.New("compression")
	}
	start, n, _, ok = v.vector(t, 4, 8) // variadicBufferCounts
	if !ok {
		return errors.New("variadic buffer counts")
	}
	for i := 0; i < n; i++ {
		if c := v.i64(start + 8*i); c < 0 || c > int64(nbuf) {
			return fmt.Errorf("variadic buffer count %d", c)
		}
	}
	return nil
}

// verifyMessage checks the flatbuffer of an IPC message and returns its body length, which
// must not exceed maxBody.
func verifyMessage(meta []byte, maxBody int64) (int64, error) {
	v := &fbv{b: meta, budget: len(meta)/4 + 8}
	if !v.in(0, 4) {
		return 0, fmt.Errorf("%w: message too short", errBadMetadata)
	}
	t, ok := v.table(int(v.u32(0)))
	if !ok {
		return 0, fmt.Errorf("%w: message table", errBadMetadata)
	}
	var bodyLen int64
	if p, present, ok := v.field(t, 3, 8); !ok {
		return 0, fmt.Errorf("%w: body length", errBadMetadata)
	} else if present {
		bodyLen = v.i64(p)
	}
	if bodyLen < 0 || bodyLen > maxBody {
		return 0, fmt.Errorf("%w: body of %d bytes exceeds the %d bytes left in the file", errBadMetadata, bodyLen, maxBody)
	}
	typ := 0
	if p, present, ok := v.field(t, 1, 1); !ok {
		return 0, fmt.Errorf("%w: header type", errBadMetadata)
	} else if present {
		typ = int(v.b[p])
	}
	if _, _, ok := v.field(t, 0, 2); !ok || !v.keyValues(t, 4) {
		return 0, fmt.Errorf("%w: message fields", errBadMetadata)
	}
	h, present, ok := v.subTable(t, 2)
	if !ok || !present {
		return 0, fmt.Errorf("%w: message header", errBadMetadata)
	}
	switch typ {
	case fbHeaderSchema:
		ok = v.schema(h)
	case fbHeaderRecord:
		if err := v.recordBatch(h, bodyLen); err != nil {
			return 0, fmt.Errorf("%w: %w", errBadMetadata, err)
		}
	case fbHeaderDictionary:
		var rb fbt
		if _, _, ok = v.field(h, 0, 8); ok {
			if _, _, ok = v.field(h, 2, 1); ok {
				rb, present, ok = v.subTable(h, 1)
				ok = ok && present
			}
		}
		if !ok {
			return 0, fmt.Errorf("%w: dictionary batch header", errBadMetadata)
		}
		if err := v.recordBatch(rb, bodyLen); err != nil {
			return 0, fmt.Errorf("%w: dictionary batch: %w", errBadMetadata, err)
		}
	default:
		return 0, fmt.Errorf("%w: unsupported message type %d", errBadMetadata, typ)
	}
	if !ok {
		return 0, fmt.Errorf("%w: message header", errBadMetadata)
	}
	return bodyLen, nil
}

// ipcBlock is a message's position in an Arrow IPC file.
type ipcBlock struct {
	offset int64
	meta   int64
	body   int64
}

// ipcFooter is the verified footer of an Arrow IPC file.
type ipcFooter struct {
	dicts, records []ipcBlock
	len            int64 // bytes of the footer flatbuffer
	// schema is a schema message (metadata flatbuffer) made from the footer's schema: the
	// footer, not a message at the start of the body, is what defines an IPC file's schema
	// (polars writes the file without a schema message).
	schema []byte
}

// verifyFooter checks the footer flatbuffer of an Arrow IPC file of fileSize bytes.
func verifyFooter(footer []byte, fileSize int64) (ipcFooter, error) {
	v := &fbv{b: footer, budget: len(footer)/4 + 8}
	if !v.in(0, 4) {
		return ipcFooter{}, fmt.Errorf("%w: footer too short", errBadMetadata)
	}
	t, ok := v.table(int(v.u32(0)))
	if !ok {
		return ipcFooter{}, fmt.Errorf("%w: footer table", errBadMetadata)
	}
	version := 0
	if p, present, ok := v.field(t, 0, 2); !ok {
		return ipcFooter{}, fmt.Errorf("%w: footer version", errBadMetadata)
	} else if present {
		version = v.u16(p)
	}
	s, present, ok := v.subTable(t, 1)
	if !ok || !present || !v.schema(s) {
		return ipcFooter{}, fmt.Errorf("%w: schema", errBadMetadata)
	}
	if !v.keyValues(t, 4) {
		return ipcFooter{}, fmt.Errorf("%w: footer metadata", errBadMetadata)
	}
	blocks := func(slot int) ([]ipcBlock, bool) {
		start, n, _, ok := v.vector(t, slot, 24)
		if !ok {
			return nil, false
		}
		out := make([]ipcBlock, n)
		for i := range out {
			p := start + 24*i
			b := ipcBlock{offset: v.i64(p), meta: int64(int32(binary.LittleEndian.Uint32(v.b[p+8:]))), body: v.i64(p + 16)}
			if b.offset < 0 || b.meta < 8 || b.body < 0 || b.offset > fileSize || b.meta > fileSize-b.offset || b.body > fileSize-b.offset-b.meta {
				return nil, false
			}
			out[i] = b
		}
		return out, true
	}
	ft := ipcFooter{len: int64(len(footer)), schema: schemaMessage(footer, s.pos, version)}
	if ft.dicts, ok = blocks(2); !ok {
		return ipcFooter{}, fmt.Errorf("%w: dictionary blocks", errBadMetadata)
	}
	if ft.records, ok = blocks(3); !ok {
		return ipcFooter{}, fmt.Errorf("%w: record batch blocks", errBadMetadata)
	}
	return ft, nil
}

// schemaMessage builds the flatbuffer of a Message whose header is the Schema table at
// schemaPos of footer (verified). Flatbuffer offsets are relative and point forward, so the
// message table goes before a copy of the footer and points into it; the footer's own root
// offset is left unused.
func schemaMessage(footer []byte, schemaPos, version int) []byte {
	const (
		vtable = 4  // Message vtable: 4 slots (version, header_type, header, bodyLength)
		table  = 16 // Message table: vtable offset, header, version, header_type
		shift  = 32 // the footer copy, 8-byte aligned as it was
	)
	le := binary.LittleEndian
	b := make([]byte, shift+len(footer))
	le.PutUint32(b[0:], table)
	le.PutUint16(b[vtable:], 12)   // vtable bytes
	le.PutUint16(b[vtable+2:], 12) // table bytes
	le.PutUint16(b[vtable+4:], 8)  // version at table+8
	le.PutUint16(b[vtable+6:], 10) // header_type at table+10
	le.PutUint16(b[vtable+8:], 4)  // header at table+4
	le.PutUint16(b[vtable+10:], 0) // bodyLength absent: 0
	le.PutUint32(b[table:], table-vtable)
	le.PutUint32(b[table+4:], uint32(shift+schemaPos-(table+4)))
	le.PutUint16(b[table+8:], uint16(version))
	b[table+10] = fbHeaderSchema
	copy(b[shift:], footer)
	return b
}

// readFooter reads and verifies the footer of the Arrow IPC file r of size bytes.
func readFooter(r io.ReaderAt, size int64) (ipcFooter, error) {
	const magic = "ARROW1"
	tail := make([]byte, 10)
	if size < 2*int64(len(magic))+4 {
		return ipcFooter{}, fmt.Errorf("%w: file too small (%d bytes)", errBadMetadata, size)
	}
	if _, err := r.ReadAt(tail, size-10); err != nil {
		return ipcFooter{}, err
	}
	if string(tail[4:]) != magic {
		return ipcFooter{}, fmt.Errorf("%w: not an Arrow IPC file (no trailing magic)", errBadMetadata)
	}
	n := int64(binary.LittleEndian.Uint32(tail))
	if n <= 0 || n > size-10-int64(len(magic)) {
		return ipcFooter{}, fmt.Errorf("%w: footer length %d", errBadMetadata, n)
	}
	footer := make([]byte, n)
	if _, err := r.ReadAt(footer, size-10-n); err != nil {
		return ipcFooter{}, err
	}
	return verifyFooter(footer, size)
}

// blockMessageReader reads the messages of an Arrow IPC file as its footer lists them, as
// pyarrow does: the schema from the footer, then the dictionary blocks, then the record
// batch blocks. The bytes between blocks are not read (polars writes a bare schema
// flatbuffer there). Each block is read through mr, which verifies it.
type blockMessageReader struct {
	mr      *safeMessageReader
	ft      ipcFooter
	next    int // -1: the schema; then dictionary blocks, then record batch blocks
	reset   func(off, n int64)
	schema  *ipc.Message
	current int // the record batch block last read, for where
}

func (b *blockMessageReader) Retain()  { b.mr.Retain() }
func (b *blockMessageReader) Release() { b.mr.Release() }

func (b *blockMessageReader) Message() (*ipc.Message, error) {
	if b.next < 0 {
		b.next = 0
		if _, err := verifyMessage(b.ft.schema, 0); err != nil {
			return nil, fmt.Errorf("footer schema: %w", err)
		}
		mb := memory.NewBufferBytes(b.ft.schema)
		body := memory.NewBufferBytes(nil)
		b.schema = ipc.NewMessage(mb, body)
		mb.Release()
		body.Release()
		return b.schema, nil
	}
	if b.schema != nil {
		b.schema.Release()
		b.schema = nil
	}
	nd := len(b.ft.dicts)
	if b.next >= nd+len(b.ft.records) {
		return nil, io.EOF
	}
	blk, want := b.ft.dicts, ipc.MessageDictionaryBatch
	i := b.next
	if i >= nd {
		blk, want, i = b.ft.records, ipc.MessageRecordBatch, i-nd
		b.current = i
	}
	b.next++
	b.reset(blk[i].offset, blk[i].meta+blk[i].body)
	msg, err := b.mr.Message()
	if err == io.EOF {
		err = io.ErrUnexpectedEOF // a block that holds the end-of-stream marker
	}
	if err != nil {
		return nil, err
	}
	if msg.Type() != want {
		return nil, fmt.Errorf("%w: block at offset %d holds a %v message, the footer lists it as a %v", errBadMetadata, blk[i].offset, msg.Type(), want)
	}
	return msg, nil
}

// safeMessageReader reads the messages of an Arrow IPC stream like arrow's own reader, but
// verifies each message's lengths and metadata against the bytes left in the file before
// allocating anything.
type safeMessageReader struct {
	r    io.Reader
	left int64 // bytes of the file not read yet
	mem  memory.Allocator
	msg  *ipc.Message
	refs int64
	// bodies, when set, is where message bodies are allocated (arrowBodies, which recycles
	// them); mem is used otherwise.
	bodies memory.Allocator
	// mapped, when set, holds the file: the stream is mapped[pos:pos+left] and bodies are
	// slices of it (no copy); cnt counts the bytes consumed, for progress.
	mapped  *mappedFile
	pos     int64
	cnt     *countFile
	dropped int64 // position of the last dropConsumed that dropped pages
}

const (
	// dropEvery is how far the mapped stream is read between two dropConsumed calls that
	// do drop pages: dropping costs a system call and a TLB flush.
	dropEvery = 256 << 10
	// faultAround is how far behind a faulting address the kernel may map pages of the
	// page cache along with it (fault-around, 64 KiB by default; never beyond the
	// 2 MiB that one page table covers): reading the next message's header maps pages
	// of the body before it again, after they were dropped.
	faultAround = 2 << 20
)

// dropConsumed releases the pages of the mapped stream that lie before the current
// position. It is called once arrow has built the record of the last message: arrow/go v15
// copies every buffer out of a message body, so nothing reads those pages again (and if a
// newer arrow aliased them, a dropped page would be read back from the page cache).
func (m *safeMessageReader) dropConsumed() {
	if m.mapped == nil || m.pos-m.dropped < dropEvery {
		return
	}
	dropPages(m.mapped.data, max(0, m.dropped-faultAround), m.pos)
	m.dropped = m.pos
}

func newSafeMessageReader(r io.Reader, size int64, mem memory.Allocator) *safeMessageReader {
	return &safeMessageReader{r: r, left: size, mem: mem, refs: 1}
}

func (m *safeMessageReader) Retain() { m.refs++ }

func (m *safeMessageReader) Release() {
	m.refs--
	if m.refs == 0 && m.msg != nil {
		m.msg.Release()
		m.msg = nil
	}
}

func (m *safeMessageReader) read(p []byte) error {
	if int64(len(p)) > m.left {
		return fmt.Errorf("%w: %d bytes needed, %d left in the file", io.ErrUnexpectedEOF, len(p), m.left)
	}
	if m.mapped != nil {
		m.consume(int64(copy(p, m.mapped.data[m.pos:])))
		return nil
	}
	n, err := io.ReadFull(m.r, p)
	m.left -= int64(n)
	return err
}

// consume advances over n bytes of the mapped stream.
func (m *safeMessageReader) consume(n int64) {
	m.pos += n
	m.left -= n
	if m.cnt != nil {
		m.cnt.n += n
	}
}

func (m *safeMessageReader) Message() (*ipc.Message, error) {
	if m.msg != nil {
		m.msg.Release()
		m.msg = nil
	}
	var buf [4]byte
	if m.left == 0 {
		return nil, io.EOF // a stream without its end-of-stream marker
	}
	if err := m.read(buf[:]); err != nil {
		return nil, fmt.Errorf("arrow/ipc: could not read continuation indicator: %w", unexpected(err))
	}
	msgLen := int64(binary.LittleEndian.Uint32(buf[:]))
	switch msgLen {
	case 0:
		return nil, io.EOF
	case 0xFFFFFFFF:
		if err := m.read(buf[:]); err != nil {
			return nil, fmt.Errorf("arrow/ipc: could not read message length: %w", unexpected(err))
		}
		msgLen = int64(int32(binary.LittleEndian.Uint32(buf[:])))
		if msgLen == 0 {
			return nil, io.EOF
		}
	default:
		msgLen = int64(int32(msgLen)) // pre-0.15 streams: no continuation token
	}
	if msgLen < 0 || msgLen > m.left {
		return nil, fmt.Errorf("%w: message length %d with %d bytes left in the file", errBadMetadata, msgLen, m.left)
	}
	meta := make([]byte, msgLen)
	if err := m.read(meta); err != nil {
		return nil, fmt.Errorf("arrow/ipc: could not read message metadata: %w", unexpected(err))
	}
	bodyLen, err := verifyMessage(meta, m.left)
	if err != nil {
		return nil, err
	}
	if bodyLen > math.MaxInt32*int64(64) {
		return nil, fmt.Errorf("%w: message body of %d bytes", errBadMetadata, bodyLen)
	}
	if m.mapped != nil {
		// verifyMessage checked that the body lies within the rest of the file.
		b := m.mapped.data[m.pos : m.pos+bodyLen : m.pos+bodyLen]
		m.consume(bodyLen)
		m.mapped.retain()
		body := memory.NewBufferWithAllocator(b, m.mapped)
		mb := memory.NewBufferBytes(meta)
		m.msg = ipc.NewMessage(mb, body)
		mb.Release()
		body.Release()
		return m.msg, nil
	}
	bodyMem := m.mem
	if m.bodies != nil {
		// The size was checked against the file; the allocation still goes through the
		// limit of mem.
		if la, ok := m.mem.(fileread.LimitAllocator); ok && (bodyLen < 0 || bodyLen > int64(la.Limit)) {
			return nil, fmt.Errorf("%w: message body of %d bytes", errBadMetadata, bodyLen)
		}
		bodyMem = m.bodies
	}
	body := memory.NewResizableBuffer(bodyMem)
	defer body.Release()
	body.Resize(int(bodyLen))
	if err := m.read(body.Bytes()); err != nil {
		return nil, fmt.Errorf("arrow/ipc: could not read message body: %w", unexpected(err))
	}
	mb := memory.NewBufferBytes(meta)
	m.msg = ipc.NewMessage(mb, body)
	mb.Release()
	return m.msg, nil
}

// unexpected turns io.EOF in the middle of a message into io.ErrUnexpectedEOF.
func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// NewStreamReader returns a reader of the Arrow IPC stream held in b (a Kafka message)
// that checks every message's metadata as the file sources do — lengths, counts and buffer
// ranges against the bytes of b — before arrow-go allocates anything, so a message claiming
// 2^40 values is an error, not an allocation. Releasing the reader releases what it holds;
// b must outlive it.
func NewStreamReader(b []byte, mem memory.Allocator) (*ipc.Reader, error) {
	mr := newSafeMessageReader(bytes.NewReader(b), int64(len(b)), mem)
	rd, err := ipc.NewReaderFromMessageReader(mr, ipc.WithAllocator(mem))
	if err != nil {
		mr.Release()
		return nil, err
	}
	return rd, nil
}

// IsStream reports whether head starts an Arrow IPC stream: a schema message after the
// continuation marker 0xFFFFFFFF, or (streams written before Arrow 0.15) right after its
// length. The message is verified when it lies in head, so that text or a stray file is not
// taken for a stream; a marker alone is enough (no text starts with 0xFF bytes).
func IsStream(head []byte, size int64) bool {
	if len(head) < 8 {
		return false
	}
	off := int64(4)
	n := int64(binary.LittleEndian.Uint32(head))
	marker := n == 0xFFFFFFFF
	if marker {
		off = 8
		n = int64(int32(binary.LittleEndian.Uint32(head[4:])))
		if n == 0 {
			return size == 8 // an empty stream: only the end-of-stream marker
		}
	}
	if n < 8 || n > size-off {
		return false
	}
	if off+n > int64(len(head)) {
		return marker
	}
	meta := head[off : off+n]
	if _, err := verifyMessage(meta, size-off-n); err != nil {
		return false
	}
	return messageType(meta) == fbHeaderSchema
}

// messageType is the header type of a verified message flatbuffer.
func messageType(meta []byte) int {
	v := &fbv{b: meta, budget: 2}
	t, ok := v.table(int(v.u32(0)))
	if !ok {
		return 0
	}
	if p, present, ok := v.field(t, 1, 1); ok && present {
		return int(v.b[p])
	}
	return 0
}
