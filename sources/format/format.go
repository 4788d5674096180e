// Package format names the input formats and tells a format from a file name. It is a leaf
// (it imports nothing of evalstream), so that the readers in sources and the writers in
// sinks share one list of extensions.
package format

import (
	"path/filepath"
	"strings"
)

// The formats. Auto means: tell by the file's first bytes, then by its name.
const (
	Auto    = "auto"
	JSONL   = "jsonl"
	Arrow   = "arrow"
	Arrows  = "arrows"
	Parquet = "parquet"
)

// FromName tells a file's format from its name, "" when the extension is unknown. A ".gz"
// suffix is only meaningful for JSON Lines (Arrow and Parquet are read from their footer).
func FromName(name string) string {
	n := strings.ToLower(filepath.Base(name))
	gz := strings.HasSuffix(n, ".gz")
	n = strings.TrimSuffix(n, ".gz")
	switch filepath.Ext(n) {
	case ".jsonl", ".ndjson":
		return JSONL
	case ".arrow", ".feather", ".ipc":
		if !gz {
			return Arrow
		}
	case ".arrows":
		if !gz {
			return Arrows
		}
	case ".parquet", ".pq":
		if !gz {
			return Parquet
		}
	}
	return ""
}
