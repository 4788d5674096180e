package core

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestClosestName(t *testing.T) {
	keys := []string{"format", "path", "pipeline", "sinks", "source", "tokenize"}
	for _, tc := range []struct {
		word, want string
		ok         bool
	}{
		{"paht", "path", true},        // transposition: one edit
		{"pipelin", "pipeline", true}, // deletion
		{"sink", "sinks", true},
		{"Source", "source", true}, // case ignored
		{"tokenise", "tokenize", true},
		{"formatt", "format", true},
		{"zzz", "", false},  // nothing within 2 edits
		{"path", "", false}, // the word itself is never suggested
		{"tknz", "", false}, // 4 edits from tokenize: too far for an 4-letter word
	} {
		got, ok := ClosestName(tc.word, keys)
		require.Equal(t, tc.ok, ok, tc.word)
		require.Equal(t, tc.want, got, tc.word)
	}
}

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		d    int
	}{
		{"", "", 0}, {"a", "", 1}, {"", "abc", 3}, {"abc", "abc", 0},
		{"ab", "ba", 1}, {"kitten", "sitting", 3}, {"bleu", "belu", 1}, {"chrf", "chrF", 1},
		{"größe", "grösse", 2},
	} {
		require.Equal(t, tc.d, distance(tc.a, tc.b), "%s/%s", tc.a, tc.b)
		require.Equal(t, tc.d, distance(tc.b, tc.a), "%s/%s", tc.b, tc.a)
	}
}

func TestDidYouMean(t *testing.T) {
	require.Equal(t, `; did you mean "bleu"?`, DidYouMean("bleuu", []string{"bleu", "chrf"}))
	require.Equal(t, "", DidYouMean("accuracy", []string{"bleu", "chrf"}))
}
