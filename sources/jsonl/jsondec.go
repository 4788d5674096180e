package jsonl

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/sources/internal/fileread"
)

// maxNestingDepth is encoding/json's limit on nested objects and arrays; deeper input is
// invalid there, so it is invalid here too.
const maxNestingDepth = 10000

// errTooDeep is the detail of a record nested deeper than maxNestingDepth.
const errTooDeep = "exceeded max depth: arrays and objects nested more than 10000 levels deep"

// jsonDecoder is a projecting decoder of JSON Lines: it scans one object per line and
// decodes only the requested top-level fields, validating (but not materializing) the rest.
// Strings without escapes alias the line; strings with escapes are unescaped into the
// batch's arena. It accepts exactly the lines encoding/json accepts, and the values it
// produces are those of core.FromJSON applied to encoding/json's decoding (with UseNumber),
// except that a requested string holding invalid UTF-8 is reported instead of being
// coerced to U+FFFD.
//
// A jsonDecoder is not safe for concurrent use.
type jsonDecoder struct {
	uniq    []string       // distinct requested field names, in first-occurrence order
	uniqPos []int          // output position of each distinct name
	slot    map[string]int // name -> index in uniq, when there are many fields
	dups    [][2]int       // (from, to): fields requested more than once

	buf []byte
	pos int
	out []core.Value
	bad []bool // per distinct field: the last occurrence held invalid UTF-8
	ar  *fileread.Arena

	keyBuf    []byte
	strStack  []string
	listStack [][]string
	fltStack  []float64

	errMsg  string
	errAt   int
	posUnit string // how a syntax error's position is named: "column" (lines) or "byte"
}

// Decoder is the projecting decoder of the JSON Lines source, for callers outside this
// package that hold one JSON object per buffer (a Kafka message value). It accepts exactly
// the objects encoding/json accepts; the values it produces are those of core.FromJSON
// applied to encoding/json's decoding with UseNumber (integer literals that fit int64 are
// Int, other numbers Float, ±Inf on overflow), except that a requested string holding
// invalid UTF-8 is reported instead of being coerced to U+FFFD.
//
// Memory: string values without escapes alias the input; unescaped strings and list values
// are carved from the decoder's own chunks, which are reused only after Reset. The values
// therefore stay valid for as long as the input bytes are neither modified nor reused (a
// caller whose input buffer is reused must decode a copy) and Reset is not called.
//
// A Decoder is not safe for concurrent use; use one per goroutine.
type Decoder struct {
	dec *jsonDecoder
	ar  fileread.Arena
}

// NewDecoder returns a decoder of the given fields (the order of the values Decode
// writes). Syntax errors name the 1-based byte position where they were found, like
// encoding/json's SyntaxError.Offset.
func NewDecoder(fields []string) *Decoder {
	d := newJSONDecoder(fields)
	d.posUnit = "byte"
	return &Decoder{dec: d}
}

// Decode parses the JSON object in b into out, which must have one zero (Missing) value per
// field; fields absent from the object stay Missing. blank reports that b holds only
// whitespace (no value is written). A b that is not one valid JSON object yields a
// RecordError with reason "invalid json" and out all Missing; a requested string value with
// invalid UTF-8 yields reason "invalid utf-8" naming the field (out then holds the decoded
// values).
func (d *Decoder) Decode(b []byte, out []core.Value) (blank bool, rerr *core.RecordError) {
	return d.dec.decode(b, out, &d.ar)
}

// Reset lets the decoder reuse the memory of every value it has returned: those values must
// not be used afterwards.
func (d *Decoder) Reset() { d.ar.Reset() }

func newJSONDecoder(fields []string) *jsonDecoder {
	d := &jsonDecoder{posUnit: "column"}
	seen := map[string]int{}
	for i, f := range fields {
		if u, ok := seen[f]; ok {
			d.dups = append(d.dups, [2]int{d.uniqPos[u], i})
			continue
		}
		seen[f] = len(d.uniq)
		d.uniq = append(d.uniq, f)
		d.uniqPos = append(d.uniqPos, i)
	}
	if len(d.uniq) > 8 {
		d.slot = seen
	}
	d.bad = make([]bool, len(d.uniq))
	return d
}

// decode parses one line (without its '\n') into out, which has one zero (Missing) value per
// requested field. blank reports a line holding only whitespace (not a record). A line that
// is not a valid JSON object yields a RecordError with reason "invalid json" and out all
// Missing; a requested string value with invalid UTF-8 yields reason "invalid utf-8".
func (d *jsonDecoder) decode(line []byte, out []core.Value, ar *fileread.Arena) (blank bool, rerr *core.RecordError) {
	d.buf, d.pos, d.out, d.ar = line, 0, out, ar
	d.errMsg = ""
	clear(d.bad)
	d.ws()
	if d.pos == len(line) {
		return true, nil
	}
	ok := false
	if line[d.pos] == '{' {
		ok = d.object()
		if ok {
			d.ws()
			if d.pos != len(line) {
				ok = d.failChar("after the top-level object")
			}
		}
	} else {
		d.failChar("expected a JSON object")
	}
	d.buf = nil
	if !ok {
		clear(out)
		d.strStack, d.listStack, d.fltStack = d.strStack[:0], d.listStack[:0], d.fltStack[:0]
		return false, &core.RecordError{Reason: "invalid json", Detail: fmt.Sprintf("%s at %s %d", d.errMsg, d.posUnit, d.errAt+1)}
	}
	for _, p := range d.dups {
		out[p[1]] = out[p[0]]
	}
	for u, b := range d.bad {
		if !b {
			continue
		}
		switch out[d.uniqPos[u]].Kind {
		case core.String, core.StringList, core.StringLists, core.Map:
			return false, &core.RecordError{Reason: "invalid utf-8", Field: d.uniq[u], Detail: "string value is not valid UTF-8"}
		}
	}
	return false, nil
}

func (d *jsonDecoder) fail(msg string) bool {
	if d.errMsg == "" {
		d.errMsg, d.errAt = msg, d.pos
	}
	return false
}

// failChar reports the character at d.pos (or the end of the line) with context.
func (d *jsonDecoder) failChar(context string) bool {
	if d.pos >= len(d.buf) {
		return d.fail("unexpected end of line " + context)
	}
	return d.fail("invalid character " + quoteByte(d.buf[d.pos]) + " " + context)
}

func quoteByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return strconv.QuoteRune(rune(c))
	}
	return fmt.Sprintf("0x%02X", c)
}

func (d *jsonDecoder) ws() { d.pos = skipWS(d.buf, d.pos) }

func (d *jsonDecoder) lookup(key []byte) int {
	if d.slot != nil {
		if u, ok := d.slot[string(key)]; ok {
			return u
		}
		return -1
	}
	for u, f := range d.uniq {
		if string(key) == f {
			return u
		}
	}
	return -1
}

// object parses the top-level object at d.pos.
func (d *jsonDecoder) object() bool {
	buf := d.buf
	d.pos++
	d.ws()
	if d.pos < len(buf) && buf[d.pos] == '}' {
		d.pos++
		return true
	}
	for {
		if d.pos >= len(buf) || buf[d.pos] != '"' {
			return d.failChar("looking for the beginning of an object key")
		}
		key, ok := d.key()
		if !ok {
			return false
		}
		d.ws()
		if d.pos >= len(buf) || buf[d.pos] != ':' {
			return d.failChar("after object key")
		}
		d.pos++
		d.ws()
		if u := d.lookup(key); u >= 0 {
			v, bad, ok := d.value(1)
			if !ok {
				return false
			}
			d.out[d.uniqPos[u]] = v
			d.bad[u] = bad
		} else if !d.skip(1) {
			return false
		}
		d.ws()
		if d.pos >= len(buf) {
			return d.failChar("after object key:value pair")
		}
		switch buf[d.pos] {
		case ',':
			d.pos++
			d.ws()
		case '}':
			d.pos++
			return true
		default:
			return d.failChar("after object key:value pair")
		}
	}
}

// strStopByte marks the bytes that stop the fast string scan: '"', '\\', control and
// non-ASCII bytes.
var strStopByte = func() (t [256]bool) {
	for c := range t {
		t[c] = c < 0x20 || c == '"' || c == '\\' || c >= 0x80
	}
	return t
}()

// scanString validates the string starting at d.pos (a '"') and returns the index of its
// closing quote, whether it has escapes and, when validate is set, whether its raw bytes
// hold invalid UTF-8. strStop skips the bytes that need no look (most of a string, two-byte
// characters included); any other non-ASCII character is validated where it is found, so
// the scan never goes back over the string.
func (d *jsonDecoder) scanString(validate bool) (end int, esc, bad, ok bool) {
	buf := d.buf
	i := d.pos + 1
	for {
		if i < len(buf) {
			i += strStop(buf[i:])
		}
		if i >= len(buf) {
			d.pos = i
			return 0, false, false, d.fail("unexpected end of line in string literal")
		}
		switch c := buf[i]; {
		case c == '"':
			return i, esc, bad, true
		case c == '\\':
			esc = true
			if i+1 >= len(buf) {
				d.pos = i + 1
				return 0, false, false, d.fail("unexpected end of line in string escape code")
			}
			switch buf[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if getu4(buf[i:]) < 0 {
					d.pos = i
					return 0, false, false, d.fail(`invalid \u escape in string literal`)
				}
				i += 6
			default:
				d.pos = i + 1
				return 0, false, false, d.failChar("in string escape code")
			}
		case c < 0x20:
			d.pos = i
			return 0, false, false, d.failChar("(control character) in string literal")
		default: // non-ASCII
			if !validate {
				i++
				continue
			}
			// A multi-byte sequence never contains a quote, a backslash or a control byte,
			// so decoding here sees the same bytes utf8.Valid of the raw string would.
			// (strStop steps over the valid two-byte sequences itself.)
			r, n := utf8.DecodeRune(buf[i:])
			if r == utf8.RuneError && n == 1 {
				bad = true
			}
			i += n
		}
	}
}

// strStopGeneric is strStop in Go: eight bytes at a time, then byte by byte.
func strStopGeneric(b []byte) int {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	i := 0
	for {
		for ; i+8 <= len(b); i += 8 {
			w := binary.LittleEndian.Uint64(b[i:])
			q, bs := w^(0x22*lo), w^(0x5c*lo)
			// Bytes equal to '"' or '\\', below 0x20 (in the low seven bits) or with the
			// high bit set. The subtraction tricks may flag more bytes, never fewer, and
			// only above a byte that is flagged rightly: the lowest flag is a stop byte.
			if m := ((q-lo)&^q | (bs-lo)&^bs | (w-0x20*lo)&^w | w) & hi; m != 0 {
				i += bits.TrailingZeros64(m) / 8
				break
			}
		}
		for ; i < len(b) && !strStopByte[b[i]]; i++ {
		}
		if i+1 < len(b) && b[i] >= 0xc2 && b[i] <= 0xdf && b[i+1]&0xc0 == 0x80 {
			i += 2
			continue
		}
		return i
	}
}

// str parses a string value at d.pos.
func (d *jsonDecoder) str() (s string, bad, ok bool) {
	end, esc, bad, ok := d.scanString(true)
	if !ok {
		return "", false, false
	}
	raw := d.buf[d.pos+1 : end]
	d.pos = end + 1
	if !esc {
		return bstr(raw), bad, true
	}
	dst := d.ar.AllocBytes(len(raw))
	// In strict mode the output never outgrows dst, so it stays in the arena.
	if !bad {
		return bstr(appendUnescapedValid(dst[:0], raw)), false, true
	}
	out, bad := appendUnescaped(dst[:0], raw, false)
	return bstr(out), bad, true
}

// appendUnescapedValid is appendUnescaped for a string literal whose raw bytes are valid
// UTF-8: the runs between escapes are copied in bulk.
func appendUnescapedValid(dst, src []byte) []byte {
	for {
		k := bytes.IndexByte(src, '\\')
		if k < 0 {
			return append(dst, src...)
		}
		dst = append(dst, src[:k]...)
		n := 2
		switch src[k+1] {
		case '"', '\\', '/':
			dst = append(dst, src[k+1])
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			rr := getu4(src[k:])
			n = 6
			if utf16.IsSurrogate(rr) {
				rr1 := getu4(src[k+6:])
				if dec := utf16.DecodeRune(rr, rr1); dec != utf8.RuneError {
					n = 12
					dst = utf8.AppendRune(dst, dec)
					break
				}
				rr = utf8.RuneError
			}
			dst = utf8.AppendRune(dst, rr)
		}
		src = src[k+n:]
	}
}

// key parses an object key at d.pos. The result aliases the line or d.keyBuf and is valid
// until the next key.
func (d *jsonDecoder) key() ([]byte, bool) {
	end, esc, bad, ok := d.scanString(true)
	if !ok {
		return nil, false
	}
	raw := d.buf[d.pos+1 : end]
	d.pos = end + 1
	if !esc && !bad {
		return raw, true
	}
	// encoding/json coerces keys to well-formed UTF-8; do the same so names match alike.
	d.keyBuf, _ = appendUnescaped(d.keyBuf[:0], raw, true)
	return d.keyBuf, true
}

// getu4 decodes \uXXXX from the beginning of s, or returns -1.
func getu4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c = c - '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// appendUnescaped appends the unescaped contents of a validated string literal (without
// quotes) to dst, following encoding/json: a lone or mismatched surrogate escape becomes
// U+FFFD. Invalid UTF-8 bytes are replaced by U+FFFD when lenient, else copied and reported
// (bad). In strict mode the output is never longer than src.
func appendUnescaped(dst, src []byte, lenient bool) (out []byte, bad bool) {
	for r := 0; r < len(src); {
		c := src[r]
		switch {
		case c == '\\':
			switch src[r+1] {
			case '"', '\\', '/':
				dst = append(dst, src[r+1])
				r += 2
			case 'b':
				dst = append(dst, '\b')
				r += 2
			case 'f':
				dst = append(dst, '\f')
				r += 2
			case 'n':
				dst = append(dst, '\n')
				r += 2
			case 'r':
				dst = append(dst, '\r')
				r += 2
			case 't':
				dst = append(dst, '\t')
				r += 2
			case 'u':
				rr := getu4(src[r:])
				r += 6
				if utf16.IsSurrogate(rr) {
					rr1 := getu4(src[r:])
					if dec := utf16.DecodeRune(rr, rr1); dec != utf8.RuneError {
						r += 6
						dst = utf8.AppendRune(dst, dec)
						break
					}
					rr = utf8.RuneError
				}
				dst = utf8.AppendRune(dst, rr)
			}
		case c < utf8.RuneSelf:
			dst = append(dst, c)
			r++
		default:
			rr, size := utf8.DecodeRune(src[r:])
			if rr == utf8.RuneError && size == 1 {
				if lenient {
					dst = utf8.AppendRune(dst, utf8.RuneError)
				} else {
					bad = true
					dst = append(dst, c)
				}
				r++
				continue
			}
			dst = append(dst, src[r:r+size]...)
			r += size
		}
	}
	return dst, bad
}

// literal consumes word (true, false, null) at d.pos.
func (d *jsonDecoder) literal(word string) bool {
	if len(d.buf)-d.pos >= len(word) && string(d.buf[d.pos:d.pos+len(word)]) == word {
		d.pos += len(word)
		return true
	}
	// Point at the first differing byte, like encoding/json.
	for i := 0; i < len(word); i++ {
		if d.pos >= len(d.buf) || d.buf[d.pos] != word[i] {
			return d.failChar("in literal " + word)
		}
		d.pos++
	}
	return false
}

// scanNumber validates the number at d.pos and returns its text and whether it is an
// integer literal (no fraction, no exponent).
func (d *jsonDecoder) scanNumber() (lit []byte, intLit, ok bool) {
	buf := d.buf
	start, i := d.pos, d.pos
	if buf[i] == '-' {
		i++
	}
	switch {
	case i >= len(buf):
		d.pos = i
		return nil, false, d.failChar("in numeric literal")
	case buf[i] == '0':
		i++
	case buf[i] >= '1' && buf[i] <= '9':
		i++
		for i < len(buf) && buf[i] >= '0' && buf[i] <= '9' {
			i++
		}
	default:
		d.pos = i
		return nil, false, d.failChar("in numeric literal")
	}
	intLit = true
	if i < len(buf) && buf[i] == '.' {
		i++
		if i >= len(buf) || buf[i] < '0' || buf[i] > '9' {
			d.pos = i
			return nil, false, d.failChar("after decimal point in numeric literal")
		}
		for i < len(buf) && buf[i] >= '0' && buf[i] <= '9' {
			i++
		}
		intLit = false
	}
	if i < len(buf) && (buf[i] == 'e' || buf[i] == 'E') {
		i++
		if i < len(buf) && (buf[i] == '+' || buf[i] == '-') {
			i++
		}
		if i >= len(buf) || buf[i] < '0' || buf[i] > '9' {
			d.pos = i
			return nil, false, d.failChar("in exponent of numeric literal")
		}
		for i < len(buf) && buf[i] >= '0' && buf[i] <= '9' {
			i++
		}
		intLit = false
	}
	d.pos = i
	return buf[start:i], intLit, true
}

// numberValue converts a valid JSON number literal the way core.FromJSON converts a
// json.Number: an integer literal that fits int64 is an Int, anything else a Float (±Inf on
// overflow).
func numberValue(lit []byte, intLit bool) core.Value {
	if intLit {
		if len(lit) <= 18 {
			neg := lit[0] == '-'
			digits := lit
			if neg {
				digits = lit[1:]
			}
			var n int64
			for _, c := range digits {
				n = n*10 + int64(c-'0')
			}
			if neg {
				n = -n
			}
			return core.Value{Kind: core.Int, Int: n}
		}
		if n, err := strconv.ParseInt(bstr(lit), 10, 64); err == nil {
			return core.Value{Kind: core.Int, Int: n}
		}
	}
	f, err := strconv.ParseFloat(bstr(lit), 64)
	if err == nil || math.IsInf(f, 0) {
		return core.Value{Kind: core.Float, Float: f}
	}
	return core.Value{Kind: core.Other}
}

// value parses a requested value at d.pos; depth is the nesting depth of its container.
func (d *jsonDecoder) value(depth int) (v core.Value, bad, ok bool) {
	buf := d.buf
	if d.pos >= len(buf) {
		return v, false, d.failChar("looking for beginning of value")
	}
	switch c := buf[d.pos]; {
	case c == '"':
		s, bad, ok := d.str()
		return core.Value{Kind: core.String, Str: s}, bad, ok
	case c == '[':
		return d.array(depth + 1)
	case c == '{':
		return d.mapValue(depth + 1)
	case c == 't':
		return core.Value{Kind: core.Bool, Int: 1}, false, d.literal("true")
	case c == 'f':
		return core.Value{Kind: core.Bool}, false, d.literal("false")
	case c == 'n':
		return core.Value{Kind: core.Null}, false, d.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		lit, intLit, ok := d.scanNumber()
		if !ok {
			return v, false, false
		}
		return numberValue(lit, intLit), false, true
	}
	return v, false, d.failChar("looking for beginning of value")
}

// next consumes what follows an array element: ',' (more elements) or ']'.
func (d *jsonDecoder) next() (more, ok bool) {
	d.ws()
	if d.pos >= len(d.buf) {
		return false, d.failChar("after array element")
	}
	switch d.buf[d.pos] {
	case ',':
		d.pos++
		d.ws()
		return true, true
	case ']':
		d.pos++
		return false, true
	}
	return false, d.failChar("after array element")
}

// skipRest skips the array element at d.pos and every following one through the closing
// ']' of an array at nesting depth.
func (d *jsonDecoder) skipRest(depth int) bool {
	for {
		if !d.skip(depth) {
			return false
		}
		more, ok := d.next()
		if !ok || !more {
			return ok
		}
	}
}

// finishOther skips the rest of an array whose current element was just consumed.
func (d *jsonDecoder) finishOther(depth int) (core.Value, bool, bool) {
	more, ok := d.next()
	if ok && more {
		ok = d.skipRest(depth)
	}
	return core.Value{Kind: core.Other}, false, ok
}

// array parses a requested array at d.pos (its own nesting depth is depth). The first
// element decides the shape, as in core.FromJSON.
func (d *jsonDecoder) array(depth int) (core.Value, bool, bool) {
	if depth > maxNestingDepth {
		return core.Value{}, false, d.fail(errTooDeep)
	}
	d.pos++
	d.ws()
	if d.pos >= len(d.buf) {
		return core.Value{}, false, d.failChar("looking for beginning of value")
	}
	switch d.buf[d.pos] {
	case ']':
		d.pos++
		return core.Value{Kind: core.StringList, Strs: fileread.EmptyStrs}, false, true
	case '"':
		return d.stringArray(depth)
	case '[':
		return d.listArray(depth)
	}
	return d.numberArray(depth)
}

func (d *jsonDecoder) stringArray(depth int) (core.Value, bool, bool) {
	base := len(d.strStack)
	anyBad := false
	for {
		if d.pos >= len(d.buf) || d.buf[d.pos] != '"' {
			d.strStack = d.strStack[:base]
			return core.Value{Kind: core.Other}, false, d.skipRest(depth)
		}
		s, bad, ok := d.str()
		if !ok {
			return core.Value{}, false, false
		}
		anyBad = anyBad || bad
		d.strStack = append(d.strStack, s)
		more, ok := d.next()
		if !ok {
			return core.Value{}, false, false
		}
		if !more {
			break
		}
	}
	strs := d.ar.AllocStrs(len(d.strStack) - base)
	copy(strs, d.strStack[base:])
	clear(d.strStack[base:])
	d.strStack = d.strStack[:base]
	return core.Value{Kind: core.StringList, Strs: strs}, anyBad, true
}

func (d *jsonDecoder) listArray(depth int) (core.Value, bool, bool) {
	lbase := len(d.listStack)
	anyBad := false
	other := func() {
		clear(d.listStack[lbase:])
		d.listStack = d.listStack[:lbase]
	}
	for {
		if d.pos >= len(d.buf) || d.buf[d.pos] != '[' {
			other()
			return core.Value{Kind: core.Other}, false, d.skipRest(depth)
		}
		if depth+1 > maxNestingDepth {
			return core.Value{}, false, d.fail(errTooDeep)
		}
		d.pos++
		d.ws()
		if d.pos < len(d.buf) && d.buf[d.pos] == ']' {
			d.pos++
			d.listStack = append(d.listStack, fileread.EmptyStrs)
		} else {
			base := len(d.strStack)
			for {
				if d.pos >= len(d.buf) || d.buf[d.pos] != '"' {
					d.strStack = d.strStack[:base]
					other()
					if !d.skipRest(depth + 1) {
						return core.Value{}, false, false
					}
					return d.finishOther(depth)
				}
				s, bad, ok := d.str()
				if !ok {
					return core.Value{}, false, false
				}
				anyBad = anyBad || bad
				d.strStack = append(d.strStack, s)
				more, ok := d.next()
				if !ok {
					return core.Value{}, false, false
				}
				if !more {
					break
				}
			}
			inner := d.ar.AllocStrs(len(d.strStack) - base)
			copy(inner, d.strStack[base:])
			clear(d.strStack[base:])
			d.strStack = d.strStack[:base]
			d.listStack = append(d.listStack, inner)
		}
		more, ok := d.next()
		if !ok {
			return core.Value{}, false, false
		}
		if !more {
			break
		}
	}
	lists := d.ar.AllocLists(len(d.listStack) - lbase)
	copy(lists, d.listStack[lbase:])
	other()
	return core.Value{Kind: core.StringLists, Lists: lists}, anyBad, true
}

func (d *jsonDecoder) numberArray(depth int) (core.Value, bool, bool) {
	base := len(d.fltStack)
	for {
		var f float64
		c := byte(0)
		if d.pos < len(d.buf) {
			c = d.buf[d.pos]
		}
		switch {
		case c == '-' || (c >= '0' && c <= '9'):
			lit, intLit, ok := d.scanNumber()
			if !ok {
				return core.Value{}, false, false
			}
			v := numberValue(lit, intLit)
			switch v.Kind {
			case core.Int:
				f = float64(v.Int)
			case core.Float:
				f = v.Float
			default:
				d.fltStack = d.fltStack[:base]
				return d.finishOther(depth)
			}
		case c == 't': // core.FromJSON counts booleans as numbers in a list
			if !d.literal("true") {
				return core.Value{}, false, false
			}
			f = 1
		case c == 'f':
			if !d.literal("false") {
				return core.Value{}, false, false
			}
		default:
			d.fltStack = d.fltStack[:base]
			return core.Value{Kind: core.Other}, false, d.skipRest(depth)
		}
		d.fltStack = append(d.fltStack, f)
		more, ok := d.next()
		if !ok {
			return core.Value{}, false, false
		}
		if !more {
			break
		}
	}
	fl := d.ar.AllocFloats(len(d.fltStack) - base)
	copy(fl, d.fltStack[base:])
	d.fltStack = d.fltStack[:base]
	return core.Value{Kind: core.FloatList, Floats: fl}, false, true
}

// skip validates the value at d.pos without materializing it; depth is the nesting depth
// of its container.
func (d *jsonDecoder) skip(depth int) bool {
	buf := d.buf
	if d.pos >= len(buf) {
		return d.failChar("looking for beginning of value")
	}
	switch c := buf[d.pos]; {
	case c == '"':
		end, _, _, ok := d.scanString(false)
		if ok {
			d.pos = end + 1
		}
		return ok
	case c == '{':
		return d.skipObject(depth + 1)
	case c == '[':
		return d.skipArray(depth + 1)
	case c == 't':
		return d.literal("true")
	case c == 'f':
		return d.literal("false")
	case c == 'n':
		return d.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		_, _, ok := d.scanNumber()
		return ok
	}
	return d.failChar("looking for beginning of value")
}

func (d *jsonDecoder) skipObject(depth int) bool {
	if depth > maxNestingDepth {
		return d.fail(errTooDeep)
	}
	buf := d.buf
	d.pos++
	d.ws()
	if d.pos < len(buf) && buf[d.pos] == '}' {
		d.pos++
		return true
	}
	for {
		if d.pos >= len(buf) || buf[d.pos] != '"' {
			return d.failChar("looking for beginning of object key string")
		}
		end, _, _, ok := d.scanString(false)
		if !ok {
			return false
		}
		d.pos = end + 1
		d.ws()
		if d.pos >= len(buf) || buf[d.pos] != ':' {
			return d.failChar("after object key")
		}
		d.pos++
		d.ws()
		if !d.skip(depth) {
			return false
		}
		d.ws()
		if d.pos >= len(buf) {
			return d.failChar("after object key:value pair")
		}
		switch buf[d.pos] {
		case ',':
			d.pos++
			d.ws()
		case '}':
			d.pos++
			return true
		default:
			return d.failChar("after object key:value pair")
		}
	}
}

func (d *jsonDecoder) skipArray(depth int) bool {
	if depth > maxNestingDepth {
		return d.fail(errTooDeep)
	}
	d.pos++
	d.ws()
	if d.pos < len(d.buf) && d.buf[d.pos] == ']' {
		d.pos++
		return true
	}
	return d.skipRest(depth)
}
