package core

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Options reads a metric's options from a config map. Each getter marks its key as used and
// records a problem instead of failing, so Err reports every problem at once. Values may be
// typed (from YAML/JSON) or strings (from --set and --metric flags). Options is not safe for
// concurrent use.
type Options struct {
	m     map[string]any
	used  map[string]bool
	probs []string
}

// NewOptions wraps a raw option map (which it does not modify).
func NewOptions(m map[string]any) *Options {
	if m == nil {
		m = map[string]any{}
	}
	return &Options{m: m, used: map[string]bool{}}
}

// Has reports whether the user set key.
func (o *Options) Has(key string) bool { _, ok := o.m[key]; return ok }

// Problem records a problem with key.
func (o *Options) Problem(key, format string, args ...any) {
	o.probs = append(o.probs, key+": "+fmt.Sprintf(format, args...))
}

// Forbid records a problem when key is set: the option does not apply to this preset or input.
func (o *Options) Forbid(key, why string) {
	if o.Has(key) {
		o.used[key] = true
		o.Problem(key, "does not apply %s", why)
	}
}

func (o *Options) get(key string) (any, bool) {
	o.used[key] = true
	v, ok := o.m[key]
	return v, ok && v != nil
}

// String returns the option or def. When allowed is not empty the value must be one of it.
func (o *Options) String(key, def string, allowed ...string) string {
	v, ok := o.get(key)
	if !ok {
		return def
	}
	s := fmt.Sprint(v)
	if len(allowed) > 0 {
		for _, a := range allowed {
			if s == a {
				return s
			}
		}
		o.Problem(key, "must be one of %s, got %q", strings.Join(allowed, "|"), s)
		return def
	}
	return s
}

// Int returns the option or def, checking min <= value <= max.
func (o *Options) Int(key string, def, min, max int64) int64 {
	v, ok := o.get(key)
	if !ok {
		return def
	}
	var n int64
	switch t := v.(type) {
	case int:
		n = int64(t)
	case int64:
		n = t
	case uint64:
		n = int64(t)
	case float64:
		if t != math.Trunc(t) {
			o.Problem(key, "must be an integer, got %v", t)
			return def
		}
		n = int64(t)
	default:
		p, err := strconv.ParseInt(strings.TrimSpace(fmt.Sprint(v)), 10, 64)
		if err != nil {
			o.Problem(key, "must be an integer, got %q", fmt.Sprint(v))
			return def
		}
		n = p
	}
	if n < min {
		o.Problem(key, "must be >= %d", min)
		return def
	}
	if n > max {
		o.Problem(key, "must be <= %d", max)
		return def
	}
	return n
}

// Float returns the option or def.
func (o *Options) Float(key string, def float64) float64 {
	v, ok := o.get(key)
	if !ok {
		return def
	}
	f, err := toFloat(v)
	if err != nil {
		o.Problem(key, "must be a number, got %q", fmt.Sprint(v))
		return def
	}
	return f
}

// Bool returns the option or def.
func (o *Options) Bool(key string, def bool) bool {
	v, ok := o.get(key)
	if !ok {
		return def
	}
	switch t := v.(type) {
	case bool:
		return t
	default:
		b, err := strconv.ParseBool(strings.TrimSpace(fmt.Sprint(v)))
		if err != nil {
			o.Problem(key, "must be true or false, got %q", fmt.Sprint(v))
			return def
		}
		return b
	}
}

// Floats returns a list of numbers (a YAML list, or a string "0.5,0.5" / "[0.5, 0.5]").
func (o *Options) Floats(key string, def []float64) []float64 {
	v, ok := o.get(key)
	if !ok {
		return def
	}
	var items []any
	switch t := v.(type) {
	case []any:
		items = t
	case []float64:
		return t
	default:
		s := strings.Trim(strings.TrimSpace(fmt.Sprint(v)), "[]")
		for _, p := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' }) {
			items = append(items, p)
		}
	}
	out := make([]float64, 0, len(items))
	for _, it := range items {
		f, err := toFloat(it)
		if err != nil {
			o.Problem(key, "must be a list of numbers, got %v", v)
			return def
		}
		out = append(out, f)
	}
	return out
}

// Strings returns a list of strings (a YAML list, or a string "a,b" / "[a, b]" as a command
// line gives it), each trimmed of spaces; nil when the key is absent.
func (o *Options) Strings(key string) []string {
	v, ok := o.get(key)
	if !ok {
		return nil
	}
	var out []string
	switch t := v.(type) {
	case []any:
		for _, it := range t {
			if _, isList := it.([]any); isList || it == nil {
				o.Problem(key, "must be a list of names, got %v", v)
				return nil
			}
			out = append(out, strings.TrimSpace(fmt.Sprint(it)))
		}
	case []string:
		out = append(out, t...)
	default:
		s := strings.TrimSpace(fmt.Sprint(v))
		if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
			s = s[1 : len(s)-1]
		}
		for _, p := range strings.Split(s, ",") {
			out = append(out, strings.TrimSpace(p))
		}
	}
	return out
}

func toFloat(v any) (float64, error) {
	switch t := v.(type) {
	case float64:
		return t, nil
	case int:
		return float64(t), nil
	case int64:
		return float64(t), nil
	case uint64:
		return float64(t), nil
	}
	return strconv.ParseFloat(strings.TrimSpace(fmt.Sprint(v)), 64)
}

// Err returns every recorded problem plus one per unknown key, sorted, or nil.
func (o *Options) Err() error {
	probs := append([]string(nil), o.probs...)
	var unknown []string
	for k := range o.m {
		if !o.used[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		var valid []string
		for k := range o.used {
			valid = append(valid, k)
		}
		sort.Strings(valid)
		for _, k := range unknown {
			probs = append(probs, fmt.Sprintf("%s: unknown option (valid: %s)%s", k, strings.Join(valid, ", "), DidYouMean(k, valid)))
		}
	}
	if len(probs) == 0 {
		return nil
	}
	sort.Strings(probs)
	return &OptionError{Problems: probs}
}

// OptionError lists every problem found in a metric's options, each prefixed with its key.
type OptionError struct{ Problems []string }

func (e *OptionError) Error() string { return strings.Join(e.Problems, "; ") }

// AsOptionError unwraps an *OptionError.
func AsOptionError(err error) (*OptionError, bool) {
	var oe *OptionError
	ok := errors.As(err, &oe)
	return oe, ok
}

// FormatFloat prints a float for signatures: shortest representation that round-trips.
func FormatFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
