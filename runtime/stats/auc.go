package stats

import (
	"fmt"
	"math"
	"sort"
)

// AUC is the area under the ROC curve of scores for telling positives
// (labels true) from negatives: the Mann–Whitney probability that a random
// positive scores higher than a random negative, ties counting one half.
// It sorts once (O(n log n)) and gives tied scores their average rank.
// Scores may be ±Inf; NaN, or a class with no members, is an error.
func AUC(scores []float64, positive []bool) (float64, error) {
	if len(scores) != len(positive) {
		return 0, fmt.Errorf("%d scores but %d labels", len(scores), len(positive))
	}
	var np, nn float64
	for i, s := range scores {
		if math.IsNaN(s) {
			return 0, fmt.Errorf("score %d is NaN", i+1)
		}
		if positive[i] {
			np++
		} else {
			nn++
		}
	}
	if np == 0 || nn == 0 {
		return 0, fmt.Errorf("the labels need both classes: %v positive, %v negative", np, nn)
	}
	idx := make([]int, len(scores))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return scores[idx[a]] < scores[idx[b]] })
	// Sum of the positives' ranks (1-based, ties averaged).
	rankSum := 0.0
	for i := 0; i < len(idx); {
		j := i
		for j < len(idx) && scores[idx[j]] == scores[idx[i]] {
			j++
		}
		avg := float64(i+1+j) / 2 // mean of ranks i+1..j
		for _, t := range idx[i:j] {
			if positive[t] {
				rankSum += avg
			}
		}
		i = j
	}
	return (rankSum - np*(np+1)/2) / (np * nn), nil
}
