package ingest

import (
	"encoding/json"
	"hash/fnv"

	"github.com/checkup-dev/checkup/db/locale"
	"github.com/checkup-dev/checkup/db/transcript"
)

// rebuild builds one conversation from its calls, read in time order. Each call sends
// the model the history so far (system prompt, earlier turns) and gets new messages
// back, so the conversation is the first call's messages followed, for every later
// call, by what it holds that the conversation does not end with yet: the longest tail
// of the conversation that the call's messages start with is not repeated. A call that
// carries no history (only the new user turn) simply adds its messages, and one that
// carries a window of the last turns adds only what follows the window.
type rebuild struct {
	p     *parser
	id    string
	loc   locale.Text
	msgs  []transcript.Message
	hash  []uint64
	bytes int

	metadata     json.RawMessage
	metadataRank int // of the record the metadata came from; lower wins
	labels       []labelCandidate
}

func newRebuild(p *parser, id string, loc locale.Text) *rebuild {
	return &rebuild{p: p, id: id, loc: loc, metadataRank: metadataRank(callModel) + 1}
}

// add merges one call into the conversation.
func (r *rebuild) add(c *llmCall) error {
	if len(c.metadata) > 0 && metadataRank(c.kind) < r.metadataRank {
		r.metadata, r.metadataRank = c.metadata, metadataRank(c.kind)
	}
	r.labels = append(r.labels, c.labels...)
	input := append(append([]transcript.Message(nil), c.system...), c.input...)
	output := c.output
	// Some exporters return the whole state as the output (input and reply): keep the
	// reply only.
	if len(output) > len(c.input) && len(c.input) > 0 && sameMessages(output[:len(c.input)], c.input) {
		output = output[len(c.input):]
	}
	call := append(input, output...)
	if len(call) == 0 {
		return nil
	}
	hashes := make([]uint64, len(call))
	for i := range call {
		hashes[i] = messageHash(&call[i])
	}
	// A system prompt every call repeats is not repeated in the conversation.
	skip := 0
	for skip < len(call) && skip < len(r.msgs) && call[skip].Role == transcript.RoleSystem &&
		r.msgs[skip].Role == transcript.RoleSystem && hashes[skip] == r.hash[skip] {
		skip++
	}
	call, hashes = call[skip:], hashes[skip:]
	o := overlap(r.hash[skip:], hashes)
	for i := o; i < len(call); i++ {
		if len(r.msgs) >= r.p.lim.MaxMessages {
			return r.p.tooManyMessages(r.loc)
		}
		if r.bytes += messageBytes(&call[i]); r.bytes > r.p.lim.MaxLineBytes {
			return r.p.conversationTooLarge(r.loc)
		}
		r.msgs = append(r.msgs, call[i])
		r.hash = append(r.hash, hashes[i])
	}
	return nil
}

// metadataRank orders where a conversation's metadata is taken from: the record around
// the model calls (a Langfuse trace, a LangSmith root run) first, then a metadata-only
// record, then the first model call that has some.
func metadataRank(k callKind) int {
	switch k {
	case callTop:
		return 0
	case callMeta:
		return 1
	}
	return 2
}

// overlap returns the length of the longest tail of have that next starts with.
func overlap(have, next []uint64) int {
	for o := min(len(have), len(next)); o > 0; o-- {
		tail := have[len(have)-o:]
		if tail[0] != next[0] {
			continue
		}
		same := true
		for i := 1; i < o; i++ {
			if tail[i] != next[i] {
				same = false
				break
			}
		}
		if same {
			return o
		}
	}
	return 0
}

// sameMessages compares two message lists as the rebuild does.
func sameMessages(a, b []transcript.Message) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if messageHash(&a[i]) != messageHash(&b[i]) {
			return false
		}
	}
	return true
}

// messageHash identifies a message by what the model saw: role, text, calls and the
// call a result answers. The name of a tool result is left out, since exporters that
// record it in one call's output and not in the next call's input would otherwise make
// the same turn look different.
func messageHash(m *transcript.Message) uint64 {
	h := fnv.New64a()
	write := func(s string) {
		_, _ = h.Write([]byte(s))
		_, _ = h.Write([]byte{0})
	}
	write(string(m.Role))
	write(m.Content)
	write(m.ToolCallID)
	for _, tc := range m.ToolCalls {
		write(tc.ID)
		write(tc.Name)
		write(tc.Arguments)
	}
	return h.Sum64()
}

// emit hands the rebuilt conversation to the parser. A trace whose records carry no
// messages (spans of other work, scores of traces not in the file) is no conversation:
// emitted is false.
func (r *rebuild) emit() (emitted bool, err error) {
	if len(r.msgs) == 0 {
		return false, nil
	}
	nameResults(r.msgs)
	if err := r.p.begin(r.loc); err != nil {
		return false, err
	}
	c := transcript.Conversation{ID: r.id, Messages: r.msgs, Metadata: r.metadata}
	cands := append(metadataCandidates("metadata.", r.metadata), r.labels...)
	return true, r.p.add(r.loc, c, cands)
}
