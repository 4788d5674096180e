package config

import (
	"fmt"
	"os"
	"regexp"
	"sort"

	"github.com/prometheus/exporter-toolkit/web"
	"go.yaml.in/yaml/v2"
	"golang.org/x/crypto/bcrypt"
)

// CheckWebConfig reads the web config file of a Prometheus sink (the exporter-toolkit format
// every Prometheus exporter reads: tls_server_config, basic_auth_users, http_server_config,
// https://github.com/prometheus/exporter-toolkit/blob/master/docs/web-configuration.md) and
// loads its certificate and key, as the sink does when it starts. It returns the parsed file
// (owned by the caller).
//
// The error names the file, the key and what is wrong but never quotes a value from the file
// or from the files it names: a password hash or an inline private key must not reach a
// terminal, a CI log or a bug report. Safe for concurrent use.
func CheckWebConfig(path string) (*web.Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("web config: %w", err)
	}
	// Parsed exactly as the exporter-toolkit parses it (yaml v2, strict), so that what passes
	// here is what the sink will serve with.
	var c web.Config
	if err := yaml.UnmarshalStrict(b, &c); err != nil {
		return nil, fmt.Errorf("web config %s: %s", path, RedactQuoted(err.Error()))
	}
	users := make([]string, 0, len(c.Users))
	for u := range c.Users {
		users = append(users, u)
	}
	sort.Strings(users)
	for _, u := range users {
		if _, err := bcrypt.Cost([]byte(c.Users[u])); err != nil {
			return nil, fmt.Errorf("web config %s: basic_auth_users: the password of user %q is not a bcrypt hash (the exporter-toolkit stores hashes, not passwords: make one with `htpasswd -nBC 10 %s`)", path, u, u)
		}
	}
	if err := web.Validate(path); err != nil {
		return nil, fmt.Errorf("web config %s: %s", path, RedactQuoted(err.Error()))
	}
	return &c, nil
}

// quoted matches the excerpts that YAML decoders put between backquotes in type errors
// ("cannot unmarshal !!str `hunter2` into ...").
var quoted = regexp.MustCompile("`[^`]*`")

// RedactQuoted replaces every backquoted excerpt in a message from a YAML decoder by
// "(value hidden)", so that a secret given in the wrong place is not printed back.
func RedactQuoted(msg string) string {
	return quoted.ReplaceAllLiteralString(msg, "(value hidden)")
}
