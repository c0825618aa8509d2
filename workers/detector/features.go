package detector

import (
	"github.com/checkup-dev/checkup/db/transcript"
)

// The namespaces of a term: whose words, or which kind of event. A term is its
// namespace's prefix and the word, pair or name ("user:refund", "user:退款", "tool:cancel_order").
const (
	userWords  = "user:"
	agentWords = "agent:"
	toolCalled = "tool:"
	toolFailed = "tool_error:"
	category   = "finding:"
)

// maxTermsPerSide bounds the distinct words and pairs one side of one conversation
// contributes: a very long conversation says no more about its outcome than its first
// few thousand words do, and the bound keeps a document's size bounded.
const maxTermsPerSide = 1500

// Doc is what the detector reads of one conversation: how often each term occurs, and
// its sizes.
type Doc struct {
	Terms  map[string]int32
	Counts Counts
	// AnalyzerScore is the diagnosis' own failure score, 0 to 1 (the offline rules'
	// or the model's).
	AnalyzerScore float64
}

// Counts are a conversation's sizes, the one-feature baselines the detector must beat.
type Counts struct {
	Messages   int // messages but the system prompt
	UserTurns  int
	ToolCalls  int
	Characters int // of every message's content, tool results included
}

// Extract reads the terms and sizes of one conversation. errorTurns are the turns of
// tool results that were errors (as risk screening flags them); categories (one per
// finding) and analyzerScore are what the diagnosis said of it.
func Extract(conv transcript.Conversation, errorTurns []int, categories []string, analyzerScore float64) Doc {
	d := Doc{Terms: map[string]int32{}, AnalyzerScore: analyzerScore}
	errored := make(map[int]bool, len(errorTurns))
	for _, t := range errorTurns {
		errored[t] = true
	}
	var tools transcript.ToolNames
	user, agent := newSide(d.Terms, userWords), newSide(d.Terms, agentWords)
	for i, m := range conv.Messages {
		d.Counts.Characters += len([]rune(m.Content))
		if m.Role != transcript.RoleSystem {
			d.Counts.Messages++
		}
		switch m.Role {
		case transcript.RoleUser:
			d.Counts.UserTurns++
			user.add(m.Content)
		case transcript.RoleAssistant:
			agent.add(m.Content)
			for _, tc := range m.ToolCalls {
				d.Counts.ToolCalls++
				d.Terms[toolCalled+tc.Name]++
			}
			tools.Called(m)
		case transcript.RoleTool:
			if name := tools.Answered(m); errored[i+1] && name != "" {
				d.Terms[toolFailed+name]++
			}
		}
	}
	for _, c := range categories {
		d.Terms[category+c]++
	}
	return d
}

// side counts one speaker's words, and in CJK text the pairs of adjacent characters
// (what a word is there), into a document's terms, up to maxTermsPerSide distinct ones.
// Words elsewhere are not paired: on an agent's few dozen labelled conversations the
// pairs of words did not separate failures on new scenarios any better, and they more
// than double a document's terms.
type side struct {
	terms    map[string]int32
	prefix   string
	distinct int
	buf      []byte
}

func newSide(terms map[string]int32, prefix string) *side {
	return &side{terms: terms, prefix: prefix}
}

// add counts the tokens of text and the pairs of adjacent CJK characters; a pair never
// spans a break (punctuation, a space, a change of script).
func (s *side) add(text string) {
	prev, prevCJK := "", false
	for tok, cjk := range eachToken(text) {
		if tok == "" {
			prev = ""
			continue
		}
		s.count(tok)
		if prev != "" && prevCJK && cjk {
			s.count(prev + tok)
		}
		prev, prevCJK = tok, cjk
	}
}

// count adds one occurrence of term, unless the side is full and the term new.
func (s *side) count(term string) {
	s.buf = append(append(s.buf[:0], s.prefix...), term...)
	if n, ok := s.terms[string(s.buf)]; ok {
		s.terms[string(s.buf)] = n + 1
		return
	}
	if s.distinct >= maxTermsPerSide {
		return
	}
	s.distinct++
	s.terms[string(s.buf)] = 1
}
