package cluster

import "github.com/checkup-dev/checkup/workers/textmatch"

// TitleMatch says whether two cluster titles of one type and category name the same
// issue, by the rules Build groups and merges findings with: titles equal once folded
// (case, width and accents aside), titles whose rune bigrams overlap at TitleThreshold
// or more, or titles whose stemmed content terms, without ids, numbers and the parties
// every finding speaks of, overlap at MergeThreshold or more. score (0..1: 1 for folded
// equals, else the mean of the two overlaps) orders several alike titles, the most
// alike first. It lets two runs of a diagnosis, clustered separately, be compared
// issue by issue.
func TitleMatch(a, b string) (score float64, alike bool) {
	if textmatch.FoldString(a) == textmatch.FoldString(b) {
		return 1, true
	}
	sim := textmatch.Similarity(a, b)
	overlap := dice(signature(a), signature(b))
	return min((sim+overlap)/2, 0.999), sim >= TitleThreshold || overlap >= MergeThreshold
}
