package core

import "strings"

// ClosestName returns (for "did you mean" hints in config and option errors) the candidate nearest to word by edit distance (insertions, deletions,
// substitutions and transpositions of adjacent letters, case ignored), and whether one is
// near enough to suggest: at most 2 edits, or a third of the word's length for long words.
// Ties go to the earlier candidate, so a sorted list gives a stable answer. It does not
// retain candidates; safe for concurrent use.
func ClosestName(word string, candidates []string) (string, bool) {
	w := strings.ToLower(word)
	limit := max(2, len([]rune(w))/3)
	best, bestD := "", limit+1
	for _, c := range candidates {
		if c == word {
			continue
		}
		if d := distance(w, strings.ToLower(c)); d < bestD {
			best, bestD = c, d
		}
	}
	return best, best != ""
}

// DidYouMean is "; did you mean %q?" for the closest candidate, or "" when none is near.
func DidYouMean(word string, candidates []string) string {
	if c, ok := ClosestName(word, candidates); ok {
		return "; did you mean \"" + c + "\"?"
	}
	return ""
}

// distance is the optimal string alignment distance between a and b, by rune.
func distance(a, b string) int {
	s, t := []rune(a), []rune(b)
	// Three rows suffice: the transposition case looks two rows back.
	prev2 := make([]int, len(t)+1)
	prev := make([]int, len(t)+1)
	cur := make([]int, len(t)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(s); i++ {
		cur[0] = i
		for j := 1; j <= len(t); j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && s[i-1] == t[j-2] && s[i-2] == t[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(t)]
}
