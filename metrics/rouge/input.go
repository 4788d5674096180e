package rouge

import (
	"sync"

	"github.com/evalstream/evalstream/metrics/core"
	"github.com/evalstream/evalstream/metrics/tokenize"
)

// The roles every ROUGE metric reads.
var (
	predictionRole = core.Role{Name: "prediction", Field: "prediction", Required: true,
		Accepts: []core.Kind{core.String, core.StringList}}
	referencesRole = core.Role{Name: "references", Field: "references", Required: true,
		Accepts: []core.Kind{core.StringList, core.String, core.StringLists}}
)

// textOpts is how a metric turns a text value into tokens. It is immutable.
type textOpts struct {
	name string              // tokenizer name
	fn   tokenize.AppendFunc // nil for "rouge", which goes through a tokenize.RougeTokenizer
	// vocab is the rouge tokenizer's vocabulary, shared by the tokenizers of every worker
	// of the metric (each new word is stemmed once per process, not once per worker).
	vocab *tokenize.RougeVocab
	stem  bool // Porter stemming inside the rouge tokenizer
	lower bool // Python str.lower() before tokenizing (and on pre-tokenized tokens)
	// memoKey names the token ids of an example loaded with these options in a core.Memo.
	memoKey string
}

// readTextOpts reads `tokenize`, `stem` and (when withLower) `lowercase`.
func readTextOpts(o *core.Options, defTok string, withLower bool) textOpts {
	t := textOpts{name: o.String("tokenize", defTok, tokenize.Names()...)}
	if t.name == "rouge" {
		t.stem = o.Bool("stem", false)
		t.vocab = tokenize.NewRougeVocab(t.stem)
	} else {
		o.Forbid("stem", "with tokenize: "+t.name+" (stemming is part of the rouge tokenizer)")
		fn, err := tokenize.NewAppend(t.name)
		if err != nil {
			o.Problem("tokenize", "%v", err)
		}
		t.fn = fn
	}
	if withLower {
		t.lower = o.Bool("lowercase", false)
	}
	t.memoKey = canonicalKey("rouge.load" + t.signature())
	return t
}

// memoKeys holds one copy of each memo key: metrics with the same text options share the
// key's bytes, so core.Memo's comparison of equal keys stops at the pointer. It holds one
// string per combination of text options.
var memoKeys sync.Map

func canonicalKey(k string) string {
	v, _ := memoKeys.LoadOrStore(k, k)
	return v.(string)
}

// addSig adds the text options to a metric's signature (tok, stem with the rouge tokenizer,
// lc: the lowercase option; the rouge tokenizer lowercases whatever it is) and returns s.
func (t textOpts) addSig(s *core.Sig) *core.Sig {
	s.Add("tok", t.name)
	if t.name == "rouge" {
		s.YesNo("stem", t.stem)
	}
	return s.YesNo("lc", t.lower)
}

// signature renders the text options for the memo key.
func (t textOpts) signature() string {
	s := "|tok:" + t.name
	if t.name == "rouge" {
		s += "|stem:" + yesNo(t.stem)
	}
	return s + "|lc:" + yesNo(t.lower)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// text tokenizes one string with the buffers of sc. The tokens are valid until the next
// call (they are interned at once) and may alias sc's rouge tokenizer until sc.reset.
func (t textOpts) text(sc *scratch, s string) []string {
	if t.lower {
		s = tokenize.PyLower(s)
	}
	if t.fn == nil {
		sc.toks = t.rouge(sc).Append(sc.toks[:0], s)
	} else {
		sc.toks = t.fn(sc.toks[:0], s)
	}
	return sc.toks
}

// rouge returns sc's rouge tokenizer (its stem cache persists across examples, and its
// vocabulary is the metric's).
func (t textOpts) rouge(sc *scratch) *tokenize.RougeTokenizer {
	if sc.rt == nil {
		if t.vocab == nil { // options not from readTextOpts
			sc.rt = tokenize.NewRougeTokenizer(t.stem)
		} else {
			sc.rt = tokenize.NewRougeTokenizerWith(t.vocab)
		}
	}
	return sc.rt
}

// lowered is s lowercased when the options ask for it.
func (t textOpts) lowered(s string) string {
	if t.lower {
		return tokenize.PyLower(s)
	}
	return s
}

// tokens returns pre-tokenized input as is, lowercased when asked. It never re-tokenizes.
func (t textOpts) tokens(toks []string) []string {
	if !t.lower {
		return toks
	}
	out := make([]string, len(toks))
	for i, s := range toks {
		out[i] = tokenize.PyLower(s)
	}
	return out
}
