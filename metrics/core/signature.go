package core

import (
	"strconv"
	"strings"

	"github.com/evalstream/evalstream/internal/buildinfo"
)

// Every metric signature has one form, built by Sig so that it cannot drift between metric
// families: `key:value` pairs joined by "|",
//
//	type:<metric type>|compat:<preset>|<data keys>|<options>|<resampling keys>|version:<release>
//
//   - type and compat lead every signature: the metric type and its preset (`compat` option);
//   - data keys depend on the records scored (sacrebleu's nrefs: 1, 2 or var); only results
//     show them (SigWithData), as sacrebleu shows nrefs;
//   - options follow in the order each metric documents (`evalstream list` prints every
//     preset's signature): every option that changes the value, under its option name or,
//     for sacrebleu's metrics, sacrebleu's own abbreviation (case, eff, tok, smooth, nc, nw,
//     space, norm, punct, asian), so that a sacrebleu signature reads as a contiguous run;
//     flags are yes/no and lowercasing is case:lc|mixed, as in sacrebleu;
//   - resampling keys (ci, ar) are added by the confidence-interval and paired-test wrappers
//     (SigExtend);
//   - version is the evalstream release (buildinfo.Version) and always comes last.
//
// A value escapes '%', '|' and control characters as %XX (and ',' inside a list), so that any
// class name or field name keeps the form parseable.

// Sig builds a metric signature. The zero value is not usable: start with NewSig. A Sig is
// not safe for concurrent use; the string it returns is immutable.
type Sig struct {
	b strings.Builder
}

// NewSig starts the signature of a metric of type typ with preset compat.
func NewSig(typ, compat string) *Sig {
	s := &Sig{}
	s.b.WriteString("type:")
	escapeTo(&s.b, typ, false)
	s.Add("compat", compat)
	return s
}

// Add appends the pair key:value. key is a lower-case identifier; value is escaped.
func (s *Sig) Add(key, value string) *Sig {
	s.b.WriteByte('|')
	s.b.WriteString(key)
	s.b.WriteByte(':')
	escapeTo(&s.b, value, false)
	return s
}

// Int appends key:v.
func (s *Sig) Int(key string, v int64) *Sig { return s.Add(key, strconv.FormatInt(v, 10)) }

// Float appends key:v in the shortest form that reads back as v (FormatFloat).
func (s *Sig) Float(key string, v float64) *Sig { return s.Add(key, FormatFloat(v)) }

// YesNo appends key:yes or key:no.
func (s *Sig) YesNo(key string, v bool) *Sig {
	if v {
		return s.Add(key, "yes")
	}
	return s.Add(key, "no")
}

// List appends key:v1,v2,... with ',' escaped inside each item.
func (s *Sig) List(key string, vs []string) *Sig {
	s.b.WriteByte('|')
	s.b.WriteString(key)
	s.b.WriteByte(':')
	for i, v := range vs {
		if i > 0 {
			s.b.WriteByte(',')
		}
		escapeTo(&s.b, v, true)
	}
	return s
}

// String ends the signature with the release (version:<buildinfo.Version>) and returns it.
// The Sig must not be used afterwards.
func (s *Sig) String() string {
	s.Add("version", buildinfo.Version)
	return s.b.String()
}

func escapeTo(b *strings.Builder, v string, list bool) {
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == '%' || c == '|' || c < 0x20 || c == 0x7f || (list && c == ',') {
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
			continue
		}
		b.WriteByte(c)
	}
}

// SigWithData returns sig with data, `key:value` pairs (joined by "|") that depend on the
// records scored, right after its compat pair: where sacrebleu puts nrefs. An empty data
// returns sig.
func SigWithData(sig, data string) string {
	if data == "" {
		return sig
	}
	at := strings.Index(sig, "|compat:")
	if at < 0 {
		return sig + "|" + data
	}
	end := strings.IndexByte(sig[at+1:], '|')
	if end < 0 {
		return sig + "|" + data
	}
	at += 1 + end
	return sig[:at] + "|" + data + sig[at:]
}

// SigExtend returns sig with pairs, `key:value` pairs (joined by "|"), just before its
// version: the set-up a wrapper (a resampling for intervals or a paired test) adds to the
// metric it wraps.
func SigExtend(sig, pairs string) string {
	at := strings.LastIndex(sig, "|version:")
	if at < 0 {
		return sig + "|" + pairs
	}
	return sig[:at] + "|" + pairs + sig[at:]
}

// SigOptions returns sig without its version pair: what the metric computes, whichever
// release computed it (for grouping runs across releases).
func SigOptions(sig string) string {
	if at := strings.LastIndex(sig, "|version:"); at >= 0 && !strings.Contains(sig[at+1:], "|") {
		return sig[:at]
	}
	return sig
}

// SigVersion returns the release at the end of sig ("" when it has none).
func SigVersion(sig string) string {
	if opts := SigOptions(sig); opts != sig {
		return sig[len(opts)+len("|version:"):]
	}
	return ""
}

// SigDiff names the pairs in which the signatures a and b differ, in a's order then b's
// extra keys ("tok: 13a vs intl; version: 0.1.0 vs 0.2.0"), for errors about states that
// do not merge; "" when they are equal.
func SigDiff(a, b string) string {
	ka, va := sigPairs(a)
	kb, vb := sigPairs(b)
	var out []string
	for _, k := range ka {
		x, y := va[k], "(none)"
		if v, ok := vb[k]; ok {
			y = v
		}
		if x != y {
			out = append(out, k+": "+x+" vs "+y)
		}
	}
	for _, k := range kb {
		if _, ok := va[k]; !ok {
			out = append(out, k+": (none) vs "+vb[k])
		}
	}
	return strings.Join(out, "; ")
}

func sigPairs(sig string) ([]string, map[string]string) {
	var keys []string
	vals := map[string]string{}
	for _, p := range strings.Split(sig, "|") {
		k, v, _ := strings.Cut(p, ":")
		if _, dup := vals[k]; !dup {
			keys = append(keys, k)
		}
		vals[k] = v
	}
	return keys, vals
}
