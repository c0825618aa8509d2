package risk

import (
	"regexp"
	"strings"

	"github.com/checkup-dev/checkup/workers/textmatch"
)

// harmfulRules tell abuse of a person from frustration at a thing. Words that insult
// or threaten whoever they are said to (a person noun such as "idiot" or 白痴, "shut
// up", "kill you") always count. A disparaging adjective ("stupid", "dumb", "useless",
// 蠢, 笨, 傻, 没用) counts only when it is said of a person or the agent: predicated of
// one ("you're stupid", "this bot is useless", 你真蠢), attached to one ("you stupid
// bot", 没用的客服) or said to the addressee ("You useless thing!"). "Fine, do it your
// stupid way", "this stupid system" and 这规定太蠢了 are frustration, not abuse.
type harmfulRules struct {
	always textmatch.PhraseSet
	// ofPerson matches a disparaging adjective said of a person, in folded text.
	ofPerson *regexp.Regexp
}

// The parts ofPerson is built from, kept short and general: who can be insulted
// (the addressee, the agent, a third person), the words that may stand between them and
// the adjective, and the adjectives.
const (
	personSubjectEN = `you're|youre|you are|you r|u r|are you|(?:bot|robot|chatbot|agent|assistant|ai|he|she) is|he's|she's`
	intensifierEN   = `so|such|a|an|the|most|really|very|that|totally|completely|just|being|pretty|absolutely`
	adjectiveEN     = `stupid|dumb|useless`
	personNounEN    = `bot|robot|chatbot|agent|assistant|ai|person`
	personZH        = `你们|你|您|机器人|客服|助手|他|她`
	intensifierZH   = `真是|也太|怎么这么|这么|那么|就是|是不是|可真|真|好|太|很|是|非常|有点`
	adjectiveZH     = `蠢|笨|傻|没用`
	// A Chinese adjective ends its clause (particles and an intensifying 死 aside), so
	// 你没用优惠券 ("you did not use the coupon") and 您好笨重的行李 are not insults.
	clauseEndZH = `死?[了啊呀吧吗的哦]*(?:[!?.,;:~。、\s]|$)`
)

func newHarmfulRules() harmfulRules {
	return harmfulRules{
		always: textmatch.NewPhraseSet(
			"idiot", "moron", "shut up", "kill you", "i will hurt you", "i'll hurt you", "you will regret",
			"白痴", "蠢货", "笨蛋", "废物", "去死", "杀了你", "闭嘴", "弄死你",
		),
		ofPerson: regexp.MustCompile(
			`\b(?:` + personSubjectEN + `)(?: (?:` + intensifierEN + `))* (?:` + adjectiveEN + `)\b` +
				`|\b(?:` + adjectiveEN + `) (?:` + personNounEN + `)\b` +
				`|(?:^|[!?.,;:] )(?:you|u) (?:` + adjectiveEN + `)\b` +
				`|(?:` + personZH + `)(?:` + intensifierZH + `)*(?:` + adjectiveZH + `)` + clauseEndZH +
				`|(?:` + adjectiveZH + `)的?(?:机器人|客服|助手)`),
	}
}

// find returns the first harmful span of f: a word that always counts or an adjective
// said of a person, whichever comes first.
func (h harmfulRules) find(f textmatch.Folded) (textmatch.Match, bool) {
	mt, ok := h.always.Find(f)
	if !mentionsAdjective(f.Text) {
		return mt, ok
	}
	if loc := h.ofPerson.FindStringIndex(f.Text); loc != nil {
		start, end := f.Span(loc[0], loc[1])
		if !ok || start < mt.Start {
			return textmatch.Match{Start: start, End: end, Phrase: f.Text[loc[0]:loc[1]]}, true
		}
	}
	return mt, ok
}

// mentionsAdjective reports whether folded text holds one of the adjectives ofPerson
// needs: most turns hold none and are spared running it.
func mentionsAdjective(text string) bool {
	for _, a := range []string{"stupid", "dumb", "useless", "蠢", "笨", "傻", "没用"} {
		if strings.Contains(text, a) {
			return true
		}
	}
	return false
}
