package jsonl

import (
	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/sources/internal/valtest"
)

func canon(v core.Value) string { return valtest.Canon(v) }

func canonAll(vals []core.Value) []string { return valtest.CanonAll(vals) }

func oracle(line []byte, fields []string) ([]core.Value, bool) {
	return valtest.Oracle(line, fields)
}
