package config

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/evalstream/evalstream/metrics/core"
)

// Load reads a YAML (or JSON) config file, applies `key.path=value` overrides, decodes it
// strictly and fills defaults. It does not call Validate.
func Load(path string, sets []string) (*Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	c, err := Parse(b, sets)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// Parse decodes config bytes; see Load. Every unknown key (at any level) and every value of
// the wrong type is reported at once, as Problems.
func Parse(b []byte, sets []string) (*Config, error) {
	c, probs, err := ParseAll(b, sets)
	if err != nil {
		return nil, err
	}
	if len(probs) > 0 {
		return nil, probs
	}
	return c, nil
}

// LoadAll is Load for `validate`: besides a fatal error (unreadable file, invalid YAML, an
// invalid --set), it returns the config decoded without its unknown keys and wrong-typed
// values together with one problem for each of them, so that Validate's problems can be
// reported alongside.
func LoadAll(path string, sets []string) (*Config, Problems, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("read config: %w", err)
	}
	c, probs, err := ParseAll(b, sets)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, probs, nil
}

// ParseAll decodes config bytes; see LoadAll. The YAML decoder is third-party code: a panic
// inside it on malformed input is turned into an error at this boundary.
func ParseAll(b []byte, sets []string) (c *Config, probs Problems, err error) {
	defer func() {
		if r := recover(); r != nil {
			c, probs, err = nil, nil, fmt.Errorf("invalid YAML: %v", r)
		}
	}()
	var tree any
	if err := yaml.Unmarshal(b, &tree); err != nil {
		return nil, nil, fmt.Errorf("invalid YAML: %w", err)
	}
	if tree == nil {
		tree = map[string]any{}
	}
	if _, ok := tree.(map[string]any); !ok {
		return nil, nil, errors.New("the config must be a mapping with source, metrics and sinks")
	}
	for _, s := range sets {
		k, v, ok := strings.Cut(s, "=")
		if !ok || k == "" {
			return nil, nil, fmt.Errorf("--set %q: want key.path=value", s)
		}
		var val any
		if err := yaml.Unmarshal([]byte(v), &val); err != nil {
			val = v
		}
		var err error
		if tree, err = setPath(tree, splitPath(k), val); err != nil {
			return nil, nil, fmt.Errorf("--set %s: %w", k, err)
		}
	}
	// Unknown keys are found on the generic tree, where their path is known, and removed so
	// that the strict decode below reports only what is left: values of the wrong type.
	unknownKeys(tree, reflect.TypeOf(Config{}), "", &probs)
	norm, err := yaml.Marshal(tree)
	if err != nil {
		return nil, nil, err
	}
	var cfg Config
	dec := yaml.NewDecoder(bytes.NewReader(norm))
	dec.KnownFields(true)
	if err := dec.Decode(&cfg); err != nil {
		var te *yaml.TypeError
		if !errors.As(err, &te) {
			return nil, nil, explainUnknown(err)
		}
		// The decoder went on past each wrong value, so the rest of cfg is usable.
		for _, m := range strings.Split(explainUnknown(err).Error(), "\n") {
			probs = append(probs, m)
		}
	}
	for i, m := range cfg.Metrics {
		if m == nil {
			cfg.Metrics[i] = map[string]any{}
		}
	}
	cfg.ApplyDefaults()
	sort.Strings(probs)
	return &cfg, probs, nil
}

// unknownKeys walks a decoded YAML tree along the config type t, adds a problem for every
// mapping key that t has no field for (with its path, the valid keys and the closest one),
// and deletes it from the tree. Metric entries are free-form maps checked by the metrics
// registry, so the walk stops there.
func unknownKeys(node any, t reflect.Type, path string, probs *Problems) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Slice:
		list, ok := node.([]any)
		if !ok {
			return
		}
		for i, v := range list {
			unknownKeys(v, t.Elem(), fmt.Sprintf("%s[%d]", path, i), probs)
		}
	case reflect.Struct:
		m, ok := node.(map[string]any)
		if !ok {
			return
		}
		fields := map[string]reflect.Type{}
		for i := 0; i < t.NumField(); i++ {
			tag := strings.Split(t.Field(i).Tag.Get("yaml"), ",")[0]
			if tag != "" && tag != "-" {
				fields[tag] = t.Field(i).Type
			}
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			ft, ok := fields[k]
			if !ok {
				valid := validKeys(t.Name())
				// The path leads; the rest keeps the wording of earlier releases.
				*probs = append(*probs, fmt.Sprintf("%s: unknown key %q in %s (valid keys: %s)%s",
					joinPath(path, k), k, sectionName(t.Name()), strings.Join(valid, ", "), core.DidYouMean(k, valid)))
				delete(m, k)
				continue
			}
			unknownKeys(m[k], ft, joinPath(path, k), probs)
		}
	}
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

var pathPart = lazyRegexp(`^([^\[\]]*)((?:\[\d+\])*)$`)

func splitPath(k string) []string {
	var out []string
	for _, seg := range strings.Split(k, ".") {
		m := pathPart().FindStringSubmatch(seg)
		if m == nil {
			out = append(out, seg)
			continue
		}
		if m[1] != "" {
			out = append(out, m[1])
		}
		for _, idx := range regexp.MustCompile(`\d+`).FindAllString(m[2], -1) {
			out = append(out, "["+idx+"]")
		}
	}
	return out
}

func setPath(node any, path []string, val any) (any, error) {
	if len(path) == 0 {
		return val, nil
	}
	head := path[0]
	if strings.HasPrefix(head, "[") {
		i, _ := strconv.Atoi(strings.Trim(head, "[]"))
		list, ok := node.([]any)
		if node == nil {
			list, ok = nil, true
		}
		if !ok {
			return nil, fmt.Errorf("%s: not a list", head)
		}
		if i > len(list) {
			return nil, fmt.Errorf("index %d out of range (list has %d items)", i, len(list))
		}
		if i == len(list) {
			list = append(list, nil)
		}
		v, err := setPath(list[i], path[1:], val)
		if err != nil {
			return nil, err
		}
		list[i] = v
		return list, nil
	}
	m, ok := node.(map[string]any)
	if node == nil {
		m, ok = map[string]any{}, true
	}
	if !ok {
		return nil, fmt.Errorf("%s: not a mapping", head)
	}
	v, err := setPath(m[head], path[1:], val)
	if err != nil {
		return nil, err
	}
	m[head] = v
	return m, nil
}

var unknownField = lazyRegexp(`line \d+: field (\S+) not found in type config\.(\w+)`)

// explainUnknown turns yaml.v3's "field x not found in type config.T" into a message listing
// the valid keys of T.
func explainUnknown(err error) error {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return err
	}
	var msgs []string
	for _, e := range te.Errors {
		m := unknownField().FindStringSubmatch(e)
		if m == nil {
			// A scalar where the sasl or tls section belongs may be the password or key
			// itself: the decoder quotes its first bytes, which must not be printed.
			if strings.Contains(e, "into config.SASL") || strings.Contains(e, "into config.TLS") {
				e = RedactQuoted(e)
			}
			msgs = append(msgs, e)
			continue
		}
		msgs = append(msgs, fmt.Sprintf("unknown key %q in %s (valid keys: %s)", m[1], sectionName(m[2]), strings.Join(validKeys(m[2]), ", ")))
	}
	return errors.New(strings.Join(msgs, "\n"))
}

var types = map[string]reflect.Type{
	"Config": reflect.TypeOf(Config{}), "Source": reflect.TypeOf(Source{}), "Pipeline": reflect.TypeOf(Pipeline{}),
	"DeadLetter": reflect.TypeOf(DeadLetter{}), "Sink": reflect.TypeOf(Sink{}), "State": reflect.TypeOf(State{}),
	"Window": reflect.TypeOf(Window{}), "TLS": reflect.TypeOf(TLS{}), "SASL": reflect.TypeOf(SASL{}),
	"Gate": reflect.TypeOf(Gate{}), "GateRule": reflect.TypeOf(GateRule{}),
}

func sectionName(t string) string {
	switch t {
	case "Config":
		return "the top level"
	case "DeadLetter":
		return "pipeline.dead_letter"
	case "Sink":
		return "a sink"
	case "GateRule":
		return "a gate rule"
	}
	return strings.ToLower(t)
}

func validKeys(t string) []string {
	rt, ok := types[t]
	if !ok {
		return nil
	}
	var keys []string
	for i := 0; i < rt.NumField(); i++ {
		tag := strings.Split(rt.Field(i).Tag.Get("yaml"), ",")[0]
		if tag != "" && tag != "-" {
			keys = append(keys, tag)
		}
	}
	sort.Strings(keys)
	return keys
}

// lazyRegexp returns a function that compiles expr on its first call and returns the same
// *regexp.Regexp on every call: the package's expressions serve only --set paths and error
// messages, and compiling them at init would cost every evalstream process. Safe for
// concurrent use.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
