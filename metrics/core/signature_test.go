package core

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/evalstream/evalstream/internal/buildinfo"
)

func TestSig(t *testing.T) {
	v := "|version:" + buildinfo.Version
	cases := []struct {
		name string
		sig  *Sig
		want string
	}{
		{"type and compat only", NewSig("mcc", "sklearn"), "type:mcc|compat:sklearn" + v},
		{"every kind of value", NewSig("bleu", "sacrebleu").Add("tok", "13a").Int("ngram", 4).Float("alpha", 0.1).YesNo("eff", true).YesNo("lc", false).List("weights", []string{"0.5", "0.5"}),
			"type:bleu|compat:sacrebleu|tok:13a|ngram:4|alpha:0.1|eff:yes|lc:no|weights:0.5,0.5" + v},
		{"a separator or a percent sign in a value is escaped", NewSig("accuracy", "mindnlp").Add("field", "a|b%c\n"),
			"type:accuracy|compat:mindnlp|field:a%7Cb%25c%0A" + v},
		{"a comma inside a list item is escaped, not between items", NewSig("f1", "sklearn").List("classes", []string{"neg", "a,b", "x|y"}),
			"type:f1|compat:sklearn|classes:neg,a%2Cb,x%7Cy" + v},
		{"an empty list", NewSig("f1", "sklearn").List("classes", nil), "type:f1|compat:sklearn|classes:" + v},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, tc.sig.String())
		})
	}
}

func TestSigInsertions(t *testing.T) {
	v := "|version:" + buildinfo.Version
	base := NewSig("bleu", "sacrebleu").Add("case", "mixed").Add("tok", "13a").String()
	cases := []struct {
		name, got, want string
	}{
		{"data after compat, where sacrebleu puts nrefs", SigWithData(base, "nrefs:2"), "type:bleu|compat:sacrebleu|nrefs:2|case:mixed|tok:13a" + v},
		{"no data", SigWithData(base, ""), base},
		{"data into a signature of type and compat only", SigWithData(NewSig("mcc", "sklearn").String(), "nrefs:1"), "type:mcc|compat:sklearn|nrefs:1" + v},
		{"wrapper pairs before the version", SigExtend(base, "ci:poisson,B=10"), "type:bleu|compat:sacrebleu|case:mixed|tok:13a|ci:poisson,B=10" + v},
		{"both", SigWithData(SigExtend(base, "ar:T=5,seed=1"), "nrefs:var"), "type:bleu|compat:sacrebleu|nrefs:var|case:mixed|tok:13a|ar:T=5,seed=1" + v},
		{"options only", SigOptions(base), "type:bleu|compat:sacrebleu|case:mixed|tok:13a"},
		{"options only of a signature without version", SigOptions("type:x|compat:y"), "type:x|compat:y"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, tc.got)
		})
	}
}

func TestSigDiff(t *testing.T) {
	cases := []struct {
		name, a, b, want string
	}{
		{"equal", "type:bleu|tok:13a|version:1", "type:bleu|tok:13a|version:1", ""},
		{"a value and the version", "type:bleu|tok:13a|version:1", "type:bleu|tok:intl|version:2", "tok: 13a vs intl; version: 1 vs 2"},
		{"a key on one side only", "type:bleu|tok:13a|version:1", "type:bleu|version:1|ci:x", "tok: 13a vs (none); ci: (none) vs x"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, SigDiff(tc.a, tc.b))
		})
	}
}

func TestSigVersion(t *testing.T) {
	require.Equal(t, buildinfo.Version, SigVersion(NewSig("mcc", "sklearn").String()))
	require.Equal(t, "", SigVersion("type:mcc|compat:sklearn"))
}
