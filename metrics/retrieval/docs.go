package retrieval

import (
	"fmt"

	"github.com/evalstream/evalstream/metrics/core"
)

const inputNote = "One record per query: prediction = the retrieved document ids in rank order (list<string>, or list of integers read as their decimal strings, as str(id) would give pytrec_eval); judgments = references (a list of relevant ids, grade 1; a repeated id is one judgment) or relevance (a map id → integer grade: a JSON object, an Arrow/Parquet map<string|integer, number>, a list<struct<key, value>>, or a struct of numbers, as pandas, polars and HF datasets store dicts: its non-null fields), not both. " +
	"The mean is over the queries trec_eval evaluates: a query with no judged document (empty references or relevance) is left out (details.unjudged_queries); a query whose judged documents are all below relevance_threshold, or with an empty ranking, counts 0. " +
	"Per-query scores are computed with trec_eval's operations in its order and summed exactly. Null with reason \"no records\" or \"no judged queries\". details: queries, unjudged_queries, measure (the trec_eval measure name)"

var invalid = []string{
	"missing field: prediction absent or null; neither references nor relevance given",
	"wrong type: prediction or references not a list of string or integer ids (a non-integral or > 2^53 number); relevance not a map of numbers; a non-integral grade (trec_eval qrels are integers)",
	"duplicate id: a document retrieved twice in one ranking, or judged twice in one relevance map (an Arrow/Parquet map may repeat a key; a JSON object keeps its last value, as every JSON reader does)",
	"ambiguous relevance: both references and relevance are set on one record",
	"non-finite value: a NaN or ±Inf grade or integer id",
	"invalid utf-8: a document id that is not valid UTF-8",
}

const memory = "about 100 bytes per state (two counts and an exact sum), whatever the number of queries; per worker, a reused scratch set of one record's judged and retrieved ids. Speed: 1M queries of 10 to 29 ranked and 1 to 8 judged ids, ndcg (k 10) + mrr, in 0.7 CPU-s (pytrec_eval: 9 CPU-s; BenchmarkNDCG10MRR1M, testdata/goldens/bench_retrieval.py)"

// Docs describes every metric type of this package, for `evalstream list`.
func Docs() []core.Doc {
	k := func(required bool) core.OptionDoc {
		if required {
			return core.OptionDoc{Name: "k", Default: "required", Help: fmt.Sprintf("the cutoff, 1..%d: only the first k retrieved documents count (trec_eval's measure_k); required", MaxK)}
		}
		return core.OptionDoc{Name: "k", Default: "none", Help: fmt.Sprintf("none (the whole ranking) or a cutoff 1..%d", MaxK)}
	}
	threshold := core.OptionDoc{Name: "relevance_threshold", Default: "1", Help: "trec_eval's relevance_level (-l), >= 1: a judged document is relevant when its grade is >= this"}
	doc := func(typ, value string, required bool, th core.OptionDoc) core.Doc {
		return core.Doc{
			Type:      typ,
			Direction: core.DirectionHigher,
			Presets:   []string{compatTrecEval},
			Value:     value + ". " + inputNote,
			Options:   []core.OptionDoc{k(required), th},
			Invalid:   invalid,
			Memory:    memory,
		}
	}
	ndcgThreshold := threshold
	ndcgThreshold.Help = "accepted for a uniform config and ignored: trec_eval's ndcg gain is the grade itself (grades <= 0 gain nothing), whatever the relevance level"
	return []core.Doc{
		doc("mrr", "mean reciprocal rank: trec_eval recip_rank, 1/rank of the first relevant document (0 if none); with k, on the ranking cut to k", false, threshold),
		doc("ndcg", "mean nDCG: trec_eval ndcg, or ndcg_cut_k with k: Σ grade/log2(rank + 1) over the ranking (cut to k) divided by the same over the judged grades in decreasing order (cut to k); 0 when no grade is positive", false, ndcgThreshold),
		doc("map", "mean average precision: trec_eval map, or map_cut_k with k: Σ precision at the rank of each relevant retrieved document (within k) / the number of relevant documents (all of them, retrieved or not)", false, threshold),
		doc("precision_at_k", "mean precision at k: trec_eval P_k, relevant documents in the first k / k (k even when fewer are retrieved)", true, threshold),
		doc("recall_at_k", "mean recall at k: trec_eval recall_k, relevant documents in the first k / all relevant documents (0 when the query has none)", true, threshold),
		doc("hit_rate", "hit rate (success) at k: trec_eval success_k, 1 when a relevant document is in the first k, else 0", true, threshold),
	}
}
