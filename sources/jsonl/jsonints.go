package jsonl

// DecodeInts is the fast path of Decode for the objects of integer-coded records (class
// labels and predictions): when b is an object whose keys are plain ASCII (no escapes),
// whose requested fields are all present with integer literals of at most 18 characters,
// and whose other members are such integers or plain ASCII strings, it writes the
// requested integers to out (one per field, in the order of the decoder's fields) and
// reports true. Decode would give these same values, as core.Int. For anything else it
// reports false, and out holds garbage: the caller then uses Decode, whose results (and
// errors) are the reference.
func (d *Decoder) DecodeInts(b []byte, out []int64) bool {
	dd := d.dec
	if len(dd.uniq) > 64 || len(out) < len(dd.uniqPos) { // seen has a bit per field
		return false
	}
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	var seen uint64
	for {
		i = skipWS(b, i+1) // past '{' or ','
		// A key: ASCII from ' ' to '~' except '"' and '\\'.
		if i >= len(b) || b[i] != '"' {
			return false
		}
		start := i + 1
		i = start
		for i < len(b) && b[i] != '"' {
			if c := b[i]; c < 0x20 || c > 0x7e || c == '\\' {
				return false
			}
			i++
		}
		if i >= len(b) {
			return false
		}
		key := b[start:i]
		i = skipWS(b, i+1)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		i = skipWS(b, i+1)
		u := dd.lookup(key)
		if u >= 0 {
			n, end, ok := intLiteral(b, i)
			if !ok {
				return false
			}
			out[dd.uniqPos[u]] = n // a repeated key: the last one wins, as in Decode
			seen |= 1 << u
			i = end
		} else if end, ok := skipPlainValue(b, i); ok {
			i = end
		} else {
			return false
		}
		i = skipWS(b, i)
		if i >= len(b) {
			return false
		}
		if b[i] == '}' {
			break
		}
		if b[i] != ',' {
			return false
		}
	}
	if skipWS(b, i+1) != len(b) || seen != 1<<len(dd.uniq)-1 {
		return false
	}
	for _, p := range dd.dups {
		out[p[1]] = out[p[0]]
	}
	return true
}

// skipWS returns the index of the first byte at or after i that is not JSON whitespace.
func skipWS(b []byte, i int) int {
	for i < len(b) && b[i] <= ' ' && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// intLiteral parses the JSON integer literal at b[i:] (-?(0|[1-9][0-9]*), at most 18
// characters so that it fits an int64, not followed by a fraction or an exponent) and
// returns it with the index after it.
func intLiteral(b []byte, i int) (n int64, end int, ok bool) {
	start := i
	neg := i < len(b) && b[i] == '-'
	if neg {
		i++
	}
	if i >= len(b) || b[i] < '0' || b[i] > '9' {
		return 0, 0, false
	}
	if b[i] == '0' {
		i++
	} else {
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			n = n*10 + int64(b[i]-'0')
			i++
		}
	}
	if i-start > 18 || i < len(b) && (b[i] == '.' || b[i] == 'e' || b[i] == 'E' || b[i] >= '0' && b[i] <= '9') {
		return 0, 0, false
	}
	if neg {
		n = -n
	}
	return n, i, true
}

// skipPlainValue skips an unrequested member value that is an integer literal or a string
// of ASCII from ' ' to '~' without escapes.
func skipPlainValue(b []byte, i int) (end int, ok bool) {
	if i < len(b) && b[i] == '"' {
		for i++; i < len(b) && b[i] != '"'; i++ {
			if c := b[i]; c < 0x20 || c > 0x7e || c == '\\' {
				return 0, false
			}
		}
		return i + 1, i < len(b)
	}
	_, end, ok = intLiteral(b, i)
	return end, ok
}
