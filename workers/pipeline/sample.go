package pipeline

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"slices"
	"strconv"
)

// SelectForDiagnosis decides which conversations are diagnosed when MAX_DIAGNOSED caps
// the budget. flagged[i] says whether the conversation at position i (its seq in
// upload order) has risk flags that must be read. Every such conversation is selected
// — even when they alone exceed the budget, because a risk must never go unread to
// save money —
// and the remaining room is filled with unflagged conversations in the order of
// sha256(taskID + ":" + i): a sample that is deterministic for a task (a resumed or
// taken-over task picks the same ones) and different between tasks. When the agent's
// detector scored the conversations (scores[i], nil without one), the room goes to
// the likeliest failures first, all but a RandomShare of it, which is still drawn from
// the sample: the model's budget goes where the failures are, and the random part
// keeps a fair sample to check the detector's estimate on. budget <= 0 means no cap:
// everything is selected.
func SelectForDiagnosis(taskID string, flagged []bool, scores []float64, budget int) []bool {
	selected := make([]bool, len(flagged))
	var rest []int
	for i, f := range flagged {
		if f {
			selected[i] = true
		} else {
			rest = append(rest, i)
		}
	}
	room := len(rest)
	if budget > 0 {
		room = min(room, budget-(len(flagged)-len(rest)))
	}
	if room <= 0 {
		return selected
	}
	if scores != nil && room < len(rest) {
		byScore := slices.Clone(rest)
		slices.SortStableFunc(byScore, func(a, b int) int { return cmp.Compare(scores[b], scores[a]) })
		top := room - room/RandomShare
		for _, i := range byScore[:top] {
			selected[i] = true
		}
		rest = slices.DeleteFunc(rest, func(i int) bool { return selected[i] })
		room -= top
	}
	if room < len(rest) {
		keys := make(map[int][32]byte, len(rest))
		for _, i := range rest {
			keys[i] = sha256.Sum256([]byte(taskID + ":" + strconv.Itoa(i)))
		}
		slices.SortFunc(rest, func(a, b int) int {
			ka, kb := keys[a], keys[b]
			return bytes.Compare(ka[:], kb[:])
		})
	}
	for _, i := range rest[:room] {
		selected[i] = true
	}
	return selected
}

// RandomShare is the part of a capped diagnosis budget (one in RandomShare) that is
// drawn at random even when a detector says where the failures are.
const RandomShare = 5
