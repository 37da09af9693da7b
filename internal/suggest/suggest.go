// Package suggest words "did you mean" for a mistyped name: the edit distance between two
// names, and the phrase the command line, its flags and scenario files all end errors with.
package suggest

import "strings"

// Distance is the Levenshtein distance between a and b (bytes).
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// DidYouMean is "; did you mean A or B?" for names (each prefixed), "" for none.
func DidYouMean(names []string, prefix string) string {
	if len(names) == 0 {
		return ""
	}
	p := make([]string, len(names))
	for i, s := range names {
		p[i] = prefix + s
	}
	return "; did you mean " + strings.Join(p, " or ") + "?"
}
