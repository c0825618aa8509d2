package offline

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/transcript"
	"github.com/checkup-dev/checkup/workers/analyzer"
	"github.com/checkup-dev/checkup/workers/textmatch"
)

// Thresholds of the repetition rules. Similarity is the Jaccard similarity of rune
// bigrams (textmatch.Similarity), which works on Chinese as well as English. Short
// messages ("Thank you!") repeat naturally and are not compared; length is measured in
// textWeight, where a CJK character counts as two.
const (
	repeatMinWeight      = 40   // assistant messages shorter than this are not compared
	repeatSimilarity     = 0.85 // near-identical assistant messages
	userRepeatMinWeight  = 20
	userRepeatSimilarity = 0.7
)

// repeatedMessages reports an assistant message in words that is near-identical to an
// earlier one: the agent is stuck in a loop. A message that states other figures than
// the earlier one (a price, a date, a count) is not a repeat: it corrects or updates it.
func (a *Analyzer) repeatedMessages(v *view) []analyzer.Finding {
	earlier, later, sim := v.agentRepeat()
	if earlier == 0 {
		return nil
	}
	desc := locale.Msg("finding.agent_repeats_almost", "Turn", digits(later), "Earlier", digits(earlier), "Similar", similar(sim))
	if strings.TrimSpace(v.fold(later).Text) == strings.TrimSpace(v.fold(earlier).Text) {
		desc = locale.Msg("finding.agent_repeats", "Turn", digits(later), "Earlier", digits(earlier))
	}
	return []analyzer.Finding{ruleRepeatedMessage.finding(v, desc, 0, v.quoteTurn(later), v.quoteTurn(earlier))}
}

// userRepeats reports a user who has to say the same thing twice, or says they are
// repeating or correcting themselves ("as I said", "there's some confusion", "我已经说过").
// The evidence is the user's words first (what the finding points at), then the
// exchange around them: what the agent said that they answer so, and for a repeat
// their first words. Words the agent's reply explains are no repeat (pushback,
// answersAgent): the user insisting on what the agent declined or ruled out has been
// understood, and a second "yes, cancel it" answers a second question.
func (a *Analyzer) userRepeats(v *view) []analyzer.Finding {
	for turn := 1; turn <= len(v.conv.Messages); turn++ {
		if v.role(turn) != transcript.RoleUser || a.pushback(v, turn) {
			continue
		}
		if m, ok := a.m.restate.Find(v.fold(turn)); ok {
			desc := locale.Msg("finding.user_restates", "Turn", digits(turn), "Quote", v.quotedAt(turn, v.quoteMatch(turn, m).Quote))
			return []analyzer.Finding{ruleUserRepeats.finding(v, desc, 0, v.withReplyBefore(turn, v.quoteMatch(turn, m))...)}
		}
	}
	q := pairQuestion{transcript.RoleUser, userRepeatMinWeight, userRepeatSimilarity, false}
	earlier, later, sim := v.findSimilarPair(q, func(turn int) bool { return a.pushback(v, turn) || a.answersAgent(v, turn) })
	if earlier == 0 {
		return nil
	}
	desc := locale.Msg("finding.user_repeats", "Turn", digits(later), "Earlier", digits(earlier), "Similar", similar(sim))
	ev := append(v.withReplyBefore(later, v.quoteTurn(later)), v.quoteTurn(earlier))
	return []analyzer.Finding{ruleUserRepeats.finding(v, desc, 0, ev...)}
}

// pushback reports whether the user's turn follows the agent declining or stating a
// limit in its last words before it ("Refunds must go to the original payment
// method"): what the user says again then insists, it does not correct a
// misunderstanding.
func (a *Analyzer) pushback(v *view, turn int) bool {
	reply := v.replyBefore(turn)
	if reply == 0 {
		return false
	}
	if slices.ContainsFunc(v.declines, func(d decline) bool { return d.turn == reply }) {
		return true
	}
	for m := range a.m.limit.All(v.fold(reply)) {
		if !a.conditional(v.fold(reply).Orig, m.Start) {
			return true
		}
	}
	return false
}

// answersAgent reports whether the user's turn explicitly agrees to a question the
// agent's last words before it asked: a confirmation like an earlier one answers a
// new question, it repeats nothing.
func (a *Analyzer) answersAgent(v *view, turn int) bool {
	reply := v.replyBefore(turn)
	return reply > 0 && asksUser(v.msg(reply).Content) && a.confirms(v.fold(turn))
}

// replyBefore is the agent's last turn in words before the user's turn, 0 when the
// user spoke last or the agent has not said anything yet.
func (v *view) replyBefore(turn int) int {
	for t := turn - 1; t >= 1; t-- {
		switch {
		case v.role(t) == transcript.RoleUser:
			return 0
		case v.role(t) == transcript.RoleAssistant && v.hasText(t):
			return t
		}
	}
	return 0
}

// similar is a similarity 0..1 as a description quotes it, a whole percent ("93%").
func similar(sim float64) locale.Text {
	return locale.Lit(fmt.Sprintf("%.0f%%", sim*100))
}

// withReplyBefore is e, a quote of the user's turn, and then the agent's last words
// before it: what the user was answering. A finding's first quote is what it points
// at (its Action's example); the page shows its quotes in turn order, as an exchange.
func (v *view) withReplyBefore(turn int, e analyzer.Evidence) []analyzer.Evidence {
	if t := v.replyBefore(turn); t > 0 {
		return []analyzer.Evidence{e, v.quoteTurn(t)}
	}
	return []analyzer.Evidence{e}
}

// agentRepeat is the first agent message that repeats an earlier one: near-identical
// and stating the same figures, since one that states others (a price, a count)
// corrects or updates it. Two rules ask it.
func (v *view) agentRepeat() (earlier, later int, sim float64) {
	return v.similarPair(pairQuestion{transcript.RoleAssistant, repeatMinWeight, repeatSimilarity, true})
}

// similarPair finds the first message of q.role (in words, of at least q.minWeight)
// that is at least q.threshold similar to an earlier one of the same role (and, with
// q.sameFigures, states the same figures), once per view: two rules ask the same
// question. Messages whose lengths differ by more than the threshold allows are never
// near-identical, so only pairs of comparable length have their bigram sets built and
// compared.
func (v *view) similarPair(q pairQuestion) (earlier, later int, sim float64) {
	a, ok := v.pairs[q]
	if !ok {
		a.earlier, a.later, a.sim = v.findSimilarPair(q, nil)
		if v.pairs == nil {
			v.pairs = map[pairQuestion]pairAnswer{}
		}
		v.pairs[q] = a
	}
	return a.earlier, a.later, a.sim
}

// pairQuestion and pairAnswer are similarPair's arguments and results.
type (
	pairQuestion struct {
		role        transcript.Role
		minWeight   int
		threshold   float64
		sameFigures bool
	}
	pairAnswer struct {
		earlier, later int
		sim            float64
	}
)

// findSimilarPair is similarPair's search, over the messages of q.role in order. A
// user's consecutive messages are one turn: one sent twice in a row, as chats do, is
// no repeat; the user repeats what they said before the agent's answer. A message
// notRepeat reports (nil: none) is never the later of a pair.
func (v *view) findSimilarPair(q pairQuestion, notRepeat func(turn int) bool) (earlier, later int, sim float64) {
	role, minWeight, threshold := q.role, q.minWeight, q.threshold
	type seen struct {
		turn, runes int
		answer      int                  // the agent messages before it, for a user's turn
		sh          textmatch.ShingleSet // built on first comparison
	}
	var prev []*seen
	answers := 0
	for turn := 1; turn <= len(v.conv.Messages); turn++ {
		if v.role(turn) == transcript.RoleAssistant {
			answers++
		}
		if v.role(turn) != role {
			continue
		}
		text := v.fold(turn).Text
		weight, runes := textWeight(text)
		if weight < minWeight {
			continue
		}
		cur := &seen{turn: turn, runes: runes, answer: answers}
		if len(prev) > 0 && notRepeat != nil && notRepeat(turn) {
			prev = append(prev, cur)
			continue
		}
		for _, p := range prev {
			if role == transcript.RoleUser && p.answer == cur.answer {
				continue // the same turn of the user's
			}
			if float64(min(p.runes, cur.runes)) < threshold*float64(max(p.runes, cur.runes)) {
				continue
			}
			if p.sh == nil {
				p.sh = textmatch.FoldedShingles(v.fold(p.turn).Text, p.runes)
			}
			if cur.sh == nil {
				cur.sh = textmatch.FoldedShingles(text, cur.runes)
			}
			if s, ok := p.sh.JaccardAtLeast(cur.sh, threshold); ok && (!q.sameFigures || sameFigures(v.fold(p.turn).Text, text)) {
				return p.turn, turn, s
			}
		}
		prev = append(prev, cur)
	}
	return 0, 0, 0
}

// textWeight is the length of s with CJK characters counted twice (one Chinese
// character says about as much as two Latin letters and a space), and its length in
// runes, counted in the same pass.
func textWeight(s string) (weight, runes int) {
	for _, r := range s {
		runes++
		if r >= 0x2E80 && unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) {
			weight++
		}
	}
	return weight + runes, runes
}

// sameFigures reports whether a and b state the same figures, in the same order: runs
// of digits, written with thousands separators or not ("1,255" is "1255") and with
// trailing zeros after a point or not ("25.50" is "25.5").
func sameFigures(a, b string) bool {
	for i, j := 0, 0; ; {
		var x, y string
		x, i = nextFigure(a, i)
		y, j = nextFigure(b, j)
		if x != y {
			return false
		}
		if x == "" {
			return true
		}
	}
}

// nextFigure returns the first figure of s from i on, as sameFigures compares it, and
// where it ends; "" at the end of s.
func nextFigure(s string, i int) (string, int) {
	digit := func(k int) bool { return k < len(s) && s[k] >= '0' && s[k] <= '9' }
	for i < len(s) && !digit(i) {
		i++
	}
	var b strings.Builder
	point := false
	for ; i < len(s); i++ {
		switch c := s[i]; {
		case digit(i):
			b.WriteByte(c)
		case c == ',' && !point && digit(i+1) && digit(i+2) && digit(i+3) && !digit(i+4):
			// a thousands separator: dropped
		case c == '.' && !point && digit(i+1):
			point = true
			b.WriteByte(c)
		default:
			return trimFraction(b.String(), point), i
		}
	}
	return trimFraction(b.String(), point), i
}

// trimFraction drops the zeros that end a figure's fraction, and its point with them.
func trimFraction(f string, point bool) string {
	if !point {
		return f
	}
	return strings.TrimSuffix(strings.TrimRight(f, "0"), ".")
}
