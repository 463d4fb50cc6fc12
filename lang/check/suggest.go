package check

// Closest returns the candidate nearest to name by edit distance when it is
// near enough to be a likely typo, or "". Ties go to the earlier candidate.
func Closest(name string, candidates []string) string {
	best, bestD := "", 1<<30
	limit := max(1, len([]rune(name))/3)
	for _, c := range candidates {
		if c == name {
			continue
		}
		d := editDistance(name, c)
		if d <= limit && d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, counted in runes.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
